import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brief, fixtureRepo, scanDir, signalsOf } from '../helpers.js';

describe('frontmatter_marker', () => {
  it('takes a status line its own paragraph qualifies ("implemented MVP; … remain follow-ups") for an open doc', async () => {
    const repo = fixtureRepo({
      'design/skills.md':
        '# Skills\n\nStatus: implemented MVP; Git-backed sources and R2 write helpers remain\nfollow-ups\n\n## Problem\n',
      'design/actions.md':
        'Status: shipped (Steps 1–6 landed, including the pending-retry lease)\n\n# Actions\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(signalsOf(artifact, 'design/skills.md', 'frontmatter_marker'), []);
    assert.deepEqual(brief(signalsOf(artifact, 'design/actions.md', 'frontmatter_marker')), [
      { line: 1, data: { marker: 'body-status', value: 'shipped' } },
    ]);
  });

  it('reports status, superseded_by and archived frontmatter on their lines', async () => {
    const repo = fixtureRepo({
      'docs/rfc.md': [
        '---',
        'title: RFC',
        'status: Superseded',
        'superseded_by: docs/rfc-2.md',
        '---',
        '# RFC',
        '',
      ].join('\n'),
      'docs/old.md': ['---', 'archived: true', '---', '# Old', ''].join('\n'),
      'docs/live.md': ['---', 'status: draft', '---', '# Live', ''].join('\n'),
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'docs/rfc.md', 'frontmatter_marker')), [
      { line: 3, data: { marker: 'status', value: 'superseded', superseded_by: 'docs/rfc-2.md' } },
      { line: 4, data: { marker: 'superseded_by', value: 'docs/rfc-2.md', superseded_by: 'docs/rfc-2.md' } },
    ]);
    assert.deepEqual(brief(signalsOf(artifact, 'docs/old.md', 'frontmatter_marker')), [
      { line: 2, data: { marker: 'archived', value: 'true' } },
    ]);
    assert.deepEqual(signalsOf(artifact, 'docs/live.md', 'frontmatter_marker'), []);
  });

  it('reports an in-body status line and a fully ticked task list', async () => {
    const repo = fixtureRepo({
      'plan.md': [
        '# Plan',
        '',
        '**Status:** Implemented',
        '',
        '- [x] parse',
        '- [X] render',
        '- [x] ship',
        '',
      ].join('\n'),
      'todo.md': ['# Todo', '', '- [x] parse', '- [ ] render', ''].join('\n'),
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'plan.md', 'frontmatter_marker')), [
      { line: 3, data: { marker: 'body-status', value: 'implemented' } },
      { line: 5, data: { marker: 'tasks-complete', value: '3/3' } },
    ]);
    assert.deepEqual(signalsOf(artifact, 'todo.md', 'frontmatter_marker'), []);
  });

  it('reads a status line only at the top of the doc, never one describing a part deep inside', async () => {
    const repo = fixtureRepo({
      'docs/plan.md': [
        '# Plan', // 1
        '', // 2
        'We choose how to load configuration.', // 3
        '', // 4
        '## Options', // 5
        '', // 6
        '### The legacy flag', // 7
        '', // 8
        'Status: **DEPRECATED**', // 9
        '', // 10
      ].join('\n'),
      'docs/list.md': ['# List', '', '- Status: done for the parser', '- more', ''].join('\n'),
      'docs/done.md': ['# Done', '', 'Status: **Completed**', '', '## Details', ''].join('\n'),
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(signalsOf(artifact, 'docs/plan.md', 'frontmatter_marker'), []);
    assert.deepEqual(signalsOf(artifact, 'docs/list.md', 'frontmatter_marker'), []);
    assert.deepEqual(brief(signalsOf(artifact, 'docs/done.md', 'frontmatter_marker')), [
      { line: 3, data: { marker: 'body-status', value: 'completed' } },
    ]);
  });
});
