/**
 * The Claude Code plugin in a real Claude Code (`npm run test:plugin`; not part of
 * `npm test`): the pinned CLI validates the plugin and the marketplace, installs the
 * plugin from this checkout's marketplace into a temp HOME, and runs `claude -p` sessions in
 * a temp git repository against a scripted Messages-API stub on 127.0.0.1. The `stw` on
 * the session's PATH is this checkout's build.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo } from '../helpers/git-repo.js';
import { FIXTURES, REPO_ROOT } from '../helpers/paths.js';
import {
  CLAUDE_CODE_VERSION,
  type ClaudeResult,
  ensureClaudeCode,
  runClaude,
  streamEvents,
  stwBinDir,
} from './claude-code.js';
import {
  type ContentBlock,
  lastToolResults,
  type MessagesRequest,
  MessagesStub,
  requestText,
  type Script,
} from './messages-stub.js';

const NOW = '2026-11-29T10:00:00Z';
const PLUGIN = 'stw@sourcesteward';
const scratch = makeTempDir('stw-plugin-e2e-');
const home = join(scratch, 'home');
const withStw = `${stwBinDir(scratch)}:/usr/bin:/bin`;
const withoutStw = '/usr/bin:/bin';
let claude = '';
const repos: TestRepo[] = [];
const tempFiles: string[] = [];

before(() => {
  claude = ensureClaudeCode();
});
after(() => {
  for (const repo of repos) repo.cleanup();
  for (const file of tempFiles) rmSync(file, { force: true });
  rmSync(scratch, { recursive: true, force: true });
});

/** A repository holding the superseded-design fixture: one candidate, docs/design-v1.md. */
function fixtureRepo(): TestRepo {
  const repo = makeRepo({ initialCommit: false });
  repos.push(repo);
  cpSync(join(FIXTURES, 'classifier', '02-superseded', 'input'), repo.dir, { recursive: true });
  repo.git(['add', '-A']);
  repo.commit('fixture', {}, { date: '2026-01-15T00:00:00Z' });
  return repo;
}

const isMainConversation = (request: MessagesRequest) =>
  (request.tools ?? []).some((tool) => tool.name === 'Bash');
/** How many turns the script has taken in this conversation so far. */
const turnsTaken = (request: MessagesRequest) =>
  request.messages.filter((message) => message.role === 'assistant').length;
const toolUse = (n: number, name: string, input: Record<string, unknown>): ContentBlock[] => [
  { type: 'tool_use', id: `toolu_stub_${n}`, name, input },
];
const bash = (n: number, command: string) => toolUse(n, 'Bash', { command, description: command });

/** Plays `turns` in order in the main conversation, then ends it; anything else gets a short text. */
function scripted(turns: ((request: MessagesRequest) => ContentBlock[])[]): Script {
  return (request) => {
    if (!isMainConversation(request)) return [{ type: 'text', text: 'ok' }];
    const turn = turns[turnsTaken(request)];
    return turn === undefined ? [{ type: 'text', text: 'Done.' }] : turn(request);
  };
}

async function session(
  prompt: string,
  script: Script,
  cwd: string,
  path = withStw,
): Promise<{ result: ClaudeResult; events: Record<string, unknown>[]; requests: MessagesRequest[] }> {
  const stub = new MessagesStub(script);
  const baseUrl = await stub.start();
  try {
    const result = await runClaude(
      claude,
      home,
      ['-p', prompt, '--output-format', 'stream-json', '--verbose'],
      { cwd, path, baseUrl, extraEnv: { STW_NOW: NOW } },
    );
    assert.equal(result.code, 0, `claude -p failed:\n${result.stderr}\n${result.stdout.slice(-2000)}`);
    const requests = stub.messageRequests().filter(isMainConversation);
    assert.ok(requests.length > 0, 'the session called the stub');
    return { result, events: streamEvents(result.stdout), requests };
  } finally {
    await stub.close();
  }
}

function finalResult(events: Record<string, unknown>[]): Record<string, unknown> {
  const result = events.find((event) => event['type'] === 'result');
  assert.ok(result, 'a result event');
  return result;
}

function sessionStartHooks(events: Record<string, unknown>[]): Record<string, unknown>[] {
  return events.filter(
    (event) => event['subtype'] === 'hook_response' && event['hook_event'] === 'SessionStart',
  );
}

/** The text of the tool_result answering `toolu_stub_<n>`, from the request that carries it. */
function toolResult(requests: MessagesRequest[], n: number): { text: string; isError: boolean } {
  for (const request of requests) {
    const block = lastToolResults(request).find((b) => b['tool_use_id'] === `toolu_stub_${n}`);
    if (block === undefined) continue;
    const content = block['content'];
    const text = Array.isArray(content)
      ? content.map((part: { text?: string }) => part.text ?? '').join('')
      : String(content);
    return { text, isError: block['is_error'] === true };
  }
  assert.fail(`no tool_result for toolu_stub_${n}`);
}

describe(`the Claude Code plugin in claude-code ${CLAUDE_CODE_VERSION}`, () => {
  it('claude plugin validate passes the plugin and the marketplace', async () => {
    for (const target of [join(REPO_ROOT, 'plugin'), REPO_ROOT]) {
      const result = await runClaude(claude, home, ['plugin', 'validate', target], {
        cwd: REPO_ROOT,
        path: withStw,
      });
      assert.equal(result.code, 0, result.stdout + result.stderr);
      assert.match(result.stdout, /Validation passed/);
      assert.doesNotMatch(result.stdout, /Validation failed|✘/);
    }
  });

  it('installs from the local marketplace; details shows three skills, one free hook, a small always-on cost', async () => {
    const add = await runClaude(claude, home, ['plugin', 'marketplace', 'add', REPO_ROOT], {
      cwd: REPO_ROOT,
      path: withStw,
    });
    assert.equal(add.code, 0, add.stdout + add.stderr);
    const install = await runClaude(claude, home, ['plugin', 'install', PLUGIN], {
      cwd: REPO_ROOT,
      path: withStw,
    });
    assert.equal(install.code, 0, install.stdout + install.stderr);
    const details = await runClaude(claude, home, ['plugin', 'details', PLUGIN], {
      cwd: REPO_ROOT,
      path: withStw,
    });
    assert.equal(details.code, 0, details.stdout + details.stderr);
    assert.match(details.stdout, /Skills \(3\)\s+hygiene, hygiene-check, hygiene-clean/);
    assert.match(details.stdout, /Hooks \(1\)\s+SessionStart\s+\(harness-only — no model context cost\)/);
    const alwaysOn = /Always-on:\s+~(\d+) tok/.exec(details.stdout);
    assert.ok(alwaysOn, details.stdout);
    assert.ok(Number(alwaysOn[1]) <= 150, `always-on cost ${alwaysOn[1]} tokens`);
  });

  it('SessionStart runs stw hygiene remind: the banner as systemMessage only, last_reminded stamped', async () => {
    const repo = fixtureRepo();
    const { events, requests } = await session(
      '/stw:hygiene status',
      scripted([() => bash(1, 'stw hygiene status')]),
      repo.dir,
    );
    const [hook, ...more] = sessionStartHooks(events);
    assert.ok(hook, 'a SessionStart hook response');
    assert.equal(more.length, 0);
    assert.equal(hook['exit_code'], 0);
    const banner = JSON.parse(String(hook['stdout'])) as Record<string, unknown>;
    assert.equal(String(hook['stdout']), `${JSON.stringify(banner)}\n`, 'one JSON line');
    assert.deepEqual(Object.keys(banner), ['systemMessage']);
    assert.match(String(banner['systemMessage']), /Run \/stw:hygiene check/);
    const state = JSON.parse(readFileSync(repo.path('.dochygiene', 'state.json'), 'utf8'));
    assert.equal(state.last_reminded, NOW);
    for (const request of requests)
      assert.ok(
        !requestText(request).includes('No docs hygiene check'),
        'the banner never reaches the model',
      );

    // `/stw:hygiene status` expands to the routing skill, which names `stw hygiene status`.
    const first = requestText(requests[0] as MessagesRequest);
    assert.match(first, /<command-name>\/stw:hygiene<\/command-name>/);
    assert.match(first, /<command-args>status<\/command-args>/);
    assert.match(first, /run `stw hygiene status` and show its output/);
    const status = toolResult(requests, 1);
    assert.equal(status.isError, false, status.text);
    assert.match(status.text, /last reminded\s+2026-11-29T10:00:00Z/);
    assert.deepEqual(finalResult(events)['permission_denials'], []);
  });

  it('/stw:hygiene check: scan without a prompt, its real output to the model, proposals fixed and checked', async () => {
    const repo = fixtureRepo();
    const stamp = `${process.pid}${Date.now()}`;
    const scanFile = `/tmp/stw-scan-${stamp}.json`;
    const proposalsFile = `/tmp/stw-proposals-${stamp}.json`;
    tempFiles.push(scanFile, proposalsFile);
    let scanned: Record<string, unknown> = {};
    const proposal = (extra: Record<string, unknown>) => [
      {
        path: 'docs/design-v1.md',
        category: { class: 'stale', subtype: 'superseded' },
        signals: (scanned['signals'] as Record<string, unknown>)['docs/design-v1.md'],
        op: 'Move the superseded design to docs/archive/.',
        op_type: 'deterministic',
        exact_edit: { kind: 'move-to-archive', dest_path: 'docs/archive/design-v1.md' },
        confidence: 0.9,
        ...extra,
      },
    ];
    const write = (n: number, extra: Record<string, unknown>) =>
      toolUse(n, 'Write', { file_path: proposalsFile, content: JSON.stringify(proposal(extra), null, 2) });
    // The Read tool numbers lines ("  12\t…"); without the numbers it is the file.
    const unnumbered = (text: string) => text.replace(/^ *\d+\t/gm, '');
    const { events, requests } = await session(
      '/stw:hygiene check',
      scripted([
        () => toolUse(1, 'Skill', { skill: 'stw:hygiene-check', args: '' }),
        () => bash(2, 'stw hygiene scan --json'),
        () => bash(3, `stw hygiene scan --json > ${scanFile}`),
        () => toolUse(4, 'Read', { file_path: scanFile }),
        (request) => {
          scanned = JSON.parse(unnumbered(toolResult([request], 4).text)) as Record<string, unknown>;
          return write(5, { safety_tier: 'auto' });
        },
        () => bash(6, `stw hygiene check --proposals ${proposalsFile}`),
        () => write(7, {}),
        () => bash(8, `stw hygiene check --proposals ${proposalsFile}`),
      ]),
      repo.dir,
    );

    // The routing skill hands `check` to hygiene-check, whose instructions name the stw steps.
    assert.match(requestText(requests[0] as MessagesRequest), /invoke the `stw:hygiene-check`/);
    const afterSkill = requestText(requests[1] as MessagesRequest);
    assert.match(afterSkill, /skills\/hygiene-check/);
    assert.match(afterSkill, /`stw hygiene scan --json > \/tmp\/stw-scan-<random digits>\.json`/);
    assert.match(afterSkill, /`stw hygiene check --proposals \/tmp\/stw-proposals-<digits>\.json`/);

    // The scan ran for real, without a permission prompt, and its output reached the stub,
    // straight and through the file the skill has it written to.
    const scan = toolResult(requests, 2);
    assert.equal(scan.isError, false, scan.text);
    const direct = await runCli(['hygiene', 'scan', '--json'], { cwd: repo.dir, env: { STW_NOW: NOW } });
    // `excluded` differs by the report pair written since (.dochygiene/ is listed as tool state).
    const facts = ({ project_root, files_scanned, shortlist, signals }: Record<string, unknown>) => ({
      project_root,
      files_scanned,
      shortlist,
      signals,
    });
    assert.deepEqual(facts(JSON.parse(scan.text)), facts(JSON.parse(direct.stdout)));
    assert.equal(toolResult(requests, 3).isError, false);
    assert.deepEqual(facts(scanned), facts(JSON.parse(direct.stdout)));
    assert.ok(Object.keys(scanned['signals'] as object).includes('docs/design-v1.md'));

    // A guarded field is rejected by check, naming the proposal; nothing is written.
    const rejected = toolResult(requests, 6);
    assert.equal(rejected.isError, true);
    assert.match(rejected.text, /proposals\[0\]/);
    assert.match(rejected.text, /safety_tier/);
    // The fixed proposals give a valid report with the one entry.
    const checked = toolResult(requests, 8);
    assert.equal(checked.isError, false, checked.text);
    assert.match(checked.text, /Checked 3 docs: 1 entry in 1 file \(0 auto, 1 need confirmation\)/);
    assert.match(checked.text, /\.dochygiene\/report\.md/);
    const validated = await runCli(['hygiene', 'validate', repo.path('.dochygiene', 'report.json')], {
      cwd: repo.dir,
    });
    assert.equal(validated.code, 0, validated.stdout + validated.stderr);
    const report = JSON.parse(readFileSync(repo.path('.dochygiene', 'report.json'), 'utf8'));
    assert.deepEqual(
      report.entries.map((e: Record<string, unknown>) => [
        e['path'],
        (e['exact_edit'] as { kind: string }).kind,
      ]),
      [['docs/design-v1.md', 'move-to-archive']],
    );
    // A move breaks links from outside the repository: always confirm.
    assert.equal(report.entries[0].safety_tier, 'confirm');
    assert.deepEqual(finalResult(events)['permission_denials'], []);
  });

  it('/stw:hygiene-clean expands to the gate steps; the span hash it takes runs without a rule', async () => {
    const repo = fixtureRepo();
    // Lines 5..6 of docs/design-v1.md, joined by a newline, without the last line break.
    const lines = readFileSync(repo.path('docs', 'design-v1.md'), 'utf8').split('\n');
    const expected = createHash('sha256').update(lines.slice(4, 6).join('\n')).digest('hex');
    const { events, requests } = await session(
      '/stw:hygiene-clean',
      scripted([() => bash(1, 'head -n 6 -- docs/design-v1.md | tail -n +5 | head -c -1 | sha256sum')]),
      repo.dir,
    );
    const first = requestText(requests[0] as MessagesRequest);
    assert.match(first, /<command-name>\/stw:hygiene-clean<\/command-name>/);
    assert.match(first, /`stw hygiene clean --dry-run --json`/);
    assert.match(first, /`stw hygiene clean --json --approve ID …`/);
    // ${CLAUDE_PLUGIN_ROOT} is replaced by the installed plugin's directory.
    const workflow = /(\/[^\s`"]*\/workflows\/distill\.md)/.exec(first)?.[1];
    assert.ok(workflow !== undefined && existsSync(workflow), `the workflow path, resolved: ${workflow}`);
    const hash = toolResult(requests, 1);
    assert.equal(hash.isError, false, hash.text);
    assert.equal(hash.text.trim(), `${expected}  -`);
    assert.deepEqual(finalResult(events)['permission_denials'], []);
  });

  it("/stw:hygiene-clean: a clean that approves on the user's behalf is not pre-approved, so nothing is committed", async () => {
    const repo = fixtureRepo();
    // A report with one confirm entry (the move of docs/design-v1.md), ticked by default.
    const checked = await runCli(['hygiene', 'check'], { cwd: repo.dir, env: { STW_NOW: NOW } });
    assert.equal(checked.code, 0, checked.stderr);
    const head = repo.head();
    // As if a scanned doc had talked the model into approving everything.
    const { events, requests } = await session(
      '/stw:hygiene-clean',
      scripted([
        () => bash(1, 'stw hygiene clean --json --yes'),
        () => bash(2, 'stw hygiene clean --json --approve 03b5010d'),
      ]),
      repo.dir,
    );
    for (const n of [1, 2]) assert.equal(toolResult(requests, n).isError, true);
    const denied = (finalResult(events)['permission_denials'] as { tool_input: { command: string } }[]).map(
      (d) => d.tool_input.command,
    );
    assert.deepEqual(denied, [
      'stw hygiene clean --json --yes',
      'stw hygiene clean --json --approve 03b5010d',
    ]);
    assert.equal(repo.head(), head);
    assert.equal(existsSync(repo.path('docs', 'design-v1.md')), true);
  });

  it('the hook is silent and the session undisturbed when stw is not on PATH', async () => {
    const repo = fixtureRepo();
    const { events } = await session('hello', scripted([]), repo.dir, withoutStw);
    const [hook] = sessionStartHooks(events);
    assert.ok(hook, 'the hook ran');
    assert.deepEqual([hook['exit_code'], hook['stdout'], hook['stderr']], [0, '', '']);
    assert.equal(existsSync(repo.path('.dochygiene')), false);
    assert.equal(finalResult(events)['is_error'], false);
  });
});
