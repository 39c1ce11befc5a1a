/**
 * Code-aware references in agent-context files (part of `broken_reference`): backticked
 * paths the plain link check does not cover (dot-folder paths, folders, bare file names),
 * identifiers that look like code symbols, CLI flags and environment variables, checked
 * against the tracked tree; and `npm run X` / `make X` against the manifests. Symbols are
 * looked up for the whole repository in one `git grep -F -w` over a pattern list, never one
 * call per symbol. A path under a folder that history shows was moved gets its new place.
 */
import { posix } from 'node:path';
import { git } from '../../../core/git.js';
import { readTreeText } from '../files.js';
import { baseOf, dirOf, isPlaceholderPath } from '../paths.js';
import type { ProjectTree } from '../walk.js';
import { type MovedReference, type MovedSignal, markMoveEvidence } from '../written-when.js';
import type { EmitSignal, SignalInput } from './types.js';

export type CodeRefKind =
  | 'code-path'
  | 'code-file'
  | 'code-symbol'
  | 'cli-flag'
  | 'env-var'
  | 'script'
  | 'make-target';

/** Every kind of code reference: the findings of the `code_reference` signal (the bench's class too). */
export const CODE_REF_KINDS: ReadonlySet<string> = new Set<CodeRefKind>([
  'code-path',
  'code-file',
  'code-symbol',
  'cli-flag',
  'env-var',
  'script',
  'make-target',
]);

export interface CodeRef {
  kind: CodeRefKind;
  /** As written (the backticked text, or the script/target name). */
  target: string;
  /** What is looked up: a path, or the bare identifier for symbols. */
  key: string;
  line: number;
}

/** Output cap of the one symbol search; a search cut by it proves nothing, so nothing is reported. */
const GREP_MAX_BYTES = 32 * 1024 * 1024;
const CODE_SPAN = /(`+)([^`\n]+?)\1/g;
const SOURCE_EXT =
  /\.(?:[cm]?[jt]sx?|py|rs|go|rb|java|kt|swift|c|cc|cpp|h|hpp|cs|php|sh|bash|zsh|toml|ya?ml|json|lock|proto|sql|gradle|mk|cmake|vue|svelte|lua|ex|exs|zig|dart|scala)$/;
const PATHISH = /^\.{0,2}\/?[\w@.+-]+(?:\/[\w@.+*{}-]*)+$|^\.[\w-]+(?:\/[\w@.+-]+)*\/?$/;
const CALL = /^(?:[A-Za-z_$][\w$]*(?:\.|::|#))*([A-Za-z_$][\w$]*)\((?:[^()]*)\)$/;
const QUALIFIED = /^(?:[A-Za-z_$][\w$]*(?:\.|::))+([A-Za-z_$][\w$]*)$/;
const LOWER_CAMEL = /^[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*$/;
const PASCAL = /^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+$/;
const SNAKE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;
const ENV_VAR = /^\$?\{?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\}?$/;
const FLAG = /^--[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?:=.*)?$/;
const SCRIPT_RUN =
  /\b(?:npm|pnpm|yarn|bun)\s+run\s+(?:-[\w-]+\s+)*([\w:][\w:.-]*)|\bnpm\s+(test|start|stop|restart)\b/g;
const MAKE_RUN = /(?:^|[\s;&|(])make\s+((?:-[\w-]+\s+)*)([A-Za-z0-9_][\w.-]*)/g;
const SHELL_FENCE = /^\s*(?:```|~~~)\s*(?:sh|bash|zsh|shell|console|fish|powershell|ps1|cmd|text)?\s*$/i;

/** Names that are products or conventions, not the project's symbols. */
const NOT_SYMBOLS = new Set([
  'TypeScript',
  'JavaScript',
  'GitHub',
  'GitLab',
  'PostgreSQL',
  'MySQL',
  'MongoDB',
  'OpenAI',
  'YouTube',
  'PowerShell',
  'WebSocket',
  'GraphQL',
  'JetBrains',
  'IntelliJ',
  'NodeJs',
  'DevTools',
  'FastAPI',
  'NumPy',
  'PyTorch',
  'TensorFlow',
  'CamelCase',
  'PascalCase',
  'DynamoDB',
  'CloudFront',
  'CloudWatch',
  'VsCode',
  'WebAssembly',
  'MacOs',
  'PyPi',
  'GitHubActions',
  'ChatGpt',
  'SQLite',
  'OAuth',
  'JsonSchema',
]);
/** Environment variables set by the platform or tools, not defined by the project. */
const COMMON_ENV = new Set([
  'NODE_ENV',
  'NODE_OPTIONS',
  'GITHUB_TOKEN',
  'GITHUB_ACTIONS',
  'GITHUB_SHA',
  'GITHUB_REF',
  'RUST_LOG',
  'RUST_BACKTRACE',
  'PYTHONPATH',
  'VIRTUAL_ENV',
  'GOPATH',
  'GOOS',
  'GOARCH',
  'CARGO_HOME',
  'LD_LIBRARY_PATH',
  'NO_COLOR',
  'FORCE_COLOR',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'AWS_REGION',
  'AWS_PROFILE',
  'CI_COMMIT_SHA',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NPM_TOKEN',
  'UV_CACHE_DIR',
  'PIP_INDEX_URL',
  'JAVA_HOME',
]);

/** Classifies one inline code span; undefined = not a reference this check looks at. */
export function classifySpan(text: string): Omit<CodeRef, 'line'> | undefined {
  const t = text.trim();
  if (t === '' || /\s/.test(t) || t.length > 200) return undefined;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(t) || t.startsWith('@') || t.includes('*') || t.includes('<'))
    return undefined;
  const flag = FLAG.exec(t);
  if (flag) return { kind: 'cli-flag', target: t, key: t.replace(/=.*$/, '') };
  const env = ENV_VAR.exec(t);
  if (env) return COMMON_ENV.has(env[1]!) ? undefined : { kind: 'env-var', target: t, key: env[1]! };
  const pathLike = (PATHISH.test(t) && !t.includes('::')) || (SOURCE_EXT.test(t) && /^[\w.-]+$/.test(t));
  if (pathLike && isPlaceholderPath(t)) return undefined;
  if (PATHISH.test(t) && !t.includes('::')) {
    const path = t.replace(/^\.\//, '').replace(/\/+$/, '');
    if (path === '' || path.startsWith('../') || path.startsWith('/') || path.includes('{')) return undefined;
    return { kind: 'code-path', target: t, key: path };
  }
  if (SOURCE_EXT.test(t) && /^[\w.-]+$/.test(t) && !/^\d/.test(t))
    return { kind: 'code-file', target: t, key: t };
  const call = CALL.exec(t) ?? QUALIFIED.exec(t);
  if (call) {
    const name = call[1]!;
    return name.length >= 3 && !/^(?:self|this|super)$/.test(name)
      ? { kind: 'code-symbol', target: t, key: name }
      : undefined;
  }
  if (LOWER_CAMEL.test(t) || SNAKE.test(t) || (PASCAL.test(t) && !NOT_SYMBOLS.has(t)))
    return t.length >= 4 ? { kind: 'code-symbol', target: t, key: t } : undefined;
  return undefined;
}

/** The code references of one doc: inline spans outside code blocks; commands also inside shell blocks. */
export function codeRefsOf(
  lines: readonly string[],
  codeLines: ReadonlySet<number>,
  fromLine: number,
): CodeRef[] {
  const out: CodeRef[] = [];
  let inShell = false;
  let inFence = false;
  for (let i = fromLine; i < lines.length; i++) {
    const line = lines[i]!;
    const n = i + 1;
    if (/^\s*(?:```|~~~)/.test(line)) {
      if (inFence) {
        inFence = false;
        inShell = false;
      } else {
        inFence = true;
        inShell = SHELL_FENCE.test(line);
      }
      continue;
    }
    if (codeLines.has(n) && !inShell) continue;
    const commandText = inShell ? [line] : [...line.matchAll(CODE_SPAN)].map((m) => m[2]!);
    for (const text of commandText) {
      for (const m of text.matchAll(SCRIPT_RUN)) {
        const name = m[1] ?? m[2]!;
        out.push({ kind: 'script', target: name, key: name, line: n });
      }
      for (const m of text.matchAll(MAKE_RUN))
        out.push({ kind: 'make-target', target: m[2]!, key: m[2]!, line: n });
    }
    if (inShell || codeLines.has(n)) continue;
    for (const m of line.matchAll(CODE_SPAN)) {
      const ref = classifySpan(m[2]!);
      if (ref) out.push({ ...ref, line: n });
    }
  }
  return out;
}

/**
 * Folder moves read from file renames: `a/old/x.ts` → `a/new/x.ts` means `a/old` → `a/new`.
 * The newest move of a folder wins (renames are read newest first).
 */
export function folderMoves(
  renames: ReadonlyMap<string, string>,
  /** Filled with the renamed file each folder move was read from. */
  readFrom?: Map<string, string>,
): Map<string, string> {
  const moves = new Map<string, string>();
  for (const [from, to] of renames) {
    const a = from.split('/');
    const b = to.split('/');
    while (a.length > 1 && b.length > 1 && a[a.length - 1] === b[b.length - 1]) {
      a.pop();
      b.pop();
    }
    const fromDir = a.join('/');
    const toDir = b.join('/');
    if (a.length < from.split('/').length && fromDir !== toDir && !moves.has(fromDir)) {
      moves.set(fromDir, toDir);
      readFrom?.set(fromDir, from);
    }
  }
  return moves;
}

/** The folder above `path` whose move `movedTarget` follows first. */
function firstMovedFolder(path: string, moves: ReadonlyMap<string, string>): string | undefined {
  for (let d = path; d !== ''; d = dirOf(d)) if (moves.has(d)) return d;
  return undefined;
}

/** Where a missing path lives now if a folder above it moved (following later moves), else undefined. */
export function movedTarget(
  path: string,
  moves: ReadonlyMap<string, string>,
  tree: ProjectTree,
): string | undefined {
  let current = path;
  for (let hop = 0; hop < 10; hop++) {
    let moved: string | undefined;
    for (let d = current; d !== ''; d = dirOf(d)) {
      const to = moves.get(d);
      if (to !== undefined) {
        moved = to + current.slice(d.length);
        break;
      }
    }
    if (moved === undefined || moved === current) break;
    current = moved;
    if (tree.exists(current)) return current;
  }
  return undefined;
}

/** `key` as a POSIX extended regular expression that matches exactly its text. */
const literalEre = (key: string): string => key.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');

/**
 * Which of `keys` occur as whole words in tracked files other than docs: one git grep for all,
 * with one extended regular expression, the keys' alternation. As many fixed strings (`-F -f`)
 * with `-w`, git retries every match that is not a whole word with all of them, and a short key
 * inside many words made that quadratic: on denoland/deno, `dev` (in `device`, `/dev/null`, …)
 * among 18 keys took 7.6 s, among 202 keys 91 s; the alternation finds the same keys in 0.3–0.6 s.
 */
export async function symbolsInCode(
  root: string,
  keys: readonly string[],
  signal?: AbortSignal,
): Promise<Set<string> | undefined> {
  if (keys.length === 0) return new Set();
  const result = await git(
    [
      'grep',
      '-E',
      '-w',
      '-o',
      '-h',
      '-I',
      '--no-color',
      '-f',
      '-',
      '--',
      '.',
      ':(exclude)*.md',
      ':(exclude)*.mdc',
      ':(exclude)*.markdown',
      ':(exclude)*.rst',
      ':(exclude)*.txt',
    ],
    {
      cwd: root,
      input: `(${keys.map(literalEre).join('|')})\n`,
      maxBytes: GREP_MAX_BYTES,
      ...(signal ? { signal } : {}),
    },
  );
  // Exit 1 = no match at all; anything else but 0 (or a cut output) proves nothing.
  if (result.kind !== 'exited' || (result.code !== 0 && result.code !== 1)) return undefined;
  return new Set(
    result.stdout
      .toString('utf8')
      .split('\n')
      .filter((s) => s !== ''),
  );
}

function packageScripts(root: string, dir: string): Set<string> | undefined {
  for (let d = dir; ; d = dirOf(d)) {
    try {
      const pkg = JSON.parse(readTreeText(root, posix.join(d, 'package.json')) ?? '') as {
        scripts?: Record<string, unknown>;
      };
      return new Set(Object.keys(pkg.scripts ?? {}));
    } catch {
      // no (readable) package.json here: look further up
    }
    if (d === '') return undefined;
  }
}

function makeTargets(root: string, dir: string): Set<string> | undefined {
  for (let d = dir; ; d = dirOf(d)) {
    for (const name of ['GNUmakefile', 'makefile', 'Makefile']) {
      const text = readTreeText(root, posix.join(d, name));
      if (text === undefined) continue;
      // An include or a pattern rule can define targets this reading cannot see.
      if (/^\s*-?include\s/m.test(text) || /^[^\s#]*%[^:]*:/m.test(text)) return undefined;
      const targets = new Set<string>();
      for (const m of text.matchAll(/^([A-Za-z0-9_./-][^:=#\s]*(?:\s+[^:=#\s]+)*)\s*::?(?!=)/gm))
        for (const t of m[1]!.split(/\s+/)) targets.add(t);
      return targets;
    }
    if (d === '') return undefined;
  }
}

interface Missing {
  doc: string;
  ref: CodeRef;
  detail: string;
  suggestion?: string;
  suggestedPath?: string;
}

/** Emits `broken_reference` for every code reference in agent context that the tree contradicts. */
export async function collectCodeReferences(
  { facts, history }: Pick<SignalInput, 'facts' | 'history'>,
  emit: EmitSignal,
  options: { inRepo: boolean; signal?: AbortSignal } = { inRepo: true },
): Promise<void> {
  const { tree } = facts;
  const perDoc: { doc: string; refs: CodeRef[] }[] = [];
  for (const doc of facts.docs.values()) {
    if (!facts.agentContext.has(doc.path)) continue;
    // Paths the link check already reads (`a/b.ts`) are its to report.
    const known = new Set(
      doc.parsed.refs.filter((r) => r.kind === 'code-path').map((r) => `${r.line}\0${r.target}`),
    );
    const refs = codeRefsOf(doc.lines, doc.parsed.codeLines, doc.parsed.frontmatter.endLine).filter(
      (r) => !known.has(`${r.line}\0${r.target}`),
    );
    if (refs.length > 0) perDoc.push({ doc: doc.path, refs });
  }
  if (perDoc.length === 0) return;
  const keys = [...new Set(perDoc.flatMap(({ refs }) => refs.filter(isSymbolish).map((r) => r.key)))].sort();
  const found = options.inRepo ? await symbolsInCode(tree.root, keys, options.signal) : undefined;
  const movedFrom = new Map<string, string>();
  const moves = folderMoves(history.renames, movedFrom);
  const missing: Missing[] = [];
  for (const { doc, refs } of perDoc) {
    const dir = dirOf(doc);
    const scripts = refs.some((r) => r.kind === 'script') ? packageScripts(tree.root, dir) : undefined;
    const targets = refs.some((r) => r.kind === 'make-target') ? makeTargets(tree.root, dir) : undefined;
    for (const ref of refs) {
      const problem = problemOf(ref, doc, tree, found, scripts, targets, moves);
      if (problem) missing.push({ doc, ref, ...problem });
    }
  }
  // A folder move is proved only for a reference written before it (written-when.ts).
  const movedOf = (m: Missing): MovedReference | undefined => {
    if (m.suggestion === undefined || !options.inRepo) return undefined;
    const folder = firstMovedFolder(m.ref.key, moves);
    const file = folder === undefined ? undefined : movedFrom.get(folder);
    const commit = file === undefined ? undefined : history.renamedIn.get(file);
    return commit === undefined
      ? undefined
      : { doc: m.doc, line: m.ref.line, written: m.ref.key, path: m.ref.key, commit };
  };
  const signals: MovedSignal[] = missing.map((m) => {
    const moved = movedOf(m);
    return {
      doc: m.doc,
      signal: {
        line: m.ref.line,
        detail: m.detail,
        data: {
          target: m.ref.target,
          kind: m.ref.kind,
          // Agent context is read in the repository (on GitHub and by the agent): the tree's view.
          broken_on: ['github'],
          ...(m.suggestion !== undefined
            ? { suggested_target: m.suggestion, suggested_path: m.suggestedPath, suggested_by: 'folder-move' }
            : {}),
        },
      },
      ...(moved !== undefined ? { moved } : {}),
    };
  });
  await markMoveEvidence(tree.root, facts, signals, options.signal);
  for (const { doc, signal } of signals) emit(doc, signal);
}

const isSymbolish = (r: CodeRef) => r.kind === 'code-symbol' || r.kind === 'cli-flag' || r.kind === 'env-var';

function problemOf(
  ref: CodeRef,
  doc: string,
  tree: ProjectTree,
  found: ReadonlySet<string> | undefined,
  scripts: ReadonlySet<string> | undefined,
  targets: ReadonlySet<string> | undefined,
  moves: ReadonlyMap<string, string>,
): { detail: string; suggestion?: string; suggestedPath?: string } | undefined {
  switch (ref.kind) {
    case 'code-path': {
      const fromDoc = posix.normalize(posix.join(dirOf(doc), ref.key));
      if (tree.exists(ref.key) || tree.exists(fromDoc)) return undefined;
      // Taken for a repository path only when its first folder exists or history moved it.
      const top = ref.key.split('/')[0]!;
      const moved = movedTarget(ref.key, moves, tree);
      if (!tree.isDir(top) && moved === undefined) return undefined;
      const suggestion = moved === undefined ? undefined : ref.target.replace(ref.key, moved);
      return {
        detail: `path "${ref.target}" is not in the tracked tree${moved !== undefined ? `; moved to "${moved}"?` : ''}`,
        ...(suggestion !== undefined ? { suggestion, suggestedPath: moved } : {}),
      };
    }
    case 'code-file':
      return (tree.byName.get(baseOf(ref.key))?.length ?? 0) > 0 || tree.exists(ref.key)
        ? undefined
        : { detail: `file "${ref.target}" is not anywhere in the tracked tree` };
    case 'code-symbol':
    case 'cli-flag':
    case 'env-var':
      if (found === undefined || found.has(ref.key)) return undefined;
      return { detail: `${ref.kind.replace('-', ' ')} "${ref.target}" occurs nowhere in the tracked code` };
    case 'script':
      return scripts === undefined || scripts.has(ref.key)
        ? undefined
        : { detail: `npm script "${ref.key}" is not in package.json's scripts` };
    case 'make-target':
      return targets === undefined || targets.has(ref.key)
        ? undefined
        : { detail: `make target "${ref.key}" is not in the Makefile` };
  }
}
