import type { Deadline } from '../../core/deadline.js';
import { writeFileAtomic } from '../../core/fs-atomic.js';
import { type SavedIndex, saveIndex } from '../../core/git-index.js';
import type { RunEvent, RunLock } from '../state/run-lock.js';
import { STATE_DIR } from '../state/store.js';
import type { RecordedEdit } from './applier.js';
import { expectOk, headOid, indexTree, readGit, userGit } from './git-steps.js';

/**
 * The WIP checkpoint and the record of a run (docs/hygiene-clean.md, "Checkpoint" and
 * "Rollback"). Like `git stash`, the checkpoint keeps the worktree and the index apart:
 * the worktree's tracked state becomes one `wip:` commit on the branch, and when the
 * index held something else (a file staged, then edited again) that index is kept as a
 * commit under a private ref the output names. A checkpoint that would be empty is not made.
 */

export const WIP_MESSAGE = 'wip: checkpoint before docs hygiene cleanup';
export const STAGED_MESSAGE = 'index before docs hygiene cleanup (your staged changes)';
/** Private refs holding the user's staged changes, one per checkpoint: `<prefix><commit>`. */
export const STAGED_REF_PREFIX = 'refs/stw-hygiene/staged/';

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

/** Writes each event to the run's journal (when there is one) as the in-memory record changes. */
export class RunRecorder {
  constructor(
    readonly record: RunRecord,
    private readonly lock: RunLock | undefined,
  ) {}

  note(event: RunEvent): void {
    this.lock?.record(event);
    switch (event.type) {
      case 'staged-saved':
        this.record.staged = { ref: event.ref, commit: event.commit };
        break;
      case 'checkpoint-tree':
        this.record.checkpointTree = event.tree;
        break;
      case 'wip':
        this.record.wip = event.commit;
        break;
      case 'edit': {
        const { type: _type, ...edit } = event;
        this.record.edits.push(edit);
        break;
      }
      case 'hold':
        this.record.holdDir = event.dir;
        break;
      case 'held-released':
        this.record.heldReleased = true;
        break;
      case 'commit-started':
        this.record.commitStarted = true;
        break;
      case 'committed':
        this.record.commit = event.commit;
        break;
      default:
        break;
    }
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

// The tool's own state never enters a commit, even where a user has (wrongly) tracked it.
export const OUTSIDE_STATE = [':(top)', `:(top,exclude)${STATE_DIR}`];

/**
 * Makes the checkpoint (step 3 of clean) and records it. `dirty`: tracked changes
 * outside `.dochygiene/`; `stagedState`: changes to tracked tool state in the index.
 * Afterwards the index equals HEAD's tree, which is the baseline the cleanup starts from.
 */
export async function makeCheckpoint(
  recorder: RunRecorder,
  root: string,
  env: NodeJS.ProcessEnv | undefined,
  deadline: Deadline,
  dates: NodeJS.ProcessEnv,
  change: { dirty: boolean; stagedState: boolean },
): Promise<void> {
  const { record } = recorder;
  const headTree = (await readGit(['rev-parse', `${record.head}^{tree}`], root, deadline)).trim();
  const staged = await indexTree(root, env, deadline);
  // Kept before `add -u` flattens the index, so that it is reachable whatever happens next.
  if (staged !== headTree) {
    const commit = expectOk(
      await userGit(
        ['commit-tree', staged, '-p', record.head, '-m', STAGED_MESSAGE],
        root,
        env,
        deadline,
        dates,
      ),
      'git commit-tree',
    ).trim();
    const ref = `${STAGED_REF_PREFIX}${commit}`;
    expectOk(await userGit(['update-ref', ref, commit, ''], root, env, deadline), 'git update-ref');
    recorder.note({ type: 'staged-saved', ref, commit });
  }
  if (change.stagedState)
    expectOk(await userGit(['reset', '-q', '--', STATE_DIR], root, env, deadline), 'git reset');
  if (change.dirty)
    // Like `commit -a`, but never the tool's state.
    expectOk(
      await userGit(['add', '-u', '--', ...OUTSIDE_STATE], root, env, deadline, {
        GIT_LITERAL_PATHSPECS: '0',
      }),
      'git add -u',
    );
  const worktree = await indexTree(root, env, deadline);
  recorder.note({ type: 'checkpoint-tree', tree: worktree });
  if (record.staged !== undefined && staged === worktree) {
    // Everything was staged: the WIP commit holds exactly that index, so no ref is needed.
    expectOk(
      await userGit(['update-ref', '-d', record.staged.ref, record.staged.commit], root, env, deadline),
      'git update-ref -d',
    );
    delete record.staged;
  }
  // A status entry that `add -u` turns into nothing (staged then reverted, a CRLF file
  // under eol=lf) is no change: an empty checkpoint is no checkpoint.
  if (worktree === headTree) return;
  expectOk(
    // A safety snapshot, not the user's commit: no hooks run (the output says so).
    await userGit(['commit', '-q', '--no-verify', '-m', WIP_MESSAGE], root, env, deadline, dates),
    'git commit (WIP checkpoint)',
  );
  recorder.note({ type: 'wip', commit: await headOid(root, deadline) });
}
