/** `task list` on Git: the task worktree as git lists it now, and the task branch's tip. */
import type { WorktreeRecord } from '../../../../core/git.js';
import type { TaskListEntry } from '../../../../task/list.js';
import type { TaskCreationPlan } from '../../../../task/types.js';
import type { TaskObserveInputs } from '../../backend.js';
import { type GitCallContext, observeGitRaw, readWorktrees } from '../observe.js';

async function branchOid(branch: string, ctx: GitCallContext): Promise<string | null> {
  const result = await observeGitRaw(
    ['for-each-ref', '--format=%(refname)%00%(objectname)', '--', branch],
    ctx,
    'git for-each-ref',
  );
  if (result.code !== 0) return null;
  for (const line of result.stdout.toString('utf8').split('\n')) {
    const [name, oid] = line.split('\0');
    if (name === branch && oid !== undefined) return oid;
  }
  return null;
}

export async function observeGitTask(
  task: TaskCreationPlan,
  entry: TaskListEntry,
  inputs: TaskObserveInputs,
): Promise<void> {
  if (task.backend !== 'git') throw new Error(`task ${task.task_id} is not a Git task`);
  const ctx: GitCallContext = { ...inputs.ctx, cwd: task.source.path };
  const key = `git\0${task.source.common_dir}`;
  let list = inputs.cache.get(key) as Promise<WorktreeRecord[]> | undefined;
  if (list === undefined) {
    list = readWorktrees(ctx);
    inputs.cache.set(key, list);
  }
  const listed = (await list).find((worktree) => worktree.path === task.destination);
  entry.now.registration = listed === undefined ? 'missing' : 'registered';
  entry.now.worktree =
    listed === undefined
      ? null
      : { branch: listed.branch ?? null, head: listed.head ?? null, locked: listed.locked ?? null };
  entry.now.branch_oid = await branchOid(task.branch, ctx);
}
