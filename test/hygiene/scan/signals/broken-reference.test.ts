import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brief, fixtureRepo, scanDir, signalsOf } from '../helpers.js';

describe('broken_reference', () => {
  it('reports inline links, images, definitions, HTML href/src and fragments with their lines', async () => {
    const repo = fixtureRepo({
      'docs/guide.md': [
        '# Guide', // 1
        '', // 2
        'See [setup](setup.md), [gone](gone.md) and ![shot](img/shot.png).', // 3
        '', // 4
        'A [reference link][ref] and <a href="html-gone.md">html</a>.', // 5
        '', // 6
        '<img src="img/missing.png">', // 7
        '', // 8
        '## Install steps', // 9
        '', // 10
        'Jump to [steps](#install-steps), [nowhere](#nowhere), [other](setup.md#usage), [bad](setup.md#nope).', // 11
        '', // 12
        '[ref]: ./ref-gone.md', // 13
        '', // 14
        'External [site](https://example.com/x.md) and [mail](mailto:a@b.c) are not checked.', // 15
        '',
      ].join('\n'),
      'docs/setup.md': '# Setup\n\n## Usage\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'docs/guide.md', 'broken_reference')), [
      { line: 3, data: { target: 'gone.md', kind: 'link' } },
      { line: 3, data: { target: 'img/shot.png', kind: 'image' } },
      { line: 5, data: { target: 'html-gone.md', kind: 'html' } },
      { line: 7, data: { target: 'img/missing.png', kind: 'html' } },
      { line: 11, data: { target: '#nowhere', kind: 'fragment' } },
      { line: 11, data: { target: 'setup.md#nope', kind: 'fragment' } },
      { line: 13, data: { target: './ref-gone.md', kind: 'definition' } },
    ]);
    assert.equal(artifact.signals['docs/setup.md'], undefined);
  });

  it('does not report links inside fenced code blocks or inline code', async () => {
    const repo = fixtureRepo({
      'README.md': [
        '# Readme',
        '',
        '```markdown',
        '[broken](nowhere.md)',
        '![img](missing.png)',
        '```',
        '',
        '    [indented](nowhere-indented.md)',
        '',
        'Inline `[x](nowhere-inline.md)` is code too.',
        '',
      ].join('\n'),
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(artifact.signals, {});
  });

  it('suggests the new location of a renamed file from git history, written like the original', async () => {
    const repo = fixtureRepo({
      'docs/index.md': '# Index\n\nRead [the guide](./guide/old-name.md#setup) first.\n',
      'docs/guide/old-name.md': '# Old\n\n## Setup\n',
    });
    repo.move('rename', 'docs/guide/old-name.md', 'docs/manual/new-name.md');
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'docs/index.md', 'broken_reference')), [
      {
        line: 3,
        data: {
          target: './guide/old-name.md#setup',
          kind: 'link',
          suggested_target: './manual/new-name.md#setup',
          suggested_path: 'docs/manual/new-name.md',
          suggested_by: 'rename-history',
        },
      },
    ]);
  });

  it('checks links in GFM table cells: a moved target is reported on its row with a suggestion', async () => {
    const repo = fixtureRepo({
      'docs/index.md': [
        '# Index', // 1
        '', // 2
        '| Topic | Doc |', // 3
        '| ----- | --- |', // 4
        '| ok | [guide](guide.md) |', // 5
        '| x | [l](api.md) |', // 6
        '', // 7
        'See [ref][api].', // 8
        '', // 9
        '[api]: api.md', // 10
        '',
      ].join('\n'),
      'docs/guide.md': '# Guide\n',
      'docs/api.md': '# API\n',
    });
    repo.move('move', 'docs/api.md', 'docs/reference/api.md');
    const artifact = await scanDir(repo.dir);
    const moved = {
      kind: 'link',
      suggested_target: 'reference/api.md',
      suggested_path: 'docs/reference/api.md',
      suggested_by: 'rename-history',
    };
    assert.deepEqual(brief(signalsOf(artifact, 'docs/index.md', 'broken_reference')), [
      { line: 6, data: { target: 'api.md', ...moved } },
      { line: 10, data: { target: 'api.md', ...moved, kind: 'definition' } },
    ]);
  });

  it('suggests a unique file with the same name when history has no rename', async () => {
    const repo = fixtureRepo({
      'docs/index.md': '# Index\n\nSee [the API](api-reference.md).\n',
      'reference/api-reference.md': '# API\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'docs/index.md', 'broken_reference')), [
      {
        line: 3,
        data: {
          target: 'api-reference.md',
          kind: 'link',
          suggested_target: '../reference/api-reference.md',
          suggested_path: 'reference/api-reference.md',
          suggested_by: 'unique-name',
        },
      },
    ]);
  });

  it('checks @imports of agent-context files and backticked repo paths', async () => {
    const repo = fixtureRepo({
      'CLAUDE.md': [
        '# Rules',
        '',
        'Follow @docs/style.md and @docs/gone.md.',
        '',
        'Code: `@docs/in-code.md`',
        '',
      ].join('\n'),
      'docs/style.md': '# Style\n\nThe entry point is `src/main.ts`; the old one was `src/legacy.ts`.\n',
      'src/main.ts': 'export {};\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'CLAUDE.md', 'broken_reference')), [
      { line: 3, data: { target: 'docs/gone.md', kind: 'import' } },
    ]);
    assert.deepEqual(brief(signalsOf(artifact, 'docs/style.md', 'broken_reference')), [
      { line: 3, data: { target: 'src/legacy.ts', kind: 'code-path' } },
    ]);
    assert.deepEqual(artifact.agent_context, ['CLAUDE.md', 'docs/style.md']);
  });
});
