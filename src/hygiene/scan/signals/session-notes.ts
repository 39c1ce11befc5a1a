/**
 * `session_notes`: notes of a working session committed into an agent-context file — dated
 * entries, progress logs, first-person accounts ("today we fixed…") and hand-off notes.
 * They describe one moment, not how to work in the project, yet every session pays for
 * them. One signal per section holding such lines, so a distill can target the section.
 */
import { sectionsOf } from '../context/sections.js';
import type { Doc } from '../walk.js';
import { isAlias } from './context-files.js';
import type { SignalModule } from './types.js';

export type SessionNoteKind = 'dated-entry' | 'progress-log' | 'first-person' | 'hand-off';

const MONTH = '(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?';
const DATE = `(?:20\\d\\d-\\d\\d-\\d\\d|\\d{1,2} ${MONTH},? 20\\d\\d|${MONTH} \\d{1,2},? 20\\d\\d)`;
/** A heading or list item that starts with (or is) a date: a log entry. */
const DATED_ENTRY = new RegExp(
  `^\\s{0,3}(?:#{1,6}\\s+|[-*+]\\s+|\\d+\\.\\s+)(?:\\*\\*|__|\\[)?\\s*(?:(?:session|update|entry|log)\\s*[:(]?\\s*)?${DATE}\\b`,
  'i',
);
const PROGRESS_HEADING =
  /^\s{0,3}#{1,6}\s+(?:(?:session|progress|work|dev(?:elopment)?)\s+(?:log|notes|history)|progress|current (?:status|progress|state)|status update|recent (?:changes|work|progress)|work in progress|what (?:we|i) (?:did|have done))\b/i;
const FIRST_PERSON =
  /\b(?:(?:today|yesterday|this session|last session|in this session),? (?:we|i)\b|(?:we|i) (?:just |have |already )?(?:fixed|added|implemented|refactored|finished|completed|started|migrated|removed|tried|discovered)\b)/i;
/** Hand-off notes, not the word: "handoff" is also a product term (agent handoffs). */
const HAND_OFF =
  /\b(?:hand-?off notes?|handover notes?|notes for the next (?:session|agent)|(?:in|for) the next session|where (?:we|i) left off|left off at|pick (?:this |it )?up (?:from here|next time))\b/i;

/** Text in double quotes ("…", “…”) on one line: words quoted, not the file's own voice. */
const QUOTED = /"[^"\n]*"|“[^”\n]*”/g;

/**
 * The kind of session note on a line outside code, if any. Wording quoted on the line is left
 * out: `Don't let "I discovered it mid-change" excuse…` (jesseduffield/lazygit's AGENTS.md)
 * quotes a hypothetical, it is no note of a session.
 */
export function sessionNoteKind(line: string): SessionNoteKind | undefined {
  if (DATED_ENTRY.test(line)) return 'dated-entry';
  if (PROGRESS_HEADING.test(line)) return 'progress-log';
  const own = line.replace(QUOTED, '""');
  if (HAND_OFF.test(own)) return 'hand-off';
  if (FIRST_PERSON.test(own)) return 'first-person';
  return undefined;
}

export const sessionNotes: SignalModule = {
  name: 'session_notes',
  scope: 'agent-context',
  description: 'dated entries, progress logs, first-person or hand-off notes in an agent-context file',
  shownByDefault: true,
  needs: [],
  collect({ facts, whoLoads }, emit) {
    for (const doc of facts.docs.values()) {
      if (!whoLoads.isLoaded(doc.path) && !facts.agentContext.has(doc.path)) continue;
      if (isAlias(doc.path, facts, whoLoads)) continue;
      for (const hit of notesOf(doc)) emit(doc.path, hit);
    }
  },
};

function notesOf(doc: Doc) {
  const hits: { line: number; kind: SessionNoteKind }[] = [];
  const bodyStart = doc.parsed.frontmatter.endLine + 1;
  for (let n = bodyStart; n <= doc.lines.length; n++) {
    if (doc.parsed.codeLines.has(n)) continue;
    const kind = sessionNoteKind(doc.lines[n - 1]!);
    if (kind !== undefined) hits.push({ line: n, kind });
  }
  if (hits.length === 0) return [];
  const out = [];
  for (const section of sectionsOf(doc.parsed)) {
    const inside = hits.filter((h) => h.line >= section.start && h.line <= section.end);
    if (inside.length === 0) continue;
    const kinds = [...new Set(inside.map((h) => h.kind))].sort();
    out.push({
      line: inside[0]!.line,
      detail: `${inside.length} session-note line${inside.length === 1 ? '' : 's'} (${kinds.join(', ')}) in lines ${section.start}–${section.end}`,
      data: {
        kinds,
        lines: inside.map((h) => h.line),
        start_line: section.start,
        end_line: section.end,
      },
    });
  }
  return out;
}
