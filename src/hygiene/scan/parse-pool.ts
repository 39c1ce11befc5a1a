import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { type ParsedDoc, type ParseFacts, parseMarkdown, withLines } from './markdown.js';

/** Below this many docs, starting a thread costs more than it saves. */
export const MIN_DOCS_FOR_WORKERS = 200;
/** Docs sent to a thread at a time: large enough to amortise a message, small enough to share the tail. */
const BATCH = 16;
/**
 * This thread yields at least this often while it parses (milliseconds). A pipe holds 64 KiB:
 * the history pass runs alongside the parse, and git stops writing whenever the pipe is full,
 * so a thread that reads it only between long stretches of parsing leaves git waiting, and its
 * costliest part (rename scoring in the oldest commits) then runs after the parse instead of
 * beside it (measured on kubernetes/community: yielding every 16 docs left ≈ 0.2 s of the
 * history pass, and git's idle wait, after the parse).
 */
const YIELD_MS = 4;

/**
 * Parsing threads to start for `docs` docs when the caller does not say (0: parse in this
 * thread only). One core is this thread's and one the history pass's (git runs alongside the
 * parse), so only cores beyond two parse: on two cores a thread only adds its start-up, its
 * copies and its heap (measured on a 2-core machine; bench/peers.mjs).
 */
export function defaultParseWorkers(docs: number, cores = availableParallelism()): number {
  if (docs < MIN_DOCS_FOR_WORKERS) return 0;
  return Math.max(0, Math.min(cores - 2, MAX_WORKERS));
}

/** Parsing threads at most: past four, the main thread's share of reading the replies bounds the gain. */
const MAX_WORKERS = 4;

/**
 * `STW_PARSE_WORKERS=N` forces N parsing threads (0: none) whatever the cores and the corpus,
 * for benchmarks that compare both paths (bench/peers.mjs); undefined when unset or not a
 * number from 0 to 16.
 */
export function parseWorkersFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const value = env['STW_PARSE_WORKERS'];
  if (value === undefined || !/^\d{1,2}$/.test(value) || Number(value) > 16) return undefined;
  return Number(value);
}

/**
 * Parses `texts` with `parseMarkdown`, on `workers` threads and this one: one queue of
 * batches that every thread takes from, so a slow batch never holds the others up. The
 * result is the same as parsing each text here, in order. This thread yields every few
 * milliseconds (`YIELD_MS`), so that streams it reads (the history pass) keep flowing. A thread that fails
 * hands its batch back to this one.
 */
export async function parseAll(texts: readonly string[], workers: number): Promise<ParsedDoc[]> {
  const out: ParsedDoc[] = new Array(texts.length);
  const batches: number[] = [];
  for (let start = 0; start < texts.length; start += BATCH) batches.push(start);
  let next = 0;
  const take = () => (next < batches.length ? batches[next++] : undefined);
  const parseHere = (start: number) => {
    for (let i = start; i < Math.min(start + BATCH, texts.length); i++) out[i] = parseMarkdown(texts[i]!);
  };
  const threads = Array.from({ length: workers }, () => runThread(texts, out, take, parseHere));
  let yielded = performance.now();
  for (let start = take(); start !== undefined; start = take()) {
    for (let i = start; i < Math.min(start + BATCH, texts.length); i++) {
      out[i] = parseMarkdown(texts[i]!);
      if (performance.now() - yielded >= YIELD_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        yielded = performance.now();
      }
    }
  }
  await Promise.all(threads);
  return out;
}

/** One thread's share: batches from the queue until it is empty, then the thread ends. */
async function runThread(
  texts: readonly string[],
  out: ParsedDoc[],
  take: () => number | undefined,
  parseHere: (start: number) => void,
): Promise<void> {
  const worker = new Worker(new URL('./parse-worker.js', import.meta.url));
  let pending: { start: number; done: () => void; failed: (error: Error) => void } | undefined;
  worker.on('message', (reply: { id: number; parsed: ParseFacts[] }) => {
    // A parse crosses threads without its lines (not enumerable): they are split here when asked for.
    reply.parsed.forEach((parsed, k) => {
      out[reply.id + k] = withLines(parsed, texts[reply.id + k]!);
    });
    const current = pending;
    pending = undefined;
    current?.done();
  });
  worker.on('error', (error) => pending?.failed(error));
  worker.on('exit', () => pending?.failed(new Error('parsing thread exited')));
  try {
    for (let start = take(); start !== undefined; start = take()) {
      const batch = start;
      const ok = await new Promise<boolean>((resolve) => {
        pending = { start: batch, done: () => resolve(true), failed: () => resolve(false) };
        worker.postMessage({ id: batch, texts: texts.slice(batch, batch + BATCH) });
      });
      if (!ok) {
        // The thread is gone: its batch, and no more, is parsed here.
        parseHere(batch);
        return;
      }
    }
  } finally {
    pending = undefined;
    await worker.terminate();
  }
}
