import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli, runCliJson } from '../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo } from '../helpers/git-repo.js';
import {
  makeEntry,
  makeReport,
  PLAN_AND_GUIDE,
  planAndGuideEntries,
  snapshotTree,
  writeProjectReport,
} from '../helpers/report.js';

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

const NOW = { STW_NOW: '2026-04-02T08:30:00Z' };

function project(): TestRepo {
  const repo = makeRepo();
  repos.push(repo);
  repo.commit('docs', PLAN_AND_GUIDE);
  writeProjectReport(repo.dir, makeReport(repo.dir, planAndGuideEntries(repo.dir)));
  return repo;
}

const read = (repo: TestRepo, path: string) => readFileSync(repo.path(path), 'utf8');

describe('stw hygiene clean (built CLI)', () => {
  it('lists confirm entries awaiting approval one per line, a screen at most, and says how to approve many', async () => {
    const repo = makeRepo();
    repos.push(repo);
    const files: Record<string, string> = {};
    for (let i = 1; i <= 24; i++) files[`docs/p${String(i).padStart(2, '0')}.md`] = 'Plan\nkeep\nobsolete\n';
    for (let i = 1; i <= 3; i++) files[`docs/m${i}.md`] = `Old ${i}\n`;
    repo.commit('docs', files);
    const entries = [
      ...Object.keys(files)
        .filter((path) => path.includes('/p'))
        .map((path) =>
          makeEntry(repo.dir, { id: `del-${path.slice(5, 8)}`, path, kind: 'delete-range', anchor: [3, 3] }),
        ),
      ...[1, 2, 3].map((i) =>
        makeEntry(repo.dir, {
          id: `mv-${i}`,
          path: `docs/m${i}.md`,
          kind: 'move-to-archive',
          dest_path: `docs/archive/m${i}.md`,
        }),
      ),
    ];
    writeProjectReport(repo.dir, makeReport(repo.dir, entries));
    const result = await runCli(['hygiene', 'clean', '--dry-run'], { cwd: repo.dir, env: NOW });
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.split('\n');
    const head = lines.findIndex((line) => line.startsWith('27 confirm-tier entries need approval'));
    assert.ok(head !== -1, result.stdout);
    assert.equal(
      lines[head],
      '27 confirm-tier entries need approval; rerun with --approve ID for each (repeatable):',
    );
    const listed = lines.slice(head + 1).filter((line) => /^ {2}(?:IRREVERSIBLE )?\[confirm\] /.test(line));
    assert.equal(listed.length, 20, 'one screen at most');
    assert.match(
      listed[0]!,
      /^ {2}IRREVERSIBLE \[confirm\] del-p01 docs\/p01\.md · stale\/orphaned · delete-range: delete line 3 of 3/,
    );
    assert.ok(
      lines.every((line) => line.length < 200 && (line.match(/--approve/g) ?? []).length <= 1),
      result.stdout,
    );
    assert.ok(
      lines.includes(
        '  … 7 more: stw hygiene clean --dry-run --json lists every one (outcome "needs-approval"), and .dochygiene/report.md describes them.',
      ),
    );
    assert.ok(
      lines.includes(
        "--yes approves the 3 reversible ones at once (the batch list's defaults); an IRREVERSIBLE one only by its own --approve ID.",
      ),
      result.stdout,
    );
    // The entries awaiting approval are not listed a second time above.
    assert.equal(lines.filter((line) => line.includes('needs approval ')).length, 0);
  });

  it('off a terminal commits auto entries, leaves confirm entries for --approve, stamps last_clean', async () => {
    const repo = project();
    const first = await runCliJson(['hygiene', 'clean'], { cwd: repo.dir, env: NOW });
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.json['status'], 'committed');
    const entries = first.json['entries'] as { id: string; outcome: string; irreversible: boolean }[];
    assert.deepEqual(
      entries.map((e) => [e.id, e.outcome, e.irreversible]),
      [
        ['del', 'needs-approval', true],
        ['fix', 'applied', false],
      ],
    );
    assert.equal(read(repo, 'docs/plan.md'), 'Plan\nkeep\nobsolete\n');
    assert.equal(first.json['last_clean'], '2026-04-02T08:30:00Z');
    const state = JSON.parse(read(repo, '.dochygiene/state.json'));
    assert.equal(state.last_clean, '2026-04-02T08:30:00Z');

    // The report still describes plan.md as it is, so the approved delete applies now.
    const second = await runCli(['hygiene', 'clean', '--approve', 'del', '--reject', 'fix'], {
      cwd: repo.dir,
      env: NOW,
    });
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /^Committed [0-9a-f]{12} "docs: hygiene cleanup \(1 edit across 1 file\)"/);
    assert.match(second.stdout, /applied +IRREVERSIBLE \[confirm\] del docs\/plan.md/);
    assert.equal(read(repo, 'docs/plan.md'), 'Plan\nkeep\n');
    assert.equal(repo.git(['rev-list', '--count', 'HEAD']), '4');
  });

  it('says whether a delete-range deletes the file (every line) or some of its lines', async () => {
    const repo = makeRepo();
    repos.push(repo);
    repo.commit('docs', { ...PLAN_AND_GUIDE, 'docs/old.md': '# Old\n\ngone\n' });
    writeProjectReport(
      repo.dir,
      makeReport(repo.dir, [
        ...planAndGuideEntries(repo.dir),
        makeEntry(repo.dir, { id: 'all', path: 'docs/old.md', kind: 'delete-range', anchor: [1, 3] }),
      ]),
    );
    const result = await runCliJson(['hygiene', 'clean', '--dry-run'], { cwd: repo.dir, env: NOW });
    assert.equal(result.code, 0, result.stderr);
    const edits = (result.json['entries'] as { id: string; edit: string }[]).map((e) => [e.id, e.edit]);
    assert.deepEqual(
      edits.filter(([id]) => id !== 'fix'),
      [
        ['del', 'delete line 3 of 3'],
        ['all', 'delete the file (lines 1–3: every line)'],
      ],
    );
    const human = await runCli(['hygiene', 'clean', '--dry-run'], { cwd: repo.dir, env: NOW });
    assert.match(
      human.stdout,
      /IRREVERSIBLE \[confirm\] all docs\/old\.md · .* · delete-range: delete the file \(lines 1–3: every line\)/,
    );
  });

  it('--dry-run --json reports the plan and changes nothing', async () => {
    const repo = project();
    const before = snapshotTree(repo.dir);
    const head = repo.head();
    const result = await runCliJson(['hygiene', 'clean', '--dry-run', '--approve', 'del'], {
      cwd: repo.dir,
      env: NOW,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.json['status'], 'dry-run');
    assert.equal(repo.head(), head);
    assert.deepEqual(snapshotTree(repo.dir), before);
  });

  it('exits 1 with one line for an unknown id, a missing identity or a detached HEAD; nothing changes', async () => {
    const repo = project();
    const head = repo.head();
    const unknown = await runCliJson(['hygiene', 'clean', '--approve', 'nope'], { cwd: repo.dir, env: NOW });
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, 'stw: --approve "nope": no such entry in the report\n');
    assert.deepEqual((unknown.json['error'] as { code: string }).code, 'unknown-entry-id');

    const config = join(makeTempDir('stw-noident-'), 'gitconfig');
    writeFileSync(config, '[user]\n\tuseConfigOnly = true\n');
    const noIdentity = await runCli(['hygiene', 'clean'], {
      cwd: repo.dir,
      env: { ...NOW, GIT_CONFIG_GLOBAL: config, HOME: makeTempDir('stw-home-') },
    });
    assert.equal(noIdentity.code, 1);
    assert.match(noIdentity.stderr, /^stw: no git identity to commit with/);

    repo.checkout(head);
    const detached = await runCli(['hygiene', 'clean'], { cwd: repo.dir, env: NOW });
    assert.equal(detached.code, 1);
    assert.equal(detached.stderr, 'stw: HEAD is detached; check out a branch first\n');
    assert.equal(repo.head(), head);
    assert.equal(read(repo, 'docs/guide.md'), 'Guide\nsee old.md\n');
  });

  it('exits 1 (partial) when an approved file changed after check, still committing the rest', async () => {
    const repo = project();
    writeFileSync(repo.path('docs/plan.md'), 'Plan\nkeep\nobsolete\nmore\n');
    const result = await runCliJson(['hygiene', 'clean', '--approve', 'del'], { cwd: repo.dir, env: NOW });
    assert.equal(result.code, 1);
    assert.equal(result.json['status'], 'partial');
    assert.equal(read(repo, 'docs/guide.md'), 'Guide\nsee new.md\n');
    assert.equal(read(repo, 'docs/plan.md'), 'Plan\nkeep\nobsolete\nmore\n');
    // The user's edit was checkpointed, not lost, and the cleanup is one commit on top.
    assert.equal(
      repo.git(['log', '-2', '--format=%s']),
      'docs: hygiene cleanup (1 edit across 1 file)\nwip: checkpoint before docs hygiene cleanup',
    );
  });

  it('rejects an unknown flag as usage (exit 2) and lists apply and clean in help', async () => {
    const repo = project();
    const bad = await runCli(['hygiene', 'clean', '--bogus'], { cwd: repo.dir });
    assert.equal(bad.code, 2);
    const help = await runCli(['hygiene', '--help'], { cwd: repo.dir });
    assert.match(help.stdout, /\bapply\b/);
    assert.match(help.stdout, /\bclean\b/);
  });
});

describe('stw hygiene apply (built CLI)', () => {
  it('applies only the named entries to the worktree and commits nothing', async () => {
    const repo = project();
    const head = repo.head();
    const result = await runCliJson(
      ['hygiene', 'apply', '--report', '.dochygiene/report.json', '--only', 'fix'],
      {
        cwd: repo.dir,
      },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.json['status'], 'applied');
    assert.deepEqual(result.json['stage'], ['docs/guide.md']);
    assert.equal(repo.head(), head);
    assert.equal(read(repo, 'docs/guide.md'), 'Guide\nsee new.md\n');
    assert.equal(read(repo, 'docs/plan.md'), 'Plan\nkeep\nobsolete\n');
  });

  it('refuses a missing report (2), an unknown --only id (1) and a foreign report (1)', async () => {
    const repo = project();
    const missing = await runCli(['hygiene', 'apply', '--report', 'nope.json'], { cwd: repo.dir });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^stw: cannot read nope.json: ENOENT/);
    const unknown = await runCli(
      ['hygiene', 'apply', '--report', '.dochygiene/report.json', '--only', 'zzz'],
      {
        cwd: repo.dir,
      },
    );
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no entry "zzz" in the report/);
    const other = makeRepo();
    repos.push(other);
    const foreign = await runCli(['hygiene', 'apply', '--report', repo.path('.dochygiene/report.json')], {
      cwd: other.dir,
    });
    assert.equal(foreign.code, 1);
    assert.match(foreign.stderr, /the report was made for/);
    assert.equal(read(repo, 'docs/guide.md'), 'Guide\nsee old.md\n');
  });
});
