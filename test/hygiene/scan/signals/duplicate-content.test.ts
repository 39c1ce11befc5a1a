import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brief, fixtureRepo, scanDir, signalsOf } from '../helpers.js';

const LONG = (word: string) =>
  `This paragraph about ${word} is long enough to count as a block of duplicated content, ` +
  'because it carries more than two hundred characters once whitespace is normalised, ' +
  'which is the minimum size the scanner uses for verbatim duplicates.';

describe('duplicate_content', () => {
  it('points the copy in the less canonical place at the canonical one', async () => {
    const repo = fixtureRepo({
      'README.md': ['# Readme', '', LONG('setup'), '', LONG('usage'), ''].join('\n'),
      'docs/plans/notes.md': [
        '# Notes',
        '',
        'Intro.',
        '',
        LONG('setup'),
        '',
        LONG('usage'),
        '',
        'Own text.',
        '',
      ].join('\n'),
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'docs/plans/notes.md', 'duplicate_content')), [
      { line: 5, data: { canonical_ref: 'README.md#L3-L5', start_line: 5, end_line: 7 } },
    ]);
    assert.deepEqual(signalsOf(artifact, 'README.md', 'duplicate_content'), []);
  });
});
