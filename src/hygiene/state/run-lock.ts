import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, rmdir, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { RefusalError } from '../../core/errors.js';
import { fsyncDir, Journal, readJournal, unlinkQuiet, writeFileExclusive } from '../../core/fs-atomic.js';
import { isProcessAlive } from '../../core/liveness.js';

/**
 * One lock per repository for the commands that change a worktree (`clean`, `sweep`,
 * `apply`), kept in the git dir as git keeps `index.lock`, and beside it the durable
 * journal of the run that holds it (docs/hygiene-clean.md, "Lock and journal"). A run
 * killed mid-way leaves both behind; the next run finds the lock's process gone, takes
 * the journal over as the record of an interrupted run, and undoes or reports it.
 */

/** The folder inside the (per-worktree) git dir that holds the lock, the journal and temp files. */
export const RUN_DIR = 'sourcesteward';

export interface LockOwner {
  pid: number;
  host: string;
  command: string;
  started: string;
  /** Random: no two runs' lock files have the same bytes, even with a reused pid and a fixed clock. */
  token?: string;
}

/** TEST-ONLY: a pause in the race window, after a dead holder's lock was read and before it is taken over. */
export interface RunLockHooks {
  beforeTakeover?: () => Promise<void>;
}

/** What a run records before each change, so that a rollback (now or by the next run) undoes exactly that. */
export type RunEvent =
  | { type: 'start'; command: string; pid: number; at: string; head: string; branch: string }
  /** The user's index, saved byte for byte at `file` before anything changed. */
  | { type: 'index-saved'; file: string }
  /** The user's staged changes, kept as a commit under a private ref. */
  | { type: 'staged-saved'; ref: string; commit: string }
  /** The index tree the checkpoint step left (what a rollback expects to find). */
  | { type: 'checkpoint-tree'; tree: string }
  | { type: 'wip'; commit: string }
  /** Written before the edit is made: what will be at the path afterwards. */
  | {
      type: 'edit';
      path: string;
      before_sha256: string;
      written_sha256?: string;
      removed?: true;
      moved_to?: string;
      created_dirs?: string[];
      held?: string;
    }
  /** The run's hold folder for lifecycle deletions (docs/lifecycle.md), noted before its first use. */
  | { type: 'hold'; dir: string }
  /**
   * The held files are final and about to be deleted (the commit exists, or the run
   * removed only untracked files): nothing may put them back any more.
   */
  | { type: 'held-released' }
  | { type: 'commit-started' }
  | { type: 'committed'; commit: string };

export interface InterruptedRun {
  owner: LockOwner | undefined;
  events: RunEvent[];
  /** Where the interrupted run's saved index now is (moved aside so this run can save its own). */
  savedIndex: string;
}

export { isProcessAlive };

function isAlive(owner: LockOwner): boolean {
  // Another machine's process (a shared filesystem) cannot be checked: assume it runs.
  if (owner.host !== hostname()) return true;
  // Our own pid in a lock we did not take: a dead run whose pid was reused by us.
  if (owner.pid === process.pid) return false;
  return isProcessAlive(owner.pid);
}

/** A lock file's bytes as text, or undefined when there is none. */
async function readLockText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as LockOwner;
    return typeof value.pid === 'number' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Creates `path` holding `text`, complete, or returns false when it exists (a link never overwrites). */
async function createExclusive(path: string, text: string): Promise<boolean> {
  try {
    await writeFileExclusive(path, text, 0o600);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

const MAX_TAKEOVER_DEPTH = 8;

/**
 * Removes `path` if it still holds exactly `stale` (a dead run's lock, read before), and
 * says whether it did. Atomic against every other run doing the same: only the run that
 * creates the takeover marker named after `stale`'s digest may remove it, and it re-reads
 * `path` first. A stale lock's bytes never come back once removed (each holds a random
 * token), so that re-read cannot be fooled. A marker left by a taker that died is taken
 * over the same way, one level down.
 */
async function removeStale(path: string, stale: string, mine: string, depth = 0): Promise<boolean> {
  const marker = `${path.replace(/\.takeover-[0-9a-f]+$/, '')}.takeover-${createHash('sha256').update(stale).digest('hex').slice(0, 16)}`;
  if (!(await createExclusive(marker, mine))) {
    const taker = await readLockText(marker);
    if (taker === undefined) return false;
    const owner = parseOwner(taker);
    if (owner !== undefined && isAlive(owner)) return false;
    if (depth < MAX_TAKEOVER_DEPTH) await removeStale(marker, taker, mine, depth + 1);
    return false;
  }
  try {
    if ((await readLockText(path)) !== stale) return false;
    await unlink(path);
    return true;
  } finally {
    await unlink(marker).catch(() => {});
  }
}

export class RunLock {
  private journal: Journal | undefined;

  private constructor(
    readonly dir: string,
    readonly owner: LockOwner,
  ) {}

  get lockPath(): string {
    return join(this.dir, 'hygiene.lock');
  }
  get journalPath(): string {
    return join(this.dir, 'hygiene-run.jsonl');
  }
  /** Where atomic writes put their temp files: inside the git dir, never seen by a scan or `git add`. */
  get tempDir(): string {
    return join(this.dir, 'tmp');
  }
  get savedIndexPath(): string {
    return join(this.dir, 'index.saved');
  }
  private static interruptedPath(dir: string): string {
    return join(dir, 'hygiene-run.interrupted.jsonl');
  }
  private static interruptedIndexPath(dir: string): string {
    return join(dir, 'index.interrupted');
  }

  /**
   * Takes the lock in `gitDir`, or refuses (`locked`) while a live process holds it. A
   * lock left by a dead process is taken over; its journal is returned as `interrupted`
   * (and kept on disk until `interruptedHandled`, so a crash during recovery loses nothing).
   */
  static async acquire(
    gitDir: string,
    command: string,
    now: string,
    hooks: RunLockHooks = {},
  ): Promise<{ lock: RunLock; interrupted?: InterruptedRun }> {
    const dir = join(gitDir, RUN_DIR);
    await mkdir(join(dir, 'tmp'), { recursive: true, mode: 0o700 });
    const owner: LockOwner = {
      pid: process.pid,
      host: hostname(),
      command,
      started: now,
      token: randomBytes(8).toString('hex'),
    };
    const lock = new RunLock(dir, owner);
    const mine = `${JSON.stringify(owner)}\n`;
    let staleOwner: LockOwner | undefined;
    let tookOver = false;
    const busy = (holder: LockOwner | undefined) =>
      new RefusalError(
        'locked',
        holder === undefined
          ? `another stw is taking over a stale lock in this repository; try again, or remove ${lock.lockPath} if no stw is running`
          : `another stw ${holder.command} (pid ${holder.pid}, since ${holder.started}) is working in this repository; wait for it, or remove ${lock.lockPath} if no stw is running`,
        { lock: lock.lockPath, ...(holder ? { holder } : {}) },
      );
    for (let attempt = 0; ; attempt++) {
      // A complete file linked into place: the lock never exists half-written.
      if (await createExclusive(lock.lockPath, mine)) break;
      if (attempt > 5) throw busy(undefined);
      const held = await readLockText(lock.lockPath);
      if (held === undefined) continue;
      const holder = parseOwner(held);
      if (holder !== undefined && isAlive(holder)) throw busy(holder);
      // Dead (or unreadable): removed only if it still holds these very bytes (removeStale).
      await hooks.beforeTakeover?.();
      if (await removeStale(lock.lockPath, held, mine)) {
        staleOwner = holder;
        tookOver = true;
      }
    }
    await fsyncDir(dir);
    // A journal left behind becomes the interrupted run's record. (A journal exists only
    // once a run has dealt with any earlier interrupted one, so it is always the newest.)
    const interruptedFile = RunLock.interruptedPath(dir);
    const ignoreMissing = (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    };
    if (await rename(lock.journalPath, interruptedFile).then(() => true, ignoreMissing))
      await rename(lock.savedIndexPath, RunLock.interruptedIndexPath(dir)).catch(ignoreMissing);
    await lock.clearTemp();
    const { records } = await readJournal<RunEvent>(interruptedFile).catch(() => ({
      records: [] as RunEvent[],
    }));
    if (!tookOver && records.length === 0) return { lock };
    return {
      lock,
      interrupted: { owner: staleOwner, events: records, savedIndex: RunLock.interruptedIndexPath(dir) },
    };
  }

  /** Starts this run's journal (fsync per record). */
  async begin(): Promise<void> {
    if (this.journal === undefined) this.journal = await Journal.open(this.journalPath);
  }

  record(event: RunEvent): void {
    this.journal?.append(event);
  }

  /** The interrupted run's record is no longer needed (it was undone or reported). */
  async interruptedHandled(): Promise<void> {
    await rm(RunLock.interruptedPath(this.dir), { force: true });
    await rm(RunLock.interruptedIndexPath(this.dir), { force: true });
  }

  /** Temp files of dead runs: nothing else writes here while the lock is held. */
  private async clearTemp(): Promise<void> {
    for (const name of await readdir(this.tempDir).catch(() => [] as string[]))
      await rm(join(this.tempDir, name), { force: true, recursive: true });
  }

  /** Ends the run: the journal and saved index go, then the lock. */
  async release(): Promise<void> {
    this.journal?.close();
    this.journal = undefined;
    unlinkQuiet(this.journalPath);
    unlinkQuiet(this.savedIndexPath);
    await this.clearTemp().catch(() => {});
    unlinkQuiet(this.lockPath);
    // Leave the git dir as it was found: the folders go once empty (another run may be starting).
    await rmdir(this.tempDir).catch(() => {});
    await rmdir(this.dir).catch(() => {});
  }
}
