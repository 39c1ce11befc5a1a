/**
 * The jj backend behind the one `Backend` interface. Each operation loads only its own
 * modules, so a command pays for what it runs.
 */
import type { Backend } from '../backend.js';
import { jjInfo } from './info.js';

export const jjBackend: Backend = {
  info: jjInfo,
  planTidy: async (plan, request) => (await import('./plan.js')).planJjTidy(plan, request),
  applyDeletes: async (inputs) => (await import('./apply.js')).applyJjDeletes(inputs),
  planRetirement: async (plan, loaded, request, ctx) =>
    (await import('./retire/plan.js')).planJjRetirement(plan, loaded, request, ctx),
  prepareRetirement: async (inputs) => (await import('./retire/apply.js')).prepareJjRetirement(inputs),
  createTask: async (options, inputs) => (await import('./task/create.js')).createJjTask(options, inputs),
  observeTask: async (task, entry, inputs) =>
    (await import('./task/list.js')).observeJjTask(task, entry, inputs),
};
