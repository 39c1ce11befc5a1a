import { RefusalError } from '../../../../core/errors.js';
import { type LoadedGitTask, type LoadedTask, loadTask } from '../../../../task/store.js';

/** A task record of this backend: a Git worktree on a task branch. */
export function isGitTask(loaded: LoadedTask): loaded is LoadedGitTask {
  return loaded.task.backend === 'git';
}

/** Loads a task that must be a Git task (the Git retirement protocol); a jj task refuses `unsupported`. */
export async function loadGitTask(stateDir: string, taskId: string, key: Buffer): Promise<LoadedGitTask> {
  const loaded = await loadTask(stateDir, taskId, key);
  if (!isGitTask(loaded))
    throw new RefusalError(
      'unsupported',
      `task ${taskId} is a jj workspace; this plan was made for a Git worktree`,
    );
  return loaded;
}
