import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brief, fixtureRepo, scanDir, signalsOf } from '../helpers.js';

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

  it('reads only present-tense requirements: never history, a post, a migration guide or the past', async () => {
    const repo = fixtureRepo({
      'package.json': JSON.stringify({ name: 'widget', version: '2.1.0', engines: { node: '>=20' } }),
      'pyproject.toml': '[project]\nname = "pywidget"\nversion = "1.0.0"\nrequires-python = ">=3.10"\n',
      'README.md': [
        '# Widget', // 1
        '', // 2
        'Requires Node 16.', // 3
        '', // 4
        'Install Python 3.8+ first.', // 5
        '', // 6
        'Support for Node 8 was dropped in 2.0, and Node 14 is deprecated since 1.5.', // 7
        '', // 8
        'Benchmarks below were run on a laptop with Node 18 and Python 3.9.', // 9
        '', // 10
        '## Changelog', // 11
        '', // 12
        '- 1.2.0: requires Node 12.', // 13
        '', // 14
        '## Requirements', // 15
        '', // 16
        '- Node 18', // 17
        '', // 18
        'In 1.2 we shipped Node 14 support.', // 19
        '',
      ].join('\n'),
      'CHANGELOG.md': '# Changelog\n\n## 1.0.0\n\nNow requires Node 14.\n',
      'docs/release-notes.md': '# Notes\n\nRequires Node 12.\n',
      'website/blog/launch.md': '# Launch\n\nWidget requires Node 12.\n',
      'docs/2021-05-01-update.md': '# Update\n\nWidget requires Node 12.\n',
      'website/versioned_docs/version-0.77/getting-started.md': '# Start\n\nInstall Node 18 or newer.\n',
      'sig-x/annual-report-2021.md': '# Report\n\nWidget requires Node 12.\n',
      'sig-x/meeting-notes/march.md': '# Notes\n\nDo we support Node 12?\n',
      'docs/UpgradingToWidget3.md': '# Upgrading\n\nYou need Node 12.\n',
      'docs/compat.md': '# Compatibility\n\nWidget 3 drops support for Node 14; the minimum is now 20.\n',
      'docs/migration-guide.md': '# Migrating from 1.x\n\nYou need Node 12 or later.\n',
    });
    const artifact = await scanDir(repo.dir);
    const found = Object.entries(artifact.signals).flatMap(([path, list]) =>
      list
        .filter((s) => s.name === 'version_skew')
        .map((s) => `${path}:${s.line} ${String(s.data?.['match'])}`),
    );
    assert.deepEqual(found, ['README.md:3 Node 16', 'README.md:5 Python 3.8', 'README.md:17 Node 18']);
  });
});
