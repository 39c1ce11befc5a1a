import type { GroupSpec } from '../command.js';

export const taskGroup: GroupSpec = {
  name: 'task',
  summary: 'Owned task worktrees (create and retire)',
  description:
    'Task commands create worktrees for a task and record their ownership, so that tidy can\n' +
    'later retire them safely. This release ships no task commands yet.',
  commands: [],
};
