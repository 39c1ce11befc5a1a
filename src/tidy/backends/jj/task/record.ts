import type { LoadedJjTask, LoadedTask } from '../../../../task/store.js';

/** A task record of this backend: a jj workspace. */
export function isJjTask(loaded: LoadedTask): loaded is LoadedJjTask {
  return loaded.task.backend === 'jj';
}
