import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeRepo } from '../../../helpers/git-repo.js';
import { brief, removeLater, scanDir, signalsOf } from '../helpers.js';

const AGENTS = [
  '# Agents', // 1
  '', // 2
  // A negation in another sentence of the line does not unsay the claim.
  'Docs are built with MkDocs only: `mkdocs serve` to preview. Use tabs instead of spaces.', // 3
  'Tests run with Jest (`npx jest`).', // 4
  'Lint with ESLint.', // 5
  'We migrated from Yarn to npm.', // 6
  '',
].join('\n');

describe('dropped_tool_claim', () => {
  it('reports a tool the repository dropped (a config deleted, a dependency removed), not one still in use or named as gone', async () => {
    const repo = removeLater(makeRepo({ initialCommit: false }));
    const first = repo.commit('tools', {
      'AGENTS.md': AGENTS,
      'mkdocs.yml': 'site_name: x\n',
      'yarn.lock': '# yarn\n',
      'package.json': '{ "devDependencies": { "jest": "^29.0.0", "eslint": "^9.0.0" } }\n',
      'eslint.config.js': 'export default [];\n',
    });
    const removedMkdocs = repo.remove('docs move to the wiki', ['mkdocs.yml', 'yarn.lock']);
    const removedJest = repo.commit('vitest', {
      'package.json': '{ "devDependencies": { "vitest": "^3.0.0", "eslint": "^9.0.0" } }\n',
    });
    assert.notEqual(first, removedJest);
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'AGENTS.md', 'dropped_tool_claim')), [
      {
        line: 3,
        data: {
          tool: 'mkdocs',
          lines: [3],
          removal: {
            kind: 'deleted',
            path: 'mkdocs.yml',
            commit: removedMkdocs.slice(0, 12),
            date: '2026-01-01T00:01:00Z',
          },
        },
      },
      {
        line: 4,
        data: {
          tool: 'jest',
          lines: [4],
          removal: {
            kind: 'dependency-removed',
            path: '"jest"',
            commit: removedJest.slice(0, 12),
            date: '2026-01-01T00:02:00Z',
          },
        },
      },
    ]);
    const [mkdocs] = signalsOf(artifact, 'AGENTS.md', 'dropped_tool_claim');
    assert.match(mkdocs!.detail, /names MkDocs \(line 3\), but the repository has no MkDocs config/);
  });

  it('reports nothing for a tool named but never used here', async () => {
    const repo = removeLater(makeRepo({ initialCommit: false }));
    repo.commit('tools', { 'AGENTS.md': AGENTS, 'package.json': '{}\n' });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(signalsOf(artifact, 'AGENTS.md', 'dropped_tool_claim'), []);
  });
});
