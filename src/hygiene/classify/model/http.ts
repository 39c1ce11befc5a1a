/**
 * The one HTTP call the model classifiers make: a JSON POST over Node's `fetch`, with a
 * per-request timeout and the run's cancellation signal, and a typed outcome instead of
 * exceptions, so the runner can decide what to retry.
 */

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
    const text = await response.text();
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
