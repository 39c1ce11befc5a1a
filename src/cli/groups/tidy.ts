import type { GroupSpec } from '../command.js';

export const tidyGroup: GroupSpec = {
  name: 'tidy',
  summary: 'Plan and apply evidence-based deletion of integrated branches',
  description:
    'Tidy decides which local branches are provably integrated into an explicit base,\n' +
    'and deletes them only under explicit authorization, with a recovery ref pinned first\n' +
    'and a durable journal.',
  commands: [],
};
