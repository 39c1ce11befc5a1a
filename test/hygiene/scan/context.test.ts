import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { describe, it } from 'node:test';
import { AGENTS } from '../../../src/hygiene/scan/context/agents.js';
import type { AgentContext } from '../../../src/hygiene/scan/context/loading.js';
import { rawFrontmatter } from '../../../src/hygiene/scan/context/loading.js';
import { countTokens } from '../../../src/hygiene/tokens.js';
import type { ScanArtifact } from '../../../src/hygiene/types.js';
import { runCli, runCliJson } from '../../helpers/cli.js';
import { fixtureRepo, scanDir } from './helpers.js';

const agentOf = (artifact: ScanArtifact, id: string): AgentContext => {
  const agent = artifact.agents?.find((a) => a.agent === id);
  assert.ok(agent, `no ${id} in ${JSON.stringify(artifact.agents?.map((a) => a.agent))}`);
  return agent;
};
const startupPaths = (agent: AgentContext) => agent.startup.files.map((f) => f.path).sort();

const CLAUDE = [
  '# Claude',
  '',
  '<!-- maintainers: keep this short',
  'and current -->',
  '',
  'Style: @docs/style.md',
  '',
];
const FILES: Record<string, string> = {
  'CLAUDE.md': CLAUDE.join('\n'),
  'docs/style.md': '# Style\n\nTwo-space indent.\n',
  'AGENTS.md': '# Agents\n\n<!-- Codex sees this comment -->\n\nRun `npm test`.\n',
  'pkg/AGENTS.md': '# Package agents\n\nBuild with `make`.\n',
  'pkg/CLAUDE.md': '# Package notes for Claude\n',
  '.claude/rules/always.md': '# Always\n\nNo frontmatter: loaded at start-up.\n',
  '.claude/rules/scoped.md': '---\npaths:\n  - "src/**/*.ts"\n---\n# Scoped\n',
  '.github/copilot-instructions.md': '# Copilot\n\nPrefer small PRs.\n',
  '.github/instructions/ts.instructions.md': '---\napplyTo: "**/*.ts"\n---\n# TypeScript\n',
  '.cursor/rules/always.mdc': '---\ndescription: core\nalwaysApply: true\n---\n# Core rule\n',
  '.cursor/rules/globbed.mdc': '---\nglobs: *.ts\nalwaysApply: false\n---\n# TS rule\n',
  '.cursor/rules/plain.md': '# Not a Cursor rule\n',
  '.cursorrules': 'Legacy Cursor rules.\n',
  '.clinerules/01-style.md': '# Cline style\n',
  '.clinerules/workflows/release.md': '# Release workflow\n',
  '.clinerules/hooks/README.md': '# Hook scripts\n',
  '.windsurfrules': 'Windsurf legacy rules.\n',
  '.windsurf/rules/api.md': '---\ntrigger: model_decision\ndescription: API work\n---\n# API\n',
};

describe('per-agent loading model', () => {
  it('is data: one entry per agent, every rule naming its source', () => {
    assert.deepEqual(
      AGENTS.map((a) => a.id),
      ['claude-code', 'codex', 'gemini-cli', 'copilot', 'cursor', 'cline', 'windsurf'],
    );
    for (const agent of AGENTS) for (const rule of agent.files) assert.ok(rule.source.length > 10, rule.glob);
  });

  it('gives Claude, Codex and Copilot (and the others) each their own start-up files, tokens and on-demand files', async () => {
    const repo = fixtureRepo(FILES);
    const artifact = await scanDir(repo.dir);

    const claude = agentOf(artifact, 'claude-code');
    assert.deepEqual(startupPaths(claude), ['.claude/rules/always.md', 'CLAUDE.md', 'docs/style.md']);
    assert.deepEqual(
      claude.on_demand.map((f) => [f.path, f.when]),
      [
        ['.claude/rules/scoped.md', 'reading files matching its paths (src/**/*.ts)'],
        ['pkg/CLAUDE.md', 'reading files under pkg/'],
      ],
    );
    // Claude Code strips block HTML comments before counting; nobody else does.
    const claudeSeen = [...CLAUDE.slice(0, 2), ...CLAUDE.slice(4)].join('\n');
    const claudeFile = claude.startup.files.find((f) => f.path === 'CLAUDE.md')!;
    assert.equal(claudeFile.tokens, countTokens(claudeSeen));
    assert.ok(claudeFile.tokens < countTokens(FILES['CLAUDE.md']!));
    assert.equal(claude.startup.files.find((f) => f.path === 'docs/style.md')?.imported_by, 'CLAUDE.md');
    assert.equal(
      claude.startup.tokens,
      countTokens(claudeSeen) +
        countTokens(FILES['docs/style.md']!) +
        countTokens(FILES['.claude/rules/always.md']!),
    );

    const codex = agentOf(artifact, 'codex');
    assert.deepEqual(startupPaths(codex), ['AGENTS.md']);
    assert.equal(codex.startup.tokens, countTokens(FILES['AGENTS.md']!)); // the comment counts for Codex
    assert.deepEqual(
      codex.on_demand.map((f) => [f.path, f.when]),
      [['pkg/AGENTS.md', 'a session started in pkg/']],
    );
    assert.deepEqual(codex.cut_off, []);

    const copilot = agentOf(artifact, 'copilot');
    assert.deepEqual(startupPaths(copilot), ['.github/copilot-instructions.md']);
    assert.equal(copilot.startup.tokens, countTokens(FILES['.github/copilot-instructions.md']!));
    assert.deepEqual(
      copilot.on_demand.map((f) => [f.path, f.when]),
      [['.github/instructions/ts.instructions.md', 'working on files matching applyTo **/*.ts']],
    );

    const cursor = agentOf(artifact, 'cursor');
    assert.deepEqual(startupPaths(cursor), ['.cursor/rules/always.mdc', '.cursorrules']);
    assert.deepEqual(
      cursor.on_demand.map((f) => [f.path, f.when]),
      [['.cursor/rules/globbed.mdc', 'files matching globs *.ts']],
    );
    assert.deepEqual(cursor.not_loaded, [
      { path: '.cursor/rules/plain.md', why: 'Cursor reads .mdc rule files only' },
    ]);

    const cline = agentOf(artifact, 'cline');
    assert.deepEqual(startupPaths(cline), ['.clinerules/01-style.md', 'AGENTS.md', 'pkg/AGENTS.md']);
    assert.deepEqual(
      cline.on_demand.map((f) => [f.path, f.when]),
      [['.clinerules/workflows/release.md', 'invoked as /release.md']],
    );
    assert.deepEqual(cline.not_loaded, [
      { path: '.clinerules/hooks/README.md', why: 'Cline hooks are run on events, not loaded as rules' },
    ]);
    const windsurf = agentOf(artifact, 'windsurf');
    assert.deepEqual(startupPaths(windsurf), ['.windsurfrules', 'AGENTS.md']);
    assert.deepEqual(
      windsurf.on_demand.map((f) => f.path),
      ['.windsurf/rules/api.md', 'pkg/AGENTS.md'],
    );
    // No GEMINI.md: Gemini CLI reads nothing here and is left out.
    assert.equal(
      artifact.agents?.find((a) => a.agent === 'gemini-cli'),
      undefined,
    );
    // Every start-up total is the sum of its files, biggest first.
    for (const agent of artifact.agents ?? []) {
      assert.equal(
        agent.startup.tokens,
        agent.startup.files.reduce((s, f) => s + f.tokens, 0),
      );
      const tokens = agent.startup.files.map((f) => f.tokens);
      assert.deepEqual(
        tokens,
        [...tokens].sort((a, b) => b - a),
      );
    }
  });

  it('resolves a symlink to its real file, counted once per agent, with the link as an alias', async () => {
    const repo = fixtureRepo({
      'AGENTS.md': '# Shared rules\n\nRun the tests.\n',
      '.clinerules/00.md': '# Cline\n',
    });
    symlinkSync('AGENTS.md', repo.path('CLAUDE.md'));
    symlinkSync('../AGENTS.md', repo.path('.clinerules/01-shared.md'));
    repo.git(['add', '-A']);
    repo.commit('links');
    const artifact = await scanDir(repo.dir);
    const tokens = countTokens('# Shared rules\n\nRun the tests.\n');
    assert.deepEqual(agentOf(artifact, 'claude-code').startup.files, [
      { path: 'AGENTS.md', aliases: ['CLAUDE.md'], tokens, bytes: 31, rule: 'CLAUDE.md' },
    ]);
    const cline = agentOf(artifact, 'cline');
    assert.deepEqual(
      cline.startup.files.map((f) => [f.path, f.aliases ?? []]),
      [
        ['AGENTS.md', ['.clinerules/01-shared.md']],
        ['.clinerules/00.md', []],
      ],
    );
    assert.equal(cline.startup.tokens, tokens + countTokens('# Cline\n'));
  });

  it('cuts the Codex AGENTS.md chain at 32 KiB and names the byte and line where the cut falls', async () => {
    const line = `${'x'.repeat(99)}\n`; // 100 bytes
    const root = `# Root\n${line.repeat(200)}`; // 7 + 20000 bytes
    const nested = line.repeat(200); // 20000 bytes
    const big = line.repeat(400); // 40000 bytes
    const repo = fixtureRepo({ 'AGENTS.md': root, 'svc/AGENTS.md': nested, 'huge/AGENTS.md': big });
    const codex = agentOf(await scanDir(repo.dir), 'codex');
    const remaining = 32 * 1024 - Buffer.byteLength(root);
    assert.deepEqual(codex.cut_off, [
      {
        path: 'huge/AGENTS.md',
        working_folder: 'huge',
        cut_at_byte: remaining,
        line: Math.floor(remaining / 100) + 1,
        file_bytes: 40000,
        max_bytes: 32768,
        setting: 'project_doc_max_bytes',
      },
      {
        path: 'svc/AGENTS.md',
        working_folder: 'svc',
        cut_at_byte: remaining,
        line: Math.floor(remaining / 100) + 1,
        file_bytes: 20000,
        max_bytes: 32768,
        setting: 'project_doc_max_bytes',
      },
    ]);
    // A session at the root pays for the root file only, uncut.
    assert.deepEqual(
      codex.startup.files.map((f) => [f.path, f.bytes, f.cut_at_byte]),
      [['AGENTS.md', 20007, undefined]],
    );
  });

  it('counts only the kept part of a root AGENTS.md over 32 KiB', async () => {
    const text = `${'word '.repeat(19)}\n`.repeat(400); // 38400 bytes
    const repo = fixtureRepo({ 'AGENTS.md': text });
    const codex = agentOf(await scanDir(repo.dir), 'codex');
    assert.deepEqual(
      codex.cut_off.map((c) => [c.path, c.working_folder, c.cut_at_byte, c.line]),
      [['AGENTS.md', '', 32768, Math.floor(32768 / 96) + 1]],
    );
    const file = codex.startup.files[0]!;
    assert.equal(file.bytes, 32768);
    assert.equal(file.cut_at_byte, 32768);
    assert.equal(file.tokens, countTokens(text.slice(0, 32768)));
    // Cline has no cap: it pays for the whole file.
    assert.equal(agentOf(await scanDir(repo.dir), 'cline').startup.tokens, countTokens(text));
  });

  it('reads frontmatter as written, including YAML that is not valid (globs: *.ts)', () => {
    assert.deepEqual(
      [...rawFrontmatter(['---', 'globs: *.ts', 'paths:', '  - "a/**"', "  - 'b/**'", '---', 'body'])],
      [
        ['globs', '*.ts'],
        ['paths', 'a/**, b/**'],
      ],
    );
    assert.deepEqual([...rawFrontmatter(['---', 'alwaysApply: true'])], []); // never closed
  });
});

describe('stw hygiene context', () => {
  it('shows each agent start-up cost biggest first, then on-demand files and findings; JSON carries the same facts', async () => {
    const repo = fixtureRepo({
      ...FILES,
      'AGENTS.md': '# Agents\n\nSee [the guide](docs/gone.md).\n',
    });
    const json = await runCliJson<{ status: string; agents: (AgentContext & { findings: unknown[] })[] }>(
      ['hygiene', 'context', '--agent', 'codex', '--agent', 'claude'],
      { cwd: repo.dir },
    );
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(
      json.json.agents.map((a) => a.agent),
      ['codex', 'claude-code'],
    );
    assert.deepEqual(json.json.agents[0]!.findings, [
      {
        path: 'AGENTS.md',
        line: 1,
        signal: 'context_coverage',
        detail: 'Claude Code never reads it: CLAUDE.md neither imports (@AGENTS.md) nor links it',
      },
      {
        path: 'AGENTS.md',
        line: 3,
        signal: 'broken_reference',
        detail: 'link target "docs/gone.md" does not resolve',
      },
    ]);
    const human = await runCli(['hygiene', 'context', '--agent', 'codex'], { cwd: repo.dir });
    assert.equal(human.code, 0, human.stderr);
    const codex = json.json.agents[0]!;
    assert.equal(
      human.stdout,
      [
        `Codex: ≈${codex.startup.tokens} tokens at start-up from 1 file (${codex.startup.bytes} bytes)`,
        `  ${`≈${codex.startup.files[0]!.tokens}`.padStart(8)}  AGENTS.md`,
        '  On demand:',
        `    ${`≈${codex.on_demand[0]!.tokens}`.padStart(8)}  pkg/AGENTS.md — a session started in pkg/`,
        '  Findings:',
        '    AGENTS.md:1  context_coverage — Claude Code never reads it: CLAUDE.md neither imports (@AGENTS.md) nor links it',
        '    AGENTS.md:3  broken_reference — link target "docs/gone.md" does not resolve',
        '',
        'Tokens counted with gpt-tokenizer/o200k_base (≈ estimates).',
        '',
      ].join('\n'),
    );
  });

  it('counts skills as listed at start-up (name and description) and read on demand (the body), per agent that reads them', async () => {
    const skill = (name: string, description: string, body: string) =>
      `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\n${body}\n`;
    const release = skill(
      'release',
      'Cut a release: bump versions, tag, publish.',
      'Step one. '.repeat(3500),
    );
    const files = {
      'CLAUDE.md': '# Claude\n',
      '.claude/skills/release/SKILL.md': release,
      '.agents/skills/triage/SKILL.md': skill('triage', 'Label and route new issues.', 'Read the issue.'),
      'web/.claude/skills/deploy/SKILL.md': skill('deploy', 'Deploy the web app.', 'Run the deploy.'),
      'plugin/.claude-plugin/plugin.json': '{ "name": "helper" }\n',
      'plugin/skills/lint/SKILL.md': skill('lint', 'Lint the code.', 'Run the linter.'),
      // No plugin.json beside it: no agent reads it.
      'examples/skills/demo/SKILL.md': skill('demo', 'A demo.', 'Nothing.'),
    };
    const repo = fixtureRepo(files);
    const artifact = await scanDir(repo.dir);
    const claude = agentOf(artifact, 'claude-code');
    const listing = 'name: release\ndescription: Cut a release: bump versions, tag, publish.';
    assert.deepEqual(
      claude.startup.files.find((f) => f.path === '.claude/skills/release/SKILL.md'),
      {
        path: '.claude/skills/release/SKILL.md',
        tokens: countTokens(listing),
        bytes: Buffer.byteLength(listing),
        rule: '.claude/skills/*/SKILL.md',
        part: 'skill-description',
      },
    );
    assert.equal(
      claude.startup.tokens,
      claude.startup.files.reduce((sum, f) => sum + f.tokens, 0),
    );
    assert.deepEqual(
      claude.on_demand.map((f) => [f.path, f.tokens, f.when, f.part]),
      [
        [
          '.claude/skills/release/SKILL.md',
          countTokens(release),
          'the skill is used (its description matches the task, or it is invoked by name)',
          'skill-body',
        ],
        [
          'plugin/skills/lint/SKILL.md',
          countTokens(files['plugin/skills/lint/SKILL.md']),
          'the plugin in plugin/ is installed (then listed by name and description; the body when used)',
          undefined,
        ],
        [
          'web/.claude/skills/deploy/SKILL.md',
          countTokens(files['web/.claude/skills/deploy/SKILL.md']),
          'working with files under web/ (then listed by name and description; the body when used)',
          undefined,
        ],
      ],
    );
    const codex = agentOf(artifact, 'codex');
    assert.deepEqual(startupPaths(codex), ['.agents/skills/triage/SKILL.md']);
    assert.deepEqual(
      codex.on_demand.map((f) => [f.path, f.part]),
      [['.agents/skills/triage/SKILL.md', 'skill-body']],
    );
    // A skill body is read on demand, so it is no start-up weight however long it is.
    const weight = (artifact.signals['.claude/skills/release/SKILL.md'] ?? []).filter(
      (sig) => sig.name === 'context_weight',
    );
    assert.deepEqual(
      weight.map((sig) => sig.data?.['injection']),
      ['on-demand'],
    );
    const human = await runCli(['hygiene', 'context', '--agent', 'claude'], { cwd: repo.dir });
    assert.equal(human.code, 0, human.stderr);
    assert.match(
      human.stdout,
      /\.claude\/skills\/release\/SKILL\.md {2}\(skill: its name and description; the body on demand\)\n/,
    );
    assert.match(
      human.stdout,
      /\.claude\/skills\/release\/SKILL\.md — the skill is used .*; the skill’s body\n/,
    );
  });

  it('refuses an unknown agent as a usage error', async () => {
    const repo = fixtureRepo({ 'AGENTS.md': '# A\n' });
    const result = await runCli(['hygiene', 'context', '--agent', 'vim'], { cwd: repo.dir });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^stw: unknown agent vim\n/);
  });
});
