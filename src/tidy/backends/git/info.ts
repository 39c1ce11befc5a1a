/** The Git backend's registry entry: its names, its marker, and where its code is. */
import { quote } from '../../../core/quote.js';
import { recoveryRefFor } from '../../types.js';
import type { BackendInfo } from '../backend.js';

export const gitInfo: BackendInfo = {
  name: 'git',
  displayName: 'Git',
  refNoun: { one: 'branch', many: 'branches' },
  selectorNoun: 'ref',
  pinNoun: 'ref',
  checkoutNoun: 'worktree',
  recoveryName: recoveryRefFor,
  plansAtOperation: false,
  // `.git` is a directory, or a file in a linked worktree or submodule.
  marker: { name: '.git', directoryOnly: false, order: 1 },
  allowsForeignTasks: true,
  taskRecordFields: ['branch', 'lock_reason'],
  isCreatedFacts: (facts) => typeof facts['head'] === 'string',
  describeTask: (task) =>
    task.backend === 'git' ? `branch ${quote(task.branch)} from ${task.start_oid}` : '',
  describeCreatedTask: (task) =>
    task.backend === 'git' ? `branch: ${quote(task.branch)} at ${task.start_oid}` : '',
  describeTaskNow: (now) => `branch now: ${now.branch_oid ?? 'absent'}`,
  load: () => import('./backend.js').then((module) => module.gitBackend),
};
