import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brief, fixtureRepo, scanDir, signalsOf } from './helpers.js';

const LONG = (word: string) =>
  `This paragraph about ${word} is long enough to count as a block of duplicated content, ` +
  'because it carries more than two hundred characters once whitespace is normalised, ' +
  'which is the minimum size the scanner uses for verbatim duplicates.';

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

describe('agent context', () => {
  it('follows @imports up to five hops, not into code, and not further', async () => {
    const repo = fixtureRepo({
      'CLAUDE.md': '# Claude\n\n@docs/h1.md\n\n```\n@docs/fenced.md\n```\n',
      'docs/h1.md': '# 1\n\n@h2.md\n',
      'docs/h2.md': '# 2\n\n@h3.md\n',
      'docs/h3.md': '# 3\n\n@h4.md\n',
      'docs/h4.md': '# 4\n\n@h5.md\n',
      'docs/h5.md': '# 5\n\n@h6.md\n',
      'docs/h6.md': '# 6\n',
      'docs/fenced.md': '# Fenced\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(artifact.agent_context, [
      'CLAUDE.md',
      'docs/h1.md',
      'docs/h2.md',
      'docs/h3.md',
      'docs/h4.md',
      'docs/h5.md',
    ]);
  });
});

describe('version_skew', () => {
  it('reports a runtime, project or dependency version that disagrees with package.json', async () => {
    const repo = fixtureRepo({
      'package.json': JSON.stringify({
        name: 'widget',
        version: '2.1.0',
        engines: { node: '>=20.19.0' },
        dependencies: { 'markdown-it': '^14.1.0' },
      }),
      'README.md': [
        '# Widget', // 1
        '', // 2
        'Requires Node.js 18 or later.', // 3
        '', // 4
        'Install with `npm install widget@1.4.0`.', // 5
        '', // 6
        'Uses markdown-it@13 for parsing and runs on Node 22.', // 7
        '',
      ].join('\n'),
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'README.md', 'version_skew')), [
      {
        line: 3,
        data: {
          subject: 'node',
          stated: '18',
          actual: '>=20.19.0',
          manifest: 'package.json',
          match: 'Node.js 18',
        },
      },
      {
        line: 5,
        data: {
          subject: 'widget',
          stated: '1.4.0',
          actual: '2.1.0',
          manifest: 'package.json',
          match: 'widget@1.4.0',
        },
      },
      {
        line: 7,
        data: {
          subject: 'markdown-it',
          stated: '13',
          actual: '^14.1.0',
          manifest: 'package.json',
          match: 'markdown-it@13',
        },
      },
    ]);
  });
});

describe('edit_recency_vs_churn', () => {
  it('fires when the code a doc references changed many times since the doc', async () => {
    const repo = fixtureRepo({
      'docs/engine.md': '# Engine\n\nThe engine lives in [engine.ts](../src/engine.ts).\n',
      'src/engine.ts': 'export const v = 0;\n',
    });
    for (let i = 1; i <= 10; i++) repo.commit(`engine ${i}`, { 'src/engine.ts': `export const v = ${i};\n` });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'docs/engine.md', 'edit_recency_vs_churn')), [
      {
        line: undefined,
        data: {
          last_commit: '2026-01-01T00:00:00Z',
          commits_since: 10,
          lines_churned: 20,
          referenced_paths: ['src/engine.ts'],
        },
      },
    ]);
  });
});

describe('stale_name_location', () => {
  it('reports plan folders, dates, drafts, old names and older versions, with inbound references', async () => {
    const repo = fixtureRepo({
      'README.md': '# Readme\n\nSee [the roadmap](docs/plans/roadmap.md).\n',
      'docs/plans/roadmap.md': '# Roadmap\n',
      'docs/notes-2024-03-15.md': '# Notes\n',
      'docs/api-draft.md': '# API draft\n',
      'docs/old-setup.md': '# Old setup\n',
      'docs/design-v1.md': '# Design 1\n',
      'docs/design-v2.md': '# Design 2\n',
    });
    const artifact = await scanDir(repo.dir);
    const reasons = (path: string) => brief(signalsOf(artifact, path, 'stale_name_location'));
    assert.deepEqual(reasons('docs/plans/roadmap.md'), [
      { line: undefined, data: { reason: 'location', folder: 'docs/plans', inbound_references: 1 } },
    ]);
    assert.deepEqual(reasons('docs/notes-2024-03-15.md'), [
      { line: undefined, data: { reason: 'date-in-name', inbound_references: 0 } },
    ]);
    assert.deepEqual(reasons('docs/api-draft.md'), [
      { line: undefined, data: { reason: 'draft', inbound_references: 0 } },
    ]);
    assert.deepEqual(reasons('docs/old-setup.md'), [
      { line: undefined, data: { reason: 'old', inbound_references: 0 } },
    ]);
    assert.deepEqual(reasons('docs/design-v1.md'), [
      {
        line: undefined,
        data: { reason: 'older-version', newer_sibling: 'docs/design-v2.md', inbound_references: 0 },
      },
    ]);
    assert.deepEqual(reasons('docs/design-v2.md'), []);
    assert.deepEqual(reasons('README.md'), []);
  });
});

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

describe('frontmatter_marker', () => {
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
});

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

describe('context_weight', () => {
  it('reports agent-context files and their imports over the token budget', async () => {
    const big = (label: string) =>
      `# ${label}\n\n${Array.from({ length: 600 }, (_, i) => `- rule ${i} about ${label}`).join('\n')}\n`;
    const repo = fixtureRepo({
      'AGENTS.md': big('agents'),
      'CLAUDE.md': '# Claude\n\nSee @docs/conventions.md\n',
      'docs/conventions.md': big('conventions'),
      'docs/other.md': big('other'),
    });
    const artifact = await scanDir(repo.dir);
    const agents = signalsOf(artifact, 'AGENTS.md', 'context_weight');
    assert.equal(agents.length, 1);
    assert.equal((agents[0]!.data as { injection: string }).injection, 'always');
    assert.ok((agents[0]!.data as { tokens: number }).tokens > 2000);
    const conventions = signalsOf(artifact, 'docs/conventions.md', 'context_weight');
    assert.equal(conventions.length, 1);
    assert.deepEqual(
      { ...(conventions[0]!.data as object), tokens: 0 },
      { tokens: 0, budget: 2000, injection: 'imported', imported_by: 'CLAUDE.md' },
    );
    assert.deepEqual(signalsOf(artifact, 'CLAUDE.md', 'context_weight'), []);
    assert.deepEqual(signalsOf(artifact, 'docs/other.md', 'context_weight'), []);
    assert.deepEqual(artifact.agent_context, ['AGENTS.md', 'CLAUDE.md', 'docs/conventions.md']);
  });
});
