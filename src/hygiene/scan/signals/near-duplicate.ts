/**
 * `near_duplicate`: a section of an agent-context file that restates, possibly reworded,
 * a section of another agent's context file, of a contributor guide or linked doc it
 * restates, or an earlier section of the same file. Sections are compared by word
 * shingles (`context/sections.ts`): a section is a near copy when at least
 * `NEAR_DUPLICATE.minContainment` of its shingles are in the other section.
 *
 * Calibrated on real repositories (docs/scanner-and-classifiers.md, "Near-duplicates"):
 * sections carried over from one agent's file to another keep 100% of their 3-word
 * shingles; a copy with one word in eight changed keeps about 60%; sections on the same
 * topic that were written separately (a "Development workflow" in `AGENTS.md` and in a
 * contributing guide) share at most 11%. Sections under `minWords` words (a one-line
 * "## Build" with a command) match by accident and are skipped, and code is not wording.
 */
import type { AgentId } from '../context/agents.js';
import { containment, type Section, sectionsOf } from '../context/sections.js';
import type { WhoLoads } from '../context/who-loads.js';
import { cmp } from '../paths.js';
import type { Doc } from '../walk.js';
import type { SignalInput, SignalModule } from './types.js';

export const NEAR_DUPLICATE = {
  minContainment: 0.5,
  minWords: 30,
} as const;

/** Guides an agent-context file often restates, wherever they sit. */
const GUIDE_NAME =
  /^(?:contributing|development|developing|hacking|conventions|coding[-_]?(?:guidelines|standards|style)|style[-_]?guide)\.md$/i;

export type NearDuplicateRelation = 'agent-context' | 'restated-doc' | 'within-file';

interface Match {
  /** The section's index in its file. */
  index: number;
  section: Section;
  other: Section;
  otherPath: string;
  relation: NearDuplicateRelation;
  shared: number;
}

export const nearDuplicate: SignalModule = {
  name: 'near_duplicate',
  scope: 'agent-context',
  description: `an agent-context section ${NEAR_DUPLICATE.minContainment * 100}%+ restated (by 3-word shingles) in another agent's file, a guide it restates, or earlier in the same file`,
  shownByDefault: false,
  needs: [],
  collect(input, emit) {
    const { facts, whoLoads } = input;
    const contextFiles = contextDocs(input);
    if (contextFiles.length === 0) return;
    const sections = new Map<string, Section[]>();
    const sectionsFor = (doc: Doc) => {
      let list = sections.get(doc.path);
      if (list === undefined) {
        list = sectionsOf(doc.parsed);
        sections.set(doc.path, list);
      }
      return list;
    };
    const contextPaths = new Set(contextFiles.map((d) => d.path));
    for (const doc of contextFiles) {
      const own = sectionsFor(doc);
      const matches: Match[] = withinFile(own).map((m) => ({ ...m, otherPath: doc.path }));
      for (const other of contextFiles) {
        if (other.path === doc.path || !isCopySide(doc.path, other.path, whoLoads)) continue;
        if (!comparable(doc.path, other.path, whoLoads)) continue;
        matches.push(...across(own, sectionsFor(other), other.path, 'agent-context'));
      }
      for (const guide of restatedDocs(doc, input, contextPaths)) {
        matches.push(...across(own, sectionsFor(facts.docs.get(guide)!), guide, 'restated-doc'));
      }
      for (const m of merge(best(matches))) emit(doc.path, toSignal(doc.path, m, whoLoads));
    }
  },
};

/** Scanned docs some agent loads, one per real file (a symlink's own path is left out). */
function contextDocs({ facts, whoLoads }: SignalInput): Doc[] {
  const out: Doc[] = [];
  for (const doc of facts.docs.values()) {
    if (!whoLoads.isLoaded(doc.path) && !facts.agentContext.has(doc.path)) continue;
    if (whoLoads.realOf(doc.path) !== doc.path && facts.docs.has(whoLoads.realOf(doc.path))) continue;
    out.push(doc);
  }
  return out.sort((a, b) => cmp(a.path, b.path));
}

/**
 * Two context files are compared when different agents load them, or when one agent loads
 * both at start-up (then the copy is paid twice in every session). Nested files of one
 * agent (two folders' `AGENTS.md`) are loaded in different sessions and are left alone.
 */
function comparable(a: string, b: string, whoLoads: WhoLoads): boolean {
  const la = whoLoads.of(a);
  const lb = whoLoads.of(b);
  if (la.startup.some((id) => lb.startup.includes(id))) return true;
  const all = (l: typeof la) => [...l.startup, ...l.onDemand].sort().join(',');
  return all(la) !== all(lb);
}

/** The more canonical of two files keeps its text: more agents load it, `AGENTS.md`, nearer the root. */
function isCopySide(path: string, other: string, whoLoads: WhoLoads): boolean {
  const rank = (p: string): [number, number, number, string] => [
    -whoLoads.of(p).startup.length,
    /(^|\/)AGENTS\.md$/.test(p) ? 0 : 1,
    p.split('/').length,
    p,
  ];
  const a = rank(path);
  const b = rank(other);
  const order = a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || cmp(a[3], b[3]);
  return order > 0;
}

/** Guides by name and the docs the file links to, when they are scanned and not agent context. */
function restatedDocs(doc: Doc, { facts }: SignalInput, contextPaths: ReadonlySet<string>): string[] {
  const out = new Set<string>();
  for (const path of facts.docs.keys()) {
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (GUIDE_NAME.test(name) && !contextPaths.has(path)) out.add(path);
  }
  for (const { r } of facts.resolvedRefs.get(doc.path) ?? []) {
    if (r?.exists && r.path !== doc.path && facts.docs.has(r.path) && !contextPaths.has(r.path))
      out.add(r.path);
  }
  return [...out].sort(cmp);
}

const big = (s: Section) => s.words >= NEAR_DUPLICATE.minWords;

function sharedCount(a: Section, b: Section): number {
  return Math.round(containment(a.shingles, b.shingles) * a.shingles.size);
}

/** A later section restating an earlier one of the same file. */
function withinFile(own: readonly Section[]): Omit<Match, 'otherPath'>[] {
  const out: Omit<Match, 'otherPath'>[] = [];
  for (let j = 1; j < own.length; j++) {
    const s = own[j]!;
    if (!big(s)) continue;
    for (let i = 0; i < j; i++) {
      const t = own[i]!;
      if (!big(t) || containment(s.shingles, t.shingles) < NEAR_DUPLICATE.minContainment) continue;
      out.push({ index: j, section: s, other: t, relation: 'within-file', shared: sharedCount(s, t) });
    }
  }
  return out;
}

function across(
  own: readonly Section[],
  theirs: readonly Section[],
  otherPath: string,
  relation: NearDuplicateRelation,
): Match[] {
  const out: Match[] = [];
  own.forEach((s, index) => {
    if (!big(s)) return;
    for (const t of theirs) {
      if (!big(t) || containment(s.shingles, t.shingles) < NEAR_DUPLICATE.minContainment) continue;
      out.push({ index, section: s, other: t, otherPath, relation, shared: sharedCount(s, t) });
    }
  });
  return out;
}

/** One match per section: the other section sharing most of it; ties go to the more canonical relation, then path, then line. */
function best(matches: Match[]): Match[] {
  const order: NearDuplicateRelation[] = ['agent-context', 'restated-doc', 'within-file'];
  const ratio = (m: Match) => m.shared / m.section.shingles.size;
  const compare = (a: Match, b: Match) =>
    ratio(b) - ratio(a) ||
    order.indexOf(a.relation) - order.indexOf(b.relation) ||
    cmp(a.otherPath, b.otherPath) ||
    a.other.start - b.other.start;
  const byStart = new Map<number, Match>();
  for (const m of matches) {
    const prior = byStart.get(m.section.start);
    if (prior === undefined || compare(m, prior) < 0) byStart.set(m.section.start, m);
  }
  return [...byStart.values()].sort((a, b) => a.section.start - b.section.start);
}

interface Span {
  start: number;
  end: number;
  otherPath: string;
  otherStart: number;
  otherEnd: number;
  relation: NearDuplicateRelation;
  shared: number;
  size: number;
  /** Every merged section's body is word for word the other's. */
  exact: boolean;
}

/** Consecutive sections restating consecutive parts of the same file become one span. */
function merge(matches: Match[]): Span[] {
  const out: Span[] = [];
  let lastIndex = -2;
  for (const m of matches) {
    const prev = out[out.length - 1];
    const adjacent =
      prev !== undefined &&
      m.index === lastIndex + 1 &&
      prev.otherPath === m.otherPath &&
      prev.relation === m.relation &&
      m.other.start > prev.otherStart &&
      (m.relation !== 'within-file' || m.other.end < prev.start);
    if (prev && adjacent) {
      prev.end = m.section.end;
      prev.otherEnd = Math.max(prev.otherEnd, m.other.end);
      prev.shared += m.shared;
      prev.size += m.section.shingles.size;
      prev.exact &&= m.section.body === m.other.body;
    } else {
      out.push({
        start: m.section.start,
        end: m.section.end,
        otherPath: m.otherPath,
        otherStart: m.other.start,
        otherEnd: m.other.end,
        relation: m.relation,
        shared: m.shared,
        size: m.section.shingles.size,
        exact: m.section.body === m.other.body,
      });
    }
    lastIndex = m.index;
  }
  return out;
}

function toSignal(path: string, span: Span, whoLoads: WhoLoads) {
  const similarity = Math.round((span.shared / span.size) * 100) / 100;
  const loadedBy: AgentId[] = whoLoads.of(path).startup;
  const otherLoadedBy: AgentId[] = whoLoads.of(span.otherPath).startup;
  const where =
    span.relation === 'within-file'
      ? `lines ${span.otherStart}–${span.otherEnd}`
      : `"${span.otherPath}" lines ${span.otherStart}–${span.otherEnd}`;
  return {
    line: span.start,
    detail: `lines ${span.start}–${span.end} restate ${where} (${Math.round(similarity * 100)}% of their 3-word phrases)`,
    data: {
      relation: span.relation,
      start_line: span.start,
      end_line: span.end,
      other_path: span.otherPath,
      other_ref: `${span.otherPath}#L${span.otherStart}-L${span.otherEnd}`,
      similarity,
      exact: span.exact,
      loaded_by: loadedBy,
      ...(span.relation !== 'within-file' ? { other_loaded_by: otherLoadedBy } : {}),
    },
  };
}
