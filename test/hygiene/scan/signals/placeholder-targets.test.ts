import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brief, fixtureRepo, scanDir, signalsOf } from '../helpers.js';

describe('broken_reference: placeholders are not paths', () => {
  it('leaves a $VARIABLE a bot fills in and the word URL in a syntax example alone, not a file named like one', async () => {
    const repo = fixtureRepo({
      '.github/first-timers-issue-template.md': `Edit [the file]($BRANCH_URL) or [this](\${BASE}/x.md).\n`,
      'TRANSLATING.md':
        '# Translating\n\n- [ ] Keep links ([link text](URL)) working.\n- [ ] Read [LICENSE](LICENSE) and [gone](URLS.md).\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(
      brief(signalsOf(artifact, '.github/first-timers-issue-template.md', 'broken_reference')),
      [],
    );
    assert.deepEqual(brief(signalsOf(artifact, 'TRANSLATING.md', 'broken_reference')), [
      { line: 4, data: { target: 'LICENSE', kind: 'link', broken_on: ['github'] } },
      { line: 4, data: { target: 'URLS.md', kind: 'link', broken_on: ['github'] } },
    ]);
  });
});
