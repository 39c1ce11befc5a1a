/**
 * The Git backend behind the one `Backend` interface. Each operation loads only its own
 * modules, so a command pays for what it runs.
 */
import type { Backend } from '../backend.js';
import { gitInfo } from './info.js';

export const gitBackend: Backend = {
  info: gitInfo,
  planTidy: async (plan, request) => (await import('./plan.js')).planGit(plan, request),
  applyDeletes: async (inputs) => (await import('./apply.js')).applyGitDeletes(inputs),
  planRetirement: async (plan, loaded, request, ctx) =>
    (await import('./retire/plan.js')).planGitRetirement(plan, loaded, request, ctx),
  prepareRetirement: async (inputs) => (await import('./retire/apply.js')).prepareGitRetirement(inputs),
  createTask: async (options, inputs) => (await import('./task/create.js')).createGitTask(options, inputs),
  observeTask: async (task, entry, inputs) =>
    (await import('./task/list.js')).observeGitTask(task, entry, inputs),
};
