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
  const alternatives = compile(pattern);
  return (path) => alternatives.some((tokens) => runs(tokens, path));
}

function compile(pattern: string): Token[][] {
  if (/^!/.test(pattern)) throw new GlobSyntaxError('a leading "!" (negation) is not supported');
  if (/[@*+?!]\(/.test(pattern.replace(/\\./g, '')))
    throw new GlobSyntaxError('extended globs such as @(a|b) or !(a) are not supported');
  return expandBraces(pattern.replace(/^(?:\.\/)+/, '')).map(tokenize);
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

function tokenize(pattern: string): Token[] {
  const segments = splitSegments(pattern);
  const tokens: Token[] = [];
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    if (segment === '**') {
      if (!last) tokens.push({ kind: 'segments' });
      else if (index === 0) tokens.push({ kind: 'any' });
      else {
        // A trailing `/**` matches the folder itself too, and anything under it.
        tokens.pop();
        tokens.push({ kind: 'gate' }, { kind: 'any' });
      }
      return;
    }
    if (
      segment.includes('**') &&
      !segment
        .replace(/\\./g, '')
        .split('**')
        .every((part) => part === '')
    )
      throw new GlobSyntaxError('"**" must be a whole path segment (write **/*.md, not **.md)');
    tokens.push(...segmentTokens(segment));
    if (!last) tokens.push({ kind: 'char', char: '/' });
  });
  return tokens;
}

/** Splits on `/` outside classes, keeping escapes as they are. */
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
 * Runs the automaton. States are token indices (`tokens.length` accepts); a `segments`
 * token has a second state, "inside a segment it is skipping", kept as a negative index.
 */
function runs(tokens: readonly Token[], path: string): boolean {
  let live = closure(tokens, [0]);
  for (const char of path) {
    const next: number[] = [];
    for (const state of live) {
      if (state < 0) {
        // Inside a segment a `**` skips: a `/` ends it.
        next.push(char === '/' ? -state - 1 : state);
        continue;
      }
      const token = tokens[state];
      if (token === undefined) continue;
      if (token.kind === 'char') {
        if (token.char === char) next.push(state + 1);
      } else if (token.kind === 'one') {
        if (token.test(char)) next.push(state + 1);
      } else if (token.kind === 'star') {
        if (char !== '/') next.push(state);
      } else if (token.kind === 'segments') {
        next.push(char === '/' ? state : -state - 1);
      } else if (token.kind === 'gate') {
        if (char === '/') next.push(state + 1);
      } else next.push(state);
    }
    live = closure(tokens, next);
    if (live.length === 0) return false;
  }
  return live.includes(tokens.length);
}

/** States reachable without reading a character, each once. */
function closure(tokens: readonly Token[], states: readonly number[]): number[] {
  const seen = new Set<number>();
  const stack = [...states];
  while (stack.length > 0) {
    const state = stack.pop()!;
    if (seen.has(state)) continue;
    seen.add(state);
    if (state < 0) continue;
    const kind = tokens[state]?.kind;
    if (kind === 'star' || kind === 'segments' || kind === 'any') stack.push(state + 1);
    // A trailing `/**` may match nothing at all.
    if (kind === 'gate') stack.push(state + 2);
  }
  return [...seen];
}
