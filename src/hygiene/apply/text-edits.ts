import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import YAML from 'yaml';
import { overYamlLimit, YAML_FRONTMATTER_LIMIT } from '../../core/yaml-bounds.js';
import { type Entry, KIND_TABLE } from '../types.js';

/**
 * The pure, in-memory half of the patch applier (docs/hygiene-clean.md, "The applier"): one file's text and the
 * entries on it in, the edited text or a reason to skip the whole file out. No I/O.
 */

/** Why a whole file is left alone. */
export type SkipReason =
  | 'content-changed-since-check'
  | 'incompatible-ops-on-file'
  | 'frontmatter-key-conflict'
  | 'frontmatter-unreadable'
  | 'anchor-out-of-range'
  | 'match-not-found'
  | 'invalid-entry'
  | 'no-model'
  | 'content-changed-since-distill'
  | 'distill-rejected'
  | 'not-distilled'
  | 'lifecycle-not-supported'
  | 'changed-since-check'
  | 'rule-changed'
  | 'younger-than-cutoff'
  | 're-tiered'
  | 'uncommitted-changes'
  | 'no-longer-served'
  | 'extract-failed'
  | 'untracked'
  | 'hidden-from-status'
  | 'file-missing'
  | 'not-a-regular-file'
  | 'not-utf8'
  | 'unsafe-path'
  | 'destination-exists'
  | 'destination-outside-root'
  | 'destination-not-a-folder'
  | 'uncommitted-changes'
  | 'not-attempted'
  | 'would-break-reference';

export type TextEditResult =
  | {
      text: string /** ids of entries that changed nothing (an insert-frontmatter already in place) */;
      unchanged: string[];
    }
  | { skip: SkipReason; detail: string };

interface Line {
  body: string;
  /** '\n', '\r\n', or '' for a last line without a line break. */
  eol: string;
}

const BOM = '\uFEFF';
// Anchors count lines as the scanner and validator do: a line ends at LF (a CR before it
// belongs to the line break); a final newline ends the last line rather than starting one.
const LINE_BREAK = /\r?\n/g;

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  for (const match of text.matchAll(LINE_BREAK)) {
    lines.push({ body: text.slice(start, match.index), eol: match[0] });
    start = match.index + match[0].length;
  }
  if (start < text.length) lines.push({ body: text.slice(start), eol: '' });
  return lines;
}

function joinLines(lines: readonly Line[]): string {
  let text = '';
  for (const line of lines) text += line.body + line.eol;
  return text;
}

const endsWithLineBreak = (text: string) => text.endsWith('\n');

function stripFinalLineBreak(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  if (text.endsWith('\n')) return text.slice(0, -1);
  return text;
}

/** The line break a new line gets: the file's first one, else LF. */
function dominantEol(lines: readonly Line[]): string {
  return lines.find((line) => line.eol !== '')?.eol ?? '\n';
}

const TEXT_KINDS = new Set(['delete-range', 'replace-text', 'dedupe', 'insert-frontmatter']);

/**
 * The file-level compatibility rule (docs/hygiene-clean.md, "The applier"): a move shares its file with nothing; a
 * generative entry shares its file with no deterministic one; anchors never overlap.
 * Returns a detail sentence when the file must be skipped as `incompatible-ops-on-file`.
 */
export function incompatibility(entries: readonly Entry[]): string | undefined {
  const generative = entries.filter((entry) => entry.op_type === 'generative');
  if (generative.length > 0 && generative.length < entries.length)
    return 'a generative entry shares the file with a deterministic one';
  const kinds = entries.map((entry) => entry.exact_edit?.kind);
  if (kinds.includes('move-to-archive') && entries.length > 1)
    return 'move-to-archive shares the file with another op';
  if (kinds.includes('delete-path') && entries.length > 1)
    return 'delete-path shares the path with another op';
  const anchored = entries
    .filter((entry) => entry.exact_edit?.anchor !== undefined)
    .map((entry) => ({ id: entry.id, anchor: entry.exact_edit!.anchor! }))
    .sort((a, b) => a.anchor.start_line - b.anchor.start_line);
  for (let i = 1; i < anchored.length; i++) {
    const previous = anchored[i - 1]!;
    const current = anchored[i]!;
    if (current.anchor.start_line <= previous.anchor.end_line)
      return `anchors of ${previous.id} and ${current.id} overlap`;
  }
  return undefined;
}

/**
 * Applies the text edits of one file (`delete-range`, `replace-text`, `dedupe`,
 * `insert-frontmatter`) to `text`, all or nothing. Anchored edits go in descending
 * `start_line` order against the original line numbers; `insert-frontmatter` is applied
 * last and re-derived from the edited text. A BOM, each line's own line break and a
 * missing final newline are preserved (CRLF and LF). Every anchored entry's
 * `expected_sha256` must be the sha256 of `text`'s UTF-8 bytes.
 */
export function applyEditsToText(text: string, entries: readonly Entry[]): TextEditResult {
  const incompatible = incompatibility(entries);
  if (incompatible !== undefined) return { skip: 'incompatible-ops-on-file', detail: incompatible };
  for (const entry of entries) {
    const edit = entry.exact_edit;
    if (entry.op_type !== 'deterministic' || edit === undefined || !TEXT_KINDS.has(edit.kind))
      return { skip: 'invalid-entry', detail: `${entry.id} is not a text edit` };
    const info = KIND_TABLE[edit.kind];
    for (const field of info.fields) {
      if (typeof (edit as unknown as Record<string, unknown>)[field] !== 'string')
        return { skip: 'invalid-entry', detail: `${entry.id} lacks exact_edit.${field}` };
    }
    if (info.hasAnchor && (edit.anchor === undefined || edit.expected_sha256 === undefined))
      return { skip: 'invalid-entry', detail: `${entry.id} lacks its anchor or expected_sha256` };
  }

  const anchored = entries.filter((entry) => KIND_TABLE[entry.exact_edit!.kind].hasAnchor);
  if (anchored.length > 0) {
    const actual = sha256Hex(Buffer.from(text, 'utf8'));
    const stale = anchored.find((entry) => entry.exact_edit!.expected_sha256 !== actual);
    if (stale !== undefined)
      return {
        skip: 'content-changed-since-check',
        detail: `the file no longer has the content ${stale.id} was checked against`,
      };
  }

  const hasBom = text.startsWith(BOM);
  const body = hasBom ? text.slice(1) : text;
  let lines = splitLines(body);
  // Edit as if the file ended with a line break, and take that break off again at the end:
  // a file without a final newline then gets exactly the edits it would get with one.
  const lacksFinalBreak = body !== '' && !endsWithLineBreak(body);
  const last = lines[lines.length - 1];
  if (lacksFinalBreak && last !== undefined) lines[lines.length - 1] = { ...last, eol: dominantEol(lines) };
  const ordered = [...anchored].sort(
    (a, b) => b.exact_edit!.anchor!.start_line - a.exact_edit!.anchor!.start_line,
  );
  for (const entry of ordered) {
    const { start_line: start, end_line: end } = entry.exact_edit!.anchor!;
    if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || end < start || end > lines.length)
      return {
        skip: 'anchor-out-of-range',
        detail: `${entry.id} anchors lines ${start}-${end} of a ${lines.length}-line file`,
      };
    const replaced = replacementLines(entry, lines.slice(start - 1, end));
    if ('skip' in replaced) return replaced;
    lines = [...lines.slice(0, start - 1), ...replaced.lines, ...lines.slice(end)];
  }

  const unchanged: string[] = [];
  let edited = joinLines(lines);
  for (const entry of entries.filter((candidate) => candidate.exact_edit!.kind === 'insert-frontmatter')) {
    const result = insertFrontmatter(edited, entry.exact_edit!.key!, entry.exact_edit!.value!);
    if ('skip' in result) return result;
    if (result.text === edited) unchanged.push(entry.id);
    edited = result.text;
  }

  if (lacksFinalBreak) edited = stripFinalLineBreak(edited);
  return { text: (hasBom ? BOM : '') + edited, unchanged };
}

function replacementLines(
  entry: Entry,
  span: Line[],
): { lines: Line[] } | { skip: SkipReason; detail: string } {
  const edit = entry.exact_edit!;
  const lastEol = span[span.length - 1]?.eol ?? '';
  switch (edit.kind) {
    case 'delete-range':
      return { lines: [] };
    case 'replace-text': {
      const match = edit.match!;
      if (match === '') return { skip: 'invalid-entry', detail: `${entry.id} has an empty match` };
      // The anchored lines without the last line break, so a match can never eat it.
      const segment = stripFinalLineBreak(joinLines(span));
      if (!segment.includes(match))
        return {
          skip: 'match-not-found',
          detail: `${entry.id}: the text to replace is not in the anchored lines`,
        };
      const replaced = segment.split(match).join(edit.replacement!);
      const lines = splitLines(replaced + lastEol);
      return { lines: lines.length > 0 ? lines : [{ body: '', eol: lastEol }] };
    }
    case 'dedupe':
      return { lines: [{ body: dedupeLine(entry.path, edit.canonical_ref!), eol: lastEol }] };
    default:
      return { skip: 'invalid-entry', detail: `${entry.id} is not an anchored text edit` };
  }
}

const LINE_RANGE_FRAGMENT = /^L\d+(-L?\d+)?$/i;

/**
 * The line a `dedupe` leaves behind: a link from `path` to the canonical copy. A heading
 * fragment is kept; a `#Lx-Ly` line range is dropped (it would rot with the next edit).
 */
export function dedupeLine(path: string, canonicalRef: string): string {
  const hash = canonicalRef.indexOf('#');
  const target = hash === -1 ? canonicalRef : canonicalRef.slice(0, hash);
  const fragment = hash === -1 ? '' : canonicalRef.slice(hash + 1);
  const keep = fragment !== '' && !LINE_RANGE_FRAGMENT.test(fragment);
  const relative = posix.relative(posix.dirname(path), target) || posix.basename(target);
  const href = relative.replace(/[ ()<>]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
  const label = target.replace(/[[\]\\]/g, (ch) => `\\${ch}`);
  return `See [${label}](${href}${keep ? `#${fragment}` : ''}).`;
}

/** A YAML scalar for a key or value: plain when it reads back as the same string, else double-quoted. */
function yamlScalar(text: string): string {
  try {
    const parsed = YAML.parse(`x: ${text}\n`) as { x?: unknown } | null;
    if (parsed?.x === text && !text.includes('#')) return text;
  } catch {
    // falls through to quoting
  }
  return JSON.stringify(text);
}

interface FrontmatterBlock {
  /** Index (in lines) of the closing fence. */
  close: number;
  inner: string;
}

function findFrontmatter(lines: readonly Line[]): FrontmatterBlock | 'unterminated' | undefined {
  if (lines.length === 0 || lines[0]!.body !== '---' || lines[0]!.eol === '') return undefined;
  for (let i = 1; i < lines.length; i++) {
    const body = lines[i]!.body;
    if (body === '---' || body === '...') return { close: i, inner: joinLines(lines.slice(1, i)) };
  }
  return 'unterminated';
}

/**
 * Sets `key: value` in the text's YAML frontmatter by editing the text (the user's YAML
 * is never re-serialised): the same value already there → unchanged; a different one →
 * `frontmatter-key-conflict`; absent → a line before the closing fence, or a new block.
 */
export function insertFrontmatter(text: string, key: string, value: string): TextEditResult {
  const lines = splitLines(text);
  const block = findFrontmatter(lines);
  if (block === 'unterminated')
    return { skip: 'frontmatter-unreadable', detail: 'the frontmatter block has no closing ---' };
  const line = `${yamlScalar(key)}: ${yamlScalar(value)}`;
  if (block === undefined) {
    const eol = dominantEol(lines);
    return { text: `---${eol}${line}${eol}---${eol}${text}`, unchanged: [] };
  }
  if (overYamlLimit(block.inner, YAML_FRONTMATTER_LIMIT))
    return {
      skip: 'frontmatter-unreadable',
      detail: `the frontmatter is larger than ${YAML_FRONTMATTER_LIMIT} bytes`,
    };
  const document = YAML.parseDocument(block.inner);
  if (document.errors.length > 0)
    return {
      skip: 'frontmatter-unreadable',
      detail: `the frontmatter is not valid YAML: ${document.errors[0]!.message.split('\n')[0]}`,
    };
  if (document.contents !== null && !YAML.isMap(document.contents))
    return { skip: 'frontmatter-unreadable', detail: 'the frontmatter is not a YAML mapping' };
  if (document.has(key)) {
    const current = document.get(key);
    const same =
      (typeof current === 'string' || typeof current === 'number' || typeof current === 'boolean') &&
      String(current) === value;
    if (same) return { text, unchanged: [] };
    return {
      skip: 'frontmatter-key-conflict',
      detail: `frontmatter ${key} is already set to a different value; it is never overwritten`,
    };
  }
  const eol = lines[0]!.eol;
  const edited = [...lines.slice(0, block.close), { body: line, eol }, ...lines.slice(block.close)];
  return { text: joinLines(edited), unchanged: [] };
}
