/**
 * What a `check` read, observed cheaply enough to ask again before the next run
 * (docs/scanner-and-classifiers.md, "The check's result"): the HEAD commit, git's listing of
 * the work tree (index entries with their modes, blob ids and flags, and the untracked files
 * not ignored), the stat data of every listed file, and of the files read beside the listing
 * (the configs, the git dir's settings, the paths the run probed). Light on purpose: the
 * replay path loads this before anything of the scan.
 */
import { createHash } from 'node:crypto';
import { lstatSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve as resolvePath } from 'node:path';
import { excludesFileArgs, git, REPO_LAYOUT_ARGS, splitNul, userExcludesFile } from '../../core/git.js';

/** A file changed this close to the run's start may change again unseen (same timestamps): not kept. */
const RACY_MS = 2000;
/** Numbers kept per listed file: mode, size, modification and change times (ms), inode, device. */
const STAT_FIELDS = 6;

/** The repository around the run, and its HEAD commit. */
export interface RepoState {
  /** The work tree's toplevel, realpath'd: the project root of `check`. */
  root: string;
  gitDir: string;
  commonDir: string;
  head: string;
  /** The user's global excludes file (`core.excludesFile`, else git's default), as the scan's listing uses it. */
  excludesFile: string | undefined;
  /** The user's attributes file as `git check-attr` reads it (`attributesFileOf`). */
  attributesFile: string | undefined;
}

/** The inputs of one run, as stored beside its result. */
export interface RunInputs {
  head: string;
  /** SHA-256 of git's listing (`ls-files -v -s -o --exclude-standard`). */
  listing: string;
  /** The listed paths (root-relative), in listing order. */
  files: string[];
  /** `STAT_FIELDS` numbers per listed file, in the same order (all -1: absent). */
  stats: number[];
  /**
   * Absolute paths read beside the listing (configs, git settings, probed paths, and what
   * each listed symlink leads to) → signature.
   */
  extra: Record<string, string>;
}

/** The repository and HEAD around `cwd`; undefined outside a work tree, in a bare or shallow one, or before the first commit. */
export async function readRepoState(cwd: string): Promise<RepoState | undefined> {
  // Asked beside rev-parse: the answer holds for the root too unless cwd is elsewhere.
  const excludes = userExcludesFile(cwd);
  const attributes = attributesFileOf(cwd);
  const result = await git([...REPO_LAYOUT_ARGS, '--verify', '--quiet', 'HEAD^{commit}'], { cwd });
  if (result.kind !== 'exited' || result.code !== 0) return undefined;
  const [bare, shallow, gitDir, commonDir, , toplevel, head] = result.stdout.toString('utf8').split('\n');
  if (bare !== 'false' || shallow !== 'false' || !gitDir || !commonDir || !toplevel || !head)
    return undefined;
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(head)) return undefined;
  let root: string;
  try {
    root = realpathSync(toplevel);
  } catch {
    return undefined;
  }
  // A relative `core.excludesFile` is resolved against the folder asked from; the scan asks from the root.
  const excludesFile = realpathSync(cwd) === root ? await excludes : await userExcludesFile(root);
  // git gives no answer: what check-attr reads is unknown, so nothing is kept or replayed.
  const attributesFile = await attributes;
  if (attributesFile === null) return undefined;
  return {
    root,
    gitDir,
    commonDir,
    head,
    excludesFile,
    // A relative one is read from where check-attr runs: the root.
    attributesFile:
      attributesFile === undefined || isAbsolute(attributesFile)
        ? attributesFile
        : resolvePath(root, attributesFile),
  };
}

/** The HEAD commit now (undefined when it cannot be read). */
export async function readHead(root: string): Promise<string | undefined> {
  const result = await git(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { cwd: root });
  return result.kind === 'exited' && result.code === 0 ? result.stdout.toString('utf8').trim() : undefined;
}

/** Stat data, noting whether any was changed too recently to be trusted. */
export class Observer {
  racy = false;
  private readonly since: number;

  /** `startMs`: the run's start; `racyMs`: how recent a change is too recent to trust. */
  constructor(startMs: number, racyMs: number = RACY_MS) {
    this.since = startMs - racyMs;
  }

  /** Type, size, times, inode and device (`-` when absent); a symlink adds what it leads to. */
  sig = (path: string): string => {
    const own = this.statSig(path, false);
    if (!own.startsWith('l')) return own;
    return `${own}>${this.statSig(path, true)}`;
  };

  /** Appends `STAT_FIELDS` numbers for `path` (no link followed) to `out`; true when it is a symlink. */
  push(path: string, out: number[]): boolean {
    let info: import('node:fs').Stats | undefined;
    try {
      info = lstatSync(path, { throwIfNoEntry: false });
    } catch {
      info = undefined;
    }
    if (info === undefined) {
      out.push(-1, -1, -1, -1, -1, -1);
      return false;
    }
    this.note(info);
    out.push(info.mode, info.size, info.mtimeMs, info.ctimeMs, info.ino, info.dev);
    return info.isSymbolicLink();
  }

  /** True when `path`'s stat data is the `STAT_FIELDS` numbers at `at` in `stats`. */
  same(path: string, stats: readonly number[], at: number): boolean {
    let info: import('node:fs').Stats | undefined;
    try {
      info = lstatSync(path, { throwIfNoEntry: false });
    } catch {
      return false;
    }
    if (info === undefined) return stats[at] === -1;
    return (
      info.mode === stats[at] &&
      info.size === stats[at + 1] &&
      info.mtimeMs === stats[at + 2] &&
      info.ctimeMs === stats[at + 3] &&
      info.ino === stats[at + 4] &&
      info.dev === stats[at + 5]
    );
  }

  private note(info: import('node:fs').Stats): void {
    if (info.ctimeMs >= this.since || info.mtimeMs >= this.since) this.racy = true;
  }

  private statSig(path: string, follow: boolean): string {
    let info: import('node:fs').Stats | undefined;
    try {
      info = (follow ? statSync : lstatSync)(path, { throwIfNoEntry: false });
    } catch (error) {
      return `!${(error as NodeJS.ErrnoException).code ?? 'error'}`;
    }
    if (info === undefined) return '-';
    this.note(info);
    const kind = info.isSymbolicLink() ? 'l' : info.isDirectory() ? 'd' : info.isFile() ? 'f' : 'o';
    return `${kind}${info.mode}:${info.size}:${info.mtimeMs}:${info.ctimeMs}:${info.ino}:${info.dev}`;
  }
}

/** The files of the git dir a run depends on besides HEAD and the listing. */
export function gitDirInputs(repo: RepoState): string[] {
  const { gitDir, commonDir } = repo;
  return [
    join(gitDir, 'config.worktree'),
    join(commonDir, 'config'),
    join(commonDir, 'info', 'exclude'),
    join(commonDir, 'info', 'attributes'),
    join(commonDir, 'info', 'grafts'),
    join(commonDir, 'shallow'),
    join(commonDir, 'packed-refs'),
    join(commonDir, 'refs', 'replace'),
    join(commonDir, 'reftable'),
  ];
}

/**
 * The system's attributes file at its usual place: git reads it for every observation call
 * (only `GIT_ATTR_NOSYSTEM` would stop it); `linguist-generated` there holds a doc's findings back.
 */
export const SYSTEM_ATTRIBUTES_FILE = '/etc/gitattributes';

/**
 * The user's attributes file as an observation call reads it: `core.attributesFile` from the
 * repository's config (observation reads no global config; an `include.path` may set it),
 * else git's default under `$XDG_CONFIG_HOME` or `~/.config`; null when git gives no answer.
 */
async function attributesFileOf(cwd: string): Promise<string | null | undefined> {
  const result = await git(['config', '--path', '--get', 'core.attributesFile'], { cwd });
  if (result.kind !== 'exited' || (result.code !== 0 && result.code !== 1)) return null;
  const path = result.code === 0 ? result.stdout.toString('utf8').replace(/\n$/, '') : '';
  if (path !== '') return path;
  const xdg = process.env['XDG_CONFIG_HOME'];
  if (xdg !== undefined && xdg !== '') return join(xdg, 'git', 'attributes');
  const home = process.env['HOME'];
  return home !== undefined && home !== '' ? join(home, '.config', 'git', 'attributes') : undefined;
}

/** git's listing of the work tree: its digest and the listed paths. */
export async function readListing(
  root: string,
  excludesFile: string | undefined,
  attributesFile: string | undefined,
): Promise<{ digest: string; files: string[] } | undefined> {
  const result = await git(
    [...excludesFileArgs(excludesFile), 'ls-files', '-z', '-v', '-s', '-o', '--exclude-standard'],
    { cwd: root, maxBytes: 512 * 1024 * 1024 },
  );
  if (result.kind !== 'exited' || result.code !== 0) return undefined;
  const files: string[] = [];
  for (const record of splitNul(result.stdout)) {
    const tab = record.indexOf('\t');
    files.push(/^\S \d{6} [0-9a-f]+ \d\t/.test(record) ? record.slice(tab + 1) : record.slice(2));
  }
  const digest = createHash('sha256')
    .update(excludesFile ?? '')
    .update('\0')
    .update(attributesFile ?? '')
    .update('\0')
    .update(result.stdout)
    .digest('hex');
  return { digest, files };
}

/** The inputs of a run in `repo`: `extra` are the absolute paths read beside the listing. */
export async function observeInputs(
  repo: RepoState,
  extra: readonly string[],
  observer: Observer,
): Promise<RunInputs | undefined> {
  const listing = await readListing(repo.root, repo.excludesFile, repo.attributesFile);
  if (listing === undefined) return undefined;
  const stats: number[] = [];
  // The user's global excludes file decides the listing, and whether the report pair is ignored.
  // The user's attributes file decides which docs are generated (their findings held back).
  const beside = [...extra, ...[repo.excludesFile, repo.attributesFile].filter((f) => f !== undefined)];
  for (const file of listing.files) {
    const path = join(repo.root, file);
    if (observer.push(path, stats)) beside.push(path);
  }
  return {
    head: repo.head,
    listing: listing.digest,
    files: listing.files,
    stats,
    extra: Object.fromEntries(beside.map((path) => [path, observer.sig(path)])),
  };
}

/**
 * True when `stored` still holds: the same HEAD, the same signatures of the files beside the
 * listing, the same listing, and the same signature of every listed file. Cheapest first.
 */
export async function inputsHold(stored: RunInputs, repo: RepoState, observer: Observer): Promise<boolean> {
  if (stored.head !== repo.head) return false;
  for (const [path, sig] of Object.entries(stored.extra)) if (observer.sig(path) !== sig) return false;
  for (let i = 0; i < stored.files.length; i++)
    if (!observer.same(join(repo.root, stored.files[i]!), stored.stats, i * STAT_FIELDS)) return false;
  return (await readListing(repo.root, repo.excludesFile, repo.attributesFile))?.digest === stored.listing;
}

/** True when `inputs` has the right shape (a stored value is checked before use). */
export function isRunInputs(value: unknown): value is RunInputs {
  const v = value as Partial<RunInputs> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.head === 'string' &&
    typeof v.listing === 'string' &&
    Array.isArray(v.files) &&
    v.files.every((file) => typeof file === 'string') &&
    Array.isArray(v.stats) &&
    v.stats.length === v.files.length * STAT_FIELDS &&
    v.stats.every((n) => typeof n === 'number') &&
    typeof v.extra === 'object' &&
    v.extra !== null &&
    Object.values(v.extra).every((sig) => typeof sig === 'string')
  );
}

/** Two observations of the same run's inputs agree. */
export function sameInputs(a: RunInputs, b: RunInputs): boolean {
  if (a.head !== b.head || a.listing !== b.listing || a.files.length !== b.files.length) return false;
  for (let i = 0; i < a.files.length; i++) if (a.files[i] !== b.files[i]) return false;
  for (let i = 0; i < a.stats.length; i++) if (a.stats[i] !== b.stats[i]) return false;
  const keys = Object.keys(a.extra);
  return keys.length === Object.keys(b.extra).length && keys.every((key) => a.extra[key] === b.extra[key]);
}
