/**
 * One doc's parse facts (`ParsedDoc` less its lines, which are the text split) as plain
 * JSON and back. Decoding checks every field, so an entry of any other shape is a miss.
 */
import { isPlainJson } from '../../../core/json-text.js';
import {
  type DirectiveComment,
  type DocBlock,
  type DocRef,
  type ParsedDoc,
  type RefKind,
  withLines,
} from '../markdown.js';

/** The JSON form: short keys, sets and maps as arrays in their iteration order. */
export interface EncodedDoc {
  /** Frontmatter: data (absent: none), key lines, end line, error. */
  fd?: Record<string, unknown>;
  fk: [string, number][];
  fe: number;
  fx?: string;
  a: string[];
  r: [string, RefKind, number][];
  i: [string, RefKind, number][];
  s?: [string, number];
  t: [number, number, number];
  b: [number, number, string][];
  /** Code lines as runs: [first, count]… in insertion order. */
  c: [number, number][];
  m: [number, number][];
  /** Suppression directive comments: [text, line, end line]… (absent: none). */
  d?: [string, number, number][];
}

const REF_KINDS: ReadonlySet<string> = new Set([
  'link',
  'image',
  'definition',
  'html',
  'import',
  'code-path',
]);

/** The encoded doc, or undefined when its frontmatter holds a value JSON would not give back as it is. */
export function encodeDoc(parsed: ParsedDoc): EncodedDoc | undefined {
  const { frontmatter } = parsed;
  if (frontmatter.data !== undefined && !isPlainJson(frontmatter.data)) return undefined;
  const runs: [number, number][] = [];
  for (const line of parsed.codeLines) {
    const last = runs[runs.length - 1];
    if (last !== undefined && last[0] + last[1] === line) last[1]++;
    else runs.push([line, 1]);
  }
  return {
    ...(frontmatter.data !== undefined ? { fd: frontmatter.data } : {}),
    fk: [...frontmatter.keyLines],
    fe: frontmatter.endLine,
    ...(frontmatter.error !== undefined ? { fx: frontmatter.error } : {}),
    a: [...parsed.anchors],
    r: parsed.refs.map((ref) => [ref.target, ref.kind, ref.line]),
    i: parsed.imports.map((ref) => [ref.target, ref.kind, ref.line]),
    ...(parsed.bodyStatus ? { s: [parsed.bodyStatus.value, parsed.bodyStatus.line] } : {}),
    t: [parsed.tasks.total, parsed.tasks.done, parsed.tasks.firstLine],
    b: parsed.blocks.map((block) => [block.start, block.end, block.hash]),
    c: runs,
    m: parsed.commentBlocks.map(([start, end]) => [start, end]),
    ...(parsed.directives.length > 0
      ? { d: parsed.directives.map((d): [string, number, number] => [d.text, d.line, d.endLine]) }
      : {}),
  };
}

/** The parsed doc of `text` from its encoded facts; undefined when they are not of the encoded shape. */
export function decodeDoc(value: unknown, text: string): ParsedDoc | undefined {
  if (!isObject(value)) return undefined;
  const v = value as Partial<Record<keyof EncodedDoc, unknown>>;
  if (v.fd !== undefined && !(isObject(v.fd) && isPlainJson(v.fd))) return undefined;
  if (v.fx !== undefined && typeof v.fx !== 'string') return undefined;
  const keyLines = pairs(v.fk, (k, n) => typeof k === 'string' && isCount(n));
  const refs = refsOf(v.r);
  const imports = refsOf(v.i);
  const codeRuns = pairs(v.c, (first, count) => isCount(first) && isCount(count));
  const comments = pairs(v.m, (start, end) => isCount(start) && isCount(end));
  const blocks = blocksOf(v.b);
  const directives = directivesOf(v.d);
  if (
    directives === undefined ||
    !isCount(v.fe) ||
    keyLines === undefined ||
    refs === undefined ||
    imports === undefined ||
    codeRuns === undefined ||
    comments === undefined ||
    blocks === undefined ||
    !Array.isArray(v.a) ||
    !v.a.every((a) => typeof a === 'string') ||
    !(Array.isArray(v.t) && v.t.length === 3 && v.t.every(isCount)) ||
    !(
      v.s === undefined ||
      (Array.isArray(v.s) && v.s.length === 2 && typeof v.s[0] === 'string' && isCount(v.s[1]))
    )
  )
    return undefined;
  const codeLines = new Set<number>();
  for (const [first, count] of codeRuns as [number, number][])
    for (let l = first; l < first + count; l++) codeLines.add(l);
  const [total, done, firstLine] = v.t as [number, number, number];
  const status = v.s as [string, number] | undefined;
  return withLines(
    {
      frontmatter: {
        data: v.fd as Record<string, unknown> | undefined,
        keyLines: new Map(keyLines as [string, number][]),
        endLine: v.fe,
        ...(v.fx !== undefined ? { error: v.fx } : {}),
      },
      anchors: new Set(v.a as string[]),
      refs,
      imports,
      ...(status ? { bodyStatus: { value: status[0], line: status[1] } } : {}),
      tasks: { total, done, firstLine },
      blocks,
      codeLines,
      commentBlocks: comments as [number, number][],
      directives,
    },
    text,
  );
}

/** The directive comments of an encoded doc (none when absent); undefined when not of the encoded shape. */
function directivesOf(value: unknown): DirectiveComment[] | undefined {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return undefined;
  const out: DirectiveComment[] = [];
  for (const item of value) {
    if (
      !Array.isArray(item) ||
      item.length !== 3 ||
      typeof item[0] !== 'string' ||
      !isCount(item[1]) ||
      !isCount(item[2])
    )
      return undefined;
    out.push({ text: item[0], line: item[1], endLine: item[2] });
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function pairs(value: unknown, ok: (a: unknown, b: unknown) => boolean): [unknown, unknown][] | undefined {
  if (!Array.isArray(value)) return undefined;
  for (const item of value)
    if (!(Array.isArray(item) && item.length === 2 && ok(item[0], item[1]))) return undefined;
  return value as [unknown, unknown][];
}

function refsOf(value: unknown): DocRef[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: DocRef[] = [];
  for (const item of value) {
    if (!Array.isArray(item) || item.length !== 3) return undefined;
    const [target, kind, line] = item as unknown[];
    if (typeof target !== 'string' || typeof kind !== 'string' || !REF_KINDS.has(kind) || !isCount(line))
      return undefined;
    out.push({ target, kind: kind as RefKind, line });
  }
  return out;
}

function blocksOf(value: unknown): DocBlock[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: DocBlock[] = [];
  for (const item of value) {
    if (!Array.isArray(item) || item.length !== 3) return undefined;
    const [start, end, hash] = item as unknown[];
    if (!isCount(start) || !isCount(end) || typeof hash !== 'string') return undefined;
    out.push({ start, end, hash });
  }
  return out;
}
