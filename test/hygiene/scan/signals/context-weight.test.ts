import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixtureRepo, scanDir, signalsOf } from '../helpers.js';

describe('context_weight', () => {
  it('reports agent-context files and their imports over the token budget', async () => {
    const big = (label: string) =>
      `# ${label}\n\n${Array.from({ length: 1500 }, (_, i) => `- rule ${i} about ${label}`).join('\n')}\n`;
    const repo = fixtureRepo({
      'AGENTS.md': big('agents'),
      'CLAUDE.md': '# Claude\n\nSee @docs/conventions.md\n',
      'docs/conventions.md': big('conventions'),
      'docs/other.md': big('other'),
    });
    const artifact = await scanDir(repo.dir);
    const agents = signalsOf(artifact, 'AGENTS.md', 'context_weight');
    assert.equal(agents.length, 1);
    assert.equal((agents[0]!.data as { injection: string }).injection, 'always');
    assert.ok((agents[0]!.data as { tokens: number }).tokens > 5000);
    const conventions = signalsOf(artifact, 'docs/conventions.md', 'context_weight');
    assert.equal(conventions.length, 1);
    assert.deepEqual(
      { ...(conventions[0]!.data as object), tokens: 0 },
      {
        tokens: 0,
        budget: 5000,
        injection: 'imported',
        imported_by: 'CLAUDE.md',
        startup_agents: ['claude-code'],
      },
    );
    assert.deepEqual(signalsOf(artifact, 'CLAUDE.md', 'context_weight'), []);
    assert.deepEqual(signalsOf(artifact, 'docs/other.md', 'context_weight'), []);
    assert.deepEqual(artifact.agent_context, ['AGENTS.md', 'CLAUDE.md', 'docs/conventions.md']);
  });

  it('says when a file is paid for: every session of the agents loading it at start-up, or on demand', async () => {
    const big = `# Rules\n\n${Array.from({ length: 1500 }, (_, i) => `- rule ${i}`).join('\n')}\n`;
    const repo = fixtureRepo({ 'AGENTS.md': big, 'pkg/CLAUDE.md': big });
    const artifact = await scanDir(repo.dir);
    const [root] = signalsOf(artifact, 'AGENTS.md', 'context_weight');
    const [nested] = signalsOf(artifact, 'pkg/CLAUDE.md', 'context_weight');
    const tokens = root!.data!['tokens'];
    assert.equal(
      root!.detail,
      `≈${tokens} tokens loaded at the start of every Codex, Cline, Windsurf session; budget 5000`,
    );
    assert.equal(
      nested!.detail,
      `≈${tokens} tokens loaded on demand (Claude Code: reading files under pkg/), not every session; budget 5000`,
    );
    assert.deepEqual(nested!.data, {
      tokens,
      budget: 5000,
      injection: 'on-demand',
      on_demand_agents: ['claude-code'],
    });
  });
});
