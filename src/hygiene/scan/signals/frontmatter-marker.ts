import { COMPLETED_STATUSES, SUPERSEDED_STATUSES } from '../../types.js';
import type { Doc } from '../walk.js';
import type { EmitSignal, SignalModule } from './types.js';

/** Every `status:` value the signal fires on. */
const DONE_STATUSES: ReadonlySet<string> = new Set([...COMPLETED_STATUSES, ...SUPERSEDED_STATUSES]);

/** A frontmatter or in-body completion marker, or a fully ticked task list. */
export const frontmatterMarker: SignalModule = {
  name: 'frontmatter_marker',
  scope: 'docs',
  description:
    'frontmatter status done/superseded/…, superseded_by, archived: true, an in-body status line, or all tasks ticked',
  shownByDefault: true,
  needs: [],
  collect({ facts }, emit) {
    for (const doc of facts.docs.values()) {
      frontmatterMarkers(doc, emit);
      const body = doc.parsed.bodyStatus;
      if (body && DONE_STATUSES.has(body.value)) {
        emit(doc.path, {
          line: body.line,
          detail: `in-body status: ${body.value}`,
          data: { marker: 'body-status', value: body.value },
        });
      }
      const tasks = doc.parsed.tasks;
      if (tasks.total >= 2 && tasks.done === tasks.total) {
        emit(doc.path, {
          line: tasks.firstLine,
          detail: `all ${tasks.total} tasks are ticked`,
          data: { marker: 'tasks-complete', value: `${tasks.done}/${tasks.total}` },
        });
      }
    }
  },
};

function frontmatterMarkers(doc: Doc, emit: EmitSignal): void {
  const fm = doc.parsed.frontmatter;
  const data = fm.data;
  if (!data) return;
  const status = typeof data['status'] === 'string' ? data['status'].trim().toLowerCase() : undefined;
  const superseded = data['superseded_by'];
  if (status && DONE_STATUSES.has(status)) {
    emit(doc.path, {
      ...lineOf(fm.keyLines.get('status')),
      detail: `frontmatter status: ${status}`,
      data: {
        marker: 'status',
        value: status,
        ...(typeof superseded === 'string' ? { superseded_by: superseded } : {}),
      },
    });
  }
  if (typeof superseded === 'string' && superseded.trim() !== '') {
    emit(doc.path, {
      ...lineOf(fm.keyLines.get('superseded_by')),
      detail: `frontmatter superseded_by: ${superseded}`,
      data: { marker: 'superseded_by', value: superseded, superseded_by: superseded },
    });
  }
  if (data['archived'] === true) {
    emit(doc.path, {
      ...lineOf(fm.keyLines.get('archived')),
      detail: 'frontmatter archived: true',
      data: { marker: 'archived', value: 'true' },
    });
  }
}

function lineOf(line: number | undefined): { line?: number } {
  return line === undefined ? {} : { line };
}
