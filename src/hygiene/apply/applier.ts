import { lstat, mkdir, readFile, realpath, rmdir, unlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, posix, relative, sep } from 'node:path';
import { Deadline } from '../../core/deadline.js';
import { RefusalError } from '../../core/errors.js';
import { writeFileAtomic } from '../../core/fs-atomic.js';
import { discoverRepo, git, userGitEnv } from '../../core/git.js';
import { describeOutcome } from '../../core/run.js';
import type { EditKind, Entry, Report } from '../types.js';
import { applyRewriteToText, type PreparedRewrite } from './generative.js';
import { type LifecycleApplyContext, type LifecycleFaults, lifecycleTransaction } from './lifecycle.js';
import { placementProblem, readGitlinks } from './placement.js';
import { applyEditsToText, incompatibility, type SkipReason, sha256Hex } from './text-edits.js';
import { notWritablePaths } from './writable.js';

export {
  applyEditsToText,
  dedupeLine,
  insertFrontmatter,
  type SkipReason,
  type TextEditResult,
} from './text-edits.js';

/**
 * The patch applier (docs/hygiene-clean.md, "The applier"): each file is one transaction — read once, guard by
 * content hash, edit in memory, write once (atomically) — and the result names exactly
 * the paths to stage. It changes the worktree (and, for `git mv`, the index) but never
 * commits; `clean` does that.
 */

/** Test-only failure injection: a hook that throws makes that step fail as a real I/O error would. */
export interface ApplyFaults extends LifecycleFaults {
  /** Called just before a file is written. */
  beforeWrite?: (path: string) => void | Promise<void>;
  /** Called just before `git mv` runs. */
  beforeMove?: (path: string, destination: string) => void | Promise<void>;
  /** Called while the new bytes sit in the temp file, before it is renamed over the file. */
  beforeRename?: (path: string) => void | Promise<void>;
  /** Called just after a file was written, removed or moved (with the move's destination). */
  afterWrite?: (path: string) => void | Promise<void>;
}

export interface ApplyOptions {
  root: string;
  report: Report;
  /** Entry ids to apply; default: every entry in the report. */
  only?: readonly string[];
  faults?: ApplyFaults;
  deadline?: Deadline;
  /** Checked between files: once aborted (or the deadline passed), the run stops as a failure. */
  signal?: AbortSignal;
  /** Decide every file's outcome (guards, conflicts, destinations) but write and move nothing. */
  dryRun?: boolean;
  /** Generative entries' checked rewrites (`prepareRewrites`); an entry without one is skipped `no-model`. */
  rewrites?: ReadonlyMap<string, PreparedRewrite>;
  /**
   * The environment whose user git config applies to `git mv` (as it would to the
   * user's own `git mv`); default: this process's.
   */
  env?: NodeJS.ProcessEnv;
  /**
   * Told, just before each change to the worktree, what the change will leave: the
   * caller records it durably so that a rollback — now, or by the next run after a
   * crash — undoes exactly what was done and nothing the user did since.
   */
  onEdit?: (edit: RecordedEdit) => void | Promise<void>;
  /** Where atomic writes keep their temp files (see `writeFileAtomic`); default: beside the file. */
  tempDir?: string;
  /** How `delete-path` entries are judged and applied (docs/lifecycle.md); without it they are skipped. */
  lifecycle?: LifecycleApplyContext;
  /**
   * Entry id → the id of the move it follows (a link rewrite, `keepReferencesResolving`):
   * such an entry is applied only when its move was, since without the move it would point
   * the link at nothing. Moves are applied first for this reason.
   */
  follows?: ReadonlyMap<string, string>;
}

/** One change the applier is about to make, as `onEdit` hears of it. */
export interface RecordedEdit {
  path: string;
  /** sha256 of the bytes at `path` before the change. */
  before_sha256: string;
  /** sha256 of the bytes that will be at `path` (at `moved_to` for a move). */
  written_sha256?: string;
  /** The file will be deleted. */
  removed?: true;
  moved_to?: string;
  /** Folders created for the move's destination, outermost first. */
  created_dirs?: string[];
  /**
   * A lifecycle deletion: where the file's bytes are kept (in the run's hold folder)
   * until the commit exists; a rollback moves them back from there.
   */
  held?: string;
}

export type FileStatus = 'applied' | 'unchanged' | 'skipped' | 'failed';

export interface FileOutcome {
  path: string;
  status: FileStatus;
  /** The entries on this file that were part of the run, in report order. */
  entries: string[];
  reason?: SkipReason | FailReason;
  detail?: string;
  /** For a move: where the file went. */
  moved_to?: string;
  /** A delete-range removed every line, or a lifecycle delete-path ran: the path is gone (a tracked one staged as a removal). */
  removed?: true;
  /**
   * sha256 of the bytes the applier left at `path` (at `moved_to` for a move): a rollback
   * restores only a file that still holds them, never a later edit. Absent for a removed
   * file and in a dry run.
   */
  written_sha256?: string;
}

export interface EntryOutcome {
  id: string;
  path: string;
  /** The edit kind, or `generative`. */
  kind: EditKind | 'generative';
  /** `unchanged`: applied, but it was already in place (an insert-frontmatter no-op). */
  status: FileStatus;
  reason?: string;
}

export interface ApplyResult {
  /** `failed` when a file failed (later files were not attempted); `partial` when some were skipped. */
  status: 'applied' | 'partial' | 'nothing' | 'failed';
  files: FileOutcome[];
  entries: EntryOutcome[];
  /** Files written in place: stage them with `git add -u -- …`. */
  stage: string[];
  /** Sources and destinations of `git mv`: already staged; never `git add` them again. */
  staged_by_move: string[];
  /** Folders created for move destinations, outermost first (for rollback). */
  created_dirs: string[];
  /** Tracked files a lifecycle deletion removed (`git rm`): already staged; never `git add` them again. */
  staged_by_rm: string[];
}

const entryKind = (entry: Entry): EditKind | 'generative' =>
  entry.op_type === 'generative' ? 'generative' : (entry.exact_edit?.kind ?? 'generative');

/** A root-relative POSIX path that stays inside the root and out of `.git` and `.dochygiene`. */
export function isSafeRelativePath(path: string): boolean {
  if (path === '' || isAbsolute(path) || path.includes('\\') || path.includes('\0')) return false;
  if (posix.normalize(path) !== path) return false;
  const parts = path.split('/');
  if (parts.some((part) => part === '..' || part === '.' || part === '')) return false;
  const first = parts[0]!.toLowerCase();
  return first !== '.git' && first !== '.dochygiene';
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTDIR: a file where a folder on the way should be, so nothing is at `path`.
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
}

/** The nearest existing ancestor of `dir` must resolve (through symlinks) inside `realRoot`. */
async function staysInsideRoot(realRoot: string, dir: string): Promise<boolean> {
  let current = dir;
  while (!(await exists(current))) {
    const parent = dirname(current);
    if (parent === current) return false;
    current = parent;
  }
  const real = await realpath(current);
  return real === realRoot || real.startsWith(realRoot + sep);
}

/** The real paths of the repository's git dir and common dir: nothing the applier writes may land there. */
async function gitDirsOf(root: string, deadline: Deadline): Promise<string[]> {
  const layout = await discoverRepo(root, deadline);
  if (layout === undefined) return [];
  const dirs = new Set<string>();
  for (const dir of [layout.gitDir, layout.commonDir]) {
    if (dir === '') continue;
    dirs.add(await realpath(dir).catch(() => dir));
  }
  return [...dirs];
}

/**
 * Why writing at `path` (already a plain relative path) could land somewhere other than
 * where it says, or undefined when it cannot: a `.git` component at any depth, a folder on
 * the way that is a symlink (which could lead anywhere — into `.git`, say — while its real
 * path still looks inside the root), or a real location inside the repository's git dir
 * (a separate git dir kept in the work tree). Folders that do not exist yet are created
 * as real folders, so only existing components need checking.
 */
async function unsafeLocation(tx: TransactionContext, path: string): Promise<string | undefined> {
  const parts = path.split('/');
  if (parts.some((part) => part.toLowerCase() === '.git')) return 'it goes through a .git folder';
  let current = tx.root;
  for (const [index, part] of parts.slice(0, -1).entries()) {
    current = join(current, part);
    let stats: Awaited<ReturnType<typeof lstat>>;
    try {
      stats = await lstat(current);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') break;
      throw error;
    }
    if (stats.isSymbolicLink()) return `${parts.slice(0, index + 1).join('/')} is a symbolic link`;
    if (!stats.isDirectory()) break;
  }
  // No symlink below the root, so this is the real location.
  const real = join(tx.realRoot, ...parts);
  if (tx.gitDirs.some((dir) => real === dir || real.startsWith(dir + sep)))
    return "it is inside the repository's git directory";
  return undefined;
}

/** Refuses ids that are not in the report, before anything is touched. */
export function selectEntries(report: Report, only: readonly string[] | undefined): Entry[] {
  if (only === undefined) return [...report.entries];
  const known = new Set(report.entries.map((entry) => entry.id));
  const unknown = only.filter((id) => !known.has(id));
  if (unknown.length > 0)
    throw new RefusalError(
      'unknown-entry-id',
      `no entry ${unknown.map((id) => JSON.stringify(id)).join(', ')} in the report`,
      {
        unknown,
      },
    );
  const wanted = new Set(only);
  return report.entries.filter((entry) => wanted.has(entry.id));
}

function groupByPath(entries: readonly Entry[]): Map<string, Entry[]> {
  const groups = new Map<string, Entry[]>();
  for (const entry of entries) {
    const group = groups.get(entry.path);
    if (group === undefined) groups.set(entry.path, [entry]);
    else group.push(entry);
  }
  return new Map([...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

type Transaction =
  | {
      status: 'applied' | 'unchanged';
      unchanged: string[];
      wrote?: string;
      /** sha256 of the bytes now at the path (or at the move destination). */
      writtenSha256?: string;
      removed?: true;
      moved?: { to: string; createdDirs: string[] };
      /** Tracked files a lifecycle deletion removed from the index. */
      unstaged?: string[];
    }
  | { status: 'skipped'; reason: SkipReason; detail: string }
  | { status: 'failed'; reason: FailReason; detail: string };

/** `transaction-failed`: an unexpected error inside the file's transaction (an I/O error, say). */
export type FailReason = 'write-failed' | 'git-mv-failed' | 'cancelled' | 'transaction-failed';

const skip = (reason: SkipReason, detail: string): Transaction => ({ status: 'skipped', reason, detail });

/**
 * Applies the report's deterministic entries to the worktree, one file at a time. Never
 * commits. Stops at the first failed file (later files are `not-attempted`) so a caller
 * that rolls back has as little as possible to undo.
 */
export async function applyReport(options: ApplyOptions): Promise<ApplyResult> {
  const { root, report, faults } = options;
  const deadline = options.deadline ?? Deadline.none();
  const selected = selectEntries(report, options.only);
  const realRoot = await realpath(root);
  const gitDirs = await gitDirsOf(root, deadline);
  const tx: TransactionContext = {
    root,
    realRoot,
    gitDirs,
    gitlinks: undefined,
    deadline,
    faults,
    env: options.env,
    dryRun: options.dryRun === true,
    onEdit: options.onEdit,
    tempDir: options.tempDir,
    rewrites: options.rewrites,
    lifecycle: options.lifecycle,
  };
  const result: ApplyResult = {
    status: 'nothing',
    files: [],
    entries: [],
    stage: [],
    staged_by_move: [],
    created_dirs: [],
    staged_by_rm: [],
  };
  let failed = false;
  const moved = new Set<string>();
  for (const [path, all] of movesFirst(groupByPath(selected))) {
    const [entries, stranded] = partitionFollowers(all, options.follows, moved);
    for (const entry of stranded) result.entries.push(strandedOutcome(entry, path));
    if (entries.length === 0) {
      const move = options.follows!.get(stranded[0]!.id)!;
      result.files.push({
        path,
        status: 'skipped',
        entries: stranded.map((entry) => entry.id),
        reason: 'would-break-reference',
        detail: `the move it follows (${move}) was not applied`,
      });
      continue;
    }
    let outcome: Transaction;
    if (failed) outcome = skip('not-attempted', 'an earlier file failed');
    else if (options.signal?.aborted || deadline.isExpired)
      outcome = {
        status: 'failed',
        reason: 'cancelled',
        detail: options.signal?.aborted ? 'interrupted before this file' : 'out of time before this file',
      };
    else outcome = await guardedTransaction(tx, path, entries);
    if (outcome.status === 'failed') failed = true;
    const file: FileOutcome = { path, status: outcome.status, entries: entries.map((entry) => entry.id) };
    if (outcome.status === 'skipped' || outcome.status === 'failed') {
      file.reason = outcome.reason;
      file.detail = outcome.detail;
    } else {
      if (outcome.wrote !== undefined) result.stage.push(outcome.wrote);
      if (outcome.removed) file.removed = true;
      if (outcome.unstaged !== undefined) result.staged_by_rm.push(...outcome.unstaged);
      if (outcome.writtenSha256 !== undefined) file.written_sha256 = outcome.writtenSha256;
      if (outcome.moved !== undefined) {
        file.moved_to = outcome.moved.to;
        result.staged_by_move.push(path, outcome.moved.to);
        result.created_dirs.push(...outcome.moved.createdDirs);
      }
    }
    result.files.push(file);
    if (outcome.status === 'applied') for (const entry of entries) moved.add(entry.id);
    for (const entry of entries) {
      const record: EntryOutcome = { id: entry.id, path, kind: entryKind(entry), status: outcome.status };
      if (outcome.status === 'skipped' || outcome.status === 'failed') record.reason = outcome.reason;
      else if (outcome.unchanged.includes(entry.id) || outcome.status === 'unchanged')
        record.status = 'unchanged';
      result.entries.push(record);
    }
  }
  const skipped = result.files.some((file) => file.status === 'skipped');
  result.status = failed ? 'failed' : result.files.length === 0 ? 'nothing' : skipped ? 'partial' : 'applied';
  return result;
}

/** The files in `groups` with a move first (a move never shares its file with another edit). */
function movesFirst(groups: Map<string, Entry[]>): [string, Entry[]][] {
  const isMove = ([, entries]: [string, Entry[]]) =>
    entries.some((entry) => entry.exact_edit?.kind === 'move-to-archive');
  return [...[...groups].filter(isMove), ...[...groups].filter((group) => !isMove(group))];
}

/** `entries` split into those to apply and those whose move (`follows`) was not applied. */
function partitionFollowers(
  entries: readonly Entry[],
  follows: ReadonlyMap<string, string> | undefined,
  moved: ReadonlySet<string>,
): [Entry[], Entry[]] {
  const stranded = (entry: Entry) => {
    const move = follows?.get(entry.id);
    return move !== undefined && !moved.has(move);
  };
  return [entries.filter((entry) => !stranded(entry)), entries.filter(stranded)];
}

function strandedOutcome(entry: Entry, path: string): EntryOutcome {
  return { id: entry.id, path, kind: entryKind(entry), status: 'skipped', reason: 'would-break-reference' };
}

interface TransactionContext {
  root: string;
  realRoot: string;
  /** Real paths of the repository's git dirs (see `gitDirsOf`). */
  gitDirs: readonly string[];
  /** The index's gitlinks, read on the first move (see `placementProblem`). */
  gitlinks: Set<string> | undefined;
  deadline: Deadline;
  faults: ApplyFaults | undefined;
  env: NodeJS.ProcessEnv | undefined;
  dryRun: boolean;
  rewrites: ReadonlyMap<string, PreparedRewrite> | undefined;
  onEdit: ApplyOptions['onEdit'];
  tempDir: string | undefined;
  lifecycle: LifecycleApplyContext | undefined;
}

/**
 * Every error inside a file's transaction is that file's `failed` outcome: nothing
 * escapes, so the caller always learns what was already written (and can undo it).
 */
async function guardedTransaction(
  tx: TransactionContext,
  path: string,
  entries: Entry[],
): Promise<Transaction> {
  try {
    return await fileTransaction(tx, path, entries);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      status: 'failed',
      reason: 'transaction-failed',
      detail: `${code ? `${code}: ` : ''}${(error as Error).message}`,
    };
  }
}

async function fileTransaction(tx: TransactionContext, path: string, entries: Entry[]): Promise<Transaction> {
  const { root, realRoot, faults } = tx;
  if (!isSafeRelativePath(path))
    return skip('unsafe-path', 'the path is not a plain path inside the project');
  const incompatible = incompatibility(entries);
  if (incompatible !== undefined) return skip('incompatible-ops-on-file', incompatible);
  const first = entries[0]!;
  // A generative entry is alone in its file (incompatibility above); its rewrite was prepared and checked.
  const rewrite = first.op_type === 'generative' ? tx.rewrites?.get(first.id) : undefined;
  if (first.op_type === 'generative' && rewrite === undefined)
    return skip('no-model', 'no model is configured and no --generated text was given');
  if (rewrite !== undefined && !rewrite.ok) return skip(rewrite.reason, rewrite.detail);

  const unsafe = await unsafeLocation(tx, path);
  if (unsafe !== undefined) return skip('unsafe-path', `the path is not safe to write: ${unsafe}`);
  const absolute = join(root, path);
  if (!(await staysInsideRoot(realRoot, dirname(absolute))))
    return skip('unsafe-path', 'the path leads outside the project root');
  if (first.exact_edit?.kind === 'delete-path') {
    if (tx.lifecycle === undefined)
      return skip('lifecycle-not-supported', 'this caller does not apply lifecycle deletions');
    const hooks = { onEdit: tx.onEdit, ...(faults ? { faults } : {}) };
    const outcome = await lifecycleTransaction(root, first, tx.lifecycle, hooks, tx.deadline, tx.dryRun);
    if (outcome.status !== 'applied') return outcome;
    return { status: 'applied', unchanged: [], removed: true, unstaged: outcome.removed };
  }
  let stats: Awaited<ReturnType<typeof lstat>>;
  try {
    stats = await lstat(absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return skip('file-missing', 'the file no longer exists');
    throw error;
  }
  if (stats.isSymbolicLink())
    return skip(
      'not-a-regular-file',
      'the path is a symlink: another path leads to the same file, and an edit goes on the real file only',
    );
  if (!stats.isFile())
    return skip('not-a-regular-file', 'the path is not a regular file (a symlink or folder)');

  if (first.exact_edit?.kind === 'move-to-archive') return moveTransaction(tx, path, first);
  // Tracked, visible files only (writable.ts), asked again here, just before the write,
  // whoever gated the entry: an untracked file has nothing to restore it from.
  const notHere = (await notWritablePaths(root, [path], tx.deadline)).get(path);
  if (notHere !== undefined) return skip(notHere.reason, notHere.detail);

  const bytes = await readFile(absolute);
  const text = bytes.toString('utf8');
  // The guard is on the bytes: a file that is not clean UTF-8 cannot round-trip through text.
  const anchored = entries.filter((entry) => entry.exact_edit?.expected_sha256 !== undefined);
  if (anchored.length > 0) {
    const actual = sha256Hex(bytes);
    if (anchored.some((entry) => entry.exact_edit!.expected_sha256 !== actual))
      return skip('content-changed-since-check', 'the file changed after the report was made');
  }
  if (!Buffer.from(text, 'utf8').equals(bytes)) return skip('not-utf8', 'the file is not valid UTF-8');
  const edited = rewrite?.ok
    ? { unchanged: [] as string[], ...applyRewriteToText(text, rewrite) }
    : applyEditsToText(text, entries);
  if ('skip' in edited) return skip(edited.skip, edited.detail);
  if (edited.text === text) return { status: 'unchanged', unchanged: entries.map((entry) => entry.id) };
  // A delete-range over every line (an orphaned doc) deletes the file rather than leaving
  // an empty one (a tracked one, as every file edited here: recoverable from history).
  const removesFile =
    edited.text.replace(/^\uFEFF/, '') === '' &&
    entries.some((entry) => entry.exact_edit?.kind === 'delete-range');
  if (tx.dryRun)
    return { status: 'applied', unchanged: edited.unchanged, ...(removesFile ? { removed: true } : {}) };

  try {
    // Read again just before writing: an edit made while we worked must not be overwritten.
    const again = await readFile(absolute);
    if (!again.equals(bytes))
      return skip('content-changed-since-check', 'the file changed while the cleanup ran');
    const writtenSha256 = removesFile ? undefined : sha256Hex(Buffer.from(edited.text, 'utf8'));
    await tx.onEdit?.({
      path,
      before_sha256: sha256Hex(bytes),
      ...(removesFile ? { removed: true as const } : { written_sha256: writtenSha256! }),
    });
    await faults?.beforeWrite?.(path);
    if (removesFile) await unlink(absolute);
    else
      await writeFileAtomic(absolute, edited.text, {
        mode: stats.mode & 0o7777,
        ...(tx.tempDir === undefined ? {} : { tempDir: tx.tempDir }),
        ...(faults?.beforeRename === undefined ? {} : { beforeRename: () => faults.beforeRename!(path) }),
      });
    await faults?.afterWrite?.(path);
  } catch (error) {
    return { status: 'failed', reason: 'write-failed', detail: (error as Error).message };
  }
  // `git add -u -- path` stages a deleted tracked file as a removal, so it joins `stage`.
  return {
    status: 'applied',
    unchanged: edited.unchanged,
    wrote: path,
    ...(removesFile ? { removed: true } : { writtenSha256: sha256Hex(Buffer.from(edited.text, 'utf8')) }),
  };
}

async function moveTransaction(tx: TransactionContext, path: string, entry: Entry): Promise<Transaction> {
  const { root, realRoot, deadline, faults, env } = tx;
  const destination = entry.exact_edit?.dest_path;
  if (typeof destination !== 'string') return skip('invalid-entry', `${entry.id} lacks exact_edit.dest_path`);
  if (!isSafeRelativePath(destination) || destination === path)
    return skip('destination-outside-root', 'the destination is not a plain path inside the project');
  const unsafe = await unsafeLocation(tx, destination);
  if (unsafe !== undefined)
    return skip('destination-outside-root', `the destination is not safe to write: ${unsafe}`);
  const absoluteDestination = join(root, destination);
  if (!(await staysInsideRoot(realRoot, dirname(absoluteDestination))))
    return skip('destination-outside-root', 'the destination leads outside the project root');
  if (await exists(absoluteDestination)) return skip('destination-exists', 'the destination already exists');
  tx.gitlinks ??= await readGitlinks(root, deadline);
  const misplaced = placementProblem(root, destination, tx.gitlinks);
  if (misplaced !== undefined)
    return skip('destination-not-a-folder', `the destination is not inside plain folders: ${misplaced}`);
  const notHere = (await notWritablePaths(root, [path], deadline)).get(path);
  if (notHere !== undefined) return skip(notHere.reason, notHere.detail);

  if (tx.dryRun) return { status: 'applied', unchanged: [], moved: { to: destination, createdDirs: [] } };
  const createdDirs: string[] = [];
  let movedSha256: string;
  try {
    let missing = dirname(absoluteDestination);
    const toCreate: string[] = [];
    while (!(await exists(missing))) {
      toCreate.unshift(missing);
      missing = dirname(missing);
    }
    // What the destination will hold: a rollback removes it only while it still does.
    movedSha256 = sha256Hex(await readFile(join(root, path)));
    const toRecord = toCreate.map((dir) => relative(root, dir).split(sep).join('/'));
    await tx.onEdit?.({
      path,
      before_sha256: movedSha256,
      written_sha256: movedSha256,
      moved_to: destination,
      created_dirs: toRecord,
    });
    for (const [index, dir] of toCreate.entries()) {
      await mkdir(dir);
      createdDirs.push(toRecord[index]!);
    }
    await faults?.beforeMove?.(path, destination);
  } catch (error) {
    await removeCreatedDirs(root, createdDirs);
    return { status: 'failed', reason: 'git-mv-failed', detail: (error as Error).message };
  }
  const moved = await git(['mv', '--', path, destination], {
    cwd: root,
    deadline,
    mode: 'user',
    extraEnv: { ...userGitEnv(env), GIT_LITERAL_PATHSPECS: '1' },
  });
  if (moved.kind !== 'exited' || moved.code !== 0) {
    await removeCreatedDirs(root, createdDirs);
    return { status: 'failed', reason: 'git-mv-failed', detail: describeOutcome(moved, 'git mv') };
  }
  await faults?.afterWrite?.(destination);
  return {
    status: 'applied',
    unchanged: [],
    moved: { to: destination, createdDirs },
    writtenSha256: movedSha256,
  };
}

/** Removes folders the applier created, innermost first, only while they are empty. */
export async function removeCreatedDirs(root: string, dirs: readonly string[]): Promise<void> {
  for (const dir of [...dirs].reverse()) {
    try {
      await rmdir(join(root, dir));
    } catch {
      // Not empty (someone put a file there) or already gone: leave it.
    }
  }
}
