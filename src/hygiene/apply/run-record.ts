import type { Deadline } from '../../core/deadline.js';
import { writeFileAtomic } from '../../core/fs-atomic.js';
import { type SavedIndex, saveIndex } from '../../core/git-index.js';
import type { RunEvent, RunLock } from '../state/run-lock.js';
import type { RecordedEdit } from './applier.js';

/**
 * The record of a `clean` run (docs/hygiene-clean.md, "Rollback" and "Lock and journal"):
 * what it changed, in order. It is the fold of the run's journal events, `foldRunEvent`,
 * whether the events arrive as the run makes them (`RunRecorder`) or are read back from
 * the journal a killed run left (`recordFromJournal`): one fold, so the in-process rollback
 * and the crash recovery judge the same record (`settle.ts`).
 */

/** Everything a run changed, in order, so that a rollback undoes exactly that. */
export interface RunRecord {
  /** HEAD before the run, and its branch. */
  head: string;
  branch: string;
  /** The user's index before the run, byte for byte. */
  index: SavedIndex;
  /** The user's staged changes, when they differed from both HEAD and the worktree. */
  staged?: { ref: string; commit: string };
  /** The index tree the checkpoint step left: a rollback restores the index only over this. */
  checkpointTree?: string;
  wip?: string;
  edits: RecordedEdit[];
  /** Where lifecycle deletions keep the files they removed until the commit exists (docs/lifecycle.md). */
  holdDir?: string;
  /** The held files were declared final (see the `held-released` event): a rollback leaves them gone. */
  heldReleased?: true;
  /** The cleanup's `git commit` was started (it may have made the commit even if it did not return). */
  commitStarted: boolean;
  commit?: string;
}

/** The record after one more event (the record is changed in place and returned). */
export function foldRunEvent(record: RunRecord, event: RunEvent): RunRecord {
  switch (event.type) {
    case 'staged-saved':
      record.staged = { ref: event.ref, commit: event.commit };
      break;
    case 'checkpoint-tree':
      record.checkpointTree = event.tree;
      break;
    case 'wip':
      record.wip = event.commit;
      break;
    case 'edit': {
      const { type: _type, ...edit } = event;
      record.edits.push(edit);
      break;
    }
    case 'hold':
      record.holdDir = event.dir;
      break;
    case 'held-released':
      record.heldReleased = true;
      break;
    case 'commit-started':
      record.commitStarted = true;
      break;
    case 'committed':
      record.commit = event.commit;
      break;
    default:
      // start and index-saved open the record (`startRun`, `recordFromJournal`).
      break;
  }
  return record;
}

/**
 * The record a killed run's journal describes, with the index it saved (`bytes` undefined
 * when it saved none or the copy is gone); undefined when the run never journaled its start.
 */
export function recordFromJournal(events: readonly RunEvent[], index: SavedIndex): RunRecord | undefined {
  const start = events.find((event) => event.type === 'start');
  if (start === undefined) return undefined;
  const record: RunRecord = {
    head: start.head,
    branch: start.branch,
    index,
    edits: [],
    commitStarted: false,
  };
  return events.reduce(foldRunEvent, record);
}

/** Writes each event to the run's journal (when there is one), then folds it into the in-memory record. */
export class RunRecorder {
  constructor(
    readonly record: RunRecord,
    private readonly lock: RunLock | undefined,
  ) {}

  note(event: RunEvent): void {
    this.lock?.record(event);
    foldRunEvent(this.record, event);
  }
}

/** Opens the record: the index saved (in memory, and in the git dir for a crash), the start journaled. */
export async function startRun(
  root: string,
  repo: { head: string; branch: string },
  deadline: Deadline,
  lock: RunLock | undefined,
  now: string,
): Promise<RunRecorder> {
  const index = await saveIndex(root, deadline);
  const record: RunRecord = { head: repo.head, branch: repo.branch, index, edits: [], commitStarted: false };
  const recorder = new RunRecorder(record, lock);
  if (lock !== undefined) {
    await lock.begin();
    if (index.bytes !== undefined) await writeFileAtomic(lock.savedIndexPath, index.bytes, { mode: 0o600 });
    recorder.note({ type: 'start', command: lock.owner.command, pid: process.pid, at: now, ...repo });
    if (index.bytes !== undefined) recorder.note({ type: 'index-saved', file: lock.savedIndexPath });
  }
  return recorder;
}
