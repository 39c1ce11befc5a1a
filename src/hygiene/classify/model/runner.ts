/**
 * Runs model requests for one command: at most `maxConcurrency` at once, each under its
 * own timeout and the whole run's deadline, retrying 429, 5xx (529 "overloaded" included),
 * timeouts and dropped connections with bounded backoff that honours `retry-after-ms` /
 * `retry-after`. Ctrl-C (the signal) stops everything at once. Usage is summed from the
 * providers' own `usage` fields.
 */
import { Deadline } from '../../../core/deadline.js';
import { OperationalError } from '../../../core/errors.js';
import { type HttpOutcome, postJson } from './http.js';
import {
  EMPTY_USAGE,
  type Provider,
  type ProviderReply,
  type StructuredRequest,
  type TokenUsage,
} from './provider.js';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Backoff without a `retry-after`: base × 2^n, capped. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A `retry-after` longer than this is not waited for: the run fails instead. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  maxRetryAfterMs: 60_000,
};

export interface RunUsage extends TokenUsage {
  requests: number;
  retries: number;
}

export type Sleep = (ms: number, signal: AbortSignal | undefined) => Promise<void>;

const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

export interface RunnerOptions {
  provider: Provider;
  maxConcurrency: number;
  timeoutMs: number;
  /** The whole run's budget. */
  deadline: Deadline;
  signal?: AbortSignal;
  retry?: RetryPolicy;
  /** Injectable for tests: how waiting between attempts happens. */
  sleep?: Sleep;
}

/** The wait a response asks for: `retry-after-ms`, else `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Number(ms.trim());
  const after = headers.get('retry-after');
  if (after === null) return undefined;
  if (/^\d+(\.\d+)?$/.test(after.trim())) return Number(after.trim()) * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const isRetryableStatus = (status: number) =>
  status === 408 || status === 409 || status === 429 || status >= 500;

export class ModelRunner {
  readonly usage: RunUsage = { ...EMPTY_USAGE, requests: 0, retries: 0 };
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly retry: RetryPolicy;
  private readonly sleep: Sleep;
  /** Stops the other requests once one has failed for good. */
  private readonly halt = new AbortController();
  private readonly signal: AbortSignal;

  constructor(private readonly options: RunnerOptions) {
    this.retry = options.retry ?? DEFAULT_RETRY;
    this.sleep = options.sleep ?? realSleep;
    this.signal = options.signal ? AbortSignal.any([options.signal, this.halt.signal]) : this.halt.signal;
  }

  /** Ends every request in flight or queued (they reject); for when one failure ends the run. */
  stop(): void {
    this.halt.abort();
  }

  get provider(): Provider {
    return this.options.provider;
  }

  /** Sends one structured request (queued behind the concurrency limit) and returns the reply. */
  async send(request: StructuredRequest): Promise<ProviderReply> {
    await this.acquire();
    try {
      return await this.attempt(request);
    } finally {
      this.release();
    }
  }

  private async acquire(): Promise<void> {
    this.throwIfStopped();
    if (this.active < this.options.maxConcurrency) {
      this.active += 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
    this.throwIfStopped();
  }

  private release(): void {
    this.active -= 1;
    this.waiting.shift()?.();
  }

  private throwIfStopped(): void {
    if (this.options.signal?.aborted)
      throw new OperationalError('cancelled', 'cancelled; nothing was written');
    if (this.halt.signal.aborted)
      throw new OperationalError('model-stopped', 'stopped after another request failed');
    if (this.options.deadline.isExpired)
      throw new OperationalError(
        'model-timeout',
        `${this.describe()}: the run's time budget ran out before every request was answered`,
      );
  }

  private describe(): string {
    return `${this.options.provider.name} at ${this.options.provider.endpoint}`;
  }

  private async attempt(request: StructuredRequest): Promise<ProviderReply> {
    const { provider } = this.options;
    const wire = provider.buildRequest(request);
    for (let attempt = 0; ; attempt++) {
      this.throwIfStopped();
      const budget = Math.min(this.options.timeoutMs, this.options.deadline.remainingMs());
      this.usage.requests += 1;
      const outcome = await postJson(provider.endpoint, wire.headers, wire.body, {
        timeoutMs: budget,
        signal: this.signal,
      });
      const verdict = this.judge(outcome, request.model);
      if (verdict.kind === 'reply') return verdict.reply;
      if (verdict.kind === 'fatal') throw verdict.error;
      if (attempt >= this.retry.maxRetries)
        throw new OperationalError(verdict.code, `${verdict.message}; gave up after ${attempt + 1} attempts`);
      const asked = verdict.retryAfterMs;
      const wait =
        asked !== undefined ? asked : Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** attempt);
      if (asked !== undefined && asked > this.retry.maxRetryAfterMs)
        throw new OperationalError(
          verdict.code,
          `${verdict.message}; the provider asked to retry after ${Math.ceil(asked / 1000)} s, longer than stw waits (${this.retry.maxRetryAfterMs / 1000} s)`,
        );
      if (wait >= this.options.deadline.remainingMs())
        throw new OperationalError(verdict.code, `${verdict.message}; no time left in the run to retry`);
      this.usage.retries += 1;
      await this.sleep(wait, this.signal);
    }
  }

  private judge(
    outcome: HttpOutcome,
    model: string,
  ):
    | { kind: 'reply'; reply: ProviderReply }
    | { kind: 'fatal'; error: OperationalError }
    | { kind: 'retry'; code: string; message: string; retryAfterMs?: number } {
    const where = this.describe();
    if (outcome.kind === 'cancelled')
      return this.options.signal?.aborted
        ? { kind: 'fatal', error: new OperationalError('cancelled', 'cancelled; nothing was written') }
        : {
            kind: 'fatal',
            error: new OperationalError('model-stopped', 'stopped after another request failed'),
          };
    if (outcome.kind === 'timeout')
      return {
        kind: 'retry',
        code: 'model-timeout',
        message: `${where}: no answer within ${Math.round(outcome.ms / 100) / 10} s`,
      };
    if (outcome.kind === 'too-large')
      return {
        kind: 'fatal',
        error: new OperationalError(
          'model-protocol',
          `${where}: the answer is larger than ${outcome.limit / 1024 / 1024} MiB; it was not read`,
        ),
      };
    if (outcome.kind === 'network')
      return { kind: 'retry', code: 'model-unreachable', message: `${where}: ${outcome.message}` };
    const { provider } = this.options;
    const detail =
      provider.errorMessage(outcome.body) ?? (outcome.text.trim().split('\n')[0] || 'no message');
    if (outcome.status >= 200 && outcome.status < 300) {
      const reply = provider.parseReply(outcome.body);
      if (reply === undefined)
        return {
          kind: 'fatal',
          error: new OperationalError(
            'model-protocol',
            `${where}: the answer is not a ${provider.name === 'anthropic' ? 'Messages API' : 'chat-completions'} response`,
          ),
        };
      for (const key of Object.keys(EMPTY_USAGE) as (keyof TokenUsage)[]) this.usage[key] += reply.usage[key];
      return { kind: 'reply', reply };
    }
    if (isRetryableStatus(outcome.status)) {
      const code = outcome.status === 429 ? 'model-rate-limited' : 'model-unavailable';
      const verdict: { kind: 'retry'; code: string; message: string; retryAfterMs?: number } = {
        kind: 'retry',
        code,
        message: `${where}: HTTP ${outcome.status} (${detail})`,
      };
      const after = retryAfterMs(outcome.headers);
      if (after !== undefined) verdict.retryAfterMs = after;
      return verdict;
    }
    const code =
      outcome.status === 401 || outcome.status === 403
        ? 'model-auth-failed'
        : outcome.status === 404
          ? 'model-not-found'
          : 'model-request-rejected';
    const hint =
      code === 'model-auth-failed'
        ? ' — check the API key'
        : code === 'model-not-found'
          ? ` — is model ${JSON.stringify(model)} served there?`
          : '';
    return {
      kind: 'fatal',
      error: new OperationalError(code, `${where}: HTTP ${outcome.status} (${detail})${hint}`),
    };
  }
}

/** A runner for the settings of one command, under its own whole-run deadline. */
export function runnerFor(
  settings: { provider: Provider; maxConcurrency: number; timeoutMs: number; runTimeoutMs: number },
  options: { signal?: AbortSignal; retry?: RetryPolicy; sleep?: Sleep } = {},
): ModelRunner {
  return new ModelRunner({
    provider: settings.provider,
    maxConcurrency: settings.maxConcurrency,
    timeoutMs: settings.timeoutMs,
    deadline: Deadline.after(settings.runTimeoutMs),
    ...options,
  });
}

/**
 * The retry policy for a command. TEST-ONLY: when `STW_TEST_HOOKS=1`, the JSON object in
 * `STW_TEST_MODEL_RETRY` overrides any subset of the keys, so tests need not wait for real
 * backoff.
 */
export function retryPolicyFromEnv(env: NodeJS.ProcessEnv): RetryPolicy {
  if (env['STW_TEST_HOOKS'] !== '1' || env['STW_TEST_MODEL_RETRY'] === undefined) return DEFAULT_RETRY;
  const raw = JSON.parse(env['STW_TEST_MODEL_RETRY']) as Partial<RetryPolicy>;
  return { ...DEFAULT_RETRY, ...raw };
}
