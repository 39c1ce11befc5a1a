import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** Recorded in reports so a reader knows what counted `raw_tokens`. Counts are estimates (≈). */
export const TOKENIZER_NAME = 'gpt-tokenizer/o200k_base';

// An empty disallow-set makes special-token text count as ordinary text instead of throwing.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * Counts kept for texts counted again (the scan, then the report): at most this many
 * characters of text are held, the oldest let go first.
 */
const CACHE_CHARS = 4 * 1024 * 1024;

type GptEncodingClass = typeof import('gpt-tokenizer/GptEncoding').GptEncoding;
type CountO200k = (text: string, options: typeof PLAIN_TEXT) => number;
let countO200k: CountO200k | undefined;

/** Counts kept across runs, by the SHA-1 of the text (the scan cache's: scan/cache/token-cache.ts). */
export interface TokenCountStore {
  get(digest: string): number | undefined;
  set(digest: string, tokens: number): void;
}
let persistent: TokenCountStore | undefined;

/**
 * Counts are read from and added to `store` until it is set back to undefined: a run whose
 * texts were all counted before never loads the tokenizer. The count of a text is the same
 * wherever it is kept.
 */
export function useTokenCountStore(store: TokenCountStore | undefined): void {
  persistent = store;
}

/** Stops using `store` (and only it: another run may have set its own since). */
export function dropTokenCountStore(store: TokenCountStore): void {
  if (persistent === store) persistent = undefined;
}
const counted = new Map<string, number>();
let cachedChars = 0;

/**
 * The package's own o200k_base rank table, which the build writes as JSON next to this
 * module (scripts/compile-tokenizer.mjs): JSON.parse of it is faster and leaves a smaller
 * peak than compiling the package's 2.2 MB JavaScript table, and it is the same array.
 */
function readRanks(): string[] {
  return JSON.parse(readFileSync(new URL('./o200k_base.ranks.json', import.meta.url), 'utf8')) as string[];
}

function loadCounter(): CountO200k {
  // The CommonJS build of gpt-tokenizer's encoder, copied next to this module at build time
  // (scripts/compile-tokenizer.mjs: the package is a build-time dependency only); an ES
  // module cannot be loaded synchronously on Node 20.
  const { GptEncoding } = createRequire(import.meta.url)('./tokenizer/GptEncoding.js') as {
    GptEncoding: GptEncodingClass;
  };
  return GptEncoding.getEncodingApi('o200k_base', readRanks).countTokens as CountO200k;
}

/**
 * Token count of `text` with a real BPE tokenizer (o200k_base), never a
 * characters-divided-by-four guess. Special-token text in docs is counted as plain text.
 * The tokenizer (~0.17 s and ~50 MB to load) is loaded on the first count, so a run that
 * counts nothing never pays for it; each distinct text is encoded once (a bounded cache).
 */
export function countTokens(text: string): number {
  if (text === '') return 0;
  const known = counted.get(text);
  if (known !== undefined) return known;
  const digest = persistent ? createHash('sha1').update(text).digest('hex') : '';
  let tokens = persistent?.get(digest);
  if (tokens === undefined) {
    countO200k ??= loadCounter();
    tokens = countO200k(text, PLAIN_TEXT);
    persistent?.set(digest, tokens);
  }
  if (text.length <= CACHE_CHARS) {
    for (const old of counted.keys()) {
      if (cachedChars + text.length <= CACHE_CHARS) break;
      counted.delete(old);
      cachedChars -= old.length;
    }
    counted.set(text, tokens);
    cachedChars += text.length;
  }
  return tokens;
}
