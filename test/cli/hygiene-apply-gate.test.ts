import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { runCli, runCliJson } from '../helpers/cli.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';
import {
  makeEntry,
  makeReport,
  PLAN_AND_GUIDE,
  planAndGuideEntries,
  writeProjectReport,
} from '../helpers/report.js';

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

function repoWith(files: Record<string, string>): TestRepo {
  const repo = makeRepo();
  repos.push(repo);
  repo.commit('docs', files);
  return repo;
}

const read = (repo: TestRepo, path: string) => readFileSync(repo.path(path), 'utf8');
const apply = (repo: TestRepo, extra: string[] = []) =>
  runCliJson(['hygiene', 'apply', '--report', '.dochygiene/report.json', ...extra], { cwd: repo.dir });
type Row = { id?: string; path?: string; status: string; reason?: string };
const rows = (value: unknown) => (value as Row[]).map((row) => [row.id ?? row.path, row.status, row.reason]);

describe('stw hygiene apply keeps the gate (built CLI)', () => {
  it('an untracked file: a confirm delete-range is held without --only and skipped (untracked) with it', async () => {
    const repo = repoWith({ 'README.md': '# r\n' });
    repo.write({ 'notes/draft.md': 'one\ntwo\nthree\n' });
    const entry = makeEntry(repo.dir, {
      id: 'del',
      path: 'notes/draft.md',
      kind: 'delete-range',
      anchor: [2, 2],
    });
    assert.equal(entry.safety_tier, 'confirm');
    writeProjectReport(repo.dir, makeReport(repo.dir, [entry]));

    const held = await apply(repo);
    assert.equal(held.code, 0, held.stderr);
    assert.equal(held.json['status'], 'nothing');
    assert.deepEqual(held.json['needs_approval'], ['del']);
    assert.deepEqual(held.json['files'], []);
    assert.equal(read(repo, 'notes/draft.md'), 'one\ntwo\nthree\n');
    const human = await runCli(['hygiene', 'apply', '--report', '.dochygiene/report.json'], {
      cwd: repo.dir,
    });
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /held +notes\/draft\.md \(del: confirm tier; name it with --only to apply\)/);

    const named = await apply(repo, ['--only', 'del']);
    assert.equal(named.code, 1);
    assert.equal(named.json['status'], 'partial');
    assert.deepEqual(named.json['needs_approval'], []);
    assert.deepEqual(rows(named.json['files']), [['notes/draft.md', 'skipped', 'untracked']]);
    assert.deepEqual(rows(named.json['entries']), [['del', 'skipped', 'untracked']]);
    assert.equal(read(repo, 'notes/draft.md'), 'one\ntwo\nthree\n');
  });

  it('a tracked file: the confirm entry applies only when named; auto entries apply by default', async () => {
    const repo = repoWith(PLAN_AND_GUIDE);
    writeProjectReport(repo.dir, makeReport(repo.dir, planAndGuideEntries(repo.dir)));
    const head = repo.head();

    const first = await apply(repo);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.json['status'], 'applied');
    assert.deepEqual(first.json['needs_approval'], ['del']);
    assert.deepEqual(rows(first.json['entries']), [['fix', 'applied', undefined]]);
    assert.equal(read(repo, 'docs/guide.md'), 'Guide\nsee new.md\n');
    assert.equal(read(repo, 'docs/plan.md'), 'Plan\nkeep\nobsolete\n');

    const second = await apply(repo, ['--only', 'del']);
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(rows(second.json['entries']), [['del', 'applied', undefined]]);
    assert.deepEqual(second.json['stage'], ['docs/plan.md']);
    assert.equal(read(repo, 'docs/plan.md'), 'Plan\nkeep\n');
    assert.equal(repo.head(), head, 'apply never commits');
  });

  it('files git hides from status (assume-unchanged, skip-worktree) are skipped, even when named', async () => {
    const repo = repoWith({ 'docs/a.md': 'a\nold\n', 'docs/b.md': 'b\nold\n' });
    repo.git(['update-index', '--assume-unchanged', 'docs/a.md']);
    repo.git(['update-index', '--skip-worktree', 'docs/b.md']);
    // Local edits git does not show: an edit made now could not be told apart from them.
    writeFileSync(repo.path('docs/a.md'), 'a (local)\nold\n');
    writeFileSync(repo.path('docs/b.md'), 'b (local)\nold\n');
    const spec = (path: string) =>
      makeEntry(repo.dir, {
        id: path,
        path,
        kind: 'replace-text',
        anchor: [2, 2],
        match: 'old',
        replacement: 'new',
      });
    writeProjectReport(repo.dir, makeReport(repo.dir, [spec('docs/a.md'), spec('docs/b.md')]));
    for (const extra of [[], ['--only', 'docs/a.md', '--only', 'docs/b.md']]) {
      const result = await apply(repo, extra);
      assert.equal(result.code, 1, result.stderr);
      assert.deepEqual(rows(result.json['files']), [
        ['docs/a.md', 'skipped', 'hidden-from-status'],
        ['docs/b.md', 'skipped', 'hidden-from-status'],
      ]);
      assert.match(JSON.stringify(result.json['files']), /assume-unchanged.*skip-worktree/);
    }
    assert.equal(read(repo, 'docs/a.md'), 'a (local)\nold\n');
    assert.equal(read(repo, 'docs/b.md'), 'b (local)\nold\n');
  });
});

describe('a committed symlink into .git as the archive folder (built CLI)', () => {
  it('clean skips the move, writes nothing under .git and commits only the other fix', async () => {
    const repo = repoWith({ 'docs/plans/p.md': 'plan\n', 'docs/guide.md': 'Guide\nsee old.md\n' });
    symlinkSync('../.git', repo.path('docs/archive'));
    repo.git(['add', 'docs/archive']);
    repo.commit('archive link');
    const gitBefore = readdirSync(repo.path('.git')).sort();
    writeProjectReport(
      repo.dir,
      makeReport(repo.dir, [
        makeEntry(repo.dir, {
          id: 'mv',
          path: 'docs/plans/p.md',
          kind: 'move-to-archive',
          dest_path: 'docs/archive/p.md',
        }),
        makeEntry(repo.dir, {
          id: 'fix',
          path: 'docs/guide.md',
          kind: 'replace-text',
          anchor: [2, 2],
          match: 'old',
          replacement: 'new',
        }),
      ]),
    );
    const result = await runCliJson(['hygiene', 'clean', '--approve', 'mv'], {
      cwd: repo.dir,
      env: { STW_NOW: '2026-04-02T08:30:00Z' },
    });
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.json['status'], 'partial');
    const entries = result.json['entries'] as { id: string; outcome: string; reason?: string }[];
    assert.deepEqual(
      entries.map((e) => [e.id, e.outcome, e.reason]),
      [
        ['mv', 'skipped', 'destination-outside-root'],
        ['fix', 'applied', undefined],
      ],
    );
    assert.equal(existsSync(repo.path('.git/p.md')), false);
    assert.deepEqual(readdirSync(repo.path('.git')).sort(), gitBefore, 'nothing new under .git');
    assert.equal(repo.git(['show', '--name-status', '--format=', 'HEAD']), 'M\tdocs/guide.md');
    assert.equal(repo.git(['status', '--porcelain', '--untracked-files=no']), '');
    assert.equal(read(repo, 'docs/plans/p.md'), 'plan\n');
    assert.equal(repo.git(['ls-files', 'docs']), 'docs/archive\ndocs/guide.md\ndocs/plans/p.md');
  });
});
