/**
 * When the rules classifier proposes a `dedupe` (docs/scanner-and-classifiers.md). A duplicated block is
 * replaced by a link only when all of these hold; otherwise `duplicate_content` is
 * reported with no entry, for a person to judge:
 * - the block is substantial: a whole section body (everything under one heading), or at
 *   least 8 lines and 400 characters of prose;
 * - it is not an HTML comment, frontmatter, a table of contents, a quotation, a licence or
 *   code-of-conduct header, or template boilerplate (the same block in 3 or more files);
 * - the two copies are different real files (symlinks resolved) and neither is generated;
 * - one copy is canonical by evidence: the one the other file already links to, or else
 *   the one in the more canonical place (a `docs/` guide over a README, a live doc over one
 *   in a stale or archive folder). Age never decides it, and siblings have no canonical
 *   place: two design docs sharing a paragraph get no entry.
 * A dedupe is always confirm tier: which copy is canonical is a judgment.
 */
import { posix } from 'node:path';
import GithubSlugger from 'github-slugger';
import { type ParsedDoc, parseMarkdown } from '../scan/markdown.js';
import { ARCHIVE_SEGMENTS, STALE_FOLDERS, variantOf } from '../scan/paths.js';
import type { Proposal, Signal } from '../types.js';
import { HEADING_FRAGMENT } from './proposals.js';

/** The thresholds of a substantial block of prose (exported for docs and tests). */
export const DEDUPE_MIN = { lines: 8, proseChars: 400, templateCopies: 3 } as const;

/** What the classifier knows about the project beyond one file's text. */
export interface DedupeFacts {
  /** The file's text, or undefined when it cannot be read. */
  readText: (path: string) => string | undefined;
  /** The real file behind a path (symlinks resolved), root-relative; undefined when unknown. */
  realPath: (path: string) => string | undefined;
  /** Generated docs: a `linguist-generated` attribute, a "do not edit" marker, a `.src.md` pair. */
  isGenerated: (path: string) => boolean;
  /** Whether `from` has a reference (link, image, definition) that resolves to the file `to`. */
  linksTo: (from: string, to: string) => boolean;
  /** Whether a project-relative file exists (a package manifest beside a README). */
  exists?: (path: string) => boolean;
  /** `parseMarkdown(text)` of the doc at `path`, possibly a parse already made of that text. */
  parse?: (path: string, text: string) => ParsedDoc;
}

interface Copy {
  path: string;
  start: number;
  end: number;
}

/** One duplicate_content signal, read: this file's block and the canonical copy the scanner picked. */
interface Pair {
  signal: Signal;
  copy: Copy;
  other: Copy;
}

const LINE_RANGE = /^(.*)#L(\d+)-L(\d+)$/;

function readPair(path: string, signal: Signal): Pair | undefined {
  const data = signal.data ?? {};
  const start = data['start_line'];
  const end = data['end_line'];
  const ref = data['canonical_ref'];
  if (!Number.isInteger(start) || !Number.isInteger(end) || typeof ref !== 'string') return undefined;
  const m = LINE_RANGE.exec(ref);
  if (m === null) return undefined;
  return {
    signal,
    copy: { path, start: start as number, end: end as number },
    other: { path: m[1]!, start: Number(m[2]), end: Number(m[3]) },
  };
}

const overlaps = (a: Copy, b: Copy) => a.path === b.path && a.start <= b.end && b.start <= a.end;

/**
 * Template boilerplate: the block is held by three or more files. The scanner points every
 * copy at one canonical copy, so two other files pointing at overlapping lines of the same
 * file mean three files hold it.
 */
export function templateCopies(pairs: readonly Pair[], pair: Pair): number {
  const holders = new Set([pair.copy.path, pair.other.path]);
  for (const p of pairs)
    if (overlaps(p.other, pair.other) || overlaps(p.copy, pair.other)) holders.add(p.copy.path);
  return holders.size;
}

/** Every duplicate_content signal in the artifact, read. */
export function readPairs(signals: Record<string, Signal[]>): Pair[] {
  const out: Pair[] = [];
  for (const [path, list] of Object.entries(signals)) {
    for (const signal of list) {
      if (signal.name !== 'duplicate_content') continue;
      const pair = readPair(path, signal);
      if (pair !== undefined) out.push(pair);
    }
  }
  return out;
}

interface Heading {
  /** 1-based. */
  line: number;
  level: number;
  slug: string;
}

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;

/** ATX headings outside code, with GitHub's slugs (duplicates numbered in order). */
function headingsOf(doc: ParsedDoc): Heading[] {
  const slugger = new GithubSlugger();
  const out: Heading[] = [];
  doc.lines.forEach((raw, i) => {
    if (doc.codeLines.has(i + 1) || i < doc.frontmatter.endLine) return;
    const m = ATX.exec(raw.replace(/\r$/, ''));
    if (m === null) return;
    const text = (m[2] ?? '').replace(/[*_`]/g, '');
    out.push({ line: i + 1, level: m[1]!.length, slug: slugger.slug(text) });
  });
  return out;
}

const isBlank = (line: string | undefined) => (line ?? '').trim() === '';

/**
 * The heading whose whole body the block is (only blank lines between the heading and the
 * block, and between the block and the next heading or the end), or undefined.
 */
function sectionOf(doc: ParsedDoc, copy: Copy): Heading | undefined {
  const headings = headingsOf(doc);
  let before: Heading | undefined;
  for (const h of headings) if (h.line < copy.start) before = h;
  if (before === undefined) return undefined;
  for (let l = before.line + 1; l < copy.start; l++) if (!isBlank(doc.lines[l - 1])) return undefined;
  const next = headings.find((h) => h.line > copy.end);
  const stop = next === undefined ? doc.lines.length : next.line - 1;
  for (let l = copy.end + 1; l <= stop; l++) if (!isBlank(doc.lines[l - 1])) return undefined;
  return before;
}

const TOC_LINE = /^\s*(?:[-*+]|\d+[.)])\s+\[[^\]]*\]\(#[^)]*\)\s*$/;
const LEGAL = /\b(?:licen[cs]e[ds]?|copyright|spdx-license-identifier|code of conduct)\b/i;
const TABLE_ROW = /^\s*\|/;
const HTML_LINE = /^\s*</;

/** Why the block is not a copy worth replacing with a link, or undefined when it is. */
function notSubstantial(doc: ParsedDoc, copy: Copy, isSection: boolean): string | undefined {
  const lines = doc.lines.slice(copy.start - 1, copy.end);
  const text = lines.join('\n');
  if (copy.start <= doc.frontmatter.endLine) return 'it is frontmatter';
  for (const [s, e] of doc.commentBlocks)
    if (copy.start <= e && s + 1 <= copy.end) return 'it is an HTML comment';
  if (/<!--/.test(text)) return 'it holds an HTML comment';
  const content = lines.filter((line) => !isBlank(line));
  if (content.length > 0 && content.every((line) => /^\s*>/.test(line))) return 'it is a quotation';
  if (content.length > 0 && content.filter((line) => TOC_LINE.test(line)).length * 2 >= content.length)
    return 'it is a table of contents';
  if (LEGAL.test(text)) return 'it is a licence or code-of-conduct text';
  if (isSection) return undefined;
  let prose = 0;
  lines.forEach((line, i) => {
    if (doc.codeLines.has(copy.start + i) || TABLE_ROW.test(line) || HTML_LINE.test(line)) return;
    prose += line.trim().length;
  });
  if (lines.length < DEDUPE_MIN.lines || prose < DEDUPE_MIN.proseChars)
    return `it is neither a whole section nor ${DEDUPE_MIN.lines} lines and ${DEDUPE_MIN.proseChars} characters of prose`;
  return undefined;
}

const DOCS_SEGMENTS = new Set(['docs', 'doc', 'documentation']);

/** How canonical a place is: 2 a docs/ guide, 1 a README or other live doc, 0 a stale or archive folder. */
function placeRank(path: string): number {
  const segments = path.split('/');
  const folders = segments.slice(0, -1).map((s) => s.toLowerCase());
  if (folders.some((s) => STALE_FOLDERS.has(s) || ARCHIVE_SEGMENTS.has(s))) return 0;
  const isReadme = /^readme(?:\.[^/]*)?$/i.test(segments[segments.length - 1]!);
  if (!isReadme && folders.some((s) => DOCS_SEGMENTS.has(s))) return 2;
  return 1;
}

/** The manifests whose package page shows the README beside them, and the registry. */
const PACKAGE_MANIFESTS: readonly [string, string][] = [
  ['package.json', 'npm'],
  ['pyproject.toml', 'PyPI'],
  ['setup.py', 'PyPI'],
  ['setup.cfg', 'PyPI'],
  ['Cargo.toml', 'crates.io'],
];

/** The registry that shows `path` as a package's page (a README beside a manifest), if any. */
function packageReadmeOf(path: string, facts: DedupeFacts): string | undefined {
  if (!/^readme(?:\.[^/]*)?$/i.test(posix.basename(path))) return undefined;
  const dir = posix.dirname(path);
  for (const [manifest, registry] of PACKAGE_MANIFESTS)
    if (facts.exists?.(dir === '.' ? manifest : `${dir}/${manifest}`) === true) return registry;
  return undefined;
}

/** Which copy is canonical, and why; undefined when the evidence does not say. */
function chooseCanonical(
  pair: Pair,
  facts: DedupeFacts,
): { keep: Copy; edit: Copy; why: string } | undefined {
  const a = pair.copy;
  const b = pair.other;
  const aToB = facts.linksTo(a.path, b.path);
  const bToA = facts.linksTo(b.path, a.path);
  if (aToB && !bToA) return { keep: b, edit: a, why: `${a.path} already links to it` };
  if (bToA && !aToB) return { keep: a, edit: b, why: `${b.path} already links to it` };
  const ra = placeRank(a.path);
  const rb = placeRank(b.path);
  if (rb > ra) return { keep: b, edit: a, why: 'it is in the more canonical place' };
  if (ra > rb) return { keep: a, edit: b, why: 'it is in the more canonical place' };
  return undefined;
}

/** The link target a dedupe leaves: the canonical section's heading when there is one. */
function canonicalRef(doc: ParsedDoc, copy: Copy): string {
  const section = sectionOf(doc, copy);
  return section !== undefined && doc.anchors.has(section.slug) && HEADING_FRAGMENT.test(section.slug)
    ? `${copy.path}#${section.slug}`
    : copy.path;
}

export interface DedupeDecision {
  proposal?: Proposal;
  /** Why no dedupe is proposed for this signal (the signal is then reported with no entry). */
  declined?: string;
}

/**
 * Decides one duplicate_content signal: a dedupe proposal on whichever file is not
 * canonical (which may be the scanner's "canonical" copy), or why there is none.
 */
export function decideDedupe(
  path: string,
  signal: Signal,
  pairs: readonly Pair[],
  facts: DedupeFacts,
): DedupeDecision {
  const pair = readPair(path, signal);
  if (pair === undefined) return { declined: 'the signal does not say where the other copy is' };
  const real = [facts.realPath(pair.copy.path), facts.realPath(pair.other.path)];
  if (real[0] === undefined || real[1] === undefined || real[0] === real[1])
    return { declined: 'both copies are the same file' };
  const [va, vb] = [variantOf(pair.copy.path), variantOf(pair.other.path)];
  if (va.version !== vb.version)
    return { declined: 'the copies are in different versions of the docs (one is released, one is not)' };
  if (va.locale !== vb.locale) return { declined: 'the copies are translations of each other' };
  if (facts.isGenerated(pair.copy.path) || facts.isGenerated(pair.other.path))
    return { declined: 'a copy is generated' };
  const copies = templateCopies(pairs, pair);
  if (copies >= DEDUPE_MIN.templateCopies)
    return { declined: `the block is in ${copies} files: template boilerplate, not a copy` };
  const chosen = chooseCanonical(pair, facts);
  if (chosen === undefined) return { declined: 'neither copy is canonical by links or place' };
  const registry = packageReadmeOf(chosen.edit.path, facts);
  if (registry !== undefined)
    return {
      declined: `${chosen.edit.path} is the package's README, shown on ${registry} where a link into the repository's docs does not lead`,
    };
  const docs = new Map<string, ParsedDoc>();
  for (const copy of [chosen.keep, chosen.edit]) {
    const text = facts.readText(copy.path);
    if (text === undefined) return { declined: `${copy.path} cannot be read` };
    docs.set(copy.path, facts.parse?.(copy.path, text) ?? parseMarkdown(text));
  }
  const editDoc = docs.get(chosen.edit.path)!;
  const keepDoc = docs.get(chosen.keep.path)!;
  if (chosen.edit.end > editDoc.lines.length || chosen.keep.end > keepDoc.lines.length)
    return { declined: 'the lines are outside the file' };
  for (const [copy, doc] of [
    [chosen.edit, editDoc],
    [chosen.keep, keepDoc],
  ] as const) {
    const why = notSubstantial(doc, copy, sectionOf(doc, copy) !== undefined);
    if (why !== undefined) return { declined: why };
  }
  const ref = canonicalRef(keepDoc, chosen.keep);
  const { start, end } = chosen.edit;
  // The evidence is the scanner's signal verbatim, even when it sits on the other copy.
  const where = chosen.edit.path === path ? '' : ` (the scanner's signal is on ${path})`;
  return {
    proposal: {
      path: chosen.edit.path,
      category: { class: 'stale', subtype: 'duplicated' },
      signals: [signal],
      op: `Replace lines ${start}–${end}, a copy of ${chosen.keep.path} lines ${chosen.keep.start}–${chosen.keep.end}${where}, with a link to it.`,
      op_type: 'deterministic',
      exact_edit: { kind: 'dedupe', anchor: { start_line: start, end_line: end }, canonical_ref: ref },
      confidence: 0.6,
      why: `${chosen.keep.path} is kept as the canonical copy: ${chosen.why}.`,
    },
  };
}

/** The link target of a reference as written in `from`, as a root-relative path ('' = the root). */
export function referencedPath(from: string, target: string): string | undefined {
  const written = target.trim();
  if (written === '' || /^[a-z][a-z0-9+.-]*:|^\/\//i.test(written) || written.startsWith('#'))
    return undefined;
  let path = written.split('#')[0]!.split('?')[0]!;
  try {
    path = decodeURIComponent(path);
  } catch {
    // keep as written
  }
  const joined = path.startsWith('/')
    ? posix.normalize(path.slice(1))
    : posix.join(posix.dirname(from), path);
  const clean = joined.replace(/\/+$/, '');
  return clean === '.' ? '' : clean.startsWith('../') || clean === '..' ? undefined : clean;
}
