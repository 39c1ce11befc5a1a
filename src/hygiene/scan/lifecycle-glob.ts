/**
 * The glob of a lifecycle rule's `match` (docs/lifecycle.md), matched in linear time.
 *
 * A `match` comes from the repository's own `.dochygiene.yml`, so it is hostile input. A
 * backtracking matcher (a glob compiled to a JavaScript RegExp) takes time exponential in
 * the number of `*` on a pattern like `runs/*a*a*a*a*a*c` against a long name, and blocks
 * the event loop, so neither the deadline nor SIGTERM can stop it. Here the pattern is a
 * small automaton run over the path one character at a time with a set of live states:
 * O(path length × pattern length), whatever the pattern. The syntax is the common subset
 * of picomatch and bash: `*`, `?`, `[…]` (`[!…]`, `[^…]`, ranges), `{a,b}`, `\` escapes and
 * `**` as a whole path segment. What is outside it is refused at config validation
 * (`globProblem`), never guessed at.
 */

/** Longest `match` accepted, and most alternatives its braces may expand to. */
export const MAX_GLOB_LENGTH = 512;
export const MAX_GLOB_ALTERNATIVES = 64;

type Token =
  | { kind: 'char'; char: string }
  /** `?` or a class: one character, never `/`. */
  | { kind: 'one'; test: (char: string) => boolean }
  /** `*`: any run of characters within a segment. */
  | { kind: 'star' }
  /** A `**` segment (not the last): zero or more whole segments, each with its `/`. */
  | { kind: 'segments' }
  /** A trailing `/**` is `gate` then `any`: nothing, or `/` and anything after it. */
  | { kind: 'gate' }
  /** Any run of characters, `/` included (a lone `**`). */
  | { kind: 'any' };

class GlobSyntaxError extends Error {}

/** Why `pattern` cannot be a lifecycle `match`, or undefined when it can. */
export function globProblem(pattern: string): string | undefined {
  if (pattern.length > MAX_GLOB_LENGTH)
    return `the pattern is ${pattern.length} characters long; at most ${MAX_GLOB_LENGTH} are accepted`;
  try {
    compile(pattern);
    return undefined;
  } catch (error) {
    if (error instanceof GlobSyntaxError) return error.message;
    throw error;
  }
}

/** A linear-time matcher for a `match` that `globProblem` accepts; throws on one it refuses. */
export function ruleMatcher(pattern: string): (path: string) => boolean {
  const problem = globProblem(pattern);
  if (problem !== undefined) throw new Error(`lifecycle match ${JSON.stringify(pattern)}: ${problem}`);
  const alternatives = compile(pattern).map((tokens) => new Automaton(tokens));
  return (path) => alternatives.some((automaton) => automaton.matches(path));
}

/**
 * One linear-time matcher for several globs (a path matching any): the docs' `scan.globs`,
 * which a repository's config sets as it sets a lifecycle `match`. Each must pass `globProblem`.
 */
export function globsMatcher(globs: readonly string[]): (path: string) => boolean {
  const matchers = [...new Set(globs)].map(ruleMatcher);
  // The same paths are asked about again and again (every change the history pass reads, the
  // listing, each resolved reference): each answer is kept (a scan of tldr-pages/tldr spent
  // ≈ 1.4 s of 26 s profiled here before). At most `MEMO_LIMIT` answers, then it starts over.
  let memo = new Map<string, boolean>();
  return (path) => {
    let answer = memo.get(path);
    if (answer === undefined) {
      answer = matchers.some((matches) => matches(path));
      if (memo.size >= MEMO_LIMIT) memo = new Map();
      memo.set(path, answer);
    }
    return answer;
  };
}

/** Answers `globsMatcher` keeps: ≈ 10 MB at most, past any real repository's distinct paths. */
const MEMO_LIMIT = 200_000;

/**
 * The same for globs a repository's own files set where no config error can be raised (a site
 * generator's `srcExclude`, DocFX's `files`/`exclude`): undefined when one is outside the
 * syntax, so the caller reads the file as one it cannot model, never as one it matched.
 */
export function repositoryGlobsMatcher(globs: readonly string[]): ((path: string) => boolean) | undefined {
  return globs.every((glob) => globProblem(glob) === undefined) ? globsMatcher(globs) : undefined;
}

function compile(pattern: string): Token[][] {
  if (/^!/.test(pattern)) throw new GlobSyntaxError('a leading "!" (negation) is not supported');
  if (/[@*+?!]\(/.test(pattern.replace(/\\./g, '')))
    throw new GlobSyntaxError('extended globs such as @(a|b) or !(a) are not supported');
  const bare = pattern.replace(/^(?:\.\/)+/, '');
  // picomatch's reading of a trailing `/**` right after a `*` (`runs/*/**`): anything under
  // the folder, not the folder itself. After anything else it matches the folder too.
  const raw = segmentsOf(bare);
  const before = raw.length > 1 && raw.at(-1) === '**' ? raw.at(-2)! : '';
  const strictRest = before !== '**' && /(?:^|[^\\])\*$/.test(before);
  return expandBraces(bare).map((alternative) => tokenize(alternative, strictRest));
}

/** `{a,b}` (nested) into its alternatives, at most `MAX_GLOB_ALTERNATIVES`. A brace with no comma is literal. */
function expandBraces(pattern: string): string[] {
  const open = findBrace(pattern);
  if (open === undefined) return [pattern];
  const { start, end, parts } = open;
  const out: string[] = [];
  for (const part of parts) {
    for (const expanded of expandBraces(`${pattern.slice(0, start)}${part}${pattern.slice(end + 1)}`)) {
      out.push(expanded);
      if (out.length > MAX_GLOB_ALTERNATIVES)
        throw new GlobSyntaxError(`its braces expand to more than ${MAX_GLOB_ALTERNATIVES} alternatives`);
    }
  }
  return out;
}

/** The first `{…}` holding a top-level comma: where it is and its comma-separated parts. */
function findBrace(pattern: string): { start: number; end: number; parts: string[] } | undefined {
  for (let start = 0; start < pattern.length; start++) {
    if (pattern[start] === '\\') {
      start++;
      continue;
    }
    if (pattern[start] !== '{') continue;
    let depth = 0;
    const commas: number[] = [];
    for (let at = start; at < pattern.length; at++) {
      const char = pattern[at];
      if (char === '\\') at++;
      else if (char === '{') depth++;
      else if (char === ',' && depth === 1) commas.push(at);
      else if (char === '}' && --depth === 0) {
        const inner = pattern.slice(start + 1, at);
        if (commas.length === 0) {
          if (/^-?\d+\.\.-?\d+$|^[a-z]\.\.[a-z]$/i.test(inner))
            throw new GlobSyntaxError(`brace ranges such as {${inner}} are not supported; list the values`);
          break;
        }
        const bounds = [start, ...commas, at];
        const parts = bounds.slice(1).map((bound, index) => pattern.slice(bounds[index]! + 1, bound));
        return { start, end: at, parts };
      }
    }
  }
  return undefined;
}

function tokenize(pattern: string, strictRest: boolean): Token[] {
  const segments = segmentsOf(pattern);
  const tokens: Token[] = [];
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    if (segment === '**') {
      if (!last) tokens.push({ kind: 'segments' });
      else if (index === 0 || strictRest || tokens.at(-1)?.kind === 'segments') tokens.push({ kind: 'any' });
      else {
        // A trailing `/**` matches the folder itself too, and anything under it.
        tokens.pop();
        tokens.push({ kind: 'gate' }, { kind: 'any' });
      }
      return;
    }
    if (segment.replace(/\\./g, '').includes('**'))
      throw new GlobSyntaxError('"**" must be a whole path segment (write **/*.md, not **.md)');
    tokens.push(...segmentTokens(segment));
    if (!last) tokens.push({ kind: 'char', char: '/' });
  });
  return tokens;
}

/** The pattern's segments, a run of `**` segments taken as one. */
function segmentsOf(pattern: string): string[] {
  return splitSegments(pattern).filter((segment, index, all) => segment !== '**' || all[index - 1] !== '**');
}

/** Splits on `/`, keeping escapes as they are. */
function splitSegments(pattern: string): string[] {
  const segments: string[] = [];
  let current = '';
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at]!;
    if (char === '\\' && at + 1 < pattern.length) {
      current += char + pattern[++at];
      continue;
    }
    if (char === '/') {
      segments.push(current);
      current = '';
    } else current += char;
  }
  segments.push(current);
  return segments;
}

function segmentTokens(segment: string): Token[] {
  const tokens: Token[] = [];
  for (let at = 0; at < segment.length; at++) {
    const char = segment[at]!;
    if (char === '\\') {
      if (at + 1 >= segment.length) throw new GlobSyntaxError('it ends with a lone "\\"');
      tokens.push({ kind: 'char', char: segment[++at]! });
    } else if (char === '*') {
      while (segment[at + 1] === '*') at++;
      tokens.push({ kind: 'star' });
    } else if (char === '?') tokens.push({ kind: 'one', test: (c) => c !== '/' });
    else if (char === '[') {
      const parsed = parseClass(segment, at);
      tokens.push({ kind: 'one', test: parsed.test });
      at = parsed.end;
    } else tokens.push({ kind: 'char', char });
  }
  return tokens;
}

/** A `[…]` class starting at `start`: its test and the index of its closing `]`. */
function parseClass(segment: string, start: number): { test: (char: string) => boolean; end: number } {
  let at = start + 1;
  const negated = segment[at] === '!' || segment[at] === '^';
  if (negated) at++;
  const ranges: [string, string][] = [];
  let first = true;
  for (; at < segment.length; at++) {
    let char = segment[at]!;
    if (char === ']' && !first) {
      const test = (c: string) => c !== '/' && ranges.some(([lo, hi]) => c >= lo && c <= hi) !== negated;
      return { test, end: at };
    }
    first = false;
    if (char === '[' && segment[at + 1] === ':')
      throw new GlobSyntaxError('POSIX classes such as [[:alpha:]] are not supported; write [a-zA-Z]');
    if (char === '\\' && at + 1 < segment.length) char = segment[++at]!;
    if (segment[at + 1] === '-' && at + 2 < segment.length && segment[at + 2] !== ']') {
      let hi = segment[at + 2]!;
      at += 2;
      if (hi === '\\' && at + 1 < segment.length) hi = segment[++at]!;
      if (hi < char) throw new GlobSyntaxError(`the class range ${char}-${hi} is reversed`);
      ranges.push([char, hi]);
    } else ranges.push([char, char]);
  }
  throw new GlobSyntaxError('it has a "[" with no closing "]"');
}

/**
 * One alternative, ready to run. States are token indices (`tokens.length` accepts), and,
 * for a `segments` token at `i`, `tokens.length + 1 + i`: "inside a segment it skips".
 * Each state's epsilon closure is computed once; `mark` is reused by every run (matching
 * is synchronous) so a run allocates only its two state lists.
 */
class Automaton {
  private readonly closures: number[][];
  private readonly mark: Uint32Array;
  private generation = 0;
  /** Literal text every match starts and ends with: most paths fail on these alone. */
  private readonly prefix: string;
  private readonly suffix: string;
  private readonly literal: boolean;
  /**
   * A leading `**` segment, then `*NAME` or `NAME` (NAME literal, no `/`: the docs' own
   * `*.md` under any folder): the file name ends with, or is, NAME. Answered without running
   * the automaton, which costs a state list per character (a scan of tldr-pages/tldr spent
   * ≈ 0.6 s of 16 s profiled in it).
   */
  private readonly fileName: { name: string; anyStart: boolean } | undefined;

  constructor(private readonly tokens: readonly Token[]) {
    const size = 2 * tokens.length + 1;
    this.mark = new Uint32Array(size);
    this.closures = Array.from({ length: size }, (_, state) => this.closureOf(state));
    const chars = (list: readonly Token[]) => {
      let text = '';
      for (const token of list) {
        if (token.kind !== 'char') break;
        text += token.char;
      }
      return text;
    };
    this.literal = tokens.every((token) => token.kind === 'char');
    this.prefix = chars(tokens);
    this.suffix = [...chars([...tokens].reverse())].reverse().join('');
    this.fileName = fileNameShape(tokens, this.suffix);
  }

  private closureOf(state: number): number[] {
    const out = new Set<number>();
    const stack = [state];
    while (stack.length > 0) {
      const at = stack.pop()!;
      if (out.has(at)) continue;
      out.add(at);
      const kind = this.tokens[at]?.kind;
      if (kind === 'star' || kind === 'segments' || kind === 'any') stack.push(at + 1);
      // A trailing `/**` may match nothing at all.
      if (kind === 'gate') stack.push(at + 2);
    }
    return [...out];
  }

  private reach(state: number, stamp: number, next: number[]): void {
    for (const reached of this.closures[state]!) {
      if (this.mark[reached] === stamp) continue;
      this.mark[reached] = stamp;
      next.push(reached);
    }
  }

  matches(path: string): boolean {
    if (this.literal) return path === this.prefix;
    if (this.fileName !== undefined) {
      const name = path.slice(path.lastIndexOf('/') + 1);
      return this.fileName.anyStart ? name.endsWith(this.fileName.name) : name === this.fileName.name;
    }
    if (!path.startsWith(this.prefix) || !path.endsWith(this.suffix)) return false;
    const { tokens } = this;
    const inside = tokens.length + 1;
    let live = this.closures[0]!;
    // UTF-16 code units, as a JavaScript RegExp without the `u` flag (picomatch's) reads them.
    for (let at = 0; at < path.length; at++) {
      const char = path[at]!;
      const next: number[] = [];
      const stamp = ++this.generation;
      const add = (state: number) => this.reach(state, stamp, next);
      for (const state of live) {
        if (state >= inside) {
          // Inside a segment a `**` skips: a `/` ends it.
          add(char === '/' ? state - inside : state);
          continue;
        }
        const token = tokens[state];
        if (token === undefined) continue;
        if (token.kind === 'char') {
          if (token.char === char) add(state + 1);
        } else if (token.kind === 'one') {
          if (token.test(char)) add(state + 1);
        } else if (token.kind === 'star') {
          if (char !== '/') add(state);
        } else if (token.kind === 'segments') {
          add(char === '/' ? state : inside + state);
        } else if (token.kind === 'gate') {
          if (char === '/') add(state + 1);
        } else add(state);
      }
      if (next.length === 0) return false;
      live = next;
    }
    return live.includes(tokens.length);
  }
}

/** `Automaton.fileName` of `tokens`: `segments`, an optional `star`, then literal `suffix` (no `/`). */
function fileNameShape(
  tokens: readonly Token[],
  suffix: string,
): { name: string; anyStart: boolean } | undefined {
  if (tokens[0]?.kind !== 'segments' || suffix.includes('/')) return undefined;
  const anyStart = tokens[1]?.kind === 'star';
  const rest = tokens.length - (anyStart ? 2 : 1);
  return rest === suffix.length && rest > 0 ? { name: suffix, anyStart } : undefined;
}
