import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { describe, it } from 'node:test';
import { brief, everySignal, fixtureRepo, scanDir, signalsOf } from '../helpers.js';

const guide = `# Contributing\n\n${Array.from({ length: 800 }, (_, i) => `- Step ${i}: describe the change, run the checks, and ask for a review of part ${i}.`).join('\n')}\n`;

describe('context_coverage', () => {
  it('reports an AGENTS.md Claude Code never reads, and not one it imports or links', async () => {
    const repo = fixtureRepo({
      'AGENTS.md': '# Agents\n\nRun the tests.\n',
      'CLAUDE.md': '# Claude\n\nBe brief.\n',
      'pkg/AGENTS.md': '# Package\n',
      'lib/AGENTS.md': '# Lib\n',
      'lib/CLAUDE.md': '@AGENTS.md\n',
      'app/AGENTS.md': '# App\n',
      'app/CLAUDE.md': 'Read [the rules](AGENTS.md).\n',
    });
    const artifact = await scanDir(repo.dir);
    const found = everySignal(artifact, 'context_coverage');
    assert.deepEqual(found, [
      {
        path: 'AGENTS.md',
        line: 1,
        data: { reason: 'agents-md-not-read-by-claude', claude_file: 'CLAUDE.md', claude_file_exists: true },
      },
      {
        path: 'pkg/AGENTS.md',
        line: 1,
        data: {
          reason: 'agents-md-not-read-by-claude',
          claude_file: 'pkg/CLAUDE.md',
          claude_file_exists: false,
        },
      },
    ]);
  });

  it("leaves out an AGENTS.md the scan does not read: a vendored module's, an ignored one (jesseduffield/lazygit)", async () => {
    const repo = fixtureRepo({
      'CLAUDE.md': '# Claude\n\nBe brief.\n',
      'pkg/AGENTS.md': '# Package\n',
      'vendor/github.com/acme/widget/AGENTS.md': '# Widget\n\nUpstream rules.\n',
      'third_party/lib/AGENTS.md': '# Lib\n',
      '.dochygiene-ignore': 'third_party/\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(
      everySignal(artifact, 'context_coverage').map((s) => s.path),
      ['pkg/AGENTS.md'],
    );
  });

  it('counts a CLAUDE.md that tells the agent to read AGENTS.md as reading it, and not one that names another file', async () => {
    const coverage = async (claude: string) => {
      const repo = fixtureRepo({
        'AGENTS.md': '# Agents\n\nRun the tests.\n',
        'CLAUDE.md': claude,
        'docs/AGENTS.md': '# Docs\n',
      });
      return everySignal(await scanDir(repo.dir), 'context_coverage').map((s) => s.path);
    };
    // docs/AGENTS.md is reported either way: no docs/CLAUDE.md, and the root one names another file.
    assert.deepEqual(await coverage('Before doing anything else, read AGENTS.md and follow it.\n'), [
      'docs/AGENTS.md',
    ]);
    assert.deepEqual(await coverage('See docs/AGENTS.md for the rules of the docs folder.\n'), [
      'AGENTS.md',
      'docs/AGENTS.md',
    ]);
  });

  it('reports a CLAUDE.md that is a symlink to a long guide written for people', async () => {
    const repo = fixtureRepo({
      'CONTRIBUTING.md': guide,
      'AGENTS.md': '# Agents\n\n@CLAUDE.md is not read here.\n',
    });
    symlinkSync('CONTRIBUTING.md', repo.path('CLAUDE.md'));
    repo.git(['add', '-A']);
    repo.commit('link');
    const artifact = await scanDir(repo.dir);
    const [signal] = signalsOf(artifact, 'CLAUDE.md', 'context_coverage');
    assert.equal(signal?.line, 1);
    assert.deepEqual(
      { ...signal!.data, tokens: 0 },
      {
        reason: 'symlink-to-guide',
        target: 'CONTRIBUTING.md',
        tokens: 0,
        budget: 5000,
      },
    );
    assert.ok((signal!.data!['tokens'] as number) > 5000);
    assert.deepEqual(brief(signalsOf(artifact, 'CONTRIBUTING.md', 'context_coverage')), []);
  });

  it('reports, per file and agent, a nested file of another agent that an agent the project uses never reads', async () => {
    const repo = fixtureRepo({
      'AGENTS.md': '# Agents\n',
      'CLAUDE.md': '@AGENTS.md\n',
      'GEMINI.md': '@AGENTS.md\n',
      // Codex and Gemini CLI never read a nested CLAUDE.md.
      'web/CLAUDE.md': '# Web\n',
      // Read by neither Claude Code nor Gemini CLI: nothing imports or links it.
      'api/AGENTS.md': '# API\n',
      // Covered: a sibling file of each agent's own name.
      'cli/AGENTS.md': '# CLI\n',
      'cli/CLAUDE.md': '@AGENTS.md\n',
      'cli/GEMINI.md': '@./AGENTS.md\n',
      // A skill's page, not a folder's context: no session works in a dot folder.
      '.agents/skills/review/AGENTS.md': '# Review\n',
    });
    const artifact = await scanDir(repo.dir);
    const found = everySignal(artifact, 'context_coverage');
    assert.deepEqual(found, [
      {
        path: 'api/AGENTS.md',
        line: 1,
        data: {
          reason: 'agents-md-not-read-by-claude',
          claude_file: 'api/CLAUDE.md',
          claude_file_exists: false,
        },
      },
      {
        path: 'api/AGENTS.md',
        line: 1,
        data: {
          reason: 'nested-not-read',
          agent: 'gemini-cli',
          agent_file: 'api/GEMINI.md',
          agent_file_exists: false,
        },
      },
      {
        path: 'web/CLAUDE.md',
        line: 1,
        data: {
          reason: 'nested-not-read',
          agent: 'codex',
          agent_file: 'web/AGENTS.md',
          agent_file_exists: false,
        },
      },
      {
        path: 'web/CLAUDE.md',
        line: 1,
        data: {
          reason: 'nested-not-read',
          agent: 'gemini-cli',
          agent_file: 'web/GEMINI.md',
          agent_file_exists: false,
        },
      },
    ]);
    const [codex] = signalsOf(artifact, 'web/CLAUDE.md', 'context_coverage');
    assert.equal(
      codex!.detail,
      'Codex never reads it: there is no web/AGENTS.md (a symlink to it would load it)',
    );
  });

  it('reports gaps only for the agents the project uses (Claude Code here, not Codex or Gemini CLI)', async () => {
    const repo = fixtureRepo({
      'CLAUDE.md': '# Claude\n',
      'web/CLAUDE.md': '# Web\n',
      'api/GEMINI.md': '# API\n',
    });
    const artifact = await scanDir(repo.dir);
    const found = everySignal(artifact, 'context_coverage');
    assert.deepEqual(
      found.map((s) => s.data),
      [
        {
          reason: 'nested-not-read',
          agent: 'claude-code',
          agent_file: 'api/CLAUDE.md',
          agent_file_exists: false,
        },
      ],
    );
  });
});
