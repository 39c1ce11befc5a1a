/**
 * `machine_markers`: HTML-comment markers written for a program, not for an agent — a
 * `<!-- rule:12 -->` on every rule line, an id per bullet — repeated through an
 * agent-context file. Every agent that loads the file pays for them (Claude Code drops only
 * comments that stand as whole blocks, not ones at the end of a line), and none acts on
 * them. A marker counts when comments of one shape (digits and ids aside) stand on at least
 * `MACHINE_MARKERS.minLines` lines, and either carry as many different ids (`rule:12`,
 * `rule:13`, …) or stand on `MACHINE_MARKERS.minShare` of the file's prose lines; a tool's
 * own directives (`prettier-ignore`, `markdownlint-disable`, a generated block's BEGIN/END)
 * mark a place once or twice and are left alone.
 */
import { countTokens } from '../../tokens.js';
import type { Doc } from '../walk.js';
import { contextDocs } from './context-files.js';
import type { SignalModule } from './types.js';

export const MACHINE_MARKERS = { minLines: 5, minShare: 0.3 } as const;

const COMMENT = /[ \t]*<!--(?:(?!-->).)*-->/g;

/** A comment's shape: its text with numbers, hex ids and quoted values folded. */
export function markerShape(comment: string): string {
  return comment
    .trim()
    .replace(/\b[0-9a-f]{6,}\b/gi, '#')
    .replace(/\d+/g, '#')
    .replace(/(["'])[^"']*\1/g, '$1…$1')
    .replace(/\s+/g, ' ');
}

/**
 * `line` without its comments of `shape` (and the blanks before them); `kept` is null when
 * nothing else was on the line. A `\r` line ending stays.
 */
export function stripMarkers(line: string, shape: string): { kept: string | null; removed: string[] } {
  const removed: string[] = [];
  const kept = line.replace(COMMENT, (m) => {
    if (markerShape(m) !== shape) return m;
    removed.push(m);
    return '';
  });
  return { kept: kept.trim() === '' ? null : kept.replace(/[ \t]+(\r?)$/, '$1'), removed };
}

export interface MarkerFinding {
  shape: string;
  lines: number[];
  /** The text with every marker of the shape removed (marker-only lines dropped). */
  cleaned: Map<number, string | null>;
  removed: string;
}

/** The most frequent marker shape of `doc`, when it passes the thresholds. */
export function markersOf(doc: Doc): MarkerFinding | undefined {
  const byShape = new Map<string, number[]>();
  let prose = 0;
  for (let n = doc.parsed.frontmatter.endLine + 1; n <= doc.lines.length; n++) {
    const line = doc.lines[n - 1]!;
    if (doc.parsed.codeLines.has(n) || line.trim() === '') continue;
    prose++;
    const shapes = new Set((line.match(COMMENT) ?? []).map(markerShape));
    for (const shape of shapes) {
      const list = byShape.get(shape);
      if (list) list.push(n);
      else byShape.set(shape, [n]);
    }
  }
  const [shape, lines] =
    [...byShape].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1))[0] ?? [];
  if (shape === undefined || lines === undefined) return undefined;
  if (lines.length < MACHINE_MARKERS.minLines) return undefined;
  // Ids that differ on every line (`rule:12`, `rule:13`) are a program's; one text repeated
  // must stand on a good share of the file's lines to be more than a few tool directives.
  const texts = new Set(lines.flatMap((n) => (doc.lines[n - 1]!.match(COMMENT) ?? []).map((c) => c.trim())));
  if (texts.size < MACHINE_MARKERS.minLines && lines.length < prose * MACHINE_MARKERS.minShare)
    return undefined;
  const cleaned = new Map<number, string | null>();
  const removed: string[] = [];
  for (const n of lines) {
    const stripped = stripMarkers(doc.lines[n - 1]!, shape);
    cleaned.set(n, stripped.kept);
    removed.push(...stripped.removed);
  }
  return { shape, lines, cleaned, removed: removed.join('') };
}

export const machineMarkers: SignalModule = {
  name: 'machine_markers',
  scope: 'agent-context',
  description: `an HTML-comment marker of one shape on ${MACHINE_MARKERS.minLines}+ lines of an agent-context file (with as many ids, or on ${MACHINE_MARKERS.minShare * 100}%+ of the prose): tokens no agent uses`,
  shownByDefault: true,
  needs: [],
  collect({ facts, whoLoads }, emit) {
    for (const doc of contextDocs(facts, whoLoads)) {
      const found = markersOf(doc);
      if (found === undefined) continue;
      const tokens = countTokens(found.removed);
      const first = found.lines[0]!;
      const last = found.lines[found.lines.length - 1]!;
      emit(doc.path, {
        line: first,
        detail: `${found.lines.length} lines carry a "${found.shape}" marker (≈${tokens} tokens every load, for no agent): remove them`,
        data: {
          shape: found.shape,
          lines: found.lines,
          start_line: first,
          end_line: last,
          tokens,
        },
      });
    }
  },
};
