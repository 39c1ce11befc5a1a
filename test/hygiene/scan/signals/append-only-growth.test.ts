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
});
