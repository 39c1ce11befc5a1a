import { createRequire } from 'node:module';

/** Recorded in reports so a reader knows what counted `raw_tokens`. Counts are estimates (≈). */
export const TOKENIZER_NAME = 'gpt-tokenizer/o200k_base';

// An empty disallow-set makes special-token text count as ordinary text instead of throwing.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

type CountO200k = typeof import('gpt-tokenizer/encoding/o200k_base').countTokens;
let countO200k: CountO200k | undefined;

/**
 * Token count of `text` with a real BPE tokenizer (o200k_base), never a
 * characters-divided-by-four guess. Special-token text in docs is counted as plain text.
 * The tokenizer's tables (~0.4 s and ~65 MB to load) are loaded on the first count, so a
 * run that counts nothing never pays for them; the CommonJS build of the same package and
 * version is required here because an ES module cannot be loaded synchronously on Node 20.
 */
export function countTokens(text: string): number {
  if (text === '') return 0;
  countO200k ??= (
    createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as { countTokens: CountO200k }
  ).countTokens;
  return countO200k(text, PLAIN_TEXT);
}
