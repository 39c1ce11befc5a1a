import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sessionNoteKind } from '../../../../src/hygiene/scan/signals/session-notes.js';
import { brief, fixtureRepo, scanDir, signalsOf } from '../helpers.js';

describe('session_notes', () => {
  it('reports dated entries, progress logs, first-person and hand-off notes per section of a context file', async () => {
    const repo = fixtureRepo({
      'AGENTS.md': [
        '# Agents', // 1
        '', // 2
        'Run `npm test` before pushing.', // 3
        '', // 4
        '## Progress log', // 5
        '', // 6
        '- 2025-03-04: moved the parser to its own module', // 7
        '- 2025-03-05: half of the tests pass', // 8
        '', // 9
        '## Notes', // 10
        '', // 11
        'Today we refactored the cache; it is faster now.', // 12
        'Hand-off notes: the flaky test is still open.', // 13
        '', // 14
        '```', // 15
        '- 2025-03-06: inside code, not a note', // 16
        '```', // 17
        '',
      ].join('\n'),
      'docs/log.md': '# Log\n\n- 2025-03-04: a doc no agent loads is not context\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'AGENTS.md', 'session_notes')), [
      {
        line: 5,
        data: { kinds: ['dated-entry', 'progress-log'], lines: [5, 7, 8], start_line: 5, end_line: 8 },
      },
      {
        line: 12,
        data: { kinds: ['first-person', 'hand-off'], lines: [12, 13], start_line: 10, end_line: 17 },
      },
    ]);
    assert.deepEqual(signalsOf(artifact, 'docs/log.md', 'session_notes'), []);
  });

  it('leaves durable wording alone: handoffs as a product term, decisions, plain dates in prose', () => {
    for (const line of [
      'Agents can hand work to each other with handoffs.',
      'We decided to keep the lower version bound.',
      'The 2024-01-01 format is ISO 8601.',
      '## Release process',
    ])
      assert.equal(sessionNoteKind(line), undefined, line);
  });

  it('a quotation is not the file\'s own note: "I discovered it mid-change" quoted as a hypothetical (jesseduffield/lazygit)', async () => {
    const repo = fixtureRepo({
      'AGENTS.md': [
        '# Agents', // 1
        '', // 2
        '## Commits', // 3
        '', // 4
        'Split refactors out of behaviour changes. Don\'t let "I discovered it mid-change"', // 5
        'excuse bundling it in, nor “we just fixed it in passing”.', // 6
        '', // 7
        '## Notes', // 8
        '', // 9
        'We discovered the "cache" bug in the parser.', // 10
        '',
      ].join('\n'),
    });
    const artifact = await scanDir(repo.dir);
    // The file's own first-person line is still a note, quoted words in it notwithstanding.
    assert.deepEqual(brief(signalsOf(artifact, 'AGENTS.md', 'session_notes')), [
      {
        line: 10,
        data: { kinds: ['first-person'], lines: [10], start_line: 8, end_line: 10 },
      },
    ]);
  });
});
