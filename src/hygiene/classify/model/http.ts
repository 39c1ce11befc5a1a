/**
 * The one HTTP call the model classifiers make: a JSON POST over Node's `fetch`, with a
 * per-request timeout and the run's cancellation signal, a bounded reply, and a typed
 * outcome instead of exceptions, so the runner can decide what to retry.
 */

/**
 * The largest reply read, in bytes. A proposals answer or a distilled span is a few
 * kilobytes (the requests ask for at most some thousands of output tokens); anything past
 * this is not an answer, and reading it would let an endpoint exhaust memory.
 */
export const MAX_REPLY_BYTES = 4 * 1024 * 1024;

export type HttpOutcome =
  | {
      kind: 'response';
      status: number;
      headers: Headers;
      /** The parsed JSON body; undefined when the body is not JSON. */
      body: unknown;
      /** The raw body text (first 2 KiB), for messages when the body is not JSON. */
      text: string;
    }
  | { kind: 'too-large'; limit: number }
  | { kind: 'timeout'; ms: number }
  | { kind: 'cancelled' }
  | { kind: 'network'; message: string };

export interface PostOptions {
  /** Aborts this one request after `timeoutMs`. */
  timeoutMs: number;
  /** The run's cancellation (Ctrl-C). */
  signal?: AbortSignal;
}

/** Cause chains from undici (`fetch failed` → ECONNREFUSED …), as one line. */
function networkMessage(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    parts.push(code !== undefined ? `${current.message} (${code})` : current.message);
    current = (current as Error & { cause?: unknown }).cause;
  }
  return parts.join(': ') || String(error);
}

/** The body as text, or undefined once it passes `limit` bytes (the rest is not read). */
async function readBounded(response: Response, limit: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel();
    return undefined;
  }
  if (response.body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  options: PostOptions,
): Promise<HttpOutcome> {
  if (options.signal?.aborted) return { kind: 'cancelled' };
  const timeout = AbortSignal.timeout(Math.max(1, Math.floor(options.timeoutMs)));
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify(body),
      signal,
    });
    const text = await readBounded(response, MAX_REPLY_BYTES);
    if (text === undefined) return { kind: 'too-large', limit: MAX_REPLY_BYTES };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return {
      kind: 'response',
      status: response.status,
      headers: response.headers,
      body: parsed,
      text: text.slice(0, 2048),
    };
  } catch (error) {
    if (options.signal?.aborted) return { kind: 'cancelled' };
    if (timeout.aborted) return { kind: 'timeout', ms: options.timeoutMs };
    return { kind: 'network', message: networkMessage(error) };
  }
}
