/**
 * `duplicate_content`: a whole prose section repeated verbatim in one other scanned doc.
 * Made precise (docs/scanner-and-classifiers.md) so that it names a copy a maintainer would
 * want merged, never a copy made on purpose:
 * - never in a released version's docs (a frozen snapshot), nor across translations or
 *   versions of the docs (`variantOf`: `i18n/`, `content/fr/`,
 *   `index.fr.md`; `versioned_docs/version-30.4/` vs `docs/`, `v1/` vs `v2/`);
 * - never a generated doc (`linguist-generated`, a "generated … do not edit" marker, a
 *   `NAME.src.md` pair);
 * - never a template: a block held by three or more docs of one variant;
 * - never the same page in two doc trees (both files of one name: a mirror or a port);
 * - never a doc assembled from three or more others (a print edition, a page of intros);
 * - only a whole section body (everything under one heading) on both sides, mostly prose
 *   (not a table, code or HTML).
 */
import { findGeneratedDocs, sourcePairMembers } from '../../classify/generated.js';
import { type SectionSpan, sectionSpansOf } from '../context/sections.js';
import { ARCHIVE_SEGMENTS, baseOf, cmp, STALE_FOLDERS, variantOf } from '../paths.js';
import type { Doc } from '../walk.js';
import type { SignalModule } from './types.js';

type Rank = [number, number, number, string];
interface Owner {
  path: string;
  start: number;
  end: number;
}
/** Where a section is (context/sections.ts). */
type Placed = Pick<SectionSpan, 'start' | 'end' | 'heading'>;
interface Copy {
  start: number;
  end: number;
  canonical: string;
  /** The canonical copy's lines. */
  cs: number;
  ce: number;
}

/** Docs holding the same block in one variant at or above this count share a template. */
export const TEMPLATE_COPIES = 3;

export const duplicateContent: SignalModule = {
  name: 'duplicate_content',
  scope: 'docs',
  description:
    'a whole prose section repeated verbatim in one other doc of the same language and version (not generated, not a template in 3+ docs)',
  shownByDefault: false,
  needs: [],
  async collect({ facts }, emit) {
    const canonicalRank = (path: string): Rank => [
      path.split('/').some((s) => STALE_FOLDERS.has(s.toLowerCase()) || ARCHIVE_SEGMENTS.has(s.toLowerCase()))
        ? 1
        : 0,
      facts.agentContext.has(path) ? 1 : 0,
      path.split('/').length,
      path,
    ];
    const dupes = new Map<string, Copy[]>();
    for (const owners of sameVariantGroups(facts.docs)) {
      const paths = [...new Set(owners.map((o) => o.path))];
      if (paths.length !== 2 || sameName(paths[0]!, paths[1]!)) continue;
      const canonicalPath = paths.sort((a, b) => compareRank(canonicalRank(a), canonicalRank(b)))[0]!;
      const canonical = owners.find((o) => o.path === canonicalPath)!;
      for (const o of owners) {
        if (o.path === canonicalPath) continue;
        const list = dupes.get(o.path) ?? [];
        if (list.some((d) => d.start === o.start)) continue;
        list.push({
          start: o.start,
          end: o.end,
          canonical: canonicalPath,
          cs: canonical.start,
          ce: canonical.end,
        });
        dupes.set(o.path, list);
      }
    }
    const found: { path: string; copy: Copy }[] = [];
    // A doc's sections, found once (where they are, not their text): a doc with many copies
    // is asked about once per copy.
    const spans = new Map<string, Placed[]>();
    const spansOf = (doc: Doc) => {
      let list = spans.get(doc.path);
      if (list === undefined) {
        list = sectionSpansOf(doc.parsed).map(({ start, end, heading }) => ({ start, end, heading }));
        spans.set(doc.path, list);
      }
      return list;
    };
    for (const [path, list] of dupes) {
      const doc = facts.docs.get(path)!;
      for (const d of mergeAdjacent(list, doc.lines)) {
        const other = facts.docs.get(d.canonical)!;
        if (
          wholeProseSection(doc, spansOf(doc), d.start, d.end) &&
          wholeProseSection(other, spansOf(other), d.cs, d.ce)
        )
          found.push({ path, copy: d });
      }
    }
    const generated = await generatedAmong(facts.tree.root, facts.docs, found);
    for (const { path, copy: d } of found) {
      if (generated.has(path) || generated.has(d.canonical)) continue;
      emit(path, {
        line: d.start,
        detail: `lines ${d.start}–${d.end} repeat "${d.canonical}" lines ${d.cs}–${d.ce}`,
        data: { canonical_ref: `${d.canonical}#L${d.cs}-L${d.ce}`, start_line: d.start, end_line: d.end },
      });
    }
  },
};

/** Each block's holders, split by the variant (language, version) of the doc holding it. */
function sameVariantGroups(docs: ReadonlyMap<string, Doc>): Owner[][] {
  const byKey = new Map<string, Owner[]>();
  for (const doc of docs.values()) {
    const v = variantOf(doc.path);
    // A released version's docs are a frozen snapshot: no copy in them is edited away.
    if (v.version !== '') continue;
    for (const b of doc.parsed.blocks) {
      const key = `${b.hash}\0${v.locale}\0${v.version}`;
      const item = { path: doc.path, start: b.start, end: b.end };
      const list = byKey.get(key);
      if (list) list.push(item);
      else byKey.set(key, [item]);
    }
  }
  // A block in TEMPLATE_COPIES or more docs of a variant is their shared template.
  const groups = [...byKey.values()].filter(
    (owners) => new Set(owners.map((o) => o.path)).size < TEMPLATE_COPIES,
  );
  const assembled = assembledDocs(groups);
  return groups.filter((owners) => !owners.some((o) => assembled.has(o.path)));
}

/** Docs sharing blocks with this many other docs or more are assembled from them. */
export const ASSEMBLED_SOURCES = 3;

/**
 * Docs assembled from others: one that shares blocks with `ASSEMBLED_SOURCES` or more other
 * docs (rust-lang/book's `nostarch/chapter03.md`, the print edition built from every
 * `src/ch03-*.md`; a page that collects the intros of the pages it lists). Its copies are
 * the assembly, not a duplicate to mend.
 */
function assembledDocs(groups: readonly Owner[][]): Set<string> {
  const partners = new Map<string, Set<string>>();
  for (const owners of groups) {
    const paths = [...new Set(owners.map((o) => o.path))];
    for (const a of paths)
      for (const b of paths) {
        if (a === b) continue;
        const set = partners.get(a) ?? new Set<string>();
        set.add(b);
        partners.set(a, set);
      }
  }
  return new Set([...partners].filter(([, set]) => set.size >= ASSEMBLED_SOURCES).map(([path]) => path));
}

/**
 * The same page in two doc trees (`README.md` mirrored as `docs/README.md`, jj's `docs/FAQ.md`
 * ported to `web/docs/src/content/docs/FAQ.md`): a mirror is kept whole or dropped whole,
 * never mended section by section with links.
 */
const sameName = (a: string, b: string): boolean => baseOf(a).toLowerCase() === baseOf(b).toLowerCase();

const TABLE_ROW = /^\s*\|/;
const HTML_LINE = /^\s*</;

/**
 * Whether lines start–end are the whole body of one headed section (nothing but the copy
 * between its heading and the next), and mostly prose: at least half of its non-blank lines
 * neither code, a table row nor HTML.
 */
function wholeProseSection(doc: Doc, sections: readonly Placed[], start: number, end: number): boolean {
  const section = sections.find((s) => s.start < start && s.end >= start);
  if (section === undefined || section.heading === '' || section.end !== end) return false;
  for (let l = section.start + 1; l < start; l++) if ((doc.lines[l - 1] ?? '').trim() !== '') return false;
  let content = 0;
  let prose = 0;
  for (let l = start; l <= end; l++) {
    const line = doc.lines[l - 1] ?? '';
    if (line.trim() === '') continue;
    content++;
    if (!doc.parsed.codeLines.has(l) && !TABLE_ROW.test(line) && !HTML_LINE.test(line)) prose++;
  }
  return prose * 2 >= content && content > 0;
}

/** The generated docs among both sides of the copies found (one `git check-attr` for all). */
async function generatedAmong(
  root: string,
  docs: ReadonlyMap<string, Doc>,
  found: readonly { path: string; copy: Copy }[],
): Promise<Set<string>> {
  const paths = [...new Set(found.flatMap(({ path, copy }) => [path, copy.canonical]))].sort(cmp);
  if (paths.length === 0) return new Set();
  const out = await findGeneratedDocs(root, paths, (path) => docs.get(path)?.text, true);
  for (const path of sourcePairMembers([...docs.keys()])) out.add(path);
  return out;
}

/** Copies of the same canonical doc separated only by blank lines become one. */
function mergeAdjacent(list: Copy[], lines: readonly string[]): Copy[] {
  list.sort((a, b) => a.start - b.start);
  const merged: Copy[] = [];
  for (const d of list) {
    const prev = merged[merged.length - 1];
    const gapBlank =
      prev !== undefined &&
      prev.canonical === d.canonical &&
      lines.slice(prev.end, d.start - 1).every((l) => l.trim() === '');
    if (prev && gapBlank) {
      prev.end = Math.max(prev.end, d.end);
      prev.cs = Math.min(prev.cs, d.cs);
      prev.ce = Math.max(prev.ce, d.ce);
    } else merged.push({ ...d });
  }
  return merged;
}

function compareRank(a: Rank, b: Rank): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || cmp(a[3], b[3]);
}
