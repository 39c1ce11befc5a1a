/**
 * The model runner against a local stub: retry waits (retry-after-ms, retry-after seconds
 * and HTTP dates, bounded backoff), what is not retried, and the concurrency bound. The
 * wait itself is injected, so no test waits for real backoff.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Deadline } from '../../../src/core/deadline.js';
import { OperationalError } from '../../../src/core/errors.js';
import { anthropicProvider } from '../../../src/hygiene/classify/model/anthropic.js';
import { openaiProvider } from '../../../src/hygiene/classify/model/openai.js';
import type { StructuredRequest } from '../../../src/hygiene/classify/model/provider.js';
import { ModelRunner, retryAfterMs } from '../../../src/hygiene/classify/model/runner.js';
import { isLocalUrl, resolveModelSettings } from '../../../src/hygiene/classify/model/settings.js';
import { nullableKeys, proposalsAnswerSchema } from '../../../src/hygiene/classify/model/wire-schema.js';
import {
  anthropicError,
  anthropicMessage,
  ModelStub,
  openaiCompletion,
  type Responder,
} from '../../helpers/model-server.js';

const stubs: ModelStub[] = [];
after(async () => {
  for (const stub of stubs) await stub.close();
});

const REQUEST: StructuredRequest = {
  model: 'm',
  system: 'prompt',
  turns: [{ role: 'user', text: 'hello' }],
  schemaName: 'proposals',
  schema: { type: 'object' },
  maxTokens: 100,
};

async function runnerAgainst(responder: Responder, maxConcurrency = 4, maxRetries = 3) {
  const stub = await ModelStub.start(responder);
  stubs.push(stub);
  const waits: number[] = [];
  const runner = new ModelRunner({
    provider: anthropicProvider(stub.url, 'key'),
    maxConcurrency,
    timeoutMs: 5000,
    deadline: Deadline.after(60_000),
    retry: { maxRetries, baseDelayMs: 500, maxDelayMs: 8000, maxRetryAfterMs: 60_000 },
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
  return { stub, runner, waits };
}

describe('model runner', () => {
  it('waits exactly what retry-after-ms or retry-after asks, else backs off 0.5 s doubling', async () => {
    const answers = [
      anthropicError(429, 'rate_limit_error', 'slow', { 'retry-after-ms': '1250', 'retry-after': '9' }),
      anthropicError(429, 'rate_limit_error', 'slow', { 'retry-after': '7' }),
      anthropicError(529, 'overloaded_error', 'Overloaded'),
      { body: anthropicMessage('{"proposals": []}') },
    ];
    const { runner, waits } = await runnerAgainst((_r, i) => answers[i]!);
    const reply = await runner.send(REQUEST);
    assert.equal(reply.text, '{"proposals": []}');
    assert.deepEqual(waits, [1250, 7000, 2000]);
    assert.equal(runner.usage.retries, 3);
    assert.equal(runner.usage.requests, 4);
    assert.equal(runner.usage.input_tokens, 100);
  });

  it('reads an HTTP-date retry-after', () => {
    const headers = new Headers({ 'retry-after': 'Wed, 21 Oct 2026 07:28:05 GMT' });
    assert.equal(retryAfterMs(headers, Date.parse('Wed, 21 Oct 2026 07:28:00 GMT')), 5000);
    assert.equal(retryAfterMs(new Headers({ 'retry-after': 'soon' })), undefined);
  });

  it('does not wait for a retry-after beyond its bound, and never retries a 400 or 401', async () => {
    for (const [answer, code] of [
      [anthropicError(429, 'rate_limit_error', 'later', { 'retry-after': '3600' }), 'model-rate-limited'],
      [anthropicError(400, 'invalid_request_error', 'bad schema'), 'model-request-rejected'],
      [anthropicError(401, 'authentication_error', 'invalid x-api-key'), 'model-auth-failed'],
    ] as const) {
      const { runner, waits, stub } = await runnerAgainst(() => answer);
      await assert.rejects(runner.send(REQUEST), (error: unknown) => {
        assert.ok(error instanceof OperationalError);
        assert.equal(error.code, code);
        return true;
      });
      assert.deepEqual(waits, []);
      assert.equal(stub.requests.length, 1);
    }
  });

  it('gives up after the bounded number of retries', async () => {
    const { runner, waits, stub } = await runnerAgainst(() => anthropicError(503, 'api_error', 'down'), 4, 2);
    await assert.rejects(runner.send(REQUEST), /HTTP 503 \(api_error: down\); gave up after 3 attempts/);
    assert.deepEqual(waits, [500, 1000]);
    assert.equal(stub.requests.length, 3);
  });

  it('never has more than maxConcurrency requests in flight', async () => {
    let held: (() => void)[] = [];
    let arrived = 0;
    const { runner, stub } = await runnerAgainst(
      () =>
        new Promise((resolve) => {
          arrived += 1;
          held.push(() => resolve({ body: anthropicMessage('{}') }));
          if (held.length === 3 || arrived === 10) {
            for (const release of held) release();
            held = [];
          }
        }),
      3,
    );
    await Promise.all(Array.from({ length: 10 }, () => runner.send(REQUEST)));
    assert.equal(stub.requests.length, 10);
    assert.equal(stub.maxInFlight, 3);
  });

  it('parses the OpenAI chat-completions shape, cached tokens included', async () => {
    const stub = await ModelStub.start(() => ({
      body: {
        ...(openaiCompletion('{"text": "x"}') as object),
        usage: { prompt_tokens: 50, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 32 } },
      },
    }));
    stubs.push(stub);
    const runner = new ModelRunner({
      provider: openaiProvider(`${stub.url}/v1`, undefined),
      maxConcurrency: 1,
      timeoutMs: 5000,
      deadline: Deadline.after(60_000),
    });
    const reply = await runner.send(REQUEST);
    assert.equal(reply.text, '{"text": "x"}');
    assert.deepEqual(runner.usage, {
      input_tokens: 50,
      output_tokens: 5,
      cache_read_input_tokens: 32,
      cache_creation_input_tokens: 0,
      requests: 1,
      retries: 0,
    });
    assert.equal(stub.requests[0]!.path, '/v1/chat/completions');
  });
});

describe('model settings', () => {
  it('flags over config over environment; local OpenAI-compatible servers need no key', () => {
    const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/' };
    const fromEnv = resolveModelSettings({ provider: 'anthropic' }, {}, env)!;
    assert.equal(fromEnv.endpoint, 'http://127.0.0.1:9/v1/messages');
    assert.equal(fromEnv.model, 'claude-sonnet-5-5');
    assert.equal(fromEnv.maxConcurrency, 4);
    const configured = resolveModelSettings(
      {
        provider: 'anthropic',
        model: 'claude-opus-5-5',
        base_url: 'https://proxy.invalid/anthropic',
        timeout_s: 5,
      },
      { model: 'claude-haiku-5-5' },
      env,
    )!;
    assert.equal(configured.model, 'claude-haiku-5-5');
    assert.equal(configured.endpoint, 'https://proxy.invalid/anthropic/v1/messages');
    assert.equal(configured.timeoutMs, 5000);
    assert.equal(resolveModelSettings({ provider: 'rules' }, {}, env), undefined);
    const local = resolveModelSettings(
      { provider: 'rules' },
      { classifier: 'openai' },
      {
        OPENAI_BASE_URL: 'http://localhost:11434/v1',
      },
    )!;
    assert.equal(local.endpoint, 'http://localhost:11434/v1/chat/completions');
    assert.equal(local.model, 'gpt-6.1-sol');
    assert.throws(() => resolveModelSettings({ provider: 'openai' }, {}, {}), /needs OPENAI_API_KEY/);
    assert.equal(isLocalUrl('http://127.0.0.1:8080/v1'), true);
    assert.equal(isLocalUrl('http://192.168.1.5:8080/v1'), false);
  });
});

describe('the answer schema', () => {
  it('is the proposals schema in the structured-output subset: every object closed and fully required, no numeric or length limits', () => {
    const schema = proposalsAnswerSchema();
    let nullable = 0;
    const visit = (node: unknown) => {
      if (Array.isArray(node)) return node.forEach(visit);
      if (typeof node !== 'object' || node === null) return;
      const record = node as Record<string, unknown>;
      for (const banned of ['minimum', 'maximum', 'minLength', 'maxLength', 'pattern', '$ref'])
        assert.equal(record[banned], undefined, `${banned} in ${JSON.stringify(record)}`);
      if (record['type'] === 'object') {
        assert.equal(record['additionalProperties'], false);
        assert.deepEqual(record['required'], Object.keys(record['properties'] as object));
      }
      if (Array.isArray(record['type']) || Array.isArray(record['anyOf'])) nullable += 1;
      Object.values(record).forEach(visit);
    };
    visit(schema);
    // Anthropic allows at most 16 parameters with anyOf or type arrays across a strict schema.
    assert.ok(nullable <= 16, `${nullable} nullable parameters`);
    assert.deepEqual(nullableKeys('proposal'), ['exact_edit', 'reducible_range', 'why']);
    assert.deepEqual(nullableKeys('signal'), ['line']);
  });
});
