import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixtureRepo, scanDir } from './helpers.js';

describe('agent context', () => {
  it('follows @imports up to five hops, not into code, and not further', async () => {
    const repo = fixtureRepo({
      'CLAUDE.md': '# Claude\n\n@docs/h1.md\n\n```\n@docs/fenced.md\n```\n',
      'docs/h1.md': '# 1\n\n@h2.md\n',
      'docs/h2.md': '# 2\n\n@h3.md\n',
      'docs/h3.md': '# 3\n\n@h4.md\n',
      'docs/h4.md': '# 4\n\n@h5.md\n',
      'docs/h5.md': '# 5\n\n@h6.md\n',
      'docs/h6.md': '# 6\n',
      'docs/fenced.md': '# Fenced\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(artifact.agent_context, [
      'CLAUDE.md',
      'docs/h1.md',
      'docs/h2.md',
      'docs/h3.md',
      'docs/h4.md',
      'docs/h5.md',
    ]);
  });
});
