/**
 * Issue 36, items 8, 13, 14 and 15: lifecycle evidence a hostile repository or an unlucky
 * user can falsify — an edit after check, a name no report can carry, a glob built to
 * backtrack, a `served_when_path` through a symlink out of the project. Each runs the
 * built CLI on a real repository.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Report } from '../../../src/hygiene/types.js';
import { runCli, runCliJson } from '../../helpers/cli.js';
import { makeRepo, type TestRepo } from '../../helpers/git-repo.js';
import { removeLater, scratchDir } from '../scan/helpers.js';

const NOW = '2026-12-01T00:00:00Z';
const DAY = 86_400_000;
const env = { STW_NOW: NOW };
const OLD = new Date(Date.parse(NOW) - 10 * DAY);

function repoWith(config: string[], files: Record<string, string> = {}): TestRepo {
  const repo = removeLater(makeRepo({ initialCommit: false }));
  repo.commit(
    'setup',
    {
      'README.md': '# Project\n',
      '.gitignore': '.dochygiene/\n',
      '.dochygiene.yml': `${['lifecycle:', '  rules:', ...config].join('\n')}\n`,
      ...files,
    },
    { date: '2026-10-01T00:00:00Z' },
  );
  return repo;
}

/** Writes untracked files and dates them (and their folders) ten days back. */
function writeOld(repo: TestRepo, files: Record<string, string>): void {
  repo.write(files);
  for (const path of Object.keys(files)) {
    const parts = path.split('/');
    for (let depth = parts.length; depth >= 1; depth--)
      utimesSync(repo.path(...parts.slice(0, depth)), OLD, OLD);
  }
}

async function check(repo: TestRepo): Promise<Report> {
  const result = await runCli(['hygiene', 'check'], { cwd: repo.dir, env });
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(readFileSync(repo.path('.dochygiene/report.json'), 'utf8')) as Report;
}

type Outcome = { path: string; outcome: string; reason?: string; detail?: string };
async function clean(repo: TestRepo, approve: string[]) {
  const result = await runCliJson<{ entries: Outcome[] }>(
    ['hygiene', 'clean', ...approve.flatMap((id) => ['--approve', id])],
    { cwd: repo.dir, env },
  );
  return result.json.entries.map((e) => [e.path, e.outcome, e.reason ?? null, e.detail ?? null]);
}

const entryOf = (report: Report, path: string) => {
  const entry = report.entries.find((e) => e.path === path);
  assert.ok(entry, `no entry for ${path}`);
  return entry;
};

const RUNS = [
  '    - name: runs',
  '      match: "runs/*"',
  '      type: directory',
  '      lifetime: temporary',
];

describe('lifecycle: an untracked unit edited after check is never deleted (item 8)', () => {
  it('a file edited in place inside an untracked folder: the folder mtime is unchanged, the unit is kept', async () => {
    const repo = repoWith([...RUNS, '      retain_recent: 0']);
    writeOld(repo, { 'runs/old/out.json': '{"loss": 1}\n', 'runs/old/log.txt': 'log\n' });
    const report = await check(repo);
    const entry = entryOf(report, 'runs/old');
    assert.equal(entry.lifecycle?.age_source, 'mtime');
    // An in-place edit, its mtime put back: neither the listing, the folder nor the age moved.
    writeFileSync(repo.path('runs/old/out.json'), '{"loss": 2}\n');
    utimesSync(repo.path('runs/old/out.json'), OLD, OLD);
    const outcomes = await clean(repo, [entry.id]);
    assert.deepEqual(
      outcomes.map((o) => o.slice(0, 3)),
      [['runs/old', 'skipped', 'changed-since-check']],
    );
    assert.equal(readFileSync(repo.path('runs/old/out.json'), 'utf8'), '{"loss": 2}\n');
  });

  it('an in-place edit before check makes an old untracked folder young (the newest file, not the folder)', async () => {
    const repo = repoWith([...RUNS, '      retain_recent: 0']);
    writeOld(repo, { 'runs/old/out.json': '1\n', 'runs/old/log.txt': 'log\n' });
    const yesterday = new Date(Date.parse(NOW) - DAY);
    writeFileSync(repo.path('runs/old/out.json'), '2\n');
    utimesSync(repo.path('runs/old/out.json'), yesterday, yesterday);
    utimesSync(repo.path('runs/old'), OLD, OLD);
    const report = await check(repo);
    assert.equal(
      report.entries.some((e) => e.path === 'runs/old'),
      false,
    );
  });

  it('a chmod of a file inside since check is a change too', async () => {
    const repo = repoWith([...RUNS, '      retain_recent: 0']);
    writeOld(repo, { 'runs/old/run.sh': 'echo hi\n' });
    const report = await check(repo);
    const entry = entryOf(report, 'runs/old');
    chmodSync(repo.path('runs/old/run.sh'), 0o755);
    const outcomes = await clean(repo, [entry.id]);
    assert.deepEqual(outcomes[0]!.slice(0, 3), ['runs/old', 'skipped', 'changed-since-check']);
    assert.equal(existsSync(repo.path('runs/old/run.sh')), true);
  });

  it('a delete-once-served unit edited after check is re-checked and kept', async () => {
    const repo = repoWith(
      [
        '    - name: plans',
        '      match: "plans/*.md"',
        '      type: file',
        '      lifetime: delete-once-served',
        '      served_when_path: "../done/{name}"',
      ],
      { 'done/auth.md': 'shipped\n' },
    );
    writeOld(repo, { 'plans/auth.md': '# Auth plan\n' });
    const report = await check(repo);
    const entry = entryOf(report, 'plans/auth.md');
    assert.equal(entry.lifecycle?.decision, 'served');
    writeFileSync(repo.path('plans/auth.md'), '# Auth plan\n\nPhase two, still open.\n');
    const outcomes = await clean(repo, [entry.id]);
    assert.deepEqual(outcomes[0]!.slice(0, 3), ['plans/auth.md', 'skipped', 'changed-since-check']);
    assert.match(readFileSync(repo.path('plans/auth.md'), 'utf8'), /Phase two/);
  });

  it('unchanged since check, the same untracked folder is deleted when approved', async () => {
    const repo = repoWith([...RUNS, '      retain_recent: 0']);
    writeOld(repo, { 'runs/old/out.json': '1\n' });
    const report = await check(repo);
    const outcomes = await clean(repo, [entryOf(report, 'runs/old').id]);
    assert.deepEqual(outcomes[0]!.slice(0, 3), ['runs/old', 'applied', null]);
    assert.equal(existsSync(repo.path('runs/old')), false);
  });
});

describe('lifecycle: a name no report can carry is excluded, never fatal (item 13)', () => {
  it('a file rule matching a name with a line break: check succeeds, the name is excluded as unsafe-name', async () => {
    const repo = repoWith([
      '    - name: scratch',
      '      match: "scratch-*"',
      '      type: file',
      '      lifetime: temporary',
      '      retain_recent: 0',
    ]);
    writeOld(repo, { 'scratch-a\nb.md': 'x\n', 'scratch-ok.md': 'y\n' });
    const report = await check(repo);
    assert.deepEqual(
      report.entries.filter((e) => e.exact_edit?.kind === 'delete-path').map((e) => e.path),
      ['scratch-ok.md'],
    );
    const scanned = await runCliJson<{ excluded: { path: string; reason: string }[] }>(['hygiene', 'scan'], {
      cwd: repo.dir,
      env,
    });
    assert.equal(scanned.code, 0, scanned.stderr);
    assert.deepEqual(
      scanned.json.excluded.filter((e) => e.reason === 'unsafe-name').map((e) => e.path),
      ['scratch-a\nb.md'],
    );
  });

  it('a folder unit holding such a file: the rest is deleted, the excluded file stays tracked and on disk', async () => {
    const repo = repoWith([...RUNS, '      retain_recent: 0']);
    repo.commit(
      'old run',
      { 'runs/old/out.json': '1\n', 'runs/old/odd\nname.txt': 'odd\n' },
      { date: '2026-11-01T00:00:00Z' },
    );
    const report = await check(repo);
    const entry = entryOf(report, 'runs/old');
    assert.equal(entry.lifecycle?.files, 1);
    const outcomes = await clean(repo, [entry.id]);
    assert.deepEqual(outcomes[0]!.slice(0, 3), ['runs/old', 'applied', null]);
    assert.equal(existsSync(repo.path('runs/old/out.json')), false);
    assert.equal(readFileSync(repo.path('runs/old/odd\nname.txt'), 'utf8'), 'odd\n');
    assert.equal(repo.git(['ls-files', '-z', 'runs']), 'runs/old/odd\nname.txt\0');
  });
});

describe('lifecycle: a hostile glob cannot hang check (item 14)', () => {
  it('match "runs/*a*a…*c" against a long name: check finishes, matching in linear time', {
    timeout: 60_000,
  }, async () => {
    const hostile = `runs/${'*a'.repeat(40)}*c`;
    const repo = repoWith([
      '    - name: hostile',
      `      match: ${JSON.stringify(hostile)}`,
      '      type: file',
      '      lifetime: temporary',
    ]);
    writeOld(repo, { [`runs/${'a'.repeat(200)}`]: 'x\n', [`runs/${'a'.repeat(60)}c`]: 'y\n' });
    const started = performance.now();
    const scanned = await runCliJson<{ lifecycle?: { path: string }[] }>(['hygiene', 'scan'], {
      cwd: repo.dir,
      env,
    });
    assert.equal(scanned.code, 0, scanned.stderr);
    assert.deepEqual(
      (scanned.json.lifecycle ?? []).map((u) => u.path),
      [`runs/${'a'.repeat(60)}c`],
    );
    // Seconds at most, where the backtracking matcher took longer than the age of the universe.
    assert.ok(performance.now() - started < 30_000);
  });

  for (const [pattern, message] of [
    ['runs/@(a|b)', /lifecycle\.rules\[0\] \(rule "bad"\)\.match: extended globs/],
    ['runs/{1..9999}', /\.match: brace ranges/],
    [`runs/${'{a,b}'.repeat(8)}`, /\.match: its braces expand to more than 64 alternatives/],
    [`runs/${'x'.repeat(600)}`, /\.match: the pattern is 605 characters long; at most 512/],
  ] as const) {
    it(`a match the matcher refuses is a one-line config error naming the key: ${pattern.slice(0, 20)}`, async () => {
      const repo = repoWith([
        '    - name: bad',
        `      match: ${JSON.stringify(pattern)}`,
        '      type: file',
        '      lifetime: temporary',
      ]);
      const result = await runCli(['hygiene', 'check'], { cwd: repo.dir, env });
      assert.equal(result.code, 1);
      assert.match(result.stderr, message);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    });
  }
});

describe('lifecycle: served_when_path through a symlink out of the project is no evidence (item 15)', () => {
  const PLANS = [
    '    - name: plans',
    '      match: "plans/*.md"',
    '      type: file',
    '      lifetime: delete-once-served',
    '      served_when_path: "../outside/passwd"',
  ];

  it('outside -> a folder out of the project: not served, the reason says so, nothing deleted', async () => {
    const elsewhere = scratchDir('stw-outside-');
    writeFileSync(join(elsewhere, 'passwd'), 'root:x:0:0\n');
    const repo = repoWith(PLANS, { 'plans/auth.md': '# Plan\n' });
    symlinkSync(elsewhere, repo.path('outside'));
    repo.git(['add', 'outside']);
    repo.commit('link outside', {}, { date: '2026-10-02T00:00:00Z' });
    const report = await check(repo);
    assert.equal(
      report.entries.some((e) => e.path === 'plans/auth.md' && e.exact_edit?.kind === 'delete-path'),
      false,
    );
    const scanned = await runCliJson<{ lifecycle: { path: string; decision: string; evidence: string }[] }>(
      ['hygiene', 'scan'],
      { cwd: repo.dir, env },
    );
    const unit = scanned.json.lifecycle.find((u) => u.path === 'plans/auth.md')!;
    assert.equal(unit.decision, 'not-served');
    assert.match(unit.evidence, /outside\/passwd leads outside the project through a symlink/);
    const cleaned = await runCliJson<{ entries: Outcome[] }>(['hygiene', 'clean'], { cwd: repo.dir, env });
    assert.equal(cleaned.code, 0, cleaned.stderr);
    assert.equal(readFileSync(repo.path('plans/auth.md'), 'utf8'), '# Plan\n');
  });

  it('served at check, then outside/ replaced by a link out of the project: skipped no-longer-served', async () => {
    const elsewhere = scratchDir('stw-outside-');
    writeFileSync(join(elsewhere, 'passwd'), 'root:x:0:0\n');
    const repo = repoWith(PLANS, { 'plans/auth.md': '# Plan\n', 'outside/passwd': 'ours\n' });
    const report = await check(repo);
    const entry = entryOf(report, 'plans/auth.md');
    assert.equal(entry.safety_tier, 'auto');
    rmSync(repo.path('outside'), { recursive: true });
    symlinkSync(elsewhere, repo.path('outside'));
    const outcomes = await clean(repo, []);
    assert.deepEqual(outcomes[0]!.slice(0, 3), ['plans/auth.md', 'skipped', 'no-longer-served']);
    assert.match(String(outcomes[0]![3]), /leads outside the project through a symlink/);
    assert.equal(readFileSync(repo.path('plans/auth.md'), 'utf8'), '# Plan\n');
  });
});
