import assert from 'node:assert/strict';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  evaluateRules,
  type LifecycleListing,
  matchUnits,
  rankTemporary,
  servedPathFor,
} from '../../../src/hygiene/scan/lifecycle.js';
import type { LifecycleRule, Report } from '../../../src/hygiene/types.js';
import { runCli, runCliJson } from '../../helpers/cli.js';
import { makeRepo, type TestRepo } from '../../helpers/git-repo.js';
import { fc } from '../../helpers/property.js';
import { removeLater, scratchDir } from './helpers.js';

const NOW = '2026-12-01T00:00:00Z';
const NOW_MS = Date.parse(NOW);
const DAY = 86_400_000;

function rule(overrides: Partial<LifecycleRule> & Pick<LifecycleRule, 'name' | 'match'>): LifecycleRule {
  return { type: 'file', lifetime: 'temporary', retain_recent: 3, max_age_days: 3, ...overrides };
}

function configYaml(rules: Record<string, unknown>[]): string {
  const lines = ['lifecycle:', '  rules:'];
  for (const r of rules) {
    const [first, ...rest] = Object.entries(r);
    lines.push(`    - ${first![0]}: ${JSON.stringify(first![1])}`);
    for (const [key, value] of rest) lines.push(`      ${key}: ${JSON.stringify(value)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** A repository holding `runs/<date>/out.json`, one commit per run at that date. */
function runsRepo(dates: string[], rules: Record<string, unknown>[]): TestRepo {
  const repo = removeLater(makeRepo({ initialCommit: false }));
  repo.commit(
    'readme',
    { 'README.md': '# Project\n', '.dochygiene.yml': configYaml(rules) },
    { date: '2026-10-01T00:00:00Z' },
  );
  for (const date of dates)
    repo.commit(`run ${date}`, { [`runs/${date}/out.json`]: `${date}\n` }, { date: `${date}T12:00:00Z` });
  return repo;
}

const RUNS_RULE = { name: 'runs', match: 'runs/*', type: 'directory', lifetime: 'temporary' };
const FIVE_RUNS = ['2026-11-01', '2026-11-05', '2026-11-10', '2026-11-15', '2026-11-20'];

async function check(repo: TestRepo, extra: string[] = []): Promise<Report> {
  const result = await runCli(['hygiene', 'check', ...extra], { cwd: repo.dir, env: { STW_NOW: NOW } });
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(readFileSync(repo.path('.dochygiene', 'report.json'), 'utf8')) as Report;
}

async function scanUnits(repo: TestRepo) {
  const result = await runCliJson<{
    lifecycle?: {
      path: string;
      decision: string;
      tracked: boolean;
      dirty: boolean;
      age_source: string;
      rank?: number;
    }[];
  }>(['hygiene', 'scan'], { cwd: repo.dir, env: { STW_NOW: NOW } });
  assert.equal(result.code, 0, result.stderr);
  return result.json.lifecycle ?? [];
}

function deletions(report: Report) {
  return report.entries
    .filter((entry) => entry.exact_edit?.kind === 'delete-path')
    .map((entry) => ({ path: entry.path, tier: entry.safety_tier }));
}

describe('lifecycle: temporary retention (property)', () => {
  it('exactly the units ranked below retain_recent and older than max_age_days are eligible', () => {
    const unitsArb = fc.uniqueArray(
      fc.record({ path: fc.stringMatching(/^[a-z]{1,6}$/), ageDays: fc.integer({ min: 0, max: 40 }) }),
      { selector: (unit) => unit.path, maxLength: 12 },
    );
    fc.assert(
      fc.property(unitsArb, fc.nat({ max: 6 }), fc.nat({ max: 30 }), (units, retain, maxAge) => {
        const ranked = rankTemporary(units, retain, maxAge);
        const newestFirst = [...units].sort((a, b) => a.ageDays - b.ageDays || (a.path < b.path ? -1 : 1));
        const expected = new Set(
          newestFirst.filter((unit, index) => index + 1 > retain && unit.ageDays > maxAge).map((u) => u.path),
        );
        const eligible = new Set(ranked.filter((r) => r.decision === 'eligible').map((r) => r.unit.path));
        assert.deepEqual(eligible, expected);
        assert.deepEqual(
          ranked.map((r) => r.rank),
          units.map((_, i) => i + 1),
        );
      }),
    );
  });

  it('a directory rule never yields a unit inside another matched unit', () => {
    const segment = fc.constantFrom('runs', 'a', 'b', 'tmp', 'x.md');
    const pathArb = fc.array(segment, { minLength: 1, maxLength: 5 }).map((parts) => parts.join('/'));
    fc.assert(
      fc.property(
        fc.uniqueArray(pathArb, { maxLength: 20 }),
        fc.constantFrom('runs/*', 'runs/**', '**/a', '**'),
        (paths, glob) => {
          const units = [...matchUnits(rule({ name: 'r', match: glob, type: 'directory' }), paths).keys()];
          for (const unit of units)
            for (const other of units)
              assert.ok(unit === other || !other.startsWith(`${unit}/`), `${other} is inside ${unit}`);
          // And every member file belongs to exactly one unit.
          const members = [
            ...matchUnits(rule({ name: 'r', match: glob, type: 'directory' }), paths).values(),
          ].flat();
          assert.equal(new Set(members).size, members.length);
        },
      ),
    );
  });

  it('served_when_path fills {name} and {stem} relative to the parent and never leaves the root', () => {
    assert.equal(servedPathFor('plans/auth.md', 'archive/{name}'), 'plans/archive/auth.md');
    assert.equal(servedPathFor('plans/auth.md', '../done/{stem}.txt'), 'done/auth.txt');
    assert.equal(servedPathFor('auth.md', '../{name}'), undefined);
  });
});

describe('lifecycle: candidates in check', () => {
  it('tracked and clean: the two oldest of five runs are auto deletions; the three newest are kept', async () => {
    const repo = runsRepo(FIVE_RUNS, [RUNS_RULE]);
    const report = await check(repo);
    assert.deepEqual(deletions(report), [
      { path: 'runs/2026-11-01', tier: 'auto' },
      { path: 'runs/2026-11-05', tier: 'auto' },
    ]);
    const entry = report.entries.find((e) => e.path === 'runs/2026-11-01')!;
    assert.deepEqual(entry.exact_edit, { kind: 'delete-path', recursive: true });
    assert.equal(entry.lifecycle?.rank, 5);
    assert.equal(entry.lifecycle?.age_source, 'commit');
    assert.equal(entry.lifecycle?.age_days, 29.5);
    assert.equal(entry.category.subtype, 'expired');
    const md = readFileSync(repo.path('.dochygiene', 'report.md'), 'utf8');
    assert.match(md, /## Lifecycle \(5 matched\)/);
    assert.match(md, /`runs\/2026-11-20` — rule `runs`: kept \(among the newest\)/);
  });

  it('a run younger than max_age_days stays even when ranked past retain_recent', async () => {
    const repo = runsRepo(
      ['2026-11-20', '2026-11-28', '2026-11-29', '2026-11-30'],
      [{ ...RUNS_RULE, retain_recent: 2 }],
    );
    const units = await scanUnits(repo);
    assert.deepEqual(
      units.map((u) => [u.path, u.decision, u.rank]),
      [
        ['runs/2026-11-20', 'eligible', 4],
        ['runs/2026-11-28', 'too-young', 3],
        ['runs/2026-11-29', 'retain-recent', 2],
        ['runs/2026-11-30', 'retain-recent', 1],
      ],
    );
  });

  it('tracked and dirty: confirm', async () => {
    const repo = runsRepo(FIVE_RUNS, [RUNS_RULE]);
    writeFileSync(repo.path('runs/2026-11-01/out.json'), 'edited\n');
    const report = await check(repo);
    assert.deepEqual(deletions(report), [
      { path: 'runs/2026-11-01', tier: 'confirm' },
      { path: 'runs/2026-11-05', tier: 'auto' },
    ]);
    assert.equal(report.entries.find((e) => e.path === 'runs/2026-11-01')!.is_reversible, false);
  });

  it('a tracked folder holding a new untracked file is dirty: confirm', async () => {
    const repo = runsRepo(FIVE_RUNS, [RUNS_RULE]);
    writeFileSync(repo.path('runs/2026-11-05/new.json'), 'new\n');
    const units = await scanUnits(repo);
    const unit = units.find((u) => u.path === 'runs/2026-11-05')!;
    assert.equal(unit.tracked, false);
    assert.equal(unit.dirty, true);
  });

  it('untracked: confirm, aged by mtime', async () => {
    const repo = runsRepo(
      [],
      [{ name: 'scratch', match: 'scratch-*.md', type: 'file', lifetime: 'temporary', retain_recent: 0 }],
    );
    repo.write({ 'scratch-a.md': 'notes\n' });
    const old = new Date(NOW_MS - 10 * DAY);
    utimesSync(repo.path('scratch-a.md'), old, old);
    const report = await check(repo);
    assert.deepEqual(deletions(report), [{ path: 'scratch-a.md', tier: 'confirm' }]);
    assert.equal(report.entries[0]!.lifecycle?.age_source, 'mtime');
    assert.equal(report.entries[0]!.lifecycle?.tracked, false);
  });

  it('served_when_path: deletable once the path exists, kept while it does not', async () => {
    const served = {
      name: 'plans',
      match: 'plans/*.md',
      type: 'file',
      lifetime: 'delete-once-served',
      served_when_path: 'done/{stem}.txt',
    };
    const repo = runsRepo([], [served]);
    repo.commit('plans', {
      'plans/auth.md': '# Auth\n',
      'plans/done/auth.txt': 'shipped\n',
      'plans/billing.md': '# Billing\n',
    });
    const report = await check(repo);
    assert.deepEqual(deletions(report), [{ path: 'plans/auth.md', tier: 'auto' }]);
    assert.equal(report.entries.find((e) => e.path === 'plans/auth.md')!.category.subtype, 'served');
    const units = await scanUnits(repo);
    assert.deepEqual(
      units.map((u) => [u.path, u.decision]),
      [
        ['plans/auth.md', 'served'],
        ['plans/billing.md', 'not-served'],
      ],
    );
  });

  it('served_when: the rules classifier proposes nothing; a proposal makes a judged, confirm entry', async () => {
    const judged = {
      name: 'specs',
      match: 'specs/*.md',
      type: 'file',
      lifetime: 'delete-once-served',
      served_when: 'the spec has shipped',
    };
    const repo = runsRepo([], [judged]);
    repo.commit('spec', { 'specs/a.md': '# A\n' });
    const plain = await check(repo);
    assert.deepEqual(deletions(plain), []);
    assert.deepEqual(
      (await scanUnits(repo)).map((u) => u.decision),
      ['needs-judgment'],
    );
    const proposals = join(scratchDir(), 'proposals.json');
    writeFileSync(
      proposals,
      JSON.stringify([
        {
          path: 'specs/a.md',
          category: { class: 'stale', subtype: 'served' },
          signals: [],
          op: 'delete the shipped spec',
          op_type: 'deterministic',
          exact_edit: { kind: 'delete-path', recursive: false },
          confidence: 0.9,
        },
      ]),
    );
    const report = await check(repo, ['--proposals', proposals]);
    assert.deepEqual(deletions(report), [{ path: 'specs/a.md', tier: 'confirm' }]);
    assert.equal(report.entries[0]!.lifecycle?.served_when, 'the spec has shipped');
  });

  it('a proposal may not delete a path no rule lets go', async () => {
    const repo = runsRepo(FIVE_RUNS, [RUNS_RULE]);
    const proposals = join(scratchDir(), 'proposals.json');
    writeFileSync(
      proposals,
      JSON.stringify([
        {
          path: 'runs/2026-11-20',
          category: { class: 'stale', subtype: 'expired' },
          signals: [],
          op: 'delete',
          op_type: 'deterministic',
          exact_edit: { kind: 'delete-path', recursive: true },
          confidence: 1,
        },
      ]),
    );
    const result = await runCli(['hygiene', 'check', '--proposals', proposals], {
      cwd: repo.dir,
      env: { STW_NOW: NOW },
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /runs\/2026-11-20.*retain-recent/);
  });

  it('keep: listed as kept, never an entry', async () => {
    const repo = runsRepo(FIVE_RUNS, [{ ...RUNS_RULE, lifetime: 'keep' }]);
    const report = await check(repo);
    assert.deepEqual(deletions(report), []);
    assert.match(
      readFileSync(repo.path('.dochygiene', 'report.md'), 'utf8'),
      /`runs\/2026-11-01` — rule `runs`: kept \(lifetime keep\)/,
    );
  });

  it('no rule match and git-ignored matches are never candidates, and ignored ones never walked', async () => {
    const repo = runsRepo(FIVE_RUNS, [{ ...RUNS_RULE, match: 'logs/*' }]);
    repo.commit('ignore', { '.gitignore': 'logs/old/\n' });
    repo.write({ 'logs/old/x.log': 'x\n' });
    const units = await scanUnits(repo);
    assert.deepEqual(units, []);
    assert.deepEqual(deletions(await check(repo)), []);
  });

  it('two rules with different lifetimes on one path are a config error naming both', async () => {
    const repo = runsRepo(FIVE_RUNS, [
      RUNS_RULE,
      { name: 'outputs', match: 'runs/**/*.json', type: 'file', lifetime: 'keep' },
    ]);
    const result = await runCli(['hygiene', 'check'], { cwd: repo.dir, env: { STW_NOW: NOW } });
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /lifecycle rules "runs" and "outputs" both match "runs\/2026-11-01\/out.json"/,
    );
    assert.equal(result.stderr.trim().split('\n').length, 1);
  });

  it('a bad rule key is an error naming the rule and the key', async () => {
    const repo = runsRepo([], [{ ...RUNS_RULE, type: 'folder' }]);
    const result = await runCli(['hygiene', 'check'], { cwd: repo.dir, env: { STW_NOW: NOW } });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /lifecycle\.rules\[0\] \(rule "runs"\)\.type: must be one of/);
  });
});

describe('lifecycle: an untracked folder is aged by the newest mtime of its files', () => {
  it('an old folder whose one file was edited in place is young: its newest file counts, not the folder', () => {
    const listing: LifecycleListing = {
      files: [{ path: 'runs/a/one.json' }, { path: 'runs/a/deep/two.json' }, { path: 'runs/b/three.json' }],
      changed: new Set(),
      inRepo: true,
      unsafe: [],
    };
    const statted: string[] = [];
    const mtimes: Record<string, number> = {
      '/project/runs/a/one.json': NOW_MS - 10 * DAY,
      // Edited in place yesterday: the folder's own mtime would not have moved.
      '/project/runs/a/deep/two.json': NOW_MS - DAY,
      '/project/runs/b/three.json': NOW_MS - 20 * DAY,
    };
    const units = evaluateRules(
      '/project',
      [rule({ name: 'runs', match: 'runs/*', type: 'directory', retain_recent: 1 })],
      listing,
      new Map(),
      NOW_MS,
      (absolute) => {
        statted.push(absolute);
        const mtime = mtimes[absolute];
        if (mtime === undefined) throw new Error(`not a file of a unit: ${absolute}`);
        return mtime;
      },
    );
    assert.deepEqual(statted.sort(), Object.keys(mtimes).sort());
    assert.deepEqual(
      units.map((u) => [u.path, u.age_source, u.age_days, u.decision, u.files]),
      [
        ['runs/a', 'mtime', 1, 'retain-recent', 2],
        ['runs/b', 'mtime', 20, 'eligible', 1],
      ],
    );
  });
});
