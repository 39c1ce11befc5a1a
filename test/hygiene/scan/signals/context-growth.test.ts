import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { growthTrend } from '../../../../src/hygiene/scan/signals/context-growth.js';
import { makeRepo } from '../../../helpers/git-repo.js';
import { brief, removeLater, scanDir, signalsOf } from '../helpers.js';

const rules = (n: number, label = 'rule') =>
  Array.from({ length: n }, (_, i) => `- ${label} ${i}`).join('\n');

describe('context_growth', () => {
  it('reports a context file that keeps growing by additions, under the append-only cut-off', async () => {
    const repo = removeLater(makeRepo({ initialCommit: false }));
    let body = `# Agents\n\n${rules(60)}\n`;
    repo.commit('start', { 'AGENTS.md': body, 'docs/guide.md': `# Guide\n\n${rules(60)}\n` });
    // Five commits that add 12 lines each and one that rewrites a line: 5 of 6 add (83%),
    // yet the file stays under append_only_growth's 200 lines.
    for (let i = 1; i <= 6; i++) {
      body = i === 3 ? body.replace('- rule 0', '- rule zero') : `${body}${rules(12, `note ${i}`)}\n`;
      repo.commit(`grow ${i}`, { 'AGENTS.md': body, 'docs/guide.md': `# Guide\n\n${rules(60 + i * 12)}\n` });
    }
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'AGENTS.md', 'context_growth')), [
      { line: undefined, data: { commits: 6, rising: 5, falling: 0, lines_before: 62, lines_now: 122 } },
    ]);
    assert.deepEqual(signalsOf(artifact, 'AGENTS.md', 'append_only_growth'), []);
    // The same growth in a doc no agent loads is not context growth.
    assert.deepEqual(signalsOf(artifact, 'docs/guide.md', 'context_growth'), []);
  });

  it('is a trend: growth with cuts, or a file that only fills up as it is first written, is not', () => {
    assert.deepEqual(growthTrend([60, 72, 84, 96, 108, 120, 132]), {
      commits: 6,
      rising: 6,
      falling: 0,
      lines_before: 60,
      lines_now: 132,
    });
    assert.equal(growthTrend([60, 90, 40, 80, 50, 100, 130]), undefined); // cut back hard
    assert.equal(growthTrend([60, 62, 64, 66, 68, 70, 72]), undefined); // grew by too little
    assert.equal(growthTrend([10, 60, 120]), undefined); // too few commits
  });
});
