import { ARCHIVE_SEGMENTS, cmp, STALE_FOLDERS } from '../paths.js';
import type { SignalModule } from './types.js';

type Rank = [number, number, number, string];
interface Copy {
  start: number;
  end: number;
  canonical: string;
  /** The canonical copy's lines. */
  cs: number;
  ce: number;
}

/** A normalised block (above a minimum size) repeated verbatim in another scanned doc. */
export const duplicateContent: SignalModule = {
  name: 'duplicate_content',
  scope: 'docs',
  description:
    'a block that appears verbatim in another scanned doc, with the copy in the more canonical place',
  shownByDefault: false,
  needs: [],
  collect({ facts }, emit) {
    const blockOwners = new Map<string, { path: string; start: number; end: number }[]>();
    for (const doc of facts.docs.values()) {
      for (const b of doc.parsed.blocks) {
        const list = blockOwners.get(b.hash);
        const item = { path: doc.path, start: b.start, end: b.end };
        if (list) list.push(item);
        else blockOwners.set(b.hash, [item]);
      }
    }
    // A copy outside stale and archive folders, outside agent context, nearer the root wins.
    const canonicalRank = (path: string): Rank => [
      path.split('/').some((s) => STALE_FOLDERS.has(s.toLowerCase()) || ARCHIVE_SEGMENTS.has(s.toLowerCase()))
        ? 1
        : 0,
      facts.agentContext.has(path) ? 1 : 0,
      path.split('/').length,
      path,
    ];
    const dupes = new Map<string, Copy[]>();
    for (const owners of blockOwners.values()) {
      const paths = new Set(owners.map((o) => o.path));
      if (paths.size < 2) continue;
      const canonicalPath = [...paths].sort((a, b) => compareRank(canonicalRank(a), canonicalRank(b)))[0]!;
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
    for (const [path, list] of dupes) {
      const lines = facts.docs.get(path)!.lines;
      for (const d of mergeAdjacent(list, lines)) {
        emit(path, {
          line: d.start,
          detail: `lines ${d.start}–${d.end} repeat "${d.canonical}" lines ${d.cs}–${d.ce}`,
          data: { canonical_ref: `${d.canonical}#L${d.cs}-L${d.ce}`, start_line: d.start, end_line: d.end },
        });
      }
    }
  },
};

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
