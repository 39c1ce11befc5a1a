import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifySpan, symbolsInCode } from '../../../../src/hygiene/scan/signals/code-references.js';
import { brief, fixtureRepo, scanDir, signalsOf } from '../helpers.js';

const codeRefs = (artifact: Awaited<ReturnType<typeof scanDir>>, path: string) =>
  brief(signalsOf(artifact, path, 'code_reference')).filter((s) =>
    ['code-path', 'code-file', 'code-symbol', 'cli-flag', 'env-var', 'script', 'make-target'].includes(
      String((s.data as { kind: string }).kind),
    ),
  );

describe('code_reference: code-aware references in agent context', () => {
  it('checks dot-folder paths, folders, bare file names, symbols, flags and env vars against the tracked tree', async () => {
    const repo = fixtureRepo({
      'AGENTS.md': [
        '# Agents', // 1
        '', // 2
        'CI lives in `.github/workflows/ci.yml`; the old `.github/workflows/release.yml` is gone.', // 3
        'Sources are in `src/` and `lib/`; settings in `config.toml` and `settings.toml`.', // 4
        'Call `parseConfig()` or `loadLegacyConfig()`; the class `ProjectWalk` replaced `OldWalker`.', // 5
        'Pass `--dry-run` (not `--yolo`); set `STW_NOW` or `STW_MISSING_VAR`; `NODE_ENV` is fine.', // 6
        'Words like `TypeScript`, `main` and `npm` are not symbols.', // 7
        '', // 8
        '```', // 9
        'callInsideFence()', // 10
        '```', // 11
        '',
      ].join('\n'),
      '.github/workflows/ci.yml': 'name: ci\n',
      'src/config.ts':
        'export function parseConfig() { return process.env.STW_NOW; }\nexport class ProjectWalk {}\n// --dry-run\n',
      'config.toml': 'x = 1\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(codeRefs(artifact, 'AGENTS.md'), [
      {
        line: 3,
        data: { target: '.github/workflows/release.yml', kind: 'code-path', broken_on: ['github'] },
      },
      { line: 4, data: { target: 'settings.toml', kind: 'code-file', broken_on: ['github'] } },
      { line: 5, data: { target: 'loadLegacyConfig()', kind: 'code-symbol', broken_on: ['github'] } },
      { line: 5, data: { target: 'OldWalker', kind: 'code-symbol', broken_on: ['github'] } },
      { line: 6, data: { target: '--yolo', kind: 'cli-flag', broken_on: ['github'] } },
      { line: 6, data: { target: 'STW_MISSING_VAR', kind: 'env-var', broken_on: ['github'] } },
    ]);
    // `lib/` has no first folder in the tree: not taken for a repository path.
    assert.equal(
      signalsOf(artifact, 'AGENTS.md', 'code_reference').find((s) => s.line === 5)?.detail,
      'code symbol "loadLegacyConfig()" occurs nowhere in the tracked code',
    );
  });

  it('checks npm run X and make X, inline or in shell blocks, against package.json and the Makefile', async () => {
    const repo = fixtureRepo({
      'CLAUDE.md': [
        '# Claude', // 1
        '', // 2
        'Run `npm run build`, `npm run lint:fix` and `npm test`.', // 3
        '', // 4
        '```sh', // 5
        'make check', // 6
        'make -j4 bench', // 7
        '```', // 8
        '',
      ].join('\n'),
      'package.json': JSON.stringify({ name: 'x', scripts: { build: 'tsc', test: 'node --test' } }),
      Makefile: 'check: build\n\tnpm test\n\nbuild:\n\ttsc\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(codeRefs(artifact, 'CLAUDE.md'), [
      { line: 3, data: { target: 'lint:fix', kind: 'script', broken_on: ['github'] } },
      { line: 7, data: { target: 'bench', kind: 'make-target', broken_on: ['github'] } },
    ]);
  });

  it('suggests the new place of a path whose folder history shows was moved', async () => {
    const repo = fixtureRepo({
      'AGENTS.md': '# Agents\n\nHandlers live in `.config/handlers/` and `.config/handlers/auth.ts`.\n',
      '.config/handlers/auth.ts': 'export {};\n',
      '.config/handlers/index.ts': 'export {};\n',
    });
    repo.git(['mv', '.config/handlers', '.config/routes']);
    repo.commit('move handlers');
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(codeRefs(artifact, 'AGENTS.md'), [
      {
        line: 3,
        data: {
          target: '.config/handlers/',
          kind: 'code-path',
          broken_on: ['github'],
          suggested_target: '.config/routes/',
          suggested_path: '.config/routes',
          suggested_by: 'folder-move',
          written_before_move: true,
        },
      },
      {
        line: 3,
        data: {
          target: '.config/handlers/auth.ts',
          kind: 'code-path',
          broken_on: ['github'],
          suggested_target: '.config/routes/auth.ts',
          suggested_path: '.config/routes/auth.ts',
          suggested_by: 'folder-move',
          written_before_move: true,
        },
      },
    ]);
  });

  it('leaves docs that no agent loads alone', async () => {
    const repo = fixtureRepo({
      'docs/guide.md': 'Call `missingThing()` and read `.github/gone.yml`.\n',
      '.github/x.yml': 'x\n',
    });
    assert.deepEqual(codeRefs(await scanDir(repo.dir), 'docs/guide.md'), []);
  });

  it('finds each key only as a whole word, taken literally, outside the docs', async () => {
    const repo = fixtureRepo({
      'src/main.rs':
        'fn device() {}\nlet a_b = x[0];\nrun("--recurse-submodules");\nc++;\nlet home = "$HOME";\n',
      'src/other.ts': 'export const take = (f) => f(x) || axb;\n',
      'README.md': 'A doc mentions `dev` and `only_in_docs`.\n',
    });
    const keys = [
      'dev',
      'device',
      'a.b',
      'a_b',
      'x[0]',
      '--recurse-submodules',
      'c++',
      '$HOME',
      'take',
      'f(x)',
      'only_in_docs',
    ];
    const found = await symbolsInCode(repo.dir, keys);
    // `dev` is inside `device` only, `a.b` is not `axb` or `a_b`, and README.md is a doc.
    assert.deepEqual([...(found ?? [])].sort(), [
      '$HOME',
      '--recurse-submodules',
      'a_b',
      'c++',
      'device',
      'f(x)',
      'take',
      'x[0]',
    ]);
  });

  it('classifies spans by shape', () => {
    assert.equal(classifySpan('TypeScript'), undefined);
    assert.equal(classifySpan('npm run build'), undefined);
    assert.equal(classifySpan('https://x.y/z'), undefined);
    assert.deepEqual(classifySpan('foo.bar.baz()'), {
      kind: 'code-symbol',
      target: 'foo.bar.baz()',
      key: 'baz',
    });
    assert.deepEqual(classifySpan('snake_case_name'), {
      kind: 'code-symbol',
      target: 'snake_case_name',
      key: 'snake_case_name',
    });
    assert.deepEqual(classifySpan('${API_TOKEN}'), {
      kind: 'env-var',
      target: '${API_TOKEN}',
      key: 'API_TOKEN',
    });
    assert.deepEqual(classifySpan('--out=x'), { kind: 'cli-flag', target: '--out=x', key: '--out' });
  });
});
