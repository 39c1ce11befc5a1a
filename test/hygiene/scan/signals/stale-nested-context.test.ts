import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STALE_NESTED } from '../../../../src/hygiene/scan/signals/stale-nested-context.js';
import { makeRepo } from '../../../helpers/git-repo.js';
import { brief, removeLater, scanDir, signalsOf } from '../helpers.js';

describe('stale_nested_context', () => {
  it('reports a nested context file written once while its package took many commits, not one kept up alongside', async () => {
    const repo = removeLater(makeRepo({ initialCommit: false }));
    repo.commit('packages', {
      'AGENTS.md': '# Agents\n',
      'packages/core/AGENTS.md': '# Core\n\nRun the core tests.\n',
      'packages/core/src/index.ts': 'export const v = 0;\n',
      'packages/cli/GEMINI.md': '# CLI\n\nRun the CLI tests.\n',
      'packages/cli/src/index.ts': 'export const v = 0;\n',
    });
    for (let i = 1; i <= STALE_NESTED.minCommitsSince; i++)
      repo.commit(`core ${i}`, { 'packages/core/src/index.ts': `export const v = ${i};\n` });
    // The CLI package's file is kept up along with its code.
    for (let i = 1; i <= 5; i++) {
      repo.commit(`cli ${i}`, {
        'packages/cli/src/index.ts': `export const v = ${i};\n`,
        ...(i % 2 === 1 ? { 'packages/cli/GEMINI.md': `# CLI\n\nRun the CLI tests (${i}).\n` } : {}),
      });
    }
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'packages/core/AGENTS.md', 'stale_nested_context')), [
      {
        line: 1,
        data: {
          folder: 'packages/core/',
          last_commit: '2026-01-01T00:00:00Z',
          commits_since: STALE_NESTED.minCommitsSince,
          own_commits: 1,
        },
      },
    ]);
    assert.deepEqual(signalsOf(artifact, 'packages/cli/GEMINI.md', 'stale_nested_context'), []);
    assert.deepEqual(signalsOf(artifact, 'AGENTS.md', 'stale_nested_context'), []);
  });
});
