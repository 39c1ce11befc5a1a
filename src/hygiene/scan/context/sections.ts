/**
 * Sections of a Markdown file and their word shingles, for near-duplicate detection
 * (`signals/near-duplicate.ts`). A section runs from a heading outside code to the line
 * before the next one (the text before the first heading is a section too). Its shingles
 * are the overlapping runs of `SHINGLE_WORDS` lowercased words of its prose (code left out), so that Markdown syntax,
 * case and line wrapping do not matter and a reworded copy still shares most of them.
 */
import type { ParsedDoc } from '../markdown.js';

/** Words per shingle: three keeps a reworded sentence's shared phrases, five would miss them. */
export const SHINGLE_WORDS = 3;

export interface Section {
  /** 1-based, inclusive: the heading line (or the first body line) to the last non-blank line. */
  start: number;
  end: number;
  /** The heading text, '' for the text before the first heading. */
  heading: string;
  /** Words in the section (heading included). */
  words: number;
  /** The body's prose words without the heading, joined: equal for a word-for-word repeat. */
  body: string;
  shingles: ReadonlySet<string>;
}

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$/;
const WORD = /[\p{L}\p{N}_]+/gu;

/** The lowercased words of `text` (letters, digits and underscores). */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** The set of `SHINGLE_WORDS`-word shingles of `words`. */
export function shinglesOf(words: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i + SHINGLE_WORDS <= words.length; i++)
    out.add(words.slice(i, i + SHINGLE_WORDS).join(' '));
  return out;
}

/** Where a section is, and its prose lines (heading line first when it has one). */
export interface SectionSpan {
  start: number;
  end: number;
  heading: string;
  hasHeading: boolean;
  /** The section's lines outside code, heading included. */
  text: string[];
}

/**
 * The file's sections, block HTML comments and frontmatter left out. Headings inside
 * fenced or indented code do not start a section.
 */
export function sectionsOf(parsed: ParsedDoc): Section[] {
  return sectionSpansOf(parsed).map((span) => {
    const words = wordsOf(span.text.join('\n'));
    const headingWords = span.hasHeading ? wordsOf(span.text[0] ?? '').length : 0;
    return {
      body: words.slice(headingWords).join(' '),
      start: span.start,
      end: span.end,
      heading: span.heading,
      words: words.length,
      shingles: shinglesOf(words),
    };
  });
}

/**
 * The spans `sectionsOf` words and shingles: for a caller that needs only where sections
 * are (their words and shingles are most of the cost).
 */
export function sectionSpansOf(parsed: ParsedDoc): SectionSpan[] {
  const { lines } = parsed;
  const skipped = new Set<number>();
  for (const [start, end] of parsed.commentBlocks) for (let l = start; l < end; l++) skipped.add(l + 1);
  const bodyStart = parsed.frontmatter.endLine > 0 ? parsed.frontmatter.endLine + 1 : 1;
  const out: SectionSpan[] = [];
  let current: SectionSpan | undefined;
  for (let n = bodyStart; n <= lines.length; n++) {
    if (skipped.has(n)) continue;
    const line = (lines[n - 1] ?? '').replace(/\r$/, '');
    const heading = parsed.codeLines.has(n) ? null : HEADING.exec(line);
    if (heading) {
      if (current !== undefined) out.push(current);
      current = { start: n, end: n, heading: (heading[2] ?? '').trim(), hasHeading: true, text: [line] };
      continue;
    }
    if (line.trim() === '') continue;
    if (current === undefined) current = { start: n, end: n, heading: '', hasHeading: false, text: [] };
    // Code is part of the span but not of its wording: API examples differ by one call and
    // would read as copies of each other.
    if (!parsed.codeLines.has(n)) current.text.push(line);
    current.end = n;
  }
  if (current !== undefined) out.push(current);
  return out;
}

/** How much of `a` is in `b`: shared shingles over `a`'s (0 when `a` has none). */
export function containment(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0) return 0;
  let shared = 0;
  for (const s of a) if (b.has(s)) shared++;
  return shared / a.size;
}
