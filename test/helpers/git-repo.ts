import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A scratch directory under the OS temp dir, resolved through symlinks. */
export function makeTempDir(prefix = 'stw-test-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

let sharedGlobalConfig: string | undefined;

/**
 * A global git config for tests: fixed identity, gc and signing off, branch `main`.
 * Tests point GIT_CONFIG_GLOBAL at it so the machine's own config never leaks in.
 */
export function testGitConfig(): string {
  if (sharedGlobalConfig) return sharedGlobalConfig;
  const dir = makeTempDir('stw-gitconfig-');
  const path = join(dir, 'gitconfig');
  writeFileSync(
    path,
    [
      '[user]',
      '\tname = Test User',
      '\temail = test@example.com',
      '[init]',
      '\tdefaultBranch = main',
      '[gc]',
      '\tauto = 0',
      '[maintenance]',
      '\tauto = false',
      '[commit]',
      '\tgpgSign = false',
      '[tag]',
      '\tgpgSign = false',
      '[core]',
      '\tautocrlf = false',
      '[advice]',
      '\tdetachedHead = false',
      '',
    ].join('\n'),
  );
  sharedGlobalConfig = path;
  return path;
}

/** Environment for git (and the CLI) in tests: hermetic config, fixed identity and dates. */
export function testEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'],
    HOME: dirname(testGitConfig()),
    GIT_CONFIG_GLOBAL: testGitConfig(),
    GIT_CONFIG_NOSYSTEM: '1',
    LC_ALL: 'C',
    TZ: 'UTC',
    NO_COLOR: '1',
    // The plan key's home: the test runner points it at a temp dir shared by the library
    // (in-process) and the CLI, so a plan stored by one is authenticated by the other.
    ...(process.env['XDG_STATE_HOME'] === undefined ? {} : { XDG_STATE_HOME: process.env['XDG_STATE_HOME'] }),
    // The scan cache's key, likewise shared by the library and the CLI.
    ...(process.env['XDG_CACHE_HOME'] === undefined ? {} : { XDG_CACHE_HOME: process.env['XDG_CACHE_HOME'] }),
    ...extra,
  };
}

/** Default commit date for tests; each commit advances one minute so order is stable. */
const EPOCH = Date.parse('2026-01-01T00:00:00Z');

export interface CommitOptions {
  /** Commit instant (RFC 3339 or Date). Defaults to a deterministic increasing time. */
  date?: string | Date;
  /** Allow a commit with no changes. */
  allowEmpty?: boolean;
}

export class TestRepo {
  private tick = 0;

  constructor(readonly dir: string) {}

  /** Runs git in the repository (or in `cwd`) and returns trimmed stdout. Throws on failure. */
  git(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): string {
    return execFileSync('git', args, {
      cwd: options.cwd ?? this.dir,
      env: testEnv(options.env),
      input: options.input,
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'pipe'],
      maxBuffer: 256 * 1024 * 1024,
    }).replace(/\n$/, '');
  }

  path(...parts: string[]): string {
    return join(this.dir, ...parts);
  }

  /** Writes files (creating folders) without staging them. */
  write(files: Record<string, string | Buffer>): void {
    for (const [rel, content] of Object.entries(files)) {
      const full = join(this.dir, rel);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, content);
    }
  }

  /** Writes and stages `files` (if any) and commits; returns the new commit id. */
  commit(message: string, files: Record<string, string | Buffer> = {}, options: CommitOptions = {}): string {
    this.write(files);
    const paths = Object.keys(files);
    if (paths.length > 0) this.git(['add', '--', ...paths]);
    const when =
      options.date === undefined
        ? new Date(EPOCH + this.tick++ * 60_000)
        : typeof options.date === 'string'
          ? new Date(options.date)
          : options.date;
    const iso = when.toISOString();
    const args = ['commit', '-q', '--no-verify', '-m', message];
    if (options.allowEmpty || paths.length === 0) args.push('--allow-empty');
    this.git(args, { env: { GIT_AUTHOR_DATE: iso, GIT_COMMITTER_DATE: iso } });
    return this.head();
  }

  /** Removes paths with `git rm` and commits. */
  remove(message: string, paths: string[], options: CommitOptions = {}): string {
    this.git(['rm', '-q', '-r', '--', ...paths]);
    return this.commit(message, {}, { ...options, allowEmpty: true });
  }

  /** Renames with `git mv` and commits. */
  move(message: string, from: string, to: string, options: CommitOptions = {}): string {
    mkdirSync(dirname(join(this.dir, to)), { recursive: true });
    this.git(['mv', from, to]);
    return this.commit(message, {}, { ...options, allowEmpty: true });
  }

  head(ref = 'HEAD'): string {
    return this.git(['rev-parse', '--verify', `${ref}^{commit}`]);
  }

  /** Creates a branch at `at` (default HEAD) without checking it out. */
  branch(name: string, at = 'HEAD'): string {
    this.git(['branch', name, at]);
    return this.head(`refs/heads/${name}`);
  }

  checkout(ref: string): void {
    this.git(['checkout', '-q', ref]);
  }

  /** Adds a linked worktree at `path` on a new or existing branch, or detached (`branch` omitted). */
  worktree(path: string, options: { branch?: string; newBranch?: string; at?: string } = {}): string {
    const args = ['worktree', 'add', '-q'];
    if (options.newBranch) args.push('-b', options.newBranch, path, options.at ?? 'HEAD');
    else if (options.branch) args.push(path, options.branch);
    else args.push('--detach', path, options.at ?? 'HEAD');
    this.git(args);
    return path;
  }

  refs(): string {
    return this.git(['for-each-ref', '--format=%(refname) %(objectname)']);
  }

  status(): string {
    return this.git(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignored']);
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface RepoOptions {
  objectFormat?: 'sha1' | 'sha256';
  /** Make an initial commit with a README. Default true. */
  initialCommit?: boolean;
  bare?: boolean;
}

/** Creates a real temporary git repository on branch `main` with a fixed identity. */
export function makeRepo(options: RepoOptions = {}): TestRepo {
  const dir = makeTempDir('stw-repo-');
  const repo = new TestRepo(dir);
  const args = ['init', '-q', '-b', 'main'];
  if (options.objectFormat === 'sha256') args.push('--object-format=sha256');
  if (options.bare) args.push('--bare');
  repo.git(args);
  if (options.initialCommit !== false && !options.bare)
    repo.commit('initial commit', { 'README.md': '# test\n' });
  return repo;
}
