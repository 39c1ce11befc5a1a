/**
 * `stw hygiene check --classifier anthropic|openai`, end to end against local servers
 * that speak the providers' documented request, response and error shapes. No network.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { proposalsAnswerSchema } from '../../../src/hygiene/classify/model/wire-schema.js';
import { runCliJson } from '../../helpers/cli.js';
import { makeRepo, type TestRepo, testEnv } from '../../helpers/git-repo.js';
import {
  anthropicError,
  anthropicMessage,
  ModelStub,
  openaiCompletion,
  openaiError,
  type Responder,
  requestedFile,
  userTexts,
} from '../../helpers/model-server.js';
import { CLI_PATH, FIXTURES, REPO_ROOT } from '../../helpers/paths.js';
import { userConfig } from '../../helpers/user-config.js';

const NOW = '2026-03-01T00:00:00Z';
const CLASSIFY_PROMPT = readFileSync(join(REPO_ROOT, 'prompts', 'classify.md'), 'utf8');
const CLAUDE_MD = readFileSync(join(FIXTURES, 'classifier', '05-distill', 'input', 'CLAUDE.md'), 'utf8');

const repos: TestRepo[] = [];
const stubs: ModelStub[] = [];
after(async () => {
  for (const repo of repos) repo.cleanup();
  for (const stub of stubs) await stub.close();
});

/** A project with two signal-bearing docs (a broken link, an over-budget CLAUDE.md) and one clean README. */
function project(config = ''): TestRepo {
  const repo = makeRepo({ initialCommit: false });
  repos.push(repo);
  repo.commit('docs', {
    'README.md': '# Widget\n\nSee [the guide](docs/guide.md) and [install](docs/start/install.md).\n',
    'docs/guide.md': '# Guide\n\nFirst [install the toolchain](install.md), then run `widget serve`.\n',
    'docs/install.md': '# Install\n\nRun `make`.\n',
    'CLAUDE.md': CLAUDE_MD,
    '.dochygiene.yml': `context:\n  budget_tokens: 150\n${config}`,
  });
  // History shows the move, so the model's fix to the new place is proved (auto).
  repo.move('move the install guide', 'docs/install.md', 'docs/start/install.md');
  return repo;
}

const LINK_FIX = {
  path: 'docs/guide.md',
  category: { class: 'stale', subtype: 'dangling-reference' },
  signals: [{ name: 'broken_reference', line: 3 }],
  op: 'Point the install link at start/install.md.',
  op_type: 'deterministic',
  exact_edit: {
    kind: 'replace-text',
    anchor: { start_line: 3, end_line: 3 },
    match: '(install.md)',
    replacement: '(start/install.md)',
    canonical_ref: null,
    dest_path: null,
    key: null,
    value: null,
  },
  reducible_range: null,
  confidence: 0.9,
  why: 'The file moved to docs/start/.',
};
const DISTILL = {
  path: 'CLAUDE.md',
  category: { class: 'bloat', subtype: 'distill' },
  signals: [{ name: 'context_weight', line: null }],
  op: 'Distil the appended notes.',
  op_type: 'generative',
  exact_edit: null,
  reducible_range: { start_line: 3, end_line: 14 },
  confidence: 0.8,
  why: null,
};

const answer = (...proposals: unknown[]) => JSON.stringify({ proposals });
const byFile =
  (wrap: (text: string) => unknown, answers: Record<string, string>): Responder =>
  (request) => ({ body: wrap(answers[requestedFile(request.body) ?? ''] ?? answer()) });
const anthropic = (answers: Record<string, string>) => byFile((text) => anthropicMessage(text), answers);

async function stub(responder: Responder): Promise<ModelStub> {
  const started = await ModelStub.start(responder);
  stubs.push(started);
  return started;
}

function anthropicEnv(server: ModelStub, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { STW_NOW: NOW, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'test-key', ...extra };
}

type CheckJson = {
  status: string;
  classifier: string;
  model: {
    requests: number;
    input_tokens: number;
    output_tokens: number;
    retries: number;
    reasks: number;
    escalations: number;
    dropped: number;
    dropped_proposals: { path: string; violations: string[] }[];
  } | null;
  error?: { code: string; message: string };
};

function readReport(repo: TestRepo) {
  return JSON.parse(readFileSync(repo.path('.dochygiene', 'report.json'), 'utf8')) as {
    entries: {
      path: string;
      exact_edit?: { kind: string };
      op_type: string;
      signals: unknown[];
      confidence: number;
    }[];
  };
}

/** A first report from the rules classifier, so that a failing run can be seen to keep it. */
async function previousReport(repo: TestRepo): Promise<string> {
  const first = await runCliJson(['hygiene', 'check', '--classifier', 'rules'], {
    cwd: repo.dir,
    env: { STW_NOW: NOW },
  });
  assert.equal(first.code, 0, first.stderr);
  return readFileSync(repo.path('.dochygiene', 'report.json'), 'utf8');
}

describe('check with a model classifier (local provider stubs)', () => {
  it('anthropic: proposals from the Messages API give a valid report; the request carries the schema and the prompt file', async () => {
    const repo = project();
    const server = await stub(anthropic({ 'docs/guide.md': answer(LINK_FIX), 'CLAUDE.md': answer(DISTILL) }));
    const result = await runCliJson<CheckJson>(['hygiene', 'check', '--classifier', 'anthropic'], {
      cwd: repo.dir,
      env: anthropicEnv(server),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.json.classifier, 'anthropic');
    assert.match(
      result.stderr,
      /sending 2 files with their scanner signals \(≈\d+ input tokens\) to anthropic \(model claude-sonnet-5-5\) at http:\/\/127\.0\.0\.1:\d+\/v1\/messages: "CLAUDE\.md", "docs\/guide\.md"/,
    );
    // Only signal-bearing files are sent: README.md has no signal.
    assert.deepEqual(server.requests.map((r) => requestedFile(r.body)).sort(), [
      'CLAUDE.md',
      'docs/guide.md',
    ]);
    for (const request of server.requests) {
      assert.equal(request.path, '/v1/messages');
      assert.equal(request.headers['x-api-key'], 'test-key');
      assert.equal(request.headers['anthropic-version'], '2023-06-01');
      assert.equal(request.body['model'], 'claude-sonnet-5-5');
      assert.deepEqual(request.body['output_config'], {
        format: { type: 'json_schema', schema: proposalsAnswerSchema() },
      });
      assert.deepEqual(request.body['system'], [
        { type: 'text', text: CLASSIFY_PROMPT, cache_control: { type: 'ephemeral' } },
      ]);
    }
    const guide = server.requests.find((r) => requestedFile(r.body) === 'docs/guide.md')!;
    assert.match(userTexts(guide.body)[0]!, /"name": "broken_reference"/);
    assert.match(userTexts(guide.body)[0]!, /^3\tFirst \[install the toolchain\]\(install\.md\)/m);

    const report = readReport(repo);
    assert.deepEqual(
      report.entries.map((e) => [e.path, e.op_type, e.exact_edit?.kind ?? null]),
      [
        ['CLAUDE.md', 'generative', null],
        ['docs/guide.md', 'deterministic', 'replace-text'],
      ],
    );
    // The scanner's own signal objects, not the model's citation.
    assert.deepEqual(
      report.entries[1]!.signals,
      JSON.parse(JSON.stringify([{ name: 'broken_reference', line: 3 }])).map(() => ({
        name: 'broken_reference',
        line: 3,
        detail: 'link target "install.md" does not resolve; moved to "docs/start/install.md"?',
        data: {
          target: 'install.md',
          kind: 'link',
          broken_on: ['github'],
          suggested_target: 'start/install.md',
          suggested_path: 'docs/start/install.md',
          suggested_by: 'rename-history',
          written_before_move: true,
        },
      })),
    );
    const validate = await runCliJson(['hygiene', 'validate', '.dochygiene/report.json'], { cwd: repo.dir });
    assert.equal(validate.code, 0, validate.stdout);
    assert.equal(result.json.model!.requests, 2);
    assert.equal(result.json.model!.input_tokens, 200);
    assert.equal(result.json.model!.output_tokens, 40);
    assert.equal(result.json.model!.dropped, 0);
  });

  it("a model's link fix is proved like the rules': one whose new target does not resolve is no entry, and its signal is listed", async () => {
    const repo = project();
    const wrong = { ...LINK_FIX, exact_edit: { ...LINK_FIX.exact_edit, replacement: '(setup/install.md)' } };
    const server = await stub(anthropic({ 'docs/guide.md': answer(wrong) }));
    const result = await runCliJson<CheckJson>(['hygiene', 'check', '--classifier', 'anthropic'], {
      cwd: repo.dir,
      env: anthropicEnv(server),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.json.model!.dropped, 0);
    assert.deepEqual(
      readReport(repo).entries.filter((e) => e.path === 'docs/guide.md'),
      [],
    );
    const md = readFileSync(repo.path('.dochygiene', 'report.md'), 'utf8');
    assert.match(md, /`docs\/guide\.md`\n {2}- `broken_reference` \(line 3\)[^\n]*no link fix: /);
  });

  it('openai-compatible local server: no key needed on 127.0.0.1, response_format carries the schema', async () => {
    const repo = project();
    const server = await stub(
      byFile((text) => openaiCompletion(text), {
        'docs/guide.md': answer(LINK_FIX),
        'CLAUDE.md': answer(DISTILL),
      }),
    );
    const result = await runCliJson<CheckJson>(
      ['hygiene', 'check', '--classifier', 'openai', '--model', 'qwen3:8b'],
      {
        cwd: repo.dir,
        env: { STW_NOW: NOW, OPENAI_BASE_URL: `${server.url}/v1` },
      },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.json.classifier, 'openai');
    assert.equal(server.requests.length, 2);
    for (const request of server.requests) {
      assert.equal(request.path, '/v1/chat/completions');
      assert.equal(request.headers['authorization'], undefined);
      assert.equal(request.body['model'], 'qwen3:8b');
      assert.deepEqual(request.body['response_format'], {
        type: 'json_schema',
        json_schema: { name: 'proposals', strict: true, schema: proposalsAnswerSchema() },
      });
      const messages = request.body['messages'] as { role: string; content: string }[];
      assert.deepEqual(messages[0], { role: 'system', content: CLASSIFY_PROMPT });
    }
    assert.equal(readReport(repo).entries.length, 2);
    assert.equal(result.json.model!.input_tokens, 180);
  });

  it('a guarded field is rejected and re-asked once with the violation named; an out-of-range anchor then is dropped and reported', async () => {
    const repo = project();
    const guarded = answer({ ...LINK_FIX, safety_tier: 'auto' });
    const outOfRange = answer({
      ...LINK_FIX,
      exact_edit: { ...LINK_FIX.exact_edit, anchor: { start_line: 40, end_line: 40 } },
    });
    const server = await stub((request) => {
      const file = requestedFile(request.body);
      if (file !== 'docs/guide.md') return { body: anthropicMessage(answer()) };
      return { body: anthropicMessage(userTexts(request.body).length === 1 ? guarded : outOfRange) };
    });
    const result = await runCliJson<CheckJson>(['hygiene', 'check', '--classifier', 'anthropic'], {
      cwd: repo.dir,
      env: anthropicEnv(server),
    });
    assert.equal(result.code, 0, result.stderr);
    const guide = server.requests.filter((r) => requestedFile(r.body) === 'docs/guide.md');
    assert.equal(guide.length, 2);
    const reask = userTexts(guide[1]!.body)[1]!;
    assert.match(reask, /proposals\[0\]\.safety_tier: guarded field/);
    const messages = guide[1]!.body['messages'] as { role: string; content: string }[];
    assert.deepEqual(messages[1], { role: 'assistant', content: guarded });
    assert.equal(readReport(repo).entries.length, 0);
    assert.equal(result.json.model!.reasks, 1);
    assert.deepEqual(result.json.model!.dropped_proposals, [
      {
        path: 'docs/guide.md',
        index: 0,
        violations: ['proposals[0].exact_edit.anchor: lines 40–40 are outside the file (3 lines)'],
      },
    ]);
    const md = readFileSync(repo.path('.dochygiene', 'report.md'), 'utf8');
    assert.match(
      md,
      /## Dropped model proposals[\s\S]*`docs\/guide\.md`: proposals\[0\]\.exact_edit\.anchor: lines 40–40/,
    );
    const human = await runCliJson(['hygiene', 'status'], { cwd: repo.dir });
    assert.equal(human.code, 0);
  });

  it('a malformed answer is re-asked once; a second malformed answer is dropped and listed in the human summary', async () => {
    const repo = project();
    let guideAsks = 0;
    const server = await stub((request) => {
      if (requestedFile(request.body) !== 'docs/guide.md') return { body: anthropicMessage(answer()) };
      guideAsks += 1;
      return { body: anthropicMessage('Sure! Here are the proposals: [') };
    });
    const env = testEnv(anthropicEnv(server));
    const result = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI_PATH, 'hygiene', 'check', '--classifier', 'anthropic'], {
        cwd: repo.dir,
        env,
      });
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
      });
      child.on('close', (code) => resolve({ code, stdout }));
    });
    assert.equal(result.code, 0);
    assert.equal(guideAsks, 2);
    assert.match(
      result.stdout,
      /Model: anthropic claude-sonnet-5-5: 3 requests, 300 input \+ 60 output tokens; 1 file re-asked; 1 proposal dropped\./,
    );
    assert.match(result.stdout, /dropped: docs\/guide\.md: "answer: not JSON/);
  });

  it('a low-confidence answer is asked again of escalate_model, whose valid answer stands', async () => {
    const repo = project();
    const server = await stub((request) => {
      if (requestedFile(request.body) !== 'docs/guide.md') return { body: anthropicMessage(answer()) };
      const strong = request.body['model'] === 'claude-opus-5-5';
      return { body: anthropicMessage(answer({ ...LINK_FIX, confidence: strong ? 0.95 : 0.3 })) };
    });
    const result = await runCliJson<CheckJson>(['hygiene', 'check'], {
      cwd: repo.dir,
      env: anthropicEnv(
        server,
        userConfig('classifier: { provider: anthropic, escalate_model: claude-opus-5-5 }\n'),
      ),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(
      server.requests.filter((r) => requestedFile(r.body) === 'docs/guide.md').map((r) => r.body['model']),
      ['claude-sonnet-5-5', 'claude-opus-5-5'],
    );
    assert.equal(result.json.model!.escalations, 1);
    assert.equal(readReport(repo).entries[0]!.confidence, 0.95);
  });
});

describe('sweep with a model classifier', () => {
  it('checks with the model, then commits its fix once behind the same gate', async () => {
    const repo = project();
    repo.commit('ignore state', { '.gitignore': '.dochygiene/\n' });
    const server = await stub(anthropic({ 'docs/guide.md': answer(LINK_FIX), 'CLAUDE.md': answer(DISTILL) }));
    const commits = Number(repo.git(['rev-list', '--count', 'HEAD']));
    const result = await runCliJson<CheckJson & { check: { model: { requests: number } } }>(
      ['hygiene', 'sweep', '--classifier', 'anthropic'],
      { cwd: repo.dir, env: anthropicEnv(server) },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.json.check.model.requests, 2);
    assert.equal(result.json.status, 'committed');
    assert.equal(Number(repo.git(['rev-list', '--count', 'HEAD'])), commits + 1);
    assert.equal(
      readFileSync(repo.path('docs', 'guide.md'), 'utf8'),
      '# Guide\n\nFirst [install the toolchain](start/install.md), then run `widget serve`.\n',
    );
    // The distill needs approval: not applied, and no distill request was sent.
    assert.equal(readFileSync(repo.path('CLAUDE.md'), 'utf8'), CLAUDE_MD);
    assert.equal(server.requests.length, 2);
  });
});

describe('check and the trust model: only the user turns a model on (docs/trust.md)', () => {
  /** A project whose committed `.dochygiene.yml` adds `classifier` (the rest as `project`). */
  function hostile(classifier: string): TestRepo {
    const repo = project();
    repo.commit('config', { '.dochygiene.yml': `context:\n  budget_tokens: 150\n${classifier}` });
    return repo;
  }

  it("a repository's classifier settings are refused in one line; its endpoint gets no request and no key", async () => {
    const server = await stub(anthropic({}));
    const cases: [string, string][] = [
      [`classifier: { provider: anthropic, base_url: "${server.url}" }\n`, 'classifier.provider'],
      [`classifier: { provider: openai, base_url: "${server.url}/v1" }\n`, 'classifier.provider'],
      [`classifier: { provider: rules, base_url: "${server.url}" }\n`, 'classifier.base_url'],
      ['classifier: anthropic\n', 'classifier'],
    ];
    for (const [config, key] of cases) {
      const repo = hostile(config);
      for (const args of [['check'], ['check', '--classifier', 'anthropic'], ['sweep', '--dry-run']]) {
        const result = await runCliJson<CheckJson>(['hygiene', ...args], {
          cwd: repo.dir,
          env: anthropicEnv(server, { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: `${server.url}/v1` }),
        });
        assert.equal(result.code, 1, `${config} ${args.join(' ')}: ${result.stderr}`);
        assert.equal(result.json.error!.code, 'user-only-key');
        assert.match(
          result.json.error!.message,
          new RegExp(`^\\.dochygiene\\.yml: ${key.replace('.', '\\.')} may come only from you`),
        );
        assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      }
      assert.equal(existsSync(repo.path('.dochygiene', 'report.json')), false);
    }
    assert.equal(server.requests.length, 0, 'the endpoint the repository named was never contacted');
  });

  it("a model's move onto a workflow or out of the archive folders is re-asked, then dropped, named", async () => {
    const repo = project();
    const hostileMove = {
      ...LINK_FIX,
      category: { class: 'stale', subtype: 'superseded' },
      op: 'Move the guide.',
      exact_edit: { kind: 'move-to-archive', dest_path: '.github/workflows/guide.md' },
    };
    const server = await stub(anthropic({ 'docs/guide.md': answer(hostileMove) }));
    const result = await runCliJson<CheckJson>(['hygiene', 'check', '--classifier', 'anthropic'], {
      cwd: repo.dir,
      env: anthropicEnv(server),
    });
    assert.equal(result.code, 0, result.stderr);
    const dropped = result.json.model!.dropped_proposals;
    assert.equal(dropped.length, 1);
    assert.equal(dropped[0]!.path, 'docs/guide.md');
    assert.ok(
      dropped[0]!.violations.some((v) =>
        /"\.github\/workflows\/guide\.md" would configure a tool or an agent/.test(v),
      ),
      dropped[0]!.violations.join('\n'),
    );
    assert.equal(
      readReport(repo).entries.some((e) => e.exact_edit?.kind === 'move-to-archive'),
      false,
    );
  });

  it('with keys and base URLs in the environment, a plain check asks no model; the user config does', async () => {
    const server = await stub(anthropic({ 'docs/guide.md': answer(LINK_FIX) }));
    const repo = project();
    const plain = await runCliJson<CheckJson>(['hygiene', 'check'], {
      cwd: repo.dir,
      env: anthropicEnv(server),
    });
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(plain.json.classifier, 'rules');
    assert.equal(server.requests.length, 0);
    const asked = await runCliJson<CheckJson>(['hygiene', 'check'], {
      cwd: repo.dir,
      env: anthropicEnv(
        server,
        userConfig(`classifier: { provider: anthropic, base_url: "${server.url}" }\n`),
      ),
    });
    assert.equal(asked.code, 0, asked.stderr);
    assert.equal(asked.json.classifier, 'anthropic');
    assert.ok(server.requests.length > 0);
    assert.equal(server.requests[0]!.headers['x-api-key'], 'test-key');
  });
});

describe('check with a model classifier: failures keep the previous report', () => {
  it('a missing key is one line before any work; nothing is sent', async () => {
    const repo = project();
    const before = await previousReport(repo);
    const server = await stub(anthropic({}));
    const result = await runCliJson<CheckJson>(['hygiene', 'check', '--classifier', 'anthropic'], {
      cwd: repo.dir,
      env: { STW_NOW: NOW, ANTHROPIC_BASE_URL: server.url },
    });
    assert.equal(result.code, 1);
    assert.equal(result.json.error!.code, 'missing-api-key');
    assert.equal(
      result.stderr,
      "stw: classifier 'anthropic' needs ANTHROPIC_API_KEY in the environment (keys are never read from files); nothing was sent and the previous report is kept\n",
    );
    assert.equal(server.requests.length, 0);
    assert.equal(readFileSync(repo.path('.dochygiene', 'report.json'), 'utf8'), before);
  });

  it('OPENAI_API_KEY is required for a remote OpenAI endpoint', async () => {
    const repo = project();
    const result = await runCliJson<CheckJson>(['hygiene', 'check', '--classifier', 'openai'], {
      cwd: repo.dir,
      env: { STW_NOW: NOW },
    });
    assert.equal(result.code, 1);
    assert.equal(result.json.error!.code, 'missing-api-key');
  });

  const failures: [string, () => Responder, string, RegExp, NodeJS.ProcessEnv?][] = [
    [
      'a 401',
      () => () => anthropicError(401, 'authentication_error', 'invalid x-api-key'),
      'model-auth-failed',
      /HTTP 401 \(authentication_error: invalid x-api-key\) — check the API key/,
    ],
    [
      'a 429 that stays (retry-after honoured, then given up)',
      () => () => anthropicError(429, 'rate_limit_error', 'slow down', { 'retry-after': '0' }),
      'model-rate-limited',
      /HTTP 429 \(rate_limit_error: slow down\); gave up after 2 attempts/,
    ],
    [
      'a 529 overloaded that stays',
      () => () => anthropicError(529, 'overloaded_error', 'Overloaded'),
      'model-unavailable',
      /HTTP 529 \(overloaded_error: Overloaded\); gave up after 2 attempts/,
    ],
    [
      'a 503 that stays',
      () => () => ({ status: 503, body: { type: 'error', error: { type: 'api_error', message: 'down' } } }),
      'model-unavailable',
      /HTTP 503 \(api_error: down\); gave up/,
    ],
    [
      'an answer larger than 4 MiB (valid JSON, padded)',
      () => () => ({ raw: JSON.stringify(anthropicMessage(answer())) + ' '.repeat(4 * 1024 * 1024) }),
      'model-protocol',
      /the answer is larger than 4 MiB; it was not read/,
    ],
    [
      'an answer that never ends',
      () => () => ({ body: anthropicMessage(answer()), endless: true }),
      'model-protocol',
      /the answer is larger than 4 MiB; it was not read/,
    ],
    [
      'a timeout',
      () => () => ({ hang: true }),
      'model-timeout',
      /no answer within 0\.3 s; gave up after 2 attempts/,
    ],
  ];
  for (const [what, responder, code, message] of failures) {
    it(`${what}: a clear error, exit 1, the previous report kept`, async () => {
      // Only the hanging server needs a short per-request timeout; an answering one gets a
      // generous one, so a slow machine never turns its error into a timeout.
      const timeout = code === 'model-timeout' ? 0.3 : 60;
      const repo = project();
      const before = await previousReport(repo);
      const server = await stub(responder());
      const result = await runCliJson<CheckJson>(['hygiene', 'check'], {
        cwd: repo.dir,
        env: anthropicEnv(server, {
          STW_TEST_HOOKS: '1',
          STW_TEST_MODEL_RETRY: JSON.stringify({ maxRetries: 1, baseDelayMs: 1 }),
          ...userConfig(`classifier: { provider: anthropic, timeout_s: ${timeout} }\n`),
        }),
      });
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.json.error!.code, code);
      assert.match(result.json.error!.message, message);
      assert.equal(result.stderr.trim().split('\n').length, 2, result.stderr); // the notice, then the error
      assert.equal(readFileSync(repo.path('.dochygiene', 'report.json'), 'utf8'), before);
    });
  }

  it('a 429 with retry-after-ms, then an answer: retried once, counted, report written', async () => {
    const repo = project();
    const arrivals: number[] = [];
    const server = await stub((request, index) => {
      arrivals.push(performance.now());
      if (index === 0)
        return anthropicError(429, 'rate_limit_error', 'slow down', { 'retry-after-ms': '40' });
      return {
        body: anthropicMessage(
          answer(...(requestedFile(request.body) === 'docs/guide.md' ? [LINK_FIX] : [])),
        ),
      };
    });
    const result = await runCliJson<CheckJson>(['hygiene', 'check', '--classifier', 'anthropic'], {
      cwd: repo.dir,
      env: anthropicEnv(server, {
        ANTHROPIC_BASE_URL: server.url,
        STW_TEST_HOOKS: '1',
        STW_TEST_MODEL_RETRY: '{"maxRetries": 1}',
      }),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.json.model!.retries, 1);
    assert.equal(result.json.model!.requests, 3);
    const retried = requestedFile(server.requests[0]!.body);
    const again = server.requests.findIndex((r, i) => i > 0 && requestedFile(r.body) === retried);
    assert.ok(arrivals[again]! - arrivals[0]! >= 40, 'the retry waited for retry-after-ms');
    assert.equal(readReport(repo).entries.length, 1);
  });

  it('an OpenAI-compatible 503, then an answer: retried once and recovered', async () => {
    const repo = project();
    const server = await stub((_request, index) =>
      index === 0
        ? openaiError(503, 'server_error', 'warming up', { 'retry-after': '0' })
        : { body: openaiCompletion(answer()) },
    );
    const result = await runCliJson<CheckJson>(['hygiene', 'check', '--classifier', 'openai'], {
      cwd: repo.dir,
      env: { STW_NOW: NOW, OPENAI_BASE_URL: `${server.url}/v1` },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.json.model!.retries, 1);
  });

  it('Ctrl-C while a request is in flight cancels, writes nothing, keeps the previous report', async () => {
    const repo = project();
    const before = await previousReport(repo);
    const server = await stub(() => ({ hang: true }));
    const child = spawn(
      process.execPath,
      [CLI_PATH, 'hygiene', 'check', '--classifier', 'anthropic', '--json'],
      {
        cwd: repo.dir,
        env: testEnv(anthropicEnv(server)),
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    await server.nextRequest();
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 1, stderr);
    assert.equal((JSON.parse(stdout) as CheckJson).error!.code, 'cancelled');
    assert.match(stderr, /stw: cancelled; nothing was written/);
    assert.equal(readFileSync(repo.path('.dochygiene', 'report.json'), 'utf8'), before);
  });

  it('concurrency never exceeds max_concurrency', async () => {
    const repo = makeRepo({ initialCommit: false });
    repos.push(repo);
    const files: Record<string, string> = {
      'README.md': '# Index\n',
    };
    for (let i = 1; i <= 6; i++) files[`docs/page-${i}.md`] = `# Page ${i}\n\nSee [gone](gone-${i}.md).\n`;
    repo.commit('docs', files);
    // Hold every answer until two requests are in flight (or the last one has arrived).
    let held: (() => void)[] = [];
    const server = await stub(
      () =>
        new Promise((resolve) => {
          held.push(() => resolve({ body: anthropicMessage(answer()) }));
          if (held.length === 2 || server.requests.length === 6) {
            for (const release of held) release();
            held = [];
          }
        }),
    );
    const result = await runCliJson<CheckJson>(['hygiene', 'check'], {
      cwd: repo.dir,
      env: anthropicEnv(server, userConfig('classifier: { provider: anthropic, max_concurrency: 2 }\n')),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(server.requests.length, 6);
    assert.equal(server.maxInFlight, 2);
  });

  it('--proposals cannot be combined with --classifier; --model needs a model classifier', async () => {
    const repo = project();
    const both = await runCliJson(
      ['hygiene', 'check', '--proposals', 'x.json', '--classifier', 'anthropic'],
      {
        cwd: repo.dir,
      },
    );
    assert.equal(both.code, 2);
    const model = await runCliJson(['hygiene', 'check', '--classifier', 'rules', '--model', 'x'], {
      cwd: repo.dir,
    });
    assert.equal(model.code, 2);
    const unknown = await runCliJson(['hygiene', 'check', '--classifier', 'gpt'], { cwd: repo.dir });
    assert.equal(unknown.code, 2);
  });
});

describe('a model classifier and the signals the user was not shown (issue 31)', () => {
  it('a file whose only signal is hidden is never sent; a proposal citing a hidden signal is dropped', async () => {
    const repo = project('signals:\n  broken_reference: off\n');
    const citesHidden = { ...DISTILL, signals: [{ name: 'broken_reference', line: 3 }] };
    const server = await stub(
      anthropic({ 'docs/guide.md': answer(LINK_FIX), 'CLAUDE.md': answer(citesHidden, DISTILL) }),
    );
    const result = await runCliJson<CheckJson>(['hygiene', 'check', '--classifier', 'anthropic'], {
      cwd: repo.dir,
      env: anthropicEnv(server),
    });
    assert.equal(result.code, 0, result.stderr);
    // docs/guide.md's broken link is hidden: the file is not sent, so no fix can come from it.
    assert.deepEqual(
      server.requests.map((r) => requestedFile(r.body)),
      ['CLAUDE.md', 'CLAUDE.md'],
      'CLAUDE.md is re-asked once for its invalid proposal',
    );
    for (const request of server.requests)
      assert.doesNotMatch(userTexts(request.body)[0]!, /broken_reference/);
    assert.equal(result.json.model?.dropped, 1);
    assert.match(
      result.json.model?.dropped_proposals[0]?.violations.join('\n') ?? '',
      /signals\[0\]: the scanner reported no "broken_reference" signal on line 3 for this file/,
    );
    assert.deepEqual(
      readReport(repo).entries.map((e) => e.path),
      ['CLAUDE.md'],
    );
  });
});
