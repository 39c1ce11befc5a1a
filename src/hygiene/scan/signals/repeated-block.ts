/**
 * `repeated_block`: a block of an agent-context file (a paragraph or a list, with the heading
 * right above it when that repeats too) written a second time, word for word, further down
 * the same file — a rule pasted twice. Every session pays for it twice. Blocks are compared
 * by their words (case, Markdown and line wrapping aside); a block under `MIN_WORDS` words
 * ("Run `npm test`.") repeats by design and is left alone, and so is code. A whole section
 * repeated word for word is `near_duplicate`'s (`within-file`), not reported twice.
 */
import { sectionsOf } from '../context/sections.js';
import type { Doc } from '../walk.js';
import { contextDocs } from './context-files.js';
import { NEAR_DUPLICATE } from './near-duplicate.js';
import type { SignalModule } from './types.js';

export const REPEATED_BLOCK = { minWords: 12 } as const;

const HEADING = /^ {0,3}#{1,6}(?:\s|$)/;

export interface Block {
  start: number;
  end: number;
  /** Normalized words, for comparison. */
  key: string;
  words: number;
  isHeading: boolean;
}

/** Paragraphs, lists and headings outside code and frontmatter, in order. */
export function blocksOf(doc: Doc): Block[] {
  const out: Block[] = [];
  let current: { start: number; end: number; text: string[] } | undefined;
  const close = () => {
    if (current === undefined) return;
    const words =
      current.text
        .join(' ')
        .toLowerCase()
        .match(/[\p{L}\p{N}_]+/gu) ?? [];
    out.push({
      start: current.start,
      end: current.end,
      key: words.join(' '),
      words: words.length,
      isHeading: false,
    });
    current = undefined;
  };
  const skip = new Set<number>(doc.parsed.codeLines);
  for (const [start, end] of doc.parsed.commentBlocks) for (let l = start; l < end; l++) skip.add(l + 1);
  for (let n = doc.parsed.frontmatter.endLine + 1; n <= doc.lines.length; n++) {
    const line = doc.lines[n - 1]!;
    if (skip.has(n) || line.trim() === '') {
      close();
      continue;
    }
    if (HEADING.test(line)) {
      close();
      const words = line.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
      out.push({ start: n, end: n, key: words.join(' '), words: 0, isHeading: true });
      continue;
    }
    if (current === undefined) current = { start: n, end: n, text: [line] };
    else {
      current.end = n;
      current.text.push(line);
    }
  }
  close();
  return out;
}

export interface Repeat {
  start: number;
  end: number;
  firstStart: number;
  firstEnd: number;
  words: number;
}

/**
 * Spans of consecutive blocks that repeat consecutive earlier blocks word for word, with at
 * least `REPEATED_BLOCK.minWords` words of prose (headings join a span but count no words,
 * and a span does not end on a heading).
 */
export function repeatsOf(blocks: readonly Block[]): Repeat[] {
  const firstAt = new Map<string, number>();
  const spans: { from: number; to: number; copyFrom: number; copyTo: number }[] = [];
  blocks.forEach((block, i) => {
    const earlier = block.key === '' ? undefined : firstAt.get(block.key);
    if (earlier === undefined) {
      if (block.key !== '') firstAt.set(block.key, i);
      return;
    }
    const open = spans[spans.length - 1];
    const next = open === undefined ? undefined : open.copyTo + 1;
    if (open !== undefined && open.to === i - 1 && next! < open.from && blocks[next!]!.key === block.key) {
      open.to = i;
      open.copyTo = next!;
    } else spans.push({ from: i, to: i, copyFrom: earlier, copyTo: earlier });
  });
  const out: Repeat[] = [];
  for (const span of spans) {
    while (span.to > span.from && blocks[span.to]!.isHeading) {
      span.to--;
      span.copyTo--;
    }
    const words = blocks.slice(span.from, span.to + 1).reduce((sum, b) => sum + b.words, 0);
    if (words < REPEATED_BLOCK.minWords) continue;
    out.push({
      start: blocks[span.from]!.start,
      end: blocks[span.to]!.end,
      firstStart: blocks[span.copyFrom]!.start,
      firstEnd: blocks[span.copyTo]!.end,
      words,
    });
  }
  return out;
}

/** Lines of sections that repeat an earlier section of the file word for word (`near_duplicate`'s). */
function repeatedSections(doc: Doc): Set<number> {
  const sections = sectionsOf(doc.parsed);
  const out = new Set<number>();
  sections.forEach((s, j) => {
    if (s.words < NEAR_DUPLICATE.minWords) return;
    if (!sections.slice(0, j).some((t) => t.words >= NEAR_DUPLICATE.minWords && t.body === s.body)) return;
    for (let n = s.start; n <= s.end; n++) out.add(n);
  });
  return out;
}

export const repeatedBlock: SignalModule = {
  name: 'repeated_block',
  scope: 'agent-context',
  description: `a paragraph or list of ${REPEATED_BLOCK.minWords}+ words written twice, word for word, in one agent-context file`,
  shownByDefault: true,
  needs: [],
  collect({ facts, whoLoads }, emit) {
    for (const doc of contextDocs(facts, whoLoads)) {
      const covered = repeatedSections(doc);
      for (const r of repeatsOf(blocksOf(doc))) {
        if (covered.has(r.start) && covered.has(r.end)) continue;
        emit(doc.path, {
          line: r.start,
          detail: `lines ${r.start}–${r.end} repeat lines ${r.firstStart}–${r.firstEnd} word for word (${r.words} words): delete the second copy`,
          data: {
            start_line: r.start,
            end_line: r.end,
            first_start_line: r.firstStart,
            first_end_line: r.firstEnd,
            words: r.words,
          },
        });
      }
    }
  },
};
