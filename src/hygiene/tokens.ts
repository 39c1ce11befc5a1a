import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';

/** Recorded in reports so a reader knows what counted `raw_tokens`. Counts are estimates (≈). */
export const TOKENIZER_NAME = 'gpt-tokenizer/o200k_base';

// An empty disallow-set makes special-token text count as ordinary text instead of throwing.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * Token count of `text` with a real BPE tokenizer (o200k_base), never a
 * characters-divided-by-four guess. Special-token text in docs is counted as plain text.
 */
export function countTokens(text: string): number {
  if (text === '') return 0;
  return countO200k(text, PLAIN_TEXT);
}
