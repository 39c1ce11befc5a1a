import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brief, fixtureRepo, scanDir, signalsOf } from '../helpers.js';

describe('archive_to_live_ratio', () => {
  it('fires when a folder holds more archived than live docs, or a doc links mostly into archives', async () => {
    const repo = fixtureRepo({
      'notes/current.md': '# Current\n',
      'notes/archive/2023.md': '# 2023\n',
      'notes/archive/2024.md': '# 2024\n',
      'guide/index.md':
        '# Index\n\n- [a](../notes/archive/2023.md)\n- [b](../notes/archive/2024.md)\n- [c](intro.md)\n',
      'guide/intro.md': '# Intro\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'notes/current.md', 'archive_to_live_ratio')), [
      { line: undefined, data: { archived: 2, live: 1 } },
    ]);
    assert.deepEqual(brief(signalsOf(artifact, 'guide/index.md', 'archive_to_live_ratio')), [
      { line: undefined, data: { archived: 0, live: 2, links_to_archive: 2, links_total: 3 } },
    ]);
    assert.deepEqual(brief(signalsOf(artifact, 'guide/intro.md', 'archive_to_live_ratio')), []);
  });
});
