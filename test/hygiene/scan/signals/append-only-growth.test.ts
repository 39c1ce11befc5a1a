import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brief, fixtureRepo, scanDir, signalsOf } from '../helpers.js';

describe('append_only_growth', () => {
  it('fires on a non-log doc grown only by appends over several commits', async () => {
    const repo = fixtureRepo({ 'NOTES.md': '# Notes\n' });
    let text = '# Notes\n';
    for (let i = 1; i <= 5; i++) {
      for (let l = 0; l < 45; l++) text += `- note ${i}.${l}\n`;
      repo.commit(`notes ${i}`, { 'NOTES.md': text });
    }
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'NOTES.md', 'append_only_growth')), [
      { line: undefined, data: { commits: 6, appended_ratio: 1, lines: 226 } },
    ]);
  });

  it('counts lines inserted anywhere (newest first) as growth, and not an edit that removes a line', async () => {
    const repo = fixtureRepo({ 'news/TOP.md': '# Top\n', 'EDITED.md': '# Edited\n' });
    let top: string[] = [];
    let edited = '# Edited\n';
    for (let i = 1; i <= 5; i++) {
      top = [...Array.from({ length: 45 }, (_, l) => `- entry ${i}.${l}`), ...top];
      for (let l = 0; l < 45; l++) edited += `- item ${i}.${l}\n`;
      if (i % 2 === 0) edited = edited.replace(`- item ${i - 1}.0\n`, `- item ${i - 1}.0 (changed)\n`);
      repo.commit(`entries ${i}`, { 'news/TOP.md': `# Top\n${top.join('\n')}\n`, 'EDITED.md': edited });
    }
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'news/TOP.md', 'append_only_growth')), [
      { line: undefined, data: { commits: 6, appended_ratio: 1, lines: 226 } },
    ]);
    // Two of six commits changed a line: 4/6 is below the ratio.
    assert.deepEqual(signalsOf(artifact, 'EDITED.md', 'append_only_growth'), []);
  });
});
