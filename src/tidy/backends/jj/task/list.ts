/** `task list` on jj: the task workspace as `jj workspace list` shows it at the current operation. */
import type { TaskListEntry } from '../../../../task/list.js';
import type { TaskCreationPlan } from '../../../../task/types.js';
import type { TaskObserveInputs } from '../../backend.js';
import { type JjCallContext, readCurrentOperation, readWorkspaces } from '../observe.js';
import type { JjWorkspace } from '../observe-parse.js';
import { requireSupportedJj } from '../plan.js';

export async function observeJjTask(
  task: TaskCreationPlan,
  entry: TaskListEntry,
  inputs: TaskObserveInputs,
): Promise<void> {
  if (task.backend !== 'jj') throw new Error(`task ${task.task_id} is not a jj task`);
  const ctx: JjCallContext = { ...inputs.ctx, cwd: task.source.path, env: inputs.env };
  const key = `jj\0${task.source.common_dir}`;
  let list = inputs.cache.get(key) as Promise<JjWorkspace[]> | undefined;
  if (list === undefined) {
    // The same version gate as tidy's: an unsupported jj gives no workspace list.
    list = requireSupportedJj(ctx, ctx.env)
      .then(() => readCurrentOperation(ctx))
      .then((op) => readWorkspaces(op, ctx));
    inputs.cache.set(key, list);
  }
  const listed = (await list).find((w) => w.name === task.workspace && w.root === task.destination);
  entry.now.registration = listed === undefined ? 'missing' : 'registered';
  entry.now.workspace =
    listed === undefined
      ? null
      : {
          name: listed.name,
          root: task.destination,
          commit_id: listed.commit_id,
          change_id: listed.change_id,
          parents: listed.parents,
        };
}
