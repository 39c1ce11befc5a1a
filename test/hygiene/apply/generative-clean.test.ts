/**
 * Generative entries at clean time, end to end with the built CLI: text from
 * `--generated FILE` or from a model (a local Messages-API stub), one whole-span
 * replacement checked before writing, in the single cleanup commit, behind the gate.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { distillAnswerSchema } from '../../../src/hygiene/classify/model/wire-schema.js';
import { runCli, runCliJson } from '../../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo } from '../../helpers/git-repo.js';
import { anthropicMessage, ModelStub, type Responder, userTexts } from '../../helpers/model-server.js';
import { FIXTURES, REPO_ROOT } from '../../helpers/paths.js';
import { userConfig } from '../../helpers/user-config.js';

const NOW = '2026-03-01T00:00:00Z';
const CLAUDE_MD = readFileSync(join(FIXTURES, 'classifier', '05-distill', 'input', 'CLAUDE.md'), 'utf8');
const DISTILL_PROMPT = readFileSync(join(REPO_ROOT, 'prompts', 'distill.md'), 'utf8');
/** Lines 3–14 of CLAUDE.md: the appended notes (the reducible range). */
const SPAN = CLAUDE_MD.split('\n').slice(2, 14).join('\n');
const DISTILLED = [
  '- Always run the tests before committing; they are slow but catch render bugs.',
  '- Use two spaces for indentation in TypeScript files (the formatter enforces it).',
  '- Never edit the generated files under gen/ by hand; regenerate them with the script.',
  '- Widgets render on the client since design v2: add no server rendering code.',
  '- Keep pull requests small and focused on one change.',
].join('\n');

const repos: TestRepo[] = [];
const stubs: ModelStub[] = [];
after(async () => {
  for (const repo of repos) repo.cleanup();
  for (const stub of stubs) await stub.close();
});

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** A project whose report has one generative distill of CLAUDE.md lines 3–14; returns its id. */
async function project(config = ''): Promise<{ repo: TestRepo; id: string }> {
  const repo = makeRepo({ initialCommit: false });
  repos.push(repo);
  repo.commit('docs', {
    'CLAUDE.md': CLAUDE_MD,
    '.dochygiene.yml': `context:\n  budget_tokens: 150\n${config}`,
    '.gitignore': '.dochygiene/\n',
  });
  const proposals = join(makeTempDir('stw-proposals-'), 'proposals.json');
  writeFileSync(
    proposals,
    JSON.stringify([
      {
        path: 'CLAUDE.md',
        category: { class: 'bloat', subtype: 'distill' },
        signals: [{ name: 'context_weight', detail: 'over budget' }],
        op: 'Distil the appended notes.',
        op_type: 'generative',
        reducible_range: { start_line: 3, end_line: 14 },
        confidence: 0.8,
      },
    ]),
  );
  const checked = await runCliJson(['hygiene', 'check', '--proposals', proposals], {
    cwd: repo.dir,
    env: { STW_NOW: NOW },
  });
  assert.equal(checked.code, 0, checked.stderr);
  const report = JSON.parse(readFileSync(repo.path('.dochygiene', 'report.json'), 'utf8'));
  assert.deepEqual(report.entries[0].reducible_range, { start_line: 3, end_line: 14 });
  return { repo, id: report.entries[0].id as string };
}

function generatedFile(entries: Record<string, { text: string; source_sha256: string }>): string {
  const path = join(makeTempDir('stw-generated-'), 'generated.json');
  writeFileSync(path, JSON.stringify(entries));
  return path;
}

type CleanJson = {
  status: string;
  commit?: string;
  message?: string;
  entries: { id: string; outcome: string; reason?: string }[];
  files: { path: string; status: string; reason?: string; detail?: string }[];
  model: { requests: number } | null;
  error?: { code: string; message: string };
};

const distilledFile = `# Working on the widget service\n\n${DISTILLED}\n`;

describe('clean --generated FILE', () => {
  it('applies an approved entry as one whole-span replacement in exactly one commit', async () => {
    const { repo, id } = await project();
    const commits = repo.git(['rev-list', '--count', 'HEAD']);
    const file = generatedFile({ [id]: { text: `${DISTILLED}\n`, source_sha256: sha256(SPAN) } });
    const result = await runCliJson<CleanJson>(['hygiene', 'clean', '--approve', id, '--generated', file], {
      cwd: repo.dir,
      env: { STW_NOW: NOW },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.json.status, 'committed');
    assert.equal(readFileSync(repo.path('CLAUDE.md'), 'utf8'), distilledFile);
    assert.equal(repo.git(['rev-list', '--count', 'HEAD']), String(Number(commits) + 1));
    assert.match(
      result.json.message!,
      /^docs: hygiene cleanup \(1 edit across 1 file\)\n\n.*\nConfirmed: 1 \(move-to-archive ×0, replace-text ×0, freeze ×0, delete ×0, delete-range ×0, dedupe ×0, distill ×1, split ×0\)/,
    );
    assert.equal(repo.git(['status', '--porcelain']), '');
    assert.equal(result.json.model, null);
  });

  it('is refused without approval: nothing changes, no commit', async () => {
    const { repo, id } = await project();
    const head = repo.head();
    const file = generatedFile({ [id]: { text: DISTILLED, source_sha256: sha256(SPAN) } });
    const result = await runCliJson<CleanJson>(['hygiene', 'clean', '--generated', file], {
      cwd: repo.dir,
      env: { STW_NOW: NOW },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(
      result.json.entries.map((e) => [e.id, e.outcome]),
      [[id, 'needs-approval']],
    );
    assert.equal(repo.head(), head);
    assert.equal(readFileSync(repo.path('CLAUDE.md'), 'utf8'), CLAUDE_MD);
  });

  it('skips an entry whose span is not the text that was distilled (content-changed-since-distill)', async () => {
    const { repo, id } = await project();
    const head = repo.head();
    const file = generatedFile({
      [id]: { text: DISTILLED, source_sha256: sha256(`${SPAN}\nan older line`) },
    });
    const result = await runCliJson<CleanJson>(['hygiene', 'clean', '--approve', id, '--generated', file], {
      cwd: repo.dir,
      env: { STW_NOW: NOW },
    });
    assert.equal(result.code, 1);
    assert.equal(result.json.status, 'partial');
    assert.deepEqual(
      result.json.entries.map((e) => [e.outcome, e.reason]),
      [['skipped', 'content-changed-since-distill']],
    );
    assert.equal(repo.head(), head);
    assert.equal(readFileSync(repo.path('CLAUDE.md'), 'utf8'), CLAUDE_MD);
  });

  it('never writes a reference out of the project (~, ../.., absolute, a symlink out), nor one the span lacked', async () => {
    const { repo, id } = await project();
    symlinkSync('/etc', repo.path('outside'));
    repo.git(['add', 'outside']);
    repo.commit('a link out');
    const head = repo.head();
    for (const [line, why] of [
      ['@~/.ssh/id_rsa', /@~\/\.ssh\/id_rsa leads out of the project \(a path in a home folder\)/],
      ['@../../../../etc/passwd', /leads out of the project \(a path above the project root\)/],
      ['@/etc/passwd', /leads out of the project \(an absolute path\)/],
      ['@outside/passwd', /leads out of the project \(a path a symlink leads out of the project\)/],
      ['See [p](../../../../etc/passwd).', /leads out of the project \(a path above the project root\)/],
      ['@.dochygiene.yml', /import target "\.dochygiene\.yml" is not in the text it replaces/],
    ] as const) {
      const file = generatedFile({ [id]: { text: `${DISTILLED}\n${line}`, source_sha256: sha256(SPAN) } });
      const result = await runCliJson<CleanJson>(['hygiene', 'clean', '--approve', id, '--generated', file], {
        cwd: repo.dir,
        env: { STW_NOW: NOW },
      });
      assert.equal(result.code, 1, line);
      assert.equal(result.json.files[0]!.reason, 'distill-rejected', line);
      assert.match(result.json.files[0]!.detail!, why, line);
      assert.equal(repo.head(), head, line);
      assert.equal(readFileSync(repo.path('CLAUDE.md'), 'utf8'), CLAUDE_MD, line);
    }
  });

  it('rejects a text that invents a link or is not shorter than the span (distill-rejected), writing nothing', async () => {
    const { repo, id } = await project();
    const head = repo.head();
    for (const [text, reason] of [
      [
        `${DISTILLED}\n- Style: see [the guide](docs/style.md).`,
        /link target "docs\/style\.md" does not exist/,
      ],
      [`${SPAN}\n- One more note.`, /is not shorter than the span/],
    ] as const) {
      const file = generatedFile({ [id]: { text, source_sha256: sha256(SPAN) } });
      const result = await runCliJson<CleanJson>(['hygiene', 'clean', '--approve', id, '--generated', file], {
        cwd: repo.dir,
        env: { STW_NOW: NOW },
      });
      assert.equal(result.code, 1);
      assert.equal(result.json.files[0]!.reason, 'distill-rejected');
      assert.match(result.json.files[0]!.detail!, reason);
      const human = await runCli(['hygiene', 'clean', '--approve', id, '--generated', file], {
        cwd: repo.dir,
        env: { STW_NOW: NOW },
      });
      assert.match(human.stdout, /\(distill-rejected: the text|\(distill-rejected: link target/);
      assert.equal(repo.head(), head);
      assert.equal(readFileSync(repo.path('CLAUDE.md'), 'utf8'), CLAUDE_MD);
    }
  });

  it('skips a rewrite that would drop a heading another doc links to (would-break-reference), naming the link', async () => {
    const repo = makeRepo({ initialCommit: false });
    repos.push(repo);
    const claude = [
      '# Widgets', // 1
      '', // 2
      '- Run the tests before committing.', // 3
      '- Note (May): really, run the tests before committing.', // 4
      '', // 5
      '## Rendering', // 6
      '', // 7
      '- Widgets render on the client.', // 8
      '- Note (July): rendering moved to the client; add no server code.', // 9
      '',
    ].join('\n');
    repo.commit('docs', {
      'CLAUDE.md': claude,
      'docs/guide.md': '# Guide\n\nSee [rendering](../CLAUDE.md#rendering).\n',
      '.gitignore': '.dochygiene/\n',
    });
    const proposals = join(makeTempDir('stw-proposals-'), 'proposals.json');
    writeFileSync(
      proposals,
      JSON.stringify([
        {
          path: 'CLAUDE.md',
          category: { class: 'bloat', subtype: 'distill' },
          signals: [{ name: 'context_weight', detail: 'over budget' }],
          op: 'Distil the notes.',
          op_type: 'generative',
          reducible_range: { start_line: 3, end_line: 9 },
          confidence: 0.8,
        },
      ]),
    );
    const checked = await runCliJson(['hygiene', 'check', '--proposals', proposals], {
      cwd: repo.dir,
      env: { STW_NOW: NOW },
    });
    assert.equal(checked.code, 0, checked.stderr);
    const id = JSON.parse(readFileSync(repo.path('.dochygiene', 'report.json'), 'utf8')).entries[0].id;
    const span = claude.split('\n').slice(2, 9).join('\n');
    const file = generatedFile({
      [id]: {
        text: '- Run the tests before committing.\n- Widgets render on the client.',
        source_sha256: sha256(span),
      },
    });
    const head = repo.head();
    const result = await runCliJson<CleanJson>(['hygiene', 'clean', '--approve', id, '--generated', file], {
      cwd: repo.dir,
      env: { STW_NOW: NOW },
    });
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.json.status, 'partial');
    assert.deepEqual(
      result.json.entries.map((e) => [e.outcome, e.reason]),
      [['skipped', 'would-break-reference']],
    );
    assert.equal(
      result.json.files[0]?.detail,
      'would break the reference to ../CLAUDE.md#rendering on line 3 of docs/guide.md',
    );
    assert.equal(repo.head(), head);
    assert.equal(readFileSync(repo.path('CLAUDE.md'), 'utf8'), claude);
  });

  it('--dry-run checks the text and changes nothing', async () => {
    const { repo, id } = await project();
    const head = repo.head();
    const file = generatedFile({ [id]: { text: DISTILLED, source_sha256: sha256(SPAN) } });
    const result = await runCliJson<CleanJson>(
      ['hygiene', 'clean', '--dry-run', '--approve', id, '--generated', file],
      {
        cwd: repo.dir,
        env: { STW_NOW: NOW },
      },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.json.status, 'dry-run');
    assert.deepEqual(
      result.json.entries.map((e) => e.outcome),
      ['would-apply'],
    );
    assert.equal(repo.head(), head);
    assert.equal(readFileSync(repo.path('CLAUDE.md'), 'utf8'), CLAUDE_MD);
  });

  it('sweep takes the same --generated file: check, then the distill in one commit', async () => {
    const repo = makeRepo({ initialCommit: false });
    repos.push(repo);
    repo.commit('docs', {
      'CLAUDE.md': CLAUDE_MD,
      '.dochygiene.yml': 'context:\n  budget_tokens: 150\n',
      '.gitignore': '.dochygiene/\n',
    });
    // The rules classifier proposes a distill of the whole over-budget file; its id is stable.
    const checked = await runCliJson(['hygiene', 'check'], { cwd: repo.dir, env: { STW_NOW: NOW } });
    assert.equal(checked.code, 0, checked.stderr);
    const entry = JSON.parse(readFileSync(repo.path('.dochygiene', 'report.json'), 'utf8')).entries[0];
    assert.deepEqual(entry.reducible_range, { start_line: 1, end_line: 14 });
    const whole = CLAUDE_MD.replace(/\n$/, '');
    const text = `# Working on the widget service\n\n${DISTILLED}\n`;
    const file = generatedFile({ [entry.id]: { text, source_sha256: sha256(whole) } });
    const commits = Number(repo.git(['rev-list', '--count', 'HEAD']));
    const result = await runCliJson<CleanJson>(
      ['hygiene', 'sweep', '--approve', entry.id, '--generated', file],
      {
        cwd: repo.dir,
        env: { STW_NOW: NOW },
      },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.json.status, 'committed');
    assert.equal(readFileSync(repo.path('CLAUDE.md'), 'utf8'), distilledFile);
    assert.equal(Number(repo.git(['rev-list', '--count', 'HEAD'])), commits + 1);
  });

  it('a malformed --generated file is refused before any work', async () => {
    const { repo, id } = await project();
    const file = generatedFile({ [id]: { text: DISTILLED, source_sha256: 'not-a-hash' } });
    const result = await runCliJson<CleanJson>(['hygiene', 'clean', '--approve', id, '--generated', file], {
      cwd: repo.dir,
      env: { STW_NOW: NOW },
    });
    assert.equal(result.code, 1);
    assert.equal(result.json.error!.code, 'invalid-generated');
    assert.match(result.json.error!.message, /source_sha256/);
  });
});

describe('clean with a model distiller (local Messages-API stub)', () => {
  async function stub(responder: Responder): Promise<ModelStub> {
    const started = await ModelStub.start(responder);
    stubs.push(started);
    return started;
  }
  // The model is the user's choice (docs/trust.md): their config turns it on.
  const modelUser = userConfig('classifier: anthropic\n');
  const env = (server: ModelStub) => ({
    ...modelUser,
    STW_NOW: NOW,
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'k',
  });
  const answering = (text: string) => () => ({ body: anthropicMessage(JSON.stringify({ text })) });

  it('an accepted rewrite commits once under approval; the request carries the span, the schema and the prompt file', async () => {
    const { repo, id } = await project();
    const server = await stub(answering(DISTILLED));
    const commits = Number(repo.git(['rev-list', '--count', 'HEAD']));
    const result = await runCliJson<CleanJson>(['hygiene', 'clean', '--approve', id], {
      cwd: repo.dir,
      env: env(server),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stderr,
      /sending 1 span to distil \("CLAUDE\.md"\) to anthropic \(model claude-sonnet-5-5\) at http:\/\/127\.0\.0\.1:\d+\/v1\/messages/,
    );
    assert.equal(readFileSync(repo.path('CLAUDE.md'), 'utf8'), distilledFile);
    assert.equal(Number(repo.git(['rev-list', '--count', 'HEAD'])), commits + 1);
    assert.equal(server.requests.length, 1);
    const body = server.requests[0]!.body;
    assert.deepEqual(body['output_config'], {
      format: { type: 'json_schema', schema: distillAnswerSchema() },
    });
    assert.deepEqual(body['system'], [
      { type: 'text', text: DISTILL_PROMPT, cache_control: { type: 'ephemeral' } },
    ]);
    assert.ok(userTexts(body)[0]!.includes(`<<<SPAN\n${SPAN}\nSPAN>>>`));
    assert.equal(result.json.model!.requests, 1);
  });

  it('an answer that invents a link, or grows the text, is rejected; nothing is committed', async () => {
    for (const text of [`${DISTILLED}\n@docs/extra-rules.md`, `${SPAN}\n- And another note.`]) {
      const { repo, id } = await project();
      const server = await stub(answering(text));
      const head = repo.head();
      const result = await runCliJson<CleanJson>(['hygiene', 'clean', '--approve', id], {
        cwd: repo.dir,
        env: env(server),
      });
      assert.equal(result.code, 1, result.stderr);
      assert.deepEqual(
        result.json.entries.map((e) => [e.outcome, e.reason]),
        [['skipped', 'distill-rejected']],
      );
      assert.equal(repo.head(), head);
      assert.equal(readFileSync(repo.path('CLAUDE.md'), 'utf8'), CLAUDE_MD);
    }
  });

  it('a file changed since check is skipped, and the model is not asked', async () => {
    const { repo, id } = await project();
    const server = await stub(answering(DISTILLED));
    repo.commit('edit', { 'CLAUDE.md': `${CLAUDE_MD}- Note (October): one more.\n` });
    const head = repo.head();
    const result = await runCliJson<CleanJson>(['hygiene', 'clean', '--approve', id], {
      cwd: repo.dir,
      env: env(server),
    });
    assert.equal(result.code, 1, result.stderr);
    assert.deepEqual(
      result.json.entries.map((e) => [e.outcome, e.reason]),
      [['skipped', 'content-changed-since-check']],
    );
    assert.equal(server.requests.length, 0);
    assert.equal(repo.head(), head);
  });

  it('--generated text takes precedence over the model for the entries it names', async () => {
    const { repo, id } = await project();
    const server = await stub(answering('never used'));
    const file = generatedFile({ [id]: { text: DISTILLED, source_sha256: sha256(SPAN) } });
    const result = await runCliJson<CleanJson>(['hygiene', 'clean', '--approve', id, '--generated', file], {
      cwd: repo.dir,
      env: env(server),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(server.requests.length, 0);
    assert.equal(readFileSync(repo.path('CLAUDE.md'), 'utf8'), distilledFile);
  });

  it('a missing key is refused before any change when an entry needs the model', async () => {
    const { repo, id } = await project();
    const head = repo.head();
    const result = await runCliJson<CleanJson>(['hygiene', 'clean', '--approve', id], {
      cwd: repo.dir,
      env: { ...modelUser, STW_NOW: NOW },
    });
    assert.equal(result.code, 1);
    assert.equal(result.json.error!.code, 'missing-api-key');
    assert.equal(repo.head(), head);
  });
});
