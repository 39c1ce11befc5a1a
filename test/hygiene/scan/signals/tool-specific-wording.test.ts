import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brief, fixtureRepo, scanDir, signalsOf } from '../helpers.js';

const TEXT = [
  '# Rules', // 1
  '', // 2
  'Use the TodoWrite tool to plan every task.', // 3
  'Our own `bash` tool and `task fmt` are the project’s, not an agent’s.', // 4
  '', // 5
  '## Claude Code', // 6
  '', // 7
  'Use the TodoWrite tool here: this section is for Claude only.', // 8
  '',
].join('\n');

describe('tool_specific_wording', () => {
  it("reports one agent's tool wording in a file other agents load, not in its own file or a section for it", async () => {
    const repo = fixtureRepo({
      'AGENTS.md': TEXT,
      'CLAUDE.md': TEXT,
      '.github/copilot-instructions.md': 'Ask @codebase first.\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'AGENTS.md', 'tool_specific_wording')), [
      {
        line: 3,
        data: {
          tool: 'claude-code',
          phrase: 'Use the TodoWrite',
          other_agents: ['codex', 'cline', 'windsurf'],
        },
      },
    ]);
    assert.deepEqual(signalsOf(artifact, 'CLAUDE.md', 'tool_specific_wording'), []);
    assert.deepEqual(brief(signalsOf(artifact, '.github/copilot-instructions.md', 'tool_specific_wording')), [
      { line: 1, data: { tool: 'cursor', phrase: '@codebase', other_agents: ['copilot'] } },
    ]);
  });

  it('judges a file by who reads it through the import chain: Codex wording Claude Code reads via @imports', async () => {
    const repo = fixtureRepo({
      'CLAUDE.md': '# Claude\n\n@docs/agents/index.md\n',
      'docs/agents/index.md': '# Agent guide\n\n@workflow.md\n',
      'docs/agents/workflow.md': '# Workflow\n\nStart each task with `codex exec` and commit.\n',
      // Imported by nobody: no agent reads it, so its wording is its own business.
      'docs/codex.md': '# Codex\n\nRun codex exec in CI.\n',
      // Codex wording under a heading for Codex: scoped by its author.
      'docs/agents/codex-notes.md': '## Codex\n\nRun codex exec in CI.\n',
    });
    const artifact = await scanDir(repo.dir);
    const [signal, ...rest] = signalsOf(artifact, 'docs/agents/workflow.md', 'tool_specific_wording');
    assert.deepEqual(rest, []);
    assert.deepEqual(brief([signal!]), [
      {
        line: 3,
        data: {
          tool: 'codex',
          phrase: 'codex exec',
          other_agents: ['claude-code'],
          import_chain: ['CLAUDE.md', 'docs/agents/index.md', 'docs/agents/workflow.md'],
          imported_for: ['claude-code'],
        },
      },
    ]);
    assert.equal(
      signal!.detail,
      '"codex exec" is Codex wording, but Claude Code loads this file (Claude Code through CLAUDE.md → @docs/agents/index.md), and Codex does not',
    );
    assert.deepEqual(signalsOf(artifact, 'docs/codex.md', 'tool_specific_wording'), []);
    assert.deepEqual(signalsOf(artifact, 'docs/agents/codex-notes.md', 'tool_specific_wording'), []);
  });
});
