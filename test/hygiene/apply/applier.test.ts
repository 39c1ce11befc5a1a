import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { applyReport } from '../../../src/hygiene/apply/applier.js';
import { makeRepo, makeTempDir, type TestRepo, testEnv } from '../../helpers/git-repo.js';
import { makeEntry, makeReport } from '../../helpers/report.js';

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

function docsRepo(files: Record<string, string>): TestRepo {
  const repo = makeRepo();
  repos.push(repo);
  repo.commit('docs', files);
  return repo;
}

const read = (repo: TestRepo, path: string) => readFileSync(repo.path(path), 'utf8');
const env = testEnv();

describe('applyReport', () => {
  it('applies each file as one transaction and lists exactly the paths to stage', async () => {
    const repo = docsRepo({ 'docs/a.md': 'a1\na2\na3\n', 'docs/b.md': 'b1\nb2\n', 'docs/c.md': 'c1\n' });
    const report = makeReport(repo.dir, [
      makeEntry(repo.dir, { id: 'a-del', path: 'docs/a.md', kind: 'delete-range', anchor: [2, 2] }),
      makeEntry(repo.dir, {
        id: 'a-fm',
        path: 'docs/a.md',
        kind: 'insert-frontmatter',
        key: 'hygiene',
        value: 'frozen',
      }),
      makeEntry(repo.dir, {
        id: 'b-rep',
        path: 'docs/b.md',
        kind: 'replace-text',
        anchor: [1, 2],
        match: 'b',
        replacement: 'B',
      }),
      makeEntry(repo.dir, { id: 'c-del', path: 'docs/c.md', kind: 'delete-range', anchor: [1, 1] }),
    ]);
    // c.md changes after the check: it is skipped whole, the others still apply.
    writeFileSync(repo.path('docs/c.md'), 'c1 edited\n');
    const result = await applyReport({ root: repo.dir, report, env });
    assert.equal(result.status, 'partial');
    assert.deepEqual(result.stage, ['docs/a.md', 'docs/b.md']);
    assert.deepEqual(result.staged_by_move, []);
    assert.equal(read(repo, 'docs/a.md'), '---\nhygiene: frozen\n---\na1\na3\n');
    assert.equal(read(repo, 'docs/b.md'), 'B1\nB2\n');
    assert.equal(read(repo, 'docs/c.md'), 'c1 edited\n');
    const c = result.files.find((file) => file.path === 'docs/c.md');
    assert.equal(c?.status, 'skipped');
    assert.equal(c?.reason, 'content-changed-since-check');
    assert.deepEqual(
      result.entries.map((entry) => [entry.id, entry.status]),
      [
        ['a-del', 'applied'],
        ['a-fm', 'applied'],
        ['b-rep', 'applied'],
        ['c-del', 'skipped'],
      ],
    );
  });

  it('only applies the entries named in `only` and refuses an unknown id before any change', async () => {
    const repo = docsRepo({ 'a.md': 'x\ny\n' });
    const report = makeReport(repo.dir, [
      makeEntry(repo.dir, { id: 'one', path: 'a.md', kind: 'delete-range', anchor: [1, 1] }),
    ]);
    await assert.rejects(applyReport({ root: repo.dir, report, only: ['nope'], env }), /no entry "nope"/);
    assert.equal(read(repo, 'a.md'), 'x\ny\n');
    const result = await applyReport({ root: repo.dir, report, only: [], env });
    assert.equal(result.status, 'nothing');
    assert.equal(read(repo, 'a.md'), 'x\ny\n');
  });

  it('moves with git mv into a new folder; the move is staged once, by git mv', async () => {
    const repo = docsRepo({ 'docs/old.md': 'old\n' });
    const report = makeReport(repo.dir, [
      makeEntry(repo.dir, {
        id: 'mv',
        path: 'docs/old.md',
        kind: 'move-to-archive',
        dest_path: 'docs/archive/2026/old.md',
      }),
    ]);
    const result = await applyReport({ root: repo.dir, report, env });
    assert.equal(result.status, 'applied');
    assert.deepEqual(result.stage, []);
    assert.deepEqual(result.staged_by_move, ['docs/old.md', 'docs/archive/2026/old.md']);
    assert.deepEqual(result.created_dirs, ['docs/archive', 'docs/archive/2026']);
    assert.equal(
      repo.git(['diff', '--cached', '--name-status', '-M']),
      'R100\tdocs/old.md\tdocs/archive/2026/old.md',
    );
  });

  it('refuses a move onto an existing path, outside the root, or of an untracked file', async () => {
    const repo = docsRepo({ 'a.md': 'a\n', 'b.md': 'b\n', 'archive/a.md': 'taken\n' });
    repo.write({ 'loose.md': 'untracked\n' });
    const report = makeReport(repo.dir, [
      makeEntry(repo.dir, { id: 'exists', path: 'a.md', kind: 'move-to-archive', dest_path: 'archive/a.md' }),
      makeEntry(repo.dir, { id: 'outside', path: 'b.md', kind: 'move-to-archive', dest_path: '../b.md' }),
      makeEntry(repo.dir, {
        id: 'loose',
        path: 'loose.md',
        kind: 'move-to-archive',
        dest_path: 'archive/loose.md',
      }),
    ]);
    const result = await applyReport({ root: repo.dir, report, env });
    assert.deepEqual(
      result.files.map((file) => [file.path, file.status, file.reason]),
      [
        ['a.md', 'skipped', 'destination-exists'],
        ['b.md', 'skipped', 'destination-outside-root'],
        ['loose.md', 'skipped', 'untracked'],
      ],
    );
    assert.equal(read(repo, 'archive/a.md'), 'taken\n');
    assert.ok(existsSync(repo.path('loose.md')));
    assert.equal(repo.git(['status', '--porcelain']), '?? loose.md');
  });

  it('never moves into .git through a committed symlinked folder; the index stays intact', async () => {
    const repo = docsRepo({ 'docs/plans/p.md': 'plan\n' });
    symlinkSync('../.git', repo.path('docs/archive'));
    repo.git(['add', 'docs/archive']);
    repo.commit('archive link');
    const gitBefore = readdirSync(repo.path('.git')).sort();
    const report = makeReport(repo.dir, [
      makeEntry(repo.dir, {
        id: 'mv',
        path: 'docs/plans/p.md',
        kind: 'move-to-archive',
        dest_path: 'docs/archive/p.md',
      }),
    ]);
    const dry = await applyReport({ root: repo.dir, report, env, dryRun: true });
    assert.equal(dry.files[0]?.reason, 'destination-outside-root');
    const result = await applyReport({ root: repo.dir, report, env });
    assert.equal(result.status, 'partial');
    assert.deepEqual(
      result.files.map((file) => [file.path, file.status, file.reason]),
      [['docs/plans/p.md', 'skipped', 'destination-outside-root']],
    );
    assert.match(result.files[0]?.detail ?? '', /docs\/archive is a symbolic link/);
    assert.deepEqual(result.staged_by_move, []);
    assert.deepEqual(readdirSync(repo.path('.git')).sort(), gitBefore, 'nothing written under .git');
    assert.equal(read(repo, 'docs/plans/p.md'), 'plan\n');
    assert.equal(repo.git(['status', '--porcelain', '--untracked-files=all']), '');
    assert.equal(repo.git(['ls-files', 'docs']), 'docs/archive\ndocs/plans/p.md');
  });

  it('never edits a file reached through a symlinked folder, a .git folder or the git dir itself', async () => {
    const repo = docsRepo({ 'docs/a.md': 'a\n' });
    symlinkSync('../.git', repo.path('docs/meta'));
    mkdirSync(repo.path('vendor/lib/.git'), { recursive: true });
    writeFileSync(repo.path('vendor/lib/.git/description'), 'nested repo\n');
    const description = read(repo, '.git/description');
    const report = makeReport(repo.dir, [
      makeEntry(repo.dir, {
        id: 'via-link',
        path: 'docs/meta/description',
        kind: 'delete-range',
        anchor: [1, 1],
      }),
      makeEntry(repo.dir, {
        id: 'nested',
        path: 'vendor/lib/.git/description',
        kind: 'delete-range',
        anchor: [1, 1],
      }),
    ]);
    const result = await applyReport({ root: repo.dir, report, env });
    assert.deepEqual(
      result.files.map((file) => [file.path, file.status, file.reason]),
      [
        ['docs/meta/description', 'skipped', 'unsafe-path'],
        ['vendor/lib/.git/description', 'skipped', 'unsafe-path'],
      ],
    );
    assert.equal(read(repo, '.git/description'), description);
    assert.equal(read(repo, 'vendor/lib/.git/description'), 'nested repo\n');

    // A git dir kept inside the work tree under another name (git init --separate-git-dir).
    const root = makeTempDir();
    const git = (args: string[]) => execFileSync('git', args, { cwd: root, env, encoding: 'utf8' });
    git(['init', '-q', '--separate-git-dir', join(root, 'meta'), root]);
    writeFileSync(join(root, 'a.md'), 'a\n');
    git(['add', 'a.md']);
    git(['commit', '-q', '-m', 'a']);
    const before = readFileSync(join(root, 'meta/description'), 'utf8');
    const inside = makeReport(root, [
      makeEntry(root, { id: 'meta', path: 'meta/description', kind: 'delete-range', anchor: [1, 1] }),
      makeEntry(root, { id: 'mv', path: 'a.md', kind: 'move-to-archive', dest_path: 'meta/a.md' }),
    ]);
    const separate = await applyReport({ root, report: inside, env });
    assert.deepEqual(
      separate.files.map((file) => [file.path, file.status, file.reason, file.detail]),
      [
        [
          'a.md',
          'skipped',
          'destination-outside-root',
          "the destination is not safe to write: it is inside the repository's git directory",
        ],
        [
          'meta/description',
          'skipped',
          'unsafe-path',
          "the path is not safe to write: it is inside the repository's git directory",
        ],
      ],
    );
    assert.equal(readFileSync(join(root, 'meta/description'), 'utf8'), before);
    assert.equal(existsSync(join(root, 'meta/a.md')), false);
  });

  it('skips generative entries (no model), lifecycle deletions and symlinks', async () => {
    const repo = docsRepo({ 'big.md': 'long\n', 'real.md': 'r\n', 'tmp/run.md': 't\n' });
    symlinkSync('real.md', repo.path('link.md'));
    repo.git(['add', 'link.md']);
    repo.commit('link');
    const report = makeReport(repo.dir, [
      makeEntry(repo.dir, { id: 'gen', path: 'big.md', kind: 'generative' }),
      makeEntry(repo.dir, { id: 'lnk', path: 'link.md', kind: 'delete-range', anchor: [1, 1], text: 'r\n' }),
      {
        ...makeEntry(repo.dir, { id: 'life', path: 'tmp/run.md', kind: 'delete-path' }),
        exact_edit: { kind: 'delete-path', recursive: false },
      },
    ]);
    const result = await applyReport({ root: repo.dir, report, env });
    assert.deepEqual(
      result.files.map((file) => [file.path, file.reason]),
      [
        ['big.md', 'no-model'],
        ['link.md', 'not-a-regular-file'],
        ['tmp/run.md', 'lifecycle-not-supported'],
      ],
    );
    assert.equal(read(repo, 'real.md'), 'r\n');
  });

  it('a write that fails half-way marks the file failed, leaves it intact and attempts no later file', async () => {
    const repo = docsRepo({ 'a.md': 'a\nx\n', 'b.md': 'b\nx\n', 'c.md': 'c\nx\n' });
    const report = makeReport(
      repo.dir,
      ['a.md', 'b.md', 'c.md'].map((path) =>
        makeEntry(repo.dir, { id: path, path, kind: 'delete-range', anchor: [2, 2] }),
      ),
    );
    const result = await applyReport({
      root: repo.dir,
      report,
      env,
      faults: {
        beforeWrite: (path) => {
          if (path === 'b.md') throw new Error('disk full (simulated)');
        },
      },
    });
    assert.equal(result.status, 'failed');
    assert.deepEqual(
      result.files.map((file) => [file.path, file.status, file.reason]),
      [
        ['a.md', 'applied', undefined],
        ['b.md', 'failed', 'write-failed'],
        ['c.md', 'skipped', 'not-attempted'],
      ],
    );
    assert.equal(read(repo, 'b.md'), 'b\nx\n');
    assert.equal(read(repo, 'c.md'), 'c\nx\n');
    assert.equal(repo.git(['status', '--porcelain', '--untracked-files=all']), ' M a.md');
  });

  it('writes only tracked files git shows in status, whoever gated the entries (asked again before the write)', async () => {
    const repo = docsRepo({ 'a.md': 'old\n', 'b.md': 'old\n', 'c.md': 'old\n' });
    repo.write({ 'loose.md': 'old\n' });
    repo.git(['update-index', '--assume-unchanged', 'a.md']);
    repo.git(['update-index', '--skip-worktree', 'b.md']);
    const fix = (id: string, path: string) =>
      makeEntry(repo.dir, {
        id,
        path,
        kind: 'replace-text',
        anchor: [1, 1],
        match: 'old',
        replacement: 'new',
      });
    const report = makeReport(repo.dir, [
      fix('a', 'a.md'),
      fix('b', 'b.md'),
      fix('c', 'c.md'),
      fix('l', 'loose.md'),
    ]);
    const result = await applyReport({ root: repo.dir, report, env });
    assert.deepEqual(
      result.files.map((file) => [file.path, file.status, file.reason]),
      [
        ['a.md', 'skipped', 'hidden-from-status'],
        ['b.md', 'skipped', 'hidden-from-status'],
        ['c.md', 'applied', undefined],
        ['loose.md', 'skipped', 'untracked'],
      ],
    );
    assert.deepEqual(result.stage, ['c.md']);
    for (const path of ['a.md', 'b.md', 'loose.md']) assert.equal(read(repo, path), 'old\n');
  });

  it('a delete-range over every line deletes a tracked file; an untracked one is skipped', async () => {
    const repo = docsRepo({ 'plans/old.md': '\uFEFFone\r\ntwo' });
    repo.write({ 'plans/scratch.md': 'x\n' });
    const report = makeReport(repo.dir, [
      makeEntry(repo.dir, { id: 'old', path: 'plans/old.md', kind: 'delete-range', anchor: [1, 2] }),
      makeEntry(repo.dir, { id: 'scratch', path: 'plans/scratch.md', kind: 'delete-range', anchor: [1, 1] }),
    ]);
    const dry = await applyReport({ root: repo.dir, report, env, dryRun: true });
    assert.equal(dry.files[0]?.removed, true);
    assert.ok(existsSync(repo.path('plans/old.md')), 'a dry run deletes nothing');
    const result = await applyReport({ root: repo.dir, report, env });
    assert.deepEqual(
      result.files.map((file) => [file.path, file.status, file.reason ?? file.removed]),
      [
        ['plans/old.md', 'applied', true],
        ['plans/scratch.md', 'skipped', 'untracked'],
      ],
    );
    assert.deepEqual(result.stage, ['plans/old.md']);
    assert.equal(existsSync(repo.path('plans/old.md')), false);
    assert.equal(read(repo, 'plans/scratch.md'), 'x\n');
  });

  it('does not overwrite a file that changes while the run is under way', async () => {
    const repo = docsRepo({ 'a.md': 'a\nx\n', 'b.md': 'b\nx\n' });
    const report = makeReport(
      repo.dir,
      ['a.md', 'b.md'].map((path) =>
        makeEntry(repo.dir, { id: path, path, kind: 'delete-range', anchor: [2, 2] }),
      ),
    );
    const result = await applyReport({
      root: repo.dir,
      report,
      env,
      faults: {
        // While a.md is being written, someone edits b.md.
        beforeWrite: (path) => {
          if (path === 'a.md') writeFileSync(repo.path('b.md'), 'b\nx\nnew work\n');
        },
      },
    });
    assert.equal(result.files[1]?.reason, 'content-changed-since-check');
    assert.equal(read(repo, 'b.md'), 'b\nx\nnew work\n');
  });
});
