import type { Deadline } from '../../../core/deadline.js';
import { STATE_DIR } from '../../state/store.js';
import { expectOk, headOid, indexTree, readGit, userGit } from '../git-steps.js';
import type { RunRecorder } from '../run-record.js';

/**
 * Step 5 of clean, the WIP checkpoint (docs/hygiene-clean.md, "Checkpoint"). Like `git stash`, the checkpoint keeps the worktree and the index apart:
 * the worktree's tracked state becomes one `wip:` commit on the branch, and when the
 * index held something else (a file staged, then edited again) that index is kept as a
 * commit under a private ref the output names. A checkpoint that would be empty is not made.
 */

export const WIP_MESSAGE = 'wip: checkpoint before docs hygiene cleanup';
export const STAGED_MESSAGE = 'index before docs hygiene cleanup (your staged changes)';
/** Private refs holding the user's staged changes, one per checkpoint: `<prefix><commit>`. */
export const STAGED_REF_PREFIX = 'refs/stw-hygiene/staged/';

// The tool's own state never enters a commit, even where a user has (wrongly) tracked it.
export const OUTSIDE_STATE = [':(top)', `:(top,exclude)${STATE_DIR}`];

/**
 * Makes the checkpoint (step 5 of clean) and records it. `dirty`: tracked changes
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

/** Whether tracked work (outside `.dochygiene/`) or tracked tool state in the index needs a checkpoint. */
export async function pendingChanges(
  root: string,
  deadline: Deadline,
): Promise<{ dirty: boolean; stagedState: boolean }> {
  const dirty =
    (await readGit(
      // A submodule with only modified or untracked content inside is not a change this
      // repository can commit (`add -u` stages nothing for it): it is not dirty here.
      [
        'status',
        '--porcelain=v1',
        '-z',
        '--untracked-files=no',
        '--ignore-submodules=dirty',
        '--',
        ...OUTSIDE_STATE,
      ],
      root,
      deadline,
      false,
    )) !== '';
  const stagedState =
    (await readGit(['diff', '--cached', '--name-only', '-z', '--', STATE_DIR], root, deadline)) !== '';
  return { dirty, stagedState };
}
