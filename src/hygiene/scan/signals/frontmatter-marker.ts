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
      if (
        body &&
        DONE_STATUSES.has(body.value) &&
        isDocLevel(doc, body.line) &&
        !isQualified(doc, body.line)
      ) {
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

const HEADING = /^ {0,3}#{1,6}(?:[ \t]|$)/;
const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s/;

/**
 * Whether a status line speaks for the whole doc: at its top (under the title at most, before
 * any other heading) and not an item of a list. "Status: **DEPRECATED**" under one option
 * deep inside a plan describes that option, not the plan.
 */
function isDocLevel(doc: Doc, line: number): boolean {
  if (LIST_ITEM.test(doc.lines[line - 1] ?? '')) return false;
  let headings = 0;
  for (let n = doc.parsed.frontmatter.endLine + 1; n < line; n++)
    if (!doc.parsed.codeLines.has(n) && HEADING.test(doc.lines[n - 1] ?? '')) headings++;
  return headings <= 1;
}

/** Words after a status that take it back: part of the work is still to do. */
const QUALIFIER = /\b(?:remains?|follow-?ups?|to ?do|mvp|partial(?:ly)?|in progress|not yet)\b/i;

/**
 * Whether the status line (with the rest of its paragraph) qualifies the status: "Status:
 * implemented MVP; Git-backed sources … remain follow-ups" (cloudflare/agents'
 * `design/skills.md`) says the design is still open, not done.
 */
function isQualified(doc: Doc, line: number): boolean {
  const paragraph: string[] = [];
  for (let n = line; n <= doc.lines.length && paragraph.length < 4; n++) {
    const text = doc.lines[n - 1] ?? '';
    if (text.trim() === '' || (n > line && HEADING.test(text))) break;
    paragraph.push(text);
  }
  const rest = paragraph.join(' ').replace(/^.*?status[\s*_]*:[\s*_]*[A-Za-z][A-Za-z-]*/i, '');
  return QUALIFIER.test(rest);
}

function lineOf(line: number | undefined): { line?: number } {
  return line === undefined ? {} : { line };
}
