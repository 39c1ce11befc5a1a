/**
 * Bounded-output helpers every backend shares (Git, jj, and the retirement and task code on
 * both): text bounds checked before anything runs, work split into chunks under an output
 * budget, and parallel calls that all settle before the first failure is reported.
 */
import { RefusalError } from '../core/errors.js';

/** Splits items into chunks whose summed cost stays within budget (one item may exceed it alone). */
export function chunkByCost<T>(items: readonly T[], cost: (item: T) => number, budget: number): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let used = 0;
  for (const item of items) {
    const c = cost(item);
    if (current.length > 0 && used + c > budget) {
      chunks.push(current);
      current = [];
      used = 0;
    }
    current.push(item);
    used += c;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * Like Promise.all, but waits for every call to settle (no git process outlives the
 * observation) and throws the first failure in argument order, so the reported
 * refusal does not depend on which process finished first.
 */
export async function settleAll<T extends readonly unknown[]>(
  promises: readonly [...{ [K in keyof T]: Promise<T[K]> }],
): Promise<T> {
  const results = await Promise.allSettled(promises);
  for (const result of results) if (result.status === 'rejected') throw result.reason;
  return results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/** The UTF-8 byte length of text. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Refuses text over the path/selector bound before anything else runs. */
export function checkTextBound(label: string, text: string, maxBytes: number): void {
  const size = utf8Bytes(text);
  if (size > maxBytes)
    throw new RefusalError('bound-exceeded', `${label} is ${size} bytes; the bound is ${maxBytes} bytes`);
}
