/**
 * Real-jj test helpers. `npm run test:jj` puts the pinned jj first on PATH and names it
 * in STW_JJ; these helpers refuse to run against any other binary. Every jj call here
 * uses a hermetic config file and identity, never the developer's.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Deadline } from '../../src/core/deadline.js';
import type { JjCallContext } from '../../src/tidy/backends/jj/observe.js';
import { DEFAULT_PLAN_BOUNDS } from '../../src/tidy/types.js';
import { makeTempDir, testEnv } from '../helpers/git-repo.js';

/** The pinned jj's absolute path, from STW_JJ (set by scripts/test-jj.mjs). */
export function jjBinary(): string {
  const jj = process.env['STW_JJ'];
  if (jj === undefined || jj === '')
    throw new Error('STW_JJ is not set: run these tests with `npm run test:jj`');
  return jj;
}

let configFile: string | undefined;
/** A hermetic, empty jj user config for test-side jj calls. */
function jjTestConfig(): string {
  if (configFile === undefined) {
    const dir = makeTempDir('stw-jj-config-');
    configFile = join(dir, 'config.toml');
    writeFileSync(configFile, '');
  }
  return configFile;
}

/** The environment for test-side jj calls and for the CLI under test. */
export function jjTestEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return testEnv({
    PATH: `${dirname(jjBinary())}:${process.env['PATH'] ?? ''}`,
    JJ_CONFIG: jjTestConfig(),
    JJ_USER: 'Test User',
    JJ_EMAIL: 'test@example.invalid',
    ...extra,
  });
}

export class JjRepo {
  constructor(readonly dir: string) {}

  /** Runs the pinned jj in the repository and returns stdout (untrimmed). Throws on failure. */
  jj(args: string[], options: { cwd?: string } = {}): string {
    return execFileSync(jjBinary(), ['--no-pager', '--color=never', ...args], {
      cwd: options.cwd ?? this.dir,
      env: jjTestEnv(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }

  write(files: Record<string, string>): void {
    for (const [rel, content] of Object.entries(files)) {
      const full = join(this.dir, rel);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, content);
    }
  }

  /** `jj commit -m MESSAGE` after writing `files`; returns the new commit's id. */
  commit(message: string, files: Record<string, string> = {}): string {
    this.write(files);
    this.jj(['commit', '-m', message]);
    return this.jj(['log', '--no-graph', '-r', '@-', '-T', 'commit_id']).trim();
  }

  /** The current operation id. */
  op(): string {
    return this.jj(['op', 'log', '--no-graph', '-n1', '-T', 'id']).trim();
  }

  /** The whole operation log's ids, newest first (to prove that a command ran no operation). */
  opLog(): string {
    return this.jj(['--ignore-working-copy', 'op', 'log', '--no-graph', '-T', 'id ++ "\\n"']);
  }

  /** `commit_id` and `change_id` of one revision. */
  ids(revset: string): { commit: string; change: string } {
    const [commit, change] = this.jj([
      'log',
      '--no-graph',
      '-r',
      revset,
      '-T',
      'commit_id ++ " " ++ change_id',
    ])
      .trim()
      .split(' ');
    return { commit: commit as string, change: change as string };
  }

  /** Local bookmarks and their targets (`json(self)`), as a sorted list of lines. */
  bookmarkLines(): string[] {
    return this.jj([
      '--ignore-working-copy',
      'bookmark',
      'list',
      '--all-remotes',
      '-T',
      'json(self) ++ "\\n"',
    ])
      .split('\n')
      .filter((line) => line !== '')
      .sort();
  }

  cleanup(): void {
    rmSync(dirname(this.dir), { recursive: true, force: true });
  }
}

/** A new jj repository (`jj git init`, colocated unless `colocate` is false). */
export function makeJjRepo(options: { colocate?: boolean } = {}): JjRepo {
  const parent = makeTempDir('stw-jj-repo-');
  const dir = join(parent, 'repo');
  const args = ['git', 'init', options.colocate === false ? '--no-colocate' : '--colocate', dir];
  execFileSync(jjBinary(), args, { cwd: parent, env: jjTestEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  return new JjRepo(dir);
}

/**
 * Makes bookmark NAME of a colocated `repo` tracked with remote `origin`, whose URL is a
 * second local jj repository. `jj git fetch` needs git >= 2.41 (not every machine has it),
 * so the remote-tracking ref is written into the backing Git repository directly — at
 * the commit the remote repository's bookmark would bring — then imported and tracked.
 */
export function trackWithRemote(repo: JjRepo, name: string, commit: string): JjRepo {
  const remote = makeJjRepo({ colocate: false });
  repo.jj(['git', 'remote', 'add', 'origin', join(remote.dir, '.jj', 'repo', 'store', 'git')]);
  execFileSync('git', ['update-ref', `refs/remotes/origin/${name}`, commit], {
    cwd: repo.dir,
    env: testEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  repo.jj(['git', 'import']);
  repo.jj(['bookmark', 'track', name, '--remote=origin']);
  return remote;
}

/** A library-level jj call context in `repo`, with its own call counter and output bound. */
export function jjCallContext(repo: JjRepo, maxOutputBytes = DEFAULT_PLAN_BOUNDS.maxOutputBytes) {
  const counter = { calls: 0 };
  const ctx: JjCallContext = {
    cwd: repo.dir,
    env: jjTestEnv(),
    deadline: Deadline.after(30_000),
    bounds: { ...DEFAULT_PLAN_BOUNDS, maxOutputBytes },
    counter,
  };
  return { ctx, counter };
}

/** A run deadline the test controls: `remainingMs` says how much is left at each look. */
export function controlledDeadline(remainingMs: () => number): Deadline {
  const deadline = {
    remainingMs,
    get isExpired() {
      return remainingMs() <= 0;
    },
    capped: () => deadline,
  };
  return deadline as unknown as Deadline;
}
