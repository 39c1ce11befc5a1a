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
 * Markdown (characters) that must be waiting to be parsed before the default threads start
 * (`ParsePool`'s `startAfter`): 4 MiB. A thread takes ≈ 0.08 s to start Node and load the
 * parser, parses its share at up to twice the warm main thread's cost (it compiles
 * markdown-it anew), and its V8 compiles and collects on background threads of its own
 * (`npm run bench:threads`). So the threads start only for at least two threads' worth of
 * text: never for a scan the cache serves, nor for a small corpus
 * (docs/scanner-and-classifiers.md, "Parsing threads").
 */
export const THREADS_START_AFTER = 4 * 1024 * 1024;

/**
 * Parsing threads to start for `docs` docs when the caller does not say (0: parse in this
 * thread only). One core is this thread's and one the history pass's (git runs alongside the
 * parse), so only cores beyond two parse: on two cores a thread only adds its start-up, its
 * warm-up and its heap (kubernetes/community: +0.6–0.75 s CPU for one thread on 2 cores;
 * bench/peers.mjs). They start once `THREADS_START_AFTER` of text waits to be parsed.
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
  const pool = new ParsePool(workers);
  for (const text of texts) pool.add(text);
  return pool.finish();
}

/**
 * A queue of texts to parse that is filled while the docs are still being read: its threads
 * take each batch as soon as it is whole, so they parse beside the reading (and beside the
 * history pass), and this thread joins them once every text is in (`finish`). The threads
 * start once `startAfter` characters are queued, not before: a scan whose docs come from
 * the cache queues little or nothing, and starts none. What a thread sends back is the parse's facts
 * (`ParseFacts`), never markdown-it's tokens; the lines are split here when asked for.
 */
export class ParsePool {
  private readonly texts: string[] = [];
  private readonly out: ParsedDoc[] = [];
  /** UTF-16 code units queued so far (≈ bytes of Markdown: most of it is ASCII). */
  private queued = 0;
  /** The first text no thread has taken. */
  private next = 0;
  private closed = false;
  /** Threads waiting for a whole batch. */
  private waiting: (() => void)[] = [];
  private threads: Promise<void>[] | undefined;
  private yielded = performance.now();

  constructor(
    private readonly workers: number,
    /** The threads start once this much text (characters) waits to be parsed; 0: at once. */
    private readonly startAfter = 0,
  ) {
    this.startThreads();
  }

  /** Threads started so far (0 until `startAfter` characters are queued). */
  get threadsStarted(): number {
    return this.threads?.length ?? 0;
  }

  /** Queues `text`: its parse is `finish()`'s entry at the index returned. */
  add(text: string): number {
    this.texts.push(text);
    this.queued += text.length;
    this.startThreads();
    if (this.texts.length - this.next >= BATCH) this.wake();
    return this.texts.length - 1;
  }

  /**
   * Lets the threads' replies and the streams this thread reads in, when `YIELD_MS` have
   * passed since it last did: for a caller that queues texts in a long synchronous loop.
   */
  async yieldIfDue(): Promise<void> {
    if (performance.now() - this.yielded < YIELD_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.yielded = performance.now();
  }

  /** Parses what no thread has taken, here, and waits for the threads: every text's parse, in order. */
  async finish(): Promise<ParsedDoc[]> {
    this.closed = true;
    this.wake();
    for (let batch = this.take(); batch !== undefined; batch = this.take()) {
      for (let i = batch[0]; i < batch[1]; i++) {
        this.out[i] = parseMarkdown(this.texts[i]!);
        await this.yieldIfDue();
      }
    }
    await Promise.all(this.threads ?? []);
    return this.out;
  }

  private startThreads(): void {
    if (this.threads !== undefined || this.workers === 0 || this.queued < this.startAfter) return;
    this.threads = Array.from({ length: this.workers }, () => this.runThread());
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resume of waiting) resume();
  }

  /** The next batch (start, end) if one is whole, or any rest once the queue is closed. */
  private take(): [number, number] | undefined {
    const queued = this.texts.length - this.next;
    if (queued === 0 || (queued < BATCH && !this.closed)) return undefined;
    const start = this.next;
    this.next = Math.min(start + BATCH, this.texts.length);
    return [start, this.next];
  }

  /** `take`, waiting for a batch until the queue is closed and empty (undefined then). */
  private async takeWhenReady(): Promise<[number, number] | undefined> {
    for (;;) {
      const batch = this.take();
      if (batch !== undefined || this.closed) return batch;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  private parseHere([start, end]: [number, number]): void {
    for (let i = start; i < end; i++) this.out[i] = parseMarkdown(this.texts[i]!);
  }

  /** One thread's share: batches from the queue until it is closed and empty, then the thread ends. */
  private async runThread(): Promise<void> {
    const worker = new Worker(new URL('./parse-worker.js', import.meta.url));
    let pending: { done: () => void; failed: () => void } | undefined;
    let gone = false;
    const fail = () => {
      gone = true;
      pending?.failed();
    };
    worker.on('message', (reply: { id: number; parsed: ParseFacts[] }) => {
      // A parse crosses threads without its lines (not enumerable): they are split here when asked for.
      reply.parsed.forEach((parsed, k) => {
        this.out[reply.id + k] = withLines(parsed, this.texts[reply.id + k]!);
      });
      const current = pending;
      pending = undefined;
      current?.done();
    });
    worker.on('error', fail);
    worker.on('exit', fail);
    try {
      for (let batch = await this.takeWhenReady(); batch !== undefined; batch = await this.takeWhenReady()) {
        const [start, end] = batch;
        const ok =
          !gone &&
          (await new Promise<boolean>((resolve) => {
            pending = { done: () => resolve(true), failed: () => resolve(false) };
            worker.postMessage({ id: start, texts: this.texts.slice(start, end) });
          }));
        if (!ok) {
          // The thread is gone (while parsing this batch or waiting for it): the batch, and no more, is parsed here.
          this.parseHere(batch);
          return;
        }
      }
    } finally {
      pending = undefined;
      await worker.terminate();
    }
  }
}
