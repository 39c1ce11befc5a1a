import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brief, fixtureRepo, referencesOf, scanDir, signalsOf } from '../helpers.js';

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
    assert.deepEqual(brief(referencesOf(artifact, 'docs/guide.md')), [
      { line: 3, data: { target: 'gone.md', kind: 'link', broken_on: ['github'] } },
      { line: 3, data: { target: 'img/shot.png', kind: 'image', broken_on: ['github'] } },
      { line: 5, data: { target: 'html-gone.md', kind: 'html', broken_on: ['github'] } },
      { line: 7, data: { target: 'img/missing.png', kind: 'html', broken_on: ['github'] } },
      { line: 11, data: { target: '#nowhere', kind: 'fragment', broken_on: ['github'] } },
      { line: 11, data: { target: 'setup.md#nope', kind: 'fragment', broken_on: ['github'] } },
      { line: 13, data: { target: './ref-gone.md', kind: 'definition', broken_on: ['github'] } },
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
    assert.deepEqual(brief(referencesOf(artifact, 'docs/index.md')), [
      {
        line: 3,
        data: {
          target: './guide/old-name.md#setup',
          kind: 'link',
          broken_on: ['github'],
          suggested_target: './manual/new-name.md#setup',
          suggested_path: 'docs/manual/new-name.md',
          suggested_by: 'rename-history',
          written_before_move: true,
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
      broken_on: ['github'],
      suggested_target: 'reference/api.md',
      suggested_path: 'docs/reference/api.md',
      suggested_by: 'rename-history',
      written_before_move: true,
    };
    assert.deepEqual(brief(referencesOf(artifact, 'docs/index.md')), [
      { line: 6, data: { target: 'api.md', ...moved } },
      { line: 10, data: { target: 'api.md', ...moved, kind: 'definition', broken_on: ['github'] } },
    ]);
  });

  it('suggests a unique file with the same name when history has no rename', async () => {
    const repo = fixtureRepo({
      'docs/index.md': '# Index\n\nSee [the API](api-reference.md).\n',
      'reference/api-reference.md': '# API\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(referencesOf(artifact, 'docs/index.md')), [
      {
        line: 3,
        data: {
          target: 'api-reference.md',
          kind: 'link',
          broken_on: ['github'],
          suggested_target: '../reference/api-reference.md',
          suggested_path: 'reference/api-reference.md',
          suggested_by: 'unique-name',
          suggestion_match: 'name-only',
        },
      },
    ]);
  });

  it('says how far the paths prove a same-named suggestion: case-only, path-suffix, name-only', async () => {
    const repo = fixtureRepo({
      'docs/index.md': [
        '# Index',
        '',
        'See [charter](CHARTER.md).', // 3: charter.md beside it
        '',
        'See [sig](community/sig-x/README.md).', // 5: sig-x/README.md is the one such file
        '',
        'See [image](../assets/eip-1/image.png).', // 7: only the name matches
        '',
      ].join('\n'),
      'docs/charter.md': '# Charter\n',
      'docs/sig-x/README.md': '# SIG X\n',
      'README.md': '# Root\n',
      'assets/eip-7885/image.png': 'png',
    });
    const artifact = await scanDir(repo.dir);
    const matches = referencesOf(artifact, 'docs/index.md').map((s) => [
      s.line,
      s.data?.['suggested_path'],
      s.data?.['suggestion_match'],
    ]);
    assert.deepEqual(matches, [
      [3, 'docs/charter.md', 'case-only'],
      [5, 'docs/sig-x/README.md', 'path-suffix'],
      [7, 'assets/eip-7885/image.png', 'name-only'],
    ]);
  });

  it('does not report a target git ignores: a build output is missing until the build runs', async () => {
    const repo = fixtureRepo({
      '.gitignore': '/docs/reference/cli.md\n',
      'docs/guide.md': '# Guide\n\nSee [the CLI](reference/cli.md#uv-run) and [gone](reference/gone.md).\n',
      'docs/reference/index.md': '# Reference\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(referencesOf(artifact, 'docs/guide.md')), [
      { line: 3, data: { target: 'reference/gone.md', kind: 'link', broken_on: ['github'] } },
    ]);
  });

  describe('a translation that mkdocs-static-i18n builds with fallback (docs_structure: folder)', () => {
    const mkdocs = (i18n: string) =>
      [
        'site_name: Demo',
        'markdown_extensions:',
        '  - pymdownx.emoji:',
        '      emoji_index: !!python/name:material.extensions.emoji.twemoji',
        'plugins:',
        '  - search',
        '  - i18n:',
        i18n,
        '      languages:',
        '        - locale: en',
        '          default: true',
        '        - locale: ja',
        '        - locale: ko',
        '          build: false',
        '',
      ].join('\n');
    const translated = [
      '# エージェント', // 1
      '', // 2
      '[ライフサイクル](ref/lifecycle.md#hooks) と ![図](assets/flow.png)。', // 3
      '', // 4
      '[消えた](ref/gone.md) と [見出し](ref/lifecycle.md#nope)。', // 5
      '',
    ].join('\n');
    const files = (i18n: string) => ({
      'mkdocs.yml': mkdocs(i18n),
      'docs/agents.md': '# Agents\n\nSee [lifecycle](ref/lifecycle.md#hooks).\n',
      'docs/ref/lifecycle.md': '# Lifecycle\n\n## Hooks\n',
      'docs/assets/flow.png': 'png',
      'docs/ja/agents.md': translated,
      'docs/ko/agents.md': translated,
    });

    it('reports only what the default language lacks too, where the translation falls back', async () => {
      const repo = fixtureRepo(files('      docs_structure: folder'));
      const artifact = await scanDir(repo.dir);
      // ja falls back to docs/: its first two links work on the site; the last two are broken there too.
      assert.deepEqual(
        referencesOf(artifact, 'docs/ja/agents.md').map((s) => [s.line, s.data?.['target']]),
        [
          [5, 'ref/gone.md'],
          [5, 'ref/lifecycle.md#nope'],
        ],
      );
      // ko is not built: its pages are read where they are, on GitHub.
      assert.deepEqual(
        referencesOf(artifact, 'docs/ko/agents.md').map((s) => [s.line, s.data?.['target']]),
        [
          [3, 'ref/lifecycle.md#hooks'],
          [3, 'assets/flow.png'],
          [5, 'ref/gone.md'],
          [5, 'ref/lifecycle.md#nope'],
        ],
      );
    });

    it('falls back to nothing for the suffix structure, with fallback_to_default off, or where a setting is not plain', async () => {
      for (const i18n of [
        '      docs_structure: suffix',
        '      docs_structure: folder\n      fallback_to_default: false',
        // The site's value is the environment's: the link may well be broken there.
        '      docs_structure: folder\n      fallback_to_default: !ENV [I18N_FALLBACK, false]',
        '      enabled: !ENV [I18N, false]\n      docs_structure: folder',
      ]) {
        const artifact = await scanDir(fixtureRepo(files(i18n)).dir);
        assert.equal(referencesOf(artifact, 'docs/ja/agents.md').length, 4, i18n);
      }
    });
    it('checks a fragment in the file the site finds first, and never outside the docs folder', async () => {
      const repo = fixtureRepo({
        ...files('      docs_structure: folder'),
        'README.md': '# Demo\n',
        'docs/ref/lifecycle.md': '# Lifecycle\n\n## Hooks\n',
        'docs/ja/ref/lifecycle.md': '# ライフサイクル\n\n## フック\n',
        'docs/ja/ref/only.md': '# だけ\n',
        'docs/ja/agents.md': [
          '# エージェント', // 1
          '', // 2
          '## 概要', // 3
          '', // 4
          '[フック](ref/lifecycle.md#hooks)', // 5: docs/ja/ref/lifecycle.md is the page, and it has no #hooks
          '', // 6
          '[概要](#overview)', // 7: this page's own anchors, not docs/agents.md's
          '', // 8
          '[読んで](../README.md)', // 9: docs/README.md; README.md lies outside the docs folder
          '', // 10
          '[だけ](../ref/only.md)', // 11: the site tries docs/ja/ref/only.md first
          '',
        ].join('\n'),
        'docs/agents.md': '# Agents\n\n## Overview\n\nSee [lifecycle](ref/lifecycle.md#hooks).\n',
      });
      const artifact = await scanDir(repo.dir);
      assert.deepEqual(
        referencesOf(artifact, 'docs/ja/agents.md').map((s) => [s.line, s.data?.['target']]),
        [
          [5, 'ref/lifecycle.md#hooks'],
          [7, '#overview'],
          [9, '../README.md'],
        ],
      );
    });

    it("takes a heading's {#id} for its anchor on the site where attr_list is on", async () => {
      const page = '# ライフサイクル\n\n## フック {#hooks}\n';
      const ja = '# エージェント\n\n[フック](ref/lifecycle.md#hooks)\n';
      const layout = (extensions: string) => ({
        ...files('      docs_structure: folder'),
        'mkdocs.yml': mkdocs('      docs_structure: folder').replace(
          'markdown_extensions:\n',
          `markdown_extensions:\n${extensions}`,
        ),
        'docs/ja/ref/lifecycle.md': page,
        'docs/ja/agents.md': ja,
      });
      const on = await scanDir(fixtureRepo(layout('  - attr_list\n')).dir);
      assert.deepEqual(referencesOf(on, 'docs/ja/agents.md'), []);
      const off = await scanDir(fixtureRepo(layout('')).dir);
      assert.deepEqual(
        referencesOf(off, 'docs/ja/agents.md').map((s) => s.data?.['target']),
        ['ref/lifecycle.md#hooks'],
      );
    });

    it('reads fallback_to_default from the plugin, not from a language (the plugin has no such language option)', async () => {
      const config = mkdocs('      docs_structure: folder').replace(
        '        - locale: ja\n',
        '        - locale: ja\n          fallback_to_default: false\n',
      );
      const artifact = await scanDir(fixtureRepo({ ...files(''), 'mkdocs.yml': config }).dir);
      assert.deepEqual(
        referencesOf(artifact, 'docs/ja/agents.md').map((s) => s.data?.['target']),
        ['ref/gone.md', 'ref/lifecycle.md#nope'],
      );
    });
  });

  it('gives a backticked path matched by name only no suggestion (a placeholder, not a move)', async () => {
    const repo = fixtureRepo({
      'EIPS/eip-1.md': '# EIP-1\n\nUse relative links such as `../assets/eip-1/image.png`.\n',
      'assets/eip-7885/image.png': 'png',
      'assets/eip-1/diagram.svg': 'svg',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(referencesOf(artifact, 'EIPS/eip-1.md')), [
      {
        line: 3,
        data: {
          target: '../assets/eip-1/image.png',
          kind: 'code-path',
          broken_on: ['github'],
          evidence: 'parent-folder',
        },
      },
    ]);
  });

  it('suggests no same-named file for a target history shows was deleted, not moved', async () => {
    // Two different docs shared a name; one was removed on purpose. The other is not where it went.
    const repo = fixtureRepo({
      'mentoring/meet.md': '# Meet\n\nSee office hours [here][oh].\n\n[oh]: /events/office-hours.md\n',
      'events/office-hours.md': '# Office hours (the event)\n',
      'mentoring/programs/office-hours.md': '# Office hours of the SIGs\n',
    });
    repo.remove('remove the office hours event', ['events/office-hours.md']);
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(referencesOf(artifact, 'mentoring/meet.md')), [
      { line: 5, data: { target: '/events/office-hours.md', kind: 'definition', broken_on: ['github'] } },
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
    assert.deepEqual(brief(referencesOf(artifact, 'CLAUDE.md')), [
      { line: 3, data: { target: 'docs/gone.md', kind: 'import', broken_on: ['github'] } },
    ]);
    assert.deepEqual(brief(referencesOf(artifact, 'docs/style.md')), [
      {
        line: 3,
        data: {
          target: 'src/legacy.ts',
          kind: 'code-path',
          broken_on: ['github'],
          evidence: 'agent-context',
        },
      },
    ]);
    assert.deepEqual(artifact.agent_context, ['CLAUDE.md', 'docs/style.md']);
  });

  it('an npm scope is not an @import: not in bold (Claude Code reads `@` at a line start or after a space), nor a package name (eyaltoledano/claude-task-master)', async () => {
    const repo = fixtureRepo({
      'CLAUDE.md': [
        '# Rules', // 1
        '', // 2
        '- **@tm/core**: mock only external I/O.', // 3
        '- Use @tm/cli for the commands.', // 4
        '- Follow @docs/gone.md and @packages/gone.', // 5
        '', // 6
      ].join('\n'),
      'packages/tm-core/README.md': '# core\n',
    });
    const artifact = await scanDir(repo.dir);
    // `packages/` is a folder here: `@packages/gone` names a path, and is still checked.
    assert.deepEqual(
      signalsOf(artifact, 'CLAUDE.md', 'broken_reference').map((s) => [s.line, s.data?.['target']]),
      [
        [5, 'docs/gone.md'],
        [5, 'packages/gone'],
      ],
    );
  });
});

describe('broken_reference: definitions, folders, wrapped links, code paths', () => {
  it('checks every reference definition, duplicates included, each at its own line', async () => {
    const repo = fixtureRepo({
      'README.md':
        '# Project\n\nSee [the guide][g].\n\n[g]: docs/guide.md\n[g]: docs/gone.md\n[h]: docs/also-gone.md\n',
      'docs/guide.md': '# Guide\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(referencesOf(artifact, 'README.md')), [
      { line: 6, data: { target: 'docs/gone.md', kind: 'definition', broken_on: ['github'] } },
      { line: 7, data: { target: 'docs/also-gone.md', kind: 'definition', broken_on: ['github'] } },
    ]);
  });

  it('checks a fragment into a folder against that folder’s README, as GitHub renders it', async () => {
    const repo = fixtureRepo({
      'README.md': '# Project\n\n[leads](/sig-x#leads), [chairs](sig-x/#chairs), [none](sig-y#any)\n',
      'sig-x/README.md': '# SIG X\n\n## Leads\n',
      'sig-y/notes.txt': 'no readme here\n',
    });
    const artifact = await scanDir(repo.dir);
    const signals = referencesOf(artifact, 'README.md');
    assert.deepEqual(brief(signals), [
      { line: 3, data: { target: 'sig-x/#chairs', kind: 'fragment', broken_on: ['github'] } },
    ]);
    assert.match(signals[0]!.detail, /matches no heading in "sig-x\/README\.md"/);
  });

  it('reports a link that spans lines at the line of its [', async () => {
    const repo = fixtureRepo({
      'README.md': '# Project\n\nRead [the guide that is\nlong](docs/gone.md) today.\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(referencesOf(artifact, 'README.md')), [
      { line: 3, data: { target: 'docs/gone.md', kind: 'link', broken_on: ['github'] } },
    ]);
  });

  it('reports backticked paths as code-path evidence: all in agent context, elsewhere only when meant here', async () => {
    const repo = fixtureRepo({
      'AGENTS.md': '# Agents\n\nRun `hack/verify-all.sh` and `tools/lint/run.sh`.\n',
      'docs/guide.md': [
        '# Guide',
        '',
        'Other repositories: `hack/update-gofmt.sh`, `text/0000-my-feature.md`.', // 3: no such folders here
        'Ours: `tools/lint/gone.sh` (folder exists) and `scripts/old.sh` (existed once).', // 4
        '',
      ].join('\n'),
      'tools/lint/run.sh': 'echo lint\n',
      'scripts/old.sh': 'echo old\n',
    });
    repo.remove('drop the scripts folder', ['scripts/old.sh']);
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(referencesOf(artifact, 'AGENTS.md')), [
      {
        line: 3,
        data: {
          target: 'hack/verify-all.sh',
          kind: 'code-path',
          broken_on: ['github'],
          evidence: 'agent-context',
        },
      },
    ]);
    assert.deepEqual(brief(referencesOf(artifact, 'docs/guide.md')), [
      {
        line: 4,
        data: {
          target: 'tools/lint/gone.sh',
          kind: 'code-path',
          broken_on: ['github'],
          evidence: 'parent-folder',
        },
      },
      {
        line: 4,
        data: { target: 'scripts/old.sh', kind: 'code-path', broken_on: ['github'], evidence: 'history' },
      },
    ]);
  });

  it("takes a lone common folder (`hack/`, `scripts/`) for weak evidence: another repository's path, unless history shows it here", async () => {
    const repo = fixtureRepo({
      'contributors/guide.md': [
        '# Guide',
        '',
        'Run `hack/update-gofmt.sh` and `scripts/release.sh` in the main repository.', // 3
        'Our own `hack/old-check.sh` was removed.', // 4
        '',
      ].join('\n'),
      'ADMIN.md': '# Admin\n\nRun `./tools/doc-to-md.sh`; adjust `tools/doc-to-md.xsl` first.\n',
      'tools/doc-to-md.sh': 'echo convert\n',
      'hack/verify-links.sh': 'echo ok\n',
      'hack/old-check.sh': 'echo old\n',
      'scripts/lint.sh': 'echo lint\n',
    });
    repo.remove('drop the old check', ['hack/old-check.sh']);
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(referencesOf(artifact, 'contributors/guide.md')), [
      {
        line: 4,
        data: { target: 'hack/old-check.sh', kind: 'code-path', broken_on: ['github'], evidence: 'history' },
      },
    ]);
    // The doc names a file of this repository in that folder: the missing one is meant here too.
    assert.deepEqual(brief(referencesOf(artifact, 'ADMIN.md')), [
      {
        line: 3,
        data: {
          target: 'tools/doc-to-md.xsl',
          kind: 'code-path',
          broken_on: ['github'],
          evidence: 'parent-folder',
        },
      },
    ]);
  });

  it('never takes a placeholder for a path', async () => {
    const repo = fixtureRepo({
      'AGENTS.md':
        '# Agents\n\nName it `design/NNNN-shortname.md`; see `src/<name>/index.ts`.\n\nPlatform code goes in `_linux.cc`; a new module in `file-name.ts`, not `gone.ts`.\n',
      'docs/guide.md': [
        '# Guide',
        '',
        'Write `design/NNNN-shortname.md`, `test/repro-XXXX.js` or `content/en/blog/YYYY/post-name.md`.', // 3
        'Copy `src/lib/file-name.ts`, `design/my-feature/plan.md`, `design/example.md`, `test/foo/bar.js`.', // 4
        'See `layouts/_shortcodes/foo.en.html` and `theme/vX.Y.Z/README.md`.', // 5
        'But `design/gone.md` is broken.', // 6
        '',
      ].join('\n'),
      'design/0001-first.md': '# First\n',
      'test/repro-1234.js': '1\n',
      'content/en/blog/2024/launch.md': '# Launch\n',
      'src/lib/real.ts': 'export {};\n',
      'layouts/_shortcodes/real.html': '<b>real</b>\n',
      'theme/v1.0.0/README.md': '# Theme\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(
      referencesOf(artifact, 'AGENTS.md').map((s) => `${s.line} ${String(s.data?.['target'])}`),
      ['5 gone.ts'],
    );
    assert.deepEqual(
      referencesOf(artifact, 'docs/guide.md').map((s) => `${s.line} ${String(s.data?.['target'])}`),
      ['6 design/gone.md'],
    );
  });
});
