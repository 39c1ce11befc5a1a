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

describe('directory_map_drift: folders a map leaves out', () => {
  it('reports a folder list and a nested tree level that leave out folders the repository has; not complete maps or a pick', async () => {
    const repo = fixtureRepo({
      'packages/core/GEMINI.md': [
        '# Core', // 1
        '', // 2
        '## Architecture', // 3
        '', // 4
        '- `src/agent/` & `src/agents/`: agent lifecycle.', // 5
        '- `src/config/`: configuration.', // 6
        '- `src/tools/`: built-in tools.', // 7
        '  (file system, shell, web)', // 8
        '', // 9
      ].join('\n'),
      'packages/core/src/agent/a.ts': '',
      'packages/core/src/agents/a.ts': '',
      'packages/core/src/config/a.ts': '',
      'packages/core/src/tools/a.ts': '',
      'packages/core/src/sandbox/a.ts': '',
      'packages/core/src/__mocks__/a.ts': '',
      'packages/core/src/test-utils/a.ts': '',
      // Complete: every folder listed.
      'packages/cli/AGENTS.md':
        '# CLI\n\n- `src/ui/`: UI.\n- `src/commands/`: commands.\n- `src/config/`: settings.\n',
      'packages/cli/src/ui/a.ts': '',
      'packages/cli/src/commands/a.ts': '',
      'packages/cli/src/config/a.ts': '',
      // A pick, said so: "key folders".
      'packages/web/AGENTS.md':
        '# Web\n\nKey folders:\n- `src/pages/`: pages.\n- `src/lib/`: helpers.\n- `src/api/`: routes.\n',
      'packages/web/src/pages/a.ts': '',
      'packages/web/src/lib/a.ts': '',
      'packages/web/src/api/a.ts': '',
      'packages/web/src/styles/a.css': '',
      'CLAUDE.md': [
        '# Layout', // 1
        '', // 2
        '```', // 3
        '├── lib/', // 4
        '│   ├── parse/', // 5
        '│   ├── render/', // 6
        '│   └── util/', // 7
        '└── docs/', // 8
        '```', // 9
        '',
      ].join('\n'),
      'lib/parse/a.ts': '',
      'lib/render/a.ts': '',
      'lib/util/a.ts': '',
      'lib/cache/a.ts': '',
      // A `...` entry says the folder is listed in part: nothing is left out.
      'GEMINI.md':
        '# Layout\n\n```\n├── lib/\n│   ├── parse/\n│   ├── render/\n│   ├── util/\n│   └── ...\n└── docs/\n```\n',
      'docs/a.md': '# A\n',
      'packages/README.md': '# Packages\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'packages/core/GEMINI.md', 'directory_map_drift')), [
      {
        line: 5,
        data: {
          map: 'list',
          start_line: 5,
          end_line: 8,
          gone: [],
          unlisted: ['packages/core/src/sandbox/'],
        },
      },
    ]);
    assert.equal(
      signalsOf(artifact, 'packages/core/GEMINI.md', 'directory_map_drift')[0]!.detail,
      'the folder list in lines 5–8 leaves out packages/core/src/sandbox/',
    );
    assert.deepEqual(
      brief(signalsOf(artifact, 'CLAUDE.md', 'directory_map_drift')).map(
        (s) => (s.data as { unlisted: string[] }).unlisted,
      ),
      [['lib/cache/']],
    );
    assert.deepEqual(signalsOf(artifact, 'GEMINI.md', 'directory_map_drift'), []);
    assert.deepEqual(signalsOf(artifact, 'packages/cli/AGENTS.md', 'directory_map_drift'), []);
    assert.deepEqual(signalsOf(artifact, 'packages/web/AGENTS.md', 'directory_map_drift'), []);
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
  it("leaves alone a template the code copies into users' projects: it maps their project (eyaltoledano/claude-task-master)", async () => {
    const template = [
      '# Task Master', // 1
      '', // 2
      '```', // 3
      'project/', // 4
      '├── .taskmaster/', // 5
      '│   ├── tasks/', // 6
      '│   │   └── task-1.md', // 7
      '│   ├── docs/', // 8
      '│   │   └── prd.md', // 9
      '│   └── config.json', // 10
      '└── CLAUDE.md', // 11
      '```', // 12
      '',
    ].join('\n');
    const files = {
      'CLAUDE.md': '# Rules\n\nRun the tests.\n',
      'assets/AGENTS.md': template,
      '.taskmaster/CLAUDE.md': template,
      '.taskmaster/config.json': '{}\n',
      '.taskmaster/tasks/tasks.json': '{}\n',
    };
    // Without the code that copies them, both maps are this repository's and drift.
    const bare = await scanDir(fixtureRepo(files).dir);
    assert.deepEqual(
      ['assets/AGENTS.md', '.taskmaster/CLAUDE.md'].map(
        (p) => signalsOf(bare, p, 'directory_map_drift').length,
      ),
      [1, 1],
    );
    assert.equal(signalsOf(bare, 'assets/AGENTS.md', 'context_coverage').length, 1);
    const shipped = await scanDir(
      fixtureRepo({
        ...files,
        'src/profiles/claude.js': [
          "const sourceFile = path.join(assetsDir, 'AGENTS.md');",
          "export const fileMap = { 'AGENTS.md': '.taskmaster/CLAUDE.md' };",
          '',
        ].join('\n'),
      }).dir,
    );
    for (const path of ['assets/AGENTS.md', '.taskmaster/CLAUDE.md'])
      assert.deepEqual(signalsOf(shipped, path, 'directory_map_drift'), [], path);
    assert.deepEqual(signalsOf(shipped, 'assets/AGENTS.md', 'context_coverage'), []);
  });
});
