import { link, mkdir, readdir, readFile, rename, rm, rmdir, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { RefusalError } from '../../core/errors.js';
import { fsyncDir, Journal, readJournal, unlinkQuiet } from '../../core/fs-atomic.js';
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

async function readOwner(path: string): Promise<LockOwner | undefined> {
  try {
    const value = JSON.parse(await readFile(path, 'utf8')) as LockOwner;
    return typeof value.pid === 'number' ? value : undefined;
  } catch {
    return undefined;
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
  ): Promise<{ lock: RunLock; interrupted?: InterruptedRun }> {
    const dir = join(gitDir, RUN_DIR);
    await mkdir(join(dir, 'tmp'), { recursive: true, mode: 0o700 });
    const owner: LockOwner = { pid: process.pid, host: hostname(), command, started: now };
    const lock = new RunLock(dir, owner);
    let staleOwner: LockOwner | undefined;
    let tookOver = false;
    for (let attempt = 0; ; attempt++) {
      // Link a complete file into place: the lock never exists half-written.
      const draft = join(dir, `hygiene.lock.${process.pid}`);
      await writeFile(draft, `${JSON.stringify(owner)}\n`, { mode: 0o600 });
      try {
        await link(draft, lock.lockPath);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 5) throw error;
      } finally {
        await unlink(draft).catch(() => {});
      }
      const holder = await readOwner(lock.lockPath);
      if (holder !== undefined && isAlive(holder))
        throw new RefusalError(
          'locked',
          `another stw ${holder.command} (pid ${holder.pid}, since ${holder.started}) is working in this repository; wait for it, or remove ${lock.lockPath} if no stw is running`,
          { lock: lock.lockPath, holder },
        );
      // Dead (or unreadable): move it aside; of two runs racing here only one rename wins.
      const aside = join(dir, `hygiene.lock.stale-${process.pid}`);
      try {
        await rename(lock.lockPath, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      staleOwner = holder;
      tookOver = true;
      await unlink(aside).catch(() => {});
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
