import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import GithubSlugger from 'github-slugger';
import type MarkdownItClass from 'markdown-it';
import type { StateBlock, Token } from 'markdown-it';
import type { RuleBlock } from 'markdown-it/lib/parser_block.mjs';
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';
import { overYamlLimit, YAML_FRONTMATTER_LIMIT } from '../../core/yaml-bounds.js';

/** How a reference was written; matches `broken_reference.data.kind`. */
export type RefKind = 'link' | 'image' | 'definition' | 'html' | 'import' | 'code-path';

export interface DocRef {
  /** Exactly as written in the doc (a substring of line `line`). */
  target: string;
  kind: RefKind;
  /** 1-based. */
  line: number;
}

export interface Frontmatter {
  data: Record<string, unknown> | undefined;
  /** Top-level key → 1-based line in the file. */
  keyLines: ReadonlyMap<string, number>;
  /** 1-based line of the closing fence; 0 when there is no frontmatter. */
  endLine: number;
  error?: string;
}

export interface DocBlock {
  /** 1-based inclusive. */
  start: number;
  end: number;
  hash: string;
}

export interface ParsedDoc {
  /**
   * The file's lines (split at `\n`): split from the text when asked for, and kept only for
   * the docs asked about last (`withLines`), so that a scan does not hold every doc's lines.
   */
  readonly lines: string[];
  frontmatter: Frontmatter;
  /** GitHub heading slugs and explicit HTML anchors (`id`, `name`). */
  anchors: Set<string>;
  refs: DocRef[];
  /** Claude Code `@path` imports outside code (only meaningful in agent context). */
  imports: DocRef[];
  bodyStatus?: { value: string; line: number };
  tasks: { total: number; done: number; firstLine: number };
  /** Top-level blocks big enough to count as duplicated content. */
  blocks: DocBlock[];
  /** 1-based lines that are inside fenced or indented code. */
  codeLines: ReadonlySet<number>;
  /** Block-level HTML comments (0-based start, exclusive end): stripped before agent injection. */
  commentBlocks: [number, number][];
  /**
   * HTML comments that may be suppression directives (`<!-- stw-… -->`, `<!-- markdown-link-check-… -->`),
   * outside code: never one in a fenced or indented block or a code span. Read by scan/suppress.
   */
  directives: DirectiveComment[];
}

/** One directive-like HTML comment: its body (between `<!--` and `-->`, trimmed) and 1-based lines. */
export interface DirectiveComment {
  text: string;
  line: number;
  endLine: number;
}

/** An HTML comment whose body starts with a directive prefix (scan/suppress/directives.ts). */
const DIRECTIVE_COMMENT = /<!--\s*((?:stw|markdown-link-check)-[\s\S]*?)-->/g;

/** The directive comments in an HTML token's text that starts on 0-based line `start0`. */
function directiveComments(html: string, start0: number): DirectiveComment[] {
  const out: DirectiveComment[] = [];
  for (const m of html.matchAll(DIRECTIVE_COMMENT)) {
    const before = html.slice(0, m.index).split('\n').length - 1;
    const inside = m[0].split('\n').length - 1;
    out.push({ text: m[1]!.trim(), line: start0 + before + 1, endLine: start0 + before + inside + 1 });
  }
  return out;
}

/** Normalised blocks shorter than this are too small to call duplicated. */
export const MIN_DUPLICATE_CHARS = 200;

interface DefinitionHit {
  line0: number;
  endLine0: number;
  href: string;
}

// The package's single-file CommonJS build of the same version: it loads in about half the
// time of its ~50 ES modules (every scan pays this at start-up).
const MarkdownIt = createRequire(import.meta.url)('markdown-it') as typeof MarkdownItClass;
// The default preset: GFM tables and strikethrough on (commonmark would read a table as a paragraph).
const md = new MarkdownIt('default', { html: true, linkify: false });
// Keep link destinations as written (after unescaping): no percent-encoding or punycode, which
// also costs a URL parse per link.
md.normalizeLink = (url: string) => url;
md.normalizeLinkText = (text: string) => text;
// markdown-it's first rule rewrites every line ending (`\r\n`, `\r`, `\n` → `\n`) and NUL,
// which copies the whole text even when nothing changes, and the link targets and other
// strings the scan keeps are slices of that copy: every doc's text was held twice until its
// doc was let go (≈ 12 MB more heap on kubernetes/community). `parseMarkdown` does the same
// rewrite itself, only when there is something to rewrite.
md.core.ruler.disable('normalize');
const NEEDS_NORMALIZING = /[\r\0]/;
// Reference definitions vanish into env.references, which keeps only the first of each label;
// wrap the rule to record every definition where it was written, duplicates included.
// (markdown-it keeps its rules on `__rules__`, which its typings do not expose.)
const referenceRule = (
  md.block.ruler as unknown as { __rules__: { name: string; fn: RuleBlock }[] }
).__rules__.find((rule) => rule.name === 'reference');
const DEFINITION_LABEL = /^\[(?:\\.|[^\\\]])*\]:[ \t]*\n?[ \t]*/;
if (referenceRule) {
  const original = referenceRule.fn;
  md.block.ruler.at(
    'reference',
    (state: StateBlock, startLine: number, endLine: number, silent: boolean) => {
      const matched = original(state, startLine, endLine, silent);
      if (matched && !silent) {
        const env = state.env as { defs?: DefinitionHit[] };
        const text = state.src.slice(
          state.bMarks[startLine]! + state.tShift[startLine]!,
          state.eMarks[state.line - 1],
        );
        const label = DEFINITION_LABEL.exec(text);
        const destination = label
          ? md.helpers.parseLinkDestination(text, label[0].length, text.length)
          : undefined;
        if (destination?.ok) {
          env.defs ??= [];
          env.defs.push({ line0: startLine, endLine0: state.line, href: destination.str });
        }
      }
      return matched;
    },
    { alt: ['paragraph', 'reference'] },
  );
}

// An attribute, not a binding: `:src="…"` and `v-bind:src` (Vue) hold an expression, and
// `data-src` is no URL the browser follows; DocFX's `<xref href="uid">` names an API by its uid.
const HTML_ATTR = /(?<=[\s<])(?<!<xref\b[^<>]*)(href|src)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))/gi;
const HTML_ANCHOR = /\b(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi;
const IMPORT = /(?:^|\s)@([^\s`'"<>()[\]{}]+)/g;

/**
 * Every `@path` written anywhere in `text` — in code too, and `~` paths the parser leaves
 * out — as Claude Code could read it as an import: for checks that must miss none.
 */
export function importTokens(text: string): string[] {
  return [...text.matchAll(IMPORT)]
    .map((m) => (m[1] ?? '').replace(/[.,;:!?]+$/, ''))
    .filter((t) => t !== '');
}
const CODE_PATH = /^(?:\.{1,2}\/)?[A-Za-z0-9_][\w@.+-]*(?:\/[\w@.+-]+)+\.[A-Za-z0-9]{1,10}$/;
const TASK = /^\[([ xX])\]\s/;
const BODY_STATUS = /^[\s*_>#]*status[\s*_]*:[\s*_]*([A-Za-z][A-Za-z-]*)/i;

/** The code lines of a doc without code: one empty set for all of them, never written to. */
const NO_CODE_LINES: ReadonlySet<number> = new Set();

/** The key lines of a doc without frontmatter: one empty map for all of them, never written to. */
const NO_KEY_LINES: ReadonlyMap<string, number> = new Map();

/** Frontmatter `---` … `---` (or `...`) at the very top of the file. */
function readFrontmatter(lines: string[]): Frontmatter {
  const none: Frontmatter = { data: undefined, keyLines: NO_KEY_LINES, endLine: 0 };
  if ((lines[0] ?? '').replace(/\r$/, '') !== '---') return none;
  let close = -1;
  for (let i = 1; i < lines.length; i++) {
    const line = (lines[i] ?? '').replace(/\r$/, '');
    if (line === '---' || line === '...') {
      close = i;
      break;
    }
  }
  if (close === -1) return none;
  const text = lines.slice(1, close).join('\n');
  if (overYamlLimit(text, YAML_FRONTMATTER_LIMIT))
    return {
      data: undefined,
      keyLines: NO_KEY_LINES,
      endLine: close + 1,
      error: `frontmatter larger than ${YAML_FRONTMATTER_LIMIT} bytes; not read`,
    };
  const lineCounter = new LineCounter();
  // A template's frontmatter (`title: {{ .File.ContentBaseName }}`, a Hugo archetype) reads as a
  // map key; YAML's warning about it would be printed on the user's terminal.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, logLevel: 'error' });
  const keyLines = new Map<string, number>();
  if (doc.errors.length > 0) {
    return { data: undefined, keyLines, endLine: close + 1, error: doc.errors[0]?.message ?? 'invalid YAML' };
  }
  if (isMap(doc.contents)) {
    for (const pair of doc.contents.items) {
      if (isScalar(pair.key) && pair.key.range) {
        keyLines.set(String(pair.key.value), lineCounter.linePos(pair.key.range[0]).line + 1);
      }
    }
  }
  let data: unknown;
  try {
    data = doc.toJS();
  } catch (error) {
    // e.g. Cursor's `globs: *.ts`, which YAML reads as an alias with no anchor.
    return { data: undefined, keyLines, endLine: close + 1, error: (error as Error).message };
  }
  return {
    data:
      data !== null && typeof data === 'object' && !Array.isArray(data)
        ? (data as Record<string, unknown>)
        : undefined,
    keyLines,
    endLine: close + 1,
  };
}

/** White space `\s+` → ' ' would change: two in a row, or one that is not a space. */
const UNEVEN_SPACE = /\s\s|[^\S ]/;

/**
 * Lines `start0`–`end0` each trimmed, with its runs of white space made one space, blank
 * lines left out, joined by `\n`. Most trimmed lines have no run to collapse: they are
 * tested for one rather than rewritten (twice as fast over kubernetes/community's blocks).
 */
function normalizeBlock(lines: string[], start0: number, end0: number): string {
  let out = '';
  for (let i = start0; i < end0; i++) {
    const trimmed = (lines[i] ?? '').trim();
    if (trimmed === '') continue;
    const line = UNEVEN_SPACE.test(trimmed) ? trimmed.replace(/\s+/g, ' ') : trimmed;
    out = out === '' ? line : `${out}\n${line}`;
  }
  return out;
}

const TOP_BLOCKS = new Set([
  'paragraph_open',
  'bullet_list_open',
  'ordered_list_open',
  'blockquote_open',
  'fence',
  'code_block',
  'table_open',
  'html_block',
]);

/**
 * Parses one Markdown document with markdown-it (block tokens carry line maps; an
 * inline reference's line is found inside its block's lines). Code is never searched
 * for links or imports.
 */
export function parseMarkdown(text: string): ParsedDoc {
  const lines = text.split('\n');
  const frontmatter = readFrontmatter(lines);
  // Blank the frontmatter instead of cutting it so that token line maps stay file lines.
  const source =
    frontmatter.endLine > 0
      ? '\n'.repeat(frontmatter.endLine) + lines.slice(frontmatter.endLine).join('\n')
      : text;
  const env: { defs?: DefinitionHit[] } = {};
  const tokens = md.parse(
    NEEDS_NORMALIZING.test(source) ? source.replace(/\r\n?/g, '\n').replace(/\0/g, '\uFFFD') : source,
    env,
  );

  const anchors = new Set<string>();
  const refs: DocRef[] = [];
  const imports: DocRef[] = [];
  const blocks: DocBlock[] = [];
  const codeLines = new Set<number>();
  const commentBlocks: [number, number][] = [];
  const directives: DirectiveComment[] = [];
  const tasks = { total: 0, done: 0, firstLine: 0 };
  let bodyStatus: ParsedDoc['bodyStatus'];
  const slugger = new GithubSlugger();

  const state: InlineState = { lines, refs, imports, anchors, directives };

  let rowMap: [number, number] | null = null;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const map = token.map;
    if (map && token.level === 0 && TOP_BLOCKS.has(token.type)) {
      // An *_open token's map covers the whole block up to its close.
      let raw = 0;
      for (let l = map[0]; l < map[1] && raw < MIN_DUPLICATE_CHARS; l++) raw += (lines[l] ?? '').length;
      const normalized = raw >= MIN_DUPLICATE_CHARS ? normalizeBlock(lines, map[0], map[1]) : '';
      if (normalized.length >= MIN_DUPLICATE_CHARS) {
        blocks.push({
          start: map[0] + 1,
          end: map[1],
          hash: createHash('sha1').update(normalized).digest('hex'),
        });
      }
    }
    if ((token.type === 'fence' || token.type === 'code_block') && map) {
      for (let l = map[0]; l < map[1]; l++) codeLines.add(l + 1);
      continue;
    }
    if (token.type === 'html_block' && map) {
      if (token.content.trimStart().startsWith('<!--')) commentBlocks.push([map[0], map[1]]);
      directives.push(...directiveComments(token.content, map[0]));
      addHtml(state, token.content, map[0], map[1], true);
      continue;
    }
    if (token.type === 'tr_open') rowMap = map;
    else if (token.type === 'tr_close') rowMap = null;
    if (token.type !== 'inline') continue;
    if (!map) {
      // A table cell's inline token has no map of its own; its row (one source line) does.
      if (rowMap) scanInline(state, token.children ?? [], rowMap[0], rowMap[1]);
      continue;
    }
    const previous = tokens[i - 1];
    if (previous?.type === 'heading_open') {
      let heading = '';
      for (const child of token.children ?? []) {
        if (child.type === 'text' || child.type === 'code_inline') heading += child.content;
      }
      anchors.add(slugger.slug(heading));
    }
    const firstLine = token.content.split('\n', 1)[0] ?? '';
    const status = BODY_STATUS.exec(firstLine);
    if (status && bodyStatus === undefined)
      bodyStatus = { value: status[1]!.toLowerCase(), line: map[0] + 1 };
    if (tokens[i - 2]?.type === 'list_item_open') {
      const task = TASK.exec(token.content);
      if (task) {
        tasks.total++;
        if (task[1] !== ' ') tasks.done++;
        if (tasks.firstLine === 0) tasks.firstLine = map[0] + 1;
      }
    }
    scanInline(state, token.children ?? [], map[0], map[1]);
  }

  placeDefinitions(env.defs ?? [], lines, refs);
  refs.sort((a, b) => a.line - b.line);

  return withLines(
    {
      frontmatter,
      anchors,
      refs,
      imports,
      ...(bodyStatus ? { bodyStatus } : {}),
      tasks,
      blocks,
      // Most docs have no code: they share one empty set rather than hold one each.
      codeLines: codeLines.size > 0 ? codeLines : NO_CODE_LINES,
      commentBlocks,
      directives,
    },
    text,
  );
}

/** A doc's parse facts without its lines: what a parsing thread sends back, and a cache may keep. */
export type ParseFacts = Omit<ParsedDoc, 'lines'>;

/** Docs whose lines are kept once split: a signal reads one doc's lines over and over, then the next's. */
const LINES_KEPT = 32;
/** The docs whose lines were split last (weakly: a doc let go is collected with its lines). */
const splitLast: (WeakRef<ParsedMarkdown> | undefined)[] = new Array(LINES_KEPT);
let nextSplit = 0;

/**
 * A parse whose `lines` are split from its text when first asked for, and kept for the last
 * `LINES_KEPT` docs split. A scan held every line of every doc besides its text (≈ 18 MB of
 * 120 MB live at the end of a scan of tldr-pages/tldr's 38,000 docs); now only the text.
 * The text is a private field and `lines` a getter of the class, so a parse sent to or from
 * a thread, or written to JSON, carries neither.
 */
class ParsedMarkdown {
  readonly #text: string;
  #lines: string[] | undefined;

  constructor(text: string) {
    this.#text = text;
  }

  get lines(): string[] {
    if (this.#lines === undefined) {
      this.#lines = this.#text.split('\n');
      splitLast[nextSplit]?.deref()?.forgetLines();
      splitLast[nextSplit] = new WeakRef(this);
      nextSplit = (nextSplit + 1) % LINES_KEPT;
    }
    return this.#lines;
  }

  forgetLines(): void {
    this.#lines = undefined;
  }
}

/** How many lines `text` splits into (`lines.length`), without splitting it. */
export function lineCount(text: string): number {
  let count = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/** `facts` (a parse of `text`, as `parseMarkdown` makes or a thread sends back) with their `lines`. */
export function withLines(facts: ParseFacts, text: string): ParsedDoc {
  return Object.assign(new ParsedMarkdown(text), compact(facts)) as ParsedDoc;
}

// What most docs have none of, shared by all of them (never written to: a parse is read-only
// once made). A scan of 40,000 docs held 40,000 copies of each (≈ 10 MB of empty containers).
const NO_REFS: DocRef[] = [];
const NO_IMPORTS: DocRef[] = [];
const NO_BLOCKS: DocBlock[] = [];
const NO_COMMENTS: [number, number][] = [];
const NO_DIRECTIVES: DirectiveComment[] = [];
const NO_ANCHORS: Set<string> = new Set();
const NO_TASKS: ParsedDoc['tasks'] = { total: 0, done: 0, firstLine: 0 };
const NO_FRONTMATTER: Frontmatter = { data: undefined, keyLines: NO_KEY_LINES, endLine: 0 };

/**
 * `facts` with each empty container replaced by the one shared empty container of its kind
 * (however the facts were made: parsed here, sent back by a thread, or decoded from the cache).
 */
function compact(facts: ParseFacts): ParseFacts {
  const f = facts.frontmatter;
  return {
    ...facts,
    frontmatter:
      f.data === undefined && f.keyLines.size === 0 && f.endLine === 0 && f.error === undefined
        ? NO_FRONTMATTER
        : f,
    anchors: facts.anchors.size > 0 ? facts.anchors : NO_ANCHORS,
    refs: facts.refs.length > 0 ? facts.refs : NO_REFS,
    imports: facts.imports.length > 0 ? facts.imports : NO_IMPORTS,
    tasks: facts.tasks.total > 0 || facts.tasks.firstLine > 0 ? facts.tasks : NO_TASKS,
    blocks: facts.blocks.length > 0 ? facts.blocks : NO_BLOCKS,
    codeLines: facts.codeLines.size > 0 ? facts.codeLines : NO_CODE_LINES,
    commentBlocks: facts.commentBlocks.length > 0 ? facts.commentBlocks : NO_COMMENTS,
    directives: facts.directives.length > 0 ? facts.directives : NO_DIRECTIVES,
  };
}

/** What the inline scan adds to: the document's lines, its references, imports and anchors. */
interface InlineState {
  lines: readonly string[];
  refs: DocRef[];
  imports: DocRef[];
  anchors: Set<string>;
  directives: DirectiveComment[];
}

/** Finds `needle` on the lines from `from0` to `end0`; returns the 0-based line or -1. */
function findLineIn(lines: readonly string[], needle: string, from0: number, end0: number): number {
  for (let i = from0; i < end0; i++) if ((lines[i] ?? '').includes(needle)) return i;
  return -1;
}

/**
 * HTML's link attributes (as references) and ids/names (as anchors). `block`: `html` is an HTML
 * block's source from line `start0`, so an attribute's line is its offset there (one href
 * repeated on four lines is on four lines, not four times on the first).
 */
function addHtml(state: InlineState, html: string, start0: number, end0: number, block = false): void {
  let cursor = start0;
  let counted = 0;
  let own = start0;
  for (const m of html.matchAll(HTML_ATTR)) {
    const value = m[2] ?? m[3] ?? m[4] ?? '';
    for (; counted < m.index; counted++) if (html.charCodeAt(counted) === 10) own++;
    const at =
      block && own >= cursor && (state.lines[own] ?? '').includes(value)
        ? own
        : findLineIn(state.lines, value, cursor, end0);
    if (at === -1) continue;
    cursor = at;
    state.refs.push({ target: value, kind: 'html', line: at + 1 });
  }
  for (const m of html.matchAll(HTML_ANCHOR)) {
    const value = m[1] ?? m[2];
    if (value) state.anchors.add(value.toLowerCase());
  }
}

/** An inline token's links, images, inline HTML, code paths and `@imports`, each on its source line. */
function scanInline(state: InlineState, children: Token[], start0: number, end0: number): void {
  const { lines, refs, imports } = state;
  const findLine = (needle: string, from0: number, end: number) => findLineIn(lines, needle, from0, end);
  let cursor = start0;
  /** `label`: how the link text starts, to find the line of its `[` when the link spans lines. */
  const place = (written: string, kind: RefKind, label: string) => {
    let target = written;
    let at = findLine(target, cursor, end0);
    if (at === -1) {
      try {
        target = decodeURI(written);
        at = target === written ? -1 : findLine(target, cursor, end0);
      } catch {
        at = -1;
      }
    }
    // Not on the block's lines: the link came from a reference definition, checked there.
    if (at === -1) return;
    const opener = `[${label}`;
    let open = at;
    while (open > cursor && !(lines[open] ?? '').includes(opener)) open--;
    if (!(lines[open] ?? '').includes(opener)) open = at;
    cursor = at;
    refs.push({ target, kind, line: open + 1 });
  };
  for (let c = 0; c < children.length; c++) {
    const child = children[c]!;
    switch (child.type) {
      case 'link_open': {
        if (child.markup === 'autolink') break;
        const href = child.attrGet('href');
        const next = children[c + 1];
        if (href) place(href, 'link', next?.type === 'text' ? labelStart(next.content) : '');
        break;
      }
      case 'image': {
        const src = child.attrGet('src');
        if (src) place(src, 'image', labelStart(child.content));
        break;
      }
      case 'html_inline': {
        if (child.content.startsWith('<!--')) {
          const at = findLine(child.content.split('\n', 1)[0]!, cursor, end0);
          if (at !== -1) state.directives.push(...directiveComments(child.content, at));
        }
        addHtml(state, child.content, cursor, end0);
        break;
      }
      case 'code_inline': {
        const path = child.content.trim().replace(/(?::\d+)+$|#L\d+(?:-L\d+)?$/, '');
        if (CODE_PATH.test(path) && !path.includes('://')) {
          const at = findLine(path, cursor, end0);
          if (at !== -1) refs.push({ target: path, kind: 'code-path', line: at + 1 });
        }
        break;
      }
      case 'text': {
        for (const m of child.content.matchAll(IMPORT)) {
          const path = (m[1] ?? '').replace(/[.,;:!?]+$/, '');
          if (path === '' || path.startsWith('~') || !/[/.]/.test(path)) continue;
          const at = importLine(lines, path, cursor, end0);
          if (at === -1) continue;
          imports.push({ target: path, kind: 'import', line: at + 1 });
        }
        break;
      }
    }
  }
}

/**
 * The 0-based line from `from0` where `@path` is written as Claude Code reads an import: at the
 * start of the source line or after whitespace (its pattern is `(?:^|\s)@path` on the raw text),
 * so `**@tm/core**` in bold is a name, not an import; -1 for none.
 */
function importLine(lines: readonly string[], path: string, from0: number, end0: number): number {
  const needle = `@${path}`;
  for (let i = from0; i < end0; i++) {
    const line = lines[i] ?? '';
    for (let at = line.indexOf(needle); at !== -1; at = line.indexOf(needle, at + 1))
      if (at === 0 || /\s/.test(line[at - 1]!)) return i;
  }
  return -1;
}

/** Each reference definition's target, on the line of the definition that holds it. */
function placeDefinitions(defs: readonly DefinitionHit[], lines: readonly string[], refs: DocRef[]): void {
  for (const def of defs) {
    let at = -1;
    let target = def.href;
    for (const candidate of [def.href, safeDecode(def.href)]) {
      at = lines.slice(def.line0, def.endLine0).findIndex((line) => line.includes(candidate));
      if (at !== -1) {
        target = candidate;
        break;
      }
    }
    if (at !== -1) refs.push({ target, kind: 'definition', line: def.line0 + at + 1 });
  }
}

/** The first characters of a link's text, as far as they are written verbatim on its first line. */
function labelStart(text: string): string {
  return (text.split('\n', 1)[0] ?? '').slice(0, 24);
}

function safeDecode(text: string): string {
  try {
    return decodeURI(text);
  } catch {
    return text;
  }
}
