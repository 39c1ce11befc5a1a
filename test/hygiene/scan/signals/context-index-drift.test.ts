import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brief, fixtureRepo, scanDir, signalsOf } from '../helpers.js';

describe('context_index_drift', () => {
  it('reports skills and commands an index misses and the ones it names that are gone', async () => {
    const repo = fixtureRepo({
      'CLAUDE.md': [
        '# Claude', // 1
        '', // 2
        '## Skills', // 3
        '', // 4
        '- `release`: cut a release', // 5
        '- `triage`: sort new issues', // 6
        '- `old-skill`: retired last year', // 7
        '', // 8
        '## Commands', // 9
        '', // 10
        '- `npm test` runs the tests', // 11
        '- /review checks a pull request', // 12
        '- /lint runs the linters', // 13
        '- /deploy ships it', // 14
        '',
      ].join('\n'),
      '.claude/skills/release/SKILL.md': '---\nname: release\n---\n',
      '.claude/skills/triage/SKILL.md': '---\nname: triage\n---\n',
      '.claude/skills/bump-deps/SKILL.md': '---\nname: bump-deps\n---\n',
      '.claude/commands/review.md': 'Review.\n',
      '.claude/commands/lint.md': 'Lint.\n',
      '.claude/commands/fmt.md': 'Format.\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'CLAUDE.md', 'context_index_drift')), [
      { line: 7, data: { kind: 'skills', listed: 2, missing: ['bump-deps'], gone: ['old-skill'] } },
      { line: 14, data: { kind: 'commands', listed: 2, missing: ['fmt'], gone: ['deploy'] } },
    ]);
  });
});
