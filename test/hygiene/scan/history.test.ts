import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { schemaValidator } from '../../../src/core/schema.js';
import { EXPECTED_UNAVAILABLE, HISTORY_SIGNALS } from '../../../src/hygiene/scan/index.js';
import type { ScanArtifact } from '../../../src/hygiene/types.js';
import { runCli, runCliJson } from '../../helpers/cli.js';
import { makeRepo, type TestRepo, testEnv } from '../../helpers/git-repo.js';
import { brief, fixtureRepo, removeLater, scanDir, scratchDir, signalsOf } from './helpers.js';

/** A `git` wrapper first on PATH that logs each invocation (and can fail `git log`). */
function gitWrapper(options: { failLog?: boolean } = {}): { env: NodeJS.ProcessEnv; calls: () => string[] } {
  const dir = scratchDir('stw-gitwrap-');
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const log = join(dir, 'calls.log');
  writeFileSync(log, '');
  const script = [
    '#!/bin/sh',
    `printf '%s\\n' "$*" >> '${log}'`,
    ...(options.failLog
      ? ['for a in "$@"; do [ "$a" = log ] && { echo "fatal: injected" >&2; exit 128; }; done']
      : []),
    `exec '${realGit}' "$@"`,
    '',
  ].join('\n');
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin', 'git'), script);
  chmodSync(join(dir, 'bin', 'git'), 0o755);
  return {
    env: { PATH: `${join(dir, 'bin')}:${process.env['PATH']}` },
    calls: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
  };
}

/** A repository with `n` docs that link to each other and to a renamed file. */
function docsRepo(n: number): TestRepo {
  const files: Record<string, string> = { 'src/old.ts': 'export {};\n' };
  for (let i = 0; i < n; i++)
    files[`docs/d${i}.md`] = `# Doc ${i}\n\n[next](d${(i + 1) % n}.md) [gone](gone${i}.md) \`src/old.ts\`\n`;
  const repo = fixtureRepo(files);
  repo.move('move', 'src/old.ts', 'src/new.ts');
  return repo;
}

describe('history pass', () => {
  it('spawns the same number of git processes for 3 files and for 30', async () => {
    const counts: number[] = [];
    for (const n of [3, 30]) {
      const repo = docsRepo(n);
      const wrapper = gitWrapper();
      const result = await runCliJson<ScanArtifact>(['hygiene', 'scan'], { cwd: repo.dir, env: wrapper.env });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.json.files_scanned, n);
      // Every doc got its broken link and the rename suggestion: the work really happened.
      assert.equal(Object.keys(result.json.signals).length, n);
      const moved = signalsOf(result.json, 'docs/d0.md', 'code_reference').find(
        (s) => s.data?.['kind'] === 'code-path',
      );
      assert.equal(moved?.data?.['suggested_target'], 'src/new.ts');
      counts.push(wrapper.calls().length);
    }
    // rev-parse (CLI and scan), ls-files three times (files, ignored, index modes for the
    // symlinks), config four times (partial clone, the user's excludes file for the listing
    // and for check-ignore, the repository's filter and merge drivers to turn off), one log (and, for the history cache, one rev-parse of HEAD before
    // it), one check-ignore of the missing targets, one cat-file of the docs as they were
    // before the moves, one check-attr of the docs with broken references (which are
    // generated): a constant, whatever the file count.
    assert.equal(counts[0], counts[1]);
    assert.ok(counts[0]! <= 14, `${counts[0]} git calls`);
  });

  it('scans a shallow clone and lists the history signals as unavailable', async () => {
    const origin = docsRepo(2);
    const clone = join(scratchDir('stw-shallow-'), 'clone');
    execFileSync('git', ['clone', '-q', '--depth', '1', `file://${origin.dir}`, clone], { env: testEnv() });
    const artifact = await scanDir(clone);
    assert.deepEqual(artifact.shortlist, ['docs/d0.md', 'docs/d1.md']);
    assert.deepEqual(
      artifact.unavailable,
      HISTORY_SIGNALS.map((signal) => ({ signal, reason: 'shallow clone: history is truncated' })),
    );
    // Without history nothing shows `src/old.ts` was this repository's: a lone common folder
    // (`src/`) is no evidence, so the backticked path is not reported.
    assert.deepEqual(
      brief(signalsOf(artifact, 'docs/d0.md', 'broken_reference')).map((s) => s.data),
      [{ target: 'gone0.md', kind: 'link', broken_on: ['github'] }],
    );
  });

  it('does not read history in a partial clone (it would fetch contents)', async () => {
    const origin = docsRepo(2);
    origin.git(['config', 'uploadpack.allowFilter', 'true']);
    const clone = join(scratchDir('stw-partial-'), 'clone');
    execFileSync('git', ['clone', '-q', '--filter=blob:none', `file://${origin.dir}`, clone], {
      env: testEnv(),
    });
    const artifact = await scanDir(clone);
    assert.deepEqual(artifact.shortlist, ['docs/d0.md', 'docs/d1.md']);
    assert.deepEqual(
      artifact.unavailable,
      HISTORY_SIGNALS.map((signal) => ({ signal, reason: EXPECTED_UNAVAILABLE.partialClone })),
    );
  });

  it('scans a directory that is not a repository', async () => {
    const dir = scratchDir('stw-norepo-');
    mkdirSync(join(dir, 'docs'));
    mkdirSync(join(dir, 'node_modules', 'pkg'), { recursive: true });
    writeFileSync(join(dir, 'docs', 'a.md'), '# A\n\n[b](b.md) [gone](gone.md)\n');
    writeFileSync(join(dir, 'docs', 'b.md'), '# B\n');
    writeFileSync(join(dir, 'node_modules', 'pkg', 'README.md'), '[x](nowhere.md)\n');
    const artifact = await scanDir(dir);
    assert.deepEqual(artifact.shortlist, ['docs/a.md', 'docs/b.md']);
    assert.deepEqual(artifact.excluded, [
      {
        path: 'node_modules',
        reason: 'excluded-dir',
        detail: 'scan.excluded_dirs entry "node_modules"; not entered',
      },
    ]);
    assert.deepEqual(brief(signalsOf(artifact, 'docs/a.md', 'broken_reference')), [
      { line: 3, data: { target: 'gone.md', kind: 'link', broken_on: ['github'] } },
    ]);
    assert.deepEqual(
      artifact.unavailable,
      HISTORY_SIGNALS.map((signal) => ({ signal, reason: 'not a git repository' })),
    );
  });

  it('scans a folder inside a repository with paths and history relative to it', async () => {
    const repo = fixtureRepo({
      'site/index.md': '# Index\n\n[guide](old/guide.md)\n',
      'site/old/guide.md': '# Guide\n',
    });
    repo.move('move', 'site/old/guide.md', 'site/new/guide.md');
    const artifact = await scanDir(join(repo.dir, 'site'));
    assert.deepEqual(artifact.shortlist, ['index.md', 'new/guide.md']);
    assert.deepEqual(artifact.unavailable, []);
    assert.deepEqual(brief(signalsOf(artifact, 'index.md', 'broken_reference')), [
      {
        line: 3,
        data: {
          target: 'old/guide.md',
          kind: 'link',
          broken_on: ['github'],
          suggested_target: 'new/guide.md',
          suggested_path: 'new/guide.md',
          suggested_by: 'rename-history',
          written_before_move: true,
        },
      },
    ]);
  });

  it('scans a repository without commits', async () => {
    const repo = removeLater(makeRepo({ initialCommit: false }));
    repo.write({ 'README.md': '# New\n' });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(artifact.shortlist, ['README.md']);
    assert.deepEqual(
      artifact.unavailable,
      HISTORY_SIGNALS.map((signal) => ({ signal, reason: 'no commits yet' })),
    );
  });

  it('reports a failed history read as a partial result (exit 1), never as complete', async () => {
    const repo = docsRepo(2);
    const wrapper = gitWrapper({ failLog: true });
    const result = await runCliJson<ScanArtifact & { status: string }>(['hygiene', 'scan'], {
      cwd: repo.dir,
      env: wrapper.env,
    });
    assert.equal(result.code, 1);
    assert.equal(result.json.status, 'partial');
    assert.match(result.json.unavailable?.[0]?.reason ?? '', /git log exited 128: fatal: injected/);
    // Without history there is no rename to suggest; the broken link is still reported.
    const moved = signalsOf(result.json, 'docs/d0.md', 'code_reference').find(
      (s) => s.data?.['kind'] === 'code-path',
    );
    assert.equal(moved?.data?.['suggested_target'], undefined);
    assert.deepEqual(schemaValidator('scan.schema.json')(result.json), []);
  });
});

/** Deletes the loose object of `path` as of `rev`: a clone that lacks that blob. */
function dropBlob(repo: TestRepo, rev: string, path: string): string {
  const oid = repo.git(['rev-parse', `${rev}:${path}`]);
  rmSync(join(repo.dir, '.git', 'objects', oid.slice(0, 2), oid.slice(2)));
  return oid;
}

describe('history with a missing object', () => {
  it('costs the history of the doc whose blob is missing, not the whole pass (exit 0, complete)', async () => {
    const repo = fixtureRepo({
      'NOTES.md': '# Notes\n',
      'OTHER.md': '# Other\n',
      'docs/engine.md': '# Engine\n\nSee [engine.ts](../src/engine.ts).\n',
      'src/engine.ts': 'export const v = 0;\n',
    });
    let notes = '# Notes\n';
    let other = '# Other\n';
    for (let i = 1; i <= 5; i++) {
      for (let l = 0; l < 45; l++) {
        notes += `- note ${i}.${l}\n`;
        other += `- other ${i}.${l}\n`;
      }
      repo.commit(`notes ${i}`, { 'NOTES.md': notes, 'OTHER.md': other });
    }
    for (let i = 1; i <= 10; i++) repo.commit(`engine ${i}`, { 'src/engine.ts': `export const v = ${i};\n` });
    const oid = dropBlob(repo, 'HEAD~12', 'NOTES.md');
    // Every class shown: this is about which history a missing blob costs, not what is shown.
    const result = await runCliJson<ScanArtifact & { status: string }>(
      ['hygiene', 'scan', '--signals', 'all'],
      {
        cwd: repo.dir,
      },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.json.status, 'complete');
    assert.deepEqual(result.json.unavailable, []);
    assert.deepEqual(result.json.history_incomplete, [
      { path: 'NOTES.md', reason: `object ${oid} is missing from this clone, so its growth is not known` },
    ]);
    assert.deepEqual(signalsOf(result.json, 'NOTES.md', 'append_only_growth'), []);
    // The other docs keep their history signals.
    assert.equal(signalsOf(result.json, 'OTHER.md', 'append_only_growth').length, 1);
    assert.equal(signalsOf(result.json, 'docs/engine.md', 'edit_recency_vs_churn').length, 1);
    assert.deepEqual(schemaValidator('scan.schema.json')(result.json), []);
  });

  it('keeps renames when a blob that rename detection reads is missing', async () => {
    const body = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n');
    const repo = fixtureRepo({
      'README.md': '# Project\n\nSee `src/old.ts` and `assets/old-logo.txt`.\n',
      'src/old.ts': `${body}\n`,
      'assets/old-logo.txt': `${body} logo\n`,
    });
    repo.move('move code', 'src/old.ts', 'src/new.ts');
    repo.git(['mv', 'assets/old-logo.txt', 'assets/logo.txt']);
    repo.commit('move and edit the logo', { 'assets/logo.txt': `${body} logo, edited\n` });
    // The logo's rename is inexact: scoring it reads the old blob, which this clone lacks.
    const oid = dropBlob(repo, 'HEAD~2', 'assets/old-logo.txt');
    // --signals all: `assets/old-logo.txt` (under a common folder, its rename unknown) is held back.
    const result = await runCliJson<ScanArtifact & { status: string }>(
      ['hygiene', 'scan', '--signals', 'all'],
      {
        cwd: repo.dir,
      },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.json.status, 'complete');
    assert.deepEqual(result.json.history_incomplete, [
      {
        path: 'assets/old-logo.txt',
        reason: `object ${oid} is missing from this clone, so renames of this path are not known`,
      },
    ]);
    const refs = signalsOf(result.json, 'README.md', 'code_reference');
    assert.deepEqual(
      refs.map((s) => [s.data?.['target'], s.data?.['suggested_path'], s.data?.['suggested_by']]),
      [
        ['src/old.ts', 'src/new.ts', 'rename-history'],
        ['assets/old-logo.txt', undefined, undefined],
      ],
    );
    assert.deepEqual(schemaValidator('scan.schema.json')(result.json), []);
  });
});

describe('stw hygiene scan', () => {
  it('prints a summary with quoted paths, and the artifact under --json', async () => {
    const repo = fixtureRepo({
      'README.md': '# Readme\n\n[gone](gone.md)\n',
      'docs/plans/x.md': '# X\n',
      'CHANGELOG.md': '# Changes\n',
    });
    // stale_name_location is hidden by default: counted, and shown with --signals all.
    const plain = await runCli(['hygiene', 'scan'], { cwd: repo.dir });
    assert.match(
      plain.stdout,
      /^Not shown: 1 finding hidden \(stale_name_location 1; shown with --signals all\)\.$/m,
    );
    const human = await runCli(['hygiene', 'scan', '--signals', 'all'], { cwd: repo.dir });
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^Scanned 2 docs in .*; 2 with signals\.$/m);
    assert.match(human.stdout, /^ {2}broken_reference +1$/m);
    assert.match(human.stdout, /^ {2}stale_name_location +1$/m);
    assert.match(human.stdout, /^ {2}append-only-log +1 {2}CHANGELOG\.md$/m);
    const json = await runCliJson<ScanArtifact & { status: string }>(['hygiene', 'scan'], { cwd: repo.dir });
    assert.equal(json.code, 0);
    assert.equal(json.json.status, 'complete');
    assert.deepEqual(json.json.shortlist, ['README.md', 'docs/plans/x.md']);
    assert.deepEqual(json.json.unavailable, []);
    assert.deepEqual(schemaValidator('scan.schema.json')(json.json), []);
  });

  it('narrows the scan with --scope (a directory relative to cwd, or a glob)', async () => {
    const repo = fixtureRepo({
      'README.md': '# R\n',
      'docs/a.md': '# A\n',
      'docs/sub/b.md': '# B\n',
      'notes/c.md': '# C\n',
    });
    const byDir = await runCliJson<ScanArtifact>(['hygiene', 'scan', '--scope', 'sub'], {
      cwd: join(repo.dir, 'docs'),
    });
    assert.deepEqual(byDir.json.shortlist, ['docs/sub/b.md']);
    assert.deepEqual(byDir.json.scope_globs, ['docs/sub/**']);
    const byGlob = await runCliJson<ScanArtifact>(
      ['hygiene', 'scan', '--scope', 'notes/*.md', '--scope', 'README.md'],
      {
        cwd: repo.dir,
      },
    );
    assert.deepEqual(byGlob.json.shortlist, ['README.md', 'notes/c.md']);
  });

  it('reads .dochygiene.yml and refuses a bad one with exit 1', async () => {
    const repo = fixtureRepo({
      '.dochygiene.yml': 'scan:\n  excluded_dirs: [notes]\ncontext:\n  budget_tokens: 5\n',
      'CLAUDE.md': '# Claude\n\nAlways run the whole test suite before committing anything.\n',
      'notes/a.md': '# A\n',
    });
    const ok = await runCliJson<ScanArtifact>(['hygiene', 'scan'], { cwd: repo.dir });
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(ok.json.shortlist, ['CLAUDE.md']);
    assert.deepEqual(ok.json.excluded_dirs, ['notes']);
    assert.deepEqual(
      ok.json.signals['CLAUDE.md']?.map((s) => [s.name, s.data?.['budget']]),
      [['context_weight', 5]],
    );
    repo.write({ '.dochygiene.yml': 'scan:\n  globz: []\n' });
    const bad = await runCli(['hygiene', 'scan'], { cwd: repo.dir });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /globz/);
  });

  it('rejects unknown flags with exit 2', async () => {
    const repo = fixtureRepo({ 'README.md': '# R\n' });
    const result = await runCli(['hygiene', 'scan', '--bogus'], { cwd: repo.dir });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /bogus/);
  });
});
