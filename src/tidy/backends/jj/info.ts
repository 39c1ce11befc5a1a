/** The jj backend's registry entry: its names, its marker, and where its code is. */
import { quote } from '../../../core/quote.js';
import { recoveryBookmarkFor } from '../../types.js';
import type { BackendInfo } from '../backend.js';

export const jjInfo: BackendInfo = {
  name: 'jj',
  displayName: 'jj',
  refNoun: { one: 'bookmark', many: 'bookmarks' },
  selectorNoun: 'bookmark',
  pinNoun: 'bookmark',
  checkoutNoun: 'workspace',
  recoveryName: recoveryBookmarkFor,
  plansAtOperation: true,
  // Looked for before `.git`: a colocated repository is a jj repository.
  marker: { name: '.jj', directoryOnly: true, order: 0 },
  // A checkout made behind jj's back would be one jj does not know (docs/tasks.md).
  allowsForeignTasks: false,
  taskRecordFields: ['workspace'],
  isCreatedFacts: (facts) => {
    const workspace = facts['workspace'];
    const isRecord = typeof workspace === 'object' && workspace !== null && !Array.isArray(workspace);
    return isRecord && typeof facts['operation_id'] === 'string';
  },
  describeTask: (task) =>
    task.backend === 'jj' ? `jj workspace ${quote(task.workspace)} on ${task.start_oid}` : '',
  describeCreatedTask: (task) =>
    task.backend === 'jj' ? `jj workspace: ${quote(task.workspace)} on ${task.start_oid}` : '',
  describeTaskNow: ({ workspace: ws }) =>
    `working-copy commit now: ${ws === null ? 'not listed' : `${ws.commit_id} (change ${ws.change_id}), parents ${ws.parents.join(', ')}`}`,
  load: () => import('./backend.js').then((module) => module.jjBackend),
};
