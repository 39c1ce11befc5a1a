import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
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

const NOW = { STW_NOW: '2026-04-02T08:30:00Z' };

function project(files: Record<string, string> = PLAN_AND_GUIDE): TestRepo {
  const repo = makeRepo();
  repos.push(repo);
  repo.commit('docs', files);
  return repo;
}

const read = (repo: TestRepo, path: string) => readFileSync(repo.path(path), 'utf8');

describe('stw hygiene apply never deletes or rewrites uncommitted work (built CLI)', () => {
  it('a whole-file delete-range on a tracked doc with uncommitted edits is refused (uncommitted-changes)', async () => {
    const repo = project({ 'docs/plans/old.md': 'one\ntwo\n', 'docs/keep.md': 'keep\nold\n' });
    // The edit happened before the check, so the report's hash matches the edited bytes.
    writeFileSync(repo.path('docs/plans/old.md'), 'one\ntwo\nmy uncommitted line\n');
    writeFileSync(repo.path('docs/keep.md'), 'keep (staged edit)\nold\n');
    repo.git(['add', 'docs/keep.md']);
    writeProjectReport(
      repo.dir,
      makeReport(repo.dir, [
        makeEntry(repo.dir, {
          id: 'orphan',
          path: 'docs/plans/old.md',
          kind: 'delete-range',
          anchor: [1, 3],
        }),
        makeEntry(repo.dir, {
          id: 'fix',
          path: 'docs/keep.md',
          kind: 'replace-text',
          anchor: [2, 2],
          match: 'old',
          replacement: 'new',
        }),
      ]),
    );
    const result = await runCliJson(
      ['hygiene', 'apply', '--report', '.dochygiene/report.json', '--only', 'orphan', '--only', 'fix'],
      { cwd: repo.dir },
    );
    assert.equal(result.code, 1, result.stderr);
    const files = result.json['files'] as { path: string; status: string; reason: string }[];
    assert.deepEqual(
      files.map((f) => [f.path, f.status, f.reason]),
      [
        ['docs/keep.md', 'skipped', 'uncommitted-changes'],
        ['docs/plans/old.md', 'skipped', 'uncommitted-changes'],
      ],
    );
    assert.equal(read(repo, 'docs/plans/old.md'), 'one\ntwo\nmy uncommitted line\n');
    assert.equal(read(repo, 'docs/keep.md'), 'keep (staged edit)\nold\n');
  });
});

describe('stw hygiene clean: commits behave like git commit (built CLI)', () => {
  it('a refusing pre-commit hook: exit 1, the hook’s output shown, nothing changed; --no-verify commits', async () => {
    const repo = project();
    writeProjectReport(repo.dir, makeReport(repo.dir, planAndGuideEntries(repo.dir)));
    const hook = repo.path('.git', 'hooks', 'pre-commit');
    writeFileSync(hook, '#!/bin/sh\necho "markdownlint: docs/guide.md:2 MD013 line too long" >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    const head = repo.head();
    const refused = await runCli(['hygiene', 'clean'], { cwd: repo.dir, env: NOW });
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /^stw: cleanup failed and was rolled back; nothing changed \(git commit exited 1/m,
    );
    // What it was about to apply was listed first (nothing but auto entries: no list to tick).
    assert.match(refused.stderr, /^Applying 1 entry \(1 auto, 0 confirm\) in 1 file:\n/);
    assert.match(refused.stderr, /^ {2}\| markdownlint: docs\/guide\.md:2 MD013 line too long$/m);
    assert.equal(repo.head(), head);
    assert.equal(read(repo, 'docs/guide.md'), PLAN_AND_GUIDE['docs/guide.md']);

    const skipped = await runCli(['hygiene', 'clean', '--no-verify'], { cwd: repo.dir, env: NOW });
    assert.equal(skipped.code, 0, skipped.stderr);
    assert.match(skipped.stdout, /^Your pre-commit and commit-msg hooks were skipped \(--no-verify\)\.$/m);
    assert.equal(repo.git(['rev-parse', 'HEAD~1']), head);
  });

  it('a dirty tree: the output says the WIP checkpoint ran no hooks and names the staged ref', async () => {
    const repo = project({ ...PLAN_AND_GUIDE, 'src/w.txt': '1\n' });
    writeProjectReport(repo.dir, makeReport(repo.dir, planAndGuideEntries(repo.dir)));
    writeFileSync(repo.path('src/w.txt'), '2\n');
    repo.git(['add', 'src/w.txt']);
    writeFileSync(repo.path('src/w.txt'), '3\n');
    const result = await runCli(['hygiene', 'clean'], { cwd: repo.dir, env: NOW });
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      /checkpointed first in [0-9a-f]{12} \(a safety snapshot: no commit hooks ran on it\)/,
    );
    assert.match(
      result.stdout,
      /Your staged changes \(the index before the checkpoint\) are kept in "?refs\/stw-hygiene\/staged\/[0-9a-f]{40}"?\./,
    );
  });

  it('the listing shows the real edit, not the report’s words', async () => {
    const repo = project();
    const entries = planAndGuideEntries(repo.dir).map((entry) => ({ ...entry, op: 'Fix a typo.' }));
    writeProjectReport(repo.dir, makeReport(repo.dir, entries));
    const result = await runCli(['hygiene', 'clean', '--dry-run'], { cwd: repo.dir, env: NOW });
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      /fix docs\/guide\.md · stale\/dangling-reference · replace-text: replace "old" with "new" on line 2/,
    );
    assert.match(result.stdout, /del docs\/plan\.md · stale\/orphaned · delete-range: delete line 3/);
    assert.doesNotMatch(result.stdout, /Fix a typo/);
  });
});

describe('.dochygiene/ ignores itself (built CLI)', () => {
  it('remind creates it with a .gitignore of *; status then reports it ignored; .gitignore is never touched', async () => {
    const repo = project();
    const reminded = await runCli(['hygiene', 'remind'], { cwd: repo.dir, env: NOW });
    assert.equal(reminded.code, 0, reminded.stderr);
    assert.equal(read(repo, '.dochygiene/.gitignore').split('\n').includes('*'), true);
    assert.equal(existsSync(repo.path('.gitignore')), false);
    const status = await runCliJson(['hygiene', 'status'], { cwd: repo.dir, env: NOW });
    assert.equal(status.json['state_dir_ignored'], true);
    assert.equal('gitignore_line' in status.json, false, 'no line to add');
    repo.git(['add', '-A']);
    assert.equal(
      repo.git(['diff', '--cached', '--name-only']),
      '',
      'git add -A adds none of the tool’s state',
    );
  });
});
