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
});
