/**
 * Token counts by the SHA-1 of the counted text (`tokens.ts` `countTokens`): a count is a
 * function of the text and the tokenizer alone, so one entry per tokenizer and tool version
 * holds the counts the last run made or used, and a run whose texts were all counted before
 * never loads the tokenizer (≈ 0.2 s and the largest part of a check's peak memory).
 */
import { createHash } from 'node:crypto';
import { TOKENIZER_NAME, type TokenCountStore } from '../../tokens.js';
import type { CacheStore } from './store.js';

const DIGEST = /^[0-9a-f]{40}$/;

export class TokenCache implements TokenCountStore {
  private known: Map<string, number> | undefined;
  private readonly used = new Map<string, number>();
  private added = 0;
  private readonly name: string;

  constructor(
    private readonly store: CacheStore,
    version: string,
  ) {
    this.name = createHash('sha256').update(`tokens\0${TOKENIZER_NAME}\0${version}`).digest('hex');
  }

  get(digest: string): number | undefined {
    this.known ??= this.load();
    const tokens = this.known.get(digest);
    if (tokens !== undefined) this.used.set(digest, tokens);
    return tokens;
  }

  set(digest: string, tokens: number): void {
    this.used.set(digest, tokens);
    this.added++;
  }

  /** Stores the counts this run used, when it counted some afresh. */
  save(): void {
    if (this.added === 0) return;
    this.added = 0;
    this.store.write(this.name, { counts: Object.fromEntries(this.used) });
  }

  private load(): Map<string, number> {
    const known = new Map<string, number>();
    const value = this.store.read(this.name) as { counts?: unknown } | undefined;
    const counts = value?.counts;
    if (typeof counts !== 'object' || counts === null || Array.isArray(counts)) return known;
    for (const [digest, tokens] of Object.entries(counts))
      if (DIGEST.test(digest) && Number.isSafeInteger(tokens) && (tokens as number) > 0)
        known.set(digest, tokens as number);
    return known;
  }
}
