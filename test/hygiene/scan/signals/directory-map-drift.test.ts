import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeRepo } from '../../../helpers/git-repo.js';
import { brief, fixtureRepo, removeLater, scanDir, signalsOf } from '../helpers.js';

describe('directory_map_drift', () => {
  it('reports listed entries that are gone and top-level folders the map leaves out', async () => {
    const repo = fixtureRepo({
      'CLAUDE.md': [
        '# Layout', // 1
        '', // 2
        '```', // 3
        'widgets/', // 4
        '├── src/           # the library', // 5
        '│   ├── index.ts', // 6
        '│   └── legacy.ts  # gone', // 7
        '├── lib/           # gone', // 8
        '├── tests/', // 9
        '└── docs/', // 10
        '```', // 11
        '',
        '```',
        'example/',
        '├── app/',
        '├── models/',
        '└── views/',
        '```',
        '',
      ].join('\n'),
      'src/index.ts': 'export {};\n',
      'tests/index.test.ts': 'export {};\n',
      'docs/guide.md': '# Guide\n',
      'tools/build.sh': 'echo\n',
      '.github/workflows/ci.yml': 'name: ci\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'CLAUDE.md', 'directory_map_drift')), [
      {
        line: 7,
        data: {
          start_line: 3,
          end_line: 11,
          gone: [
            { path: 'src/legacy.ts', line: 7 },
            { path: 'lib', line: 8 },
          ],
          unlisted: ['tools/'],
          commits_since: 0,
          last_commit: '2026-01-01T00:00:00Z',
        },
      },
    ]);
  });
});

describe('directory_map_drift: churn', () => {
  it('reports heavy churn under the mapped folders since the map was last edited', async () => {
    const repo = removeLater(makeRepo({ initialCommit: false }));
    repo.commit('map', {
      'AGENTS.md': '# Layout\n\n```\n├── src/\n├── tests/\n└── docs/\n```\n',
      'src/a.ts': 'export const a = 0;\n',
      'tests/a.test.ts': 'export {};\n',
      'docs/guide.md': '# Guide\n',
    });
    for (let i = 1; i <= 25; i++) repo.commit(`change ${i}`, { 'src/a.ts': `export const a = ${i};\n` });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'AGENTS.md', 'directory_map_drift')), [
      {
        line: 3,
        data: {
          start_line: 3,
          end_line: 7,
          gone: [],
          unlisted: [],
          commits_since: 25,
          last_commit: '2026-01-01T00:00:00Z',
        },
      },
    ]);
  });
});
