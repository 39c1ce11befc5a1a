import assert from 'node:assert/strict';
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fixedClock } from '../../../src/core/clock.js';
import { clean } from '../../../src/hygiene/apply/clean.js';
import type { Report } from '../../../src/hygiene/types.js';
import { runCli, runCliJson } from '../../helpers/cli.js';
import { makeRepo, type TestRepo, testEnv } from '../../helpers/git-repo.js';
import { snapshotTree } from '../../helpers/report.js';
import { userConfig } from '../../helpers/user-config.js';
import { removeLater } from '../scan/helpers.js';

const NOW = '2026-12-01T00:00:00Z';
const DAY = 86_400_000;
const env = { STW_NOW: NOW };

const RUNS_CONFIG = [
  'lifecycle:',
  '  rules:',
  '    - name: runs',
  '      match: "runs/*"',
  '      type: directory',
  '      lifetime: temporary',
  '    - name: scratch',
  '      match: "scratch-*.md"',
  '      type: file',
  '      lifetime: temporary',
  '      retain_recent: 0',
  '    - name: specs',
  '      match: "specs/*.md"',
  '      type: file',
  '      lifetime: delete-once-served',
  '      served_when: the spec has shipped',
  '',
].join('\n');

/** Five committed runs (the two oldest expired), an ignore rule for `.dochygiene/`. */
function project(): TestRepo {
  const repo = removeLater(makeRepo({ initialCommit: false }));
  repo.commit(
    'setup',
    { 'README.md': '# Project\n', '.dochygiene.yml': RUNS_CONFIG, '.gitignore': '.dochygiene/\n' },
    { date: '2026-10-01T00:00:00Z' },
  );
  for (const date of ['2026-11-01', '2026-11-05', '2026-11-10', '2026-11-15', '2026-11-20'])
    repo.commit(
      `run ${date}`,
      { [`runs/${date}/out.json`]: `${date}\n`, [`runs/${date}/log.txt`]: 'log\n' },
      { date: `${date}T12:00:00Z` },
    );
  return repo;
}

/** An untracked `scratch-notes.md` last written ten days before NOW; returns that date. */
function oldScratch(repo: TestRepo): Date {
  repo.write({ 'scratch-notes.md': 'scratch\n' });
  const old = new Date(Date.parse(NOW) - 10 * DAY);
  utimesSync(repo.path('scratch-notes.md'), old, old);
  return old;
}

async function check(repo: TestRepo, extraEnv: NodeJS.ProcessEnv = {}): Promise<Report> {
  const result = await runCli(['hygiene', 'check'], { cwd: repo.dir, env: { ...env, ...extraEnv } });
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(readFileSync(repo.path('.dochygiene/report.json'), 'utf8')) as Report;
}

const idOf = (report: Report, path: string) => report.entries.find((entry) => entry.path === path)!.id;

type Outcome = { path: string; outcome: string; reason?: string; tier: string };
async function cleanJson(repo: TestRepo, args: string[] = [], extraEnv: NodeJS.ProcessEnv = {}) {
  const result = await runCliJson<{ status: string; entries: Outcome[]; commit?: string }>(
    ['hygiene', 'clean', ...args],
    { cwd: repo.dir, env: { ...env, ...extraEnv } },
  );
  return { ...result, outcomes: result.json.entries.map((e) => [e.path, e.outcome, e.reason ?? null]) };
}

const changedIn = (repo: TestRepo, rev = 'HEAD') =>
  repo.git(['diff-tree', '--no-commit-id', '-r', '--name-status', rev]).split('\n').filter(Boolean);

describe('lifecycle deletions in clean: the tier matrix, re-derived at apply time', () => {
  it('tracked and clean: auto, one commit holding exactly the git rm of the expired runs', async () => {
    const repo = project();
    await check(repo);
    const before = repo.head();
    const result = await cleanJson(repo);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(result.outcomes, [
      ['runs/2026-11-01', 'applied', null],
      ['runs/2026-11-05', 'applied', null],
    ]);
    assert.equal(repo.git(['rev-parse', 'HEAD~1']), before);
    assert.deepEqual(changedIn(repo), [
      'D\truns/2026-11-01/log.txt',
      'D\truns/2026-11-01/out.json',
      'D\truns/2026-11-05/log.txt',
      'D\truns/2026-11-05/out.json',
    ]);
    assert.match(repo.git(['log', '-1', '--format=%B']), /^Lifecycle: 2 deleted \(runs ×2\)$/m);
    // The subject counts the files the commit deletes, not the folders.
    assert.equal(repo.git(['log', '-1', '--format=%s']), 'docs: hygiene cleanup (2 edits across 4 files)');
    assert.equal(existsSync(repo.path('runs/2026-11-01')), false);
    assert.equal(repo.git(['status', '--porcelain']), '');
  });

  it('a unit a doc links into is kept (would-break-reference, naming the link); the rest is deleted', async () => {
    const repo = project();
    repo.commit('link a run', {
      'README.md': '# Project\n\nSee [the first run](runs/2026-11-01/log.txt).\n',
    });
    await check(repo);
    const result = await cleanJson(repo);
    assert.equal(result.code, 1, result.stderr);
    assert.deepEqual(result.outcomes, [
      ['runs/2026-11-01', 'skipped', 'would-break-reference'],
      ['runs/2026-11-05', 'applied', null],
    ]);
    assert.equal(
      (result.json.entries as (Outcome & { detail?: string })[])[0]!.detail,
      'would break the reference to runs/2026-11-01/log.txt on line 3 of README.md',
    );
    assert.deepEqual(changedIn(repo), ['D\truns/2026-11-05/log.txt', 'D\truns/2026-11-05/out.json']);
    assert.equal(existsSync(repo.path('runs/2026-11-01/log.txt')), true);
  });

  it('tracked and dirty at check: confirm; approved, the edit is kept in the WIP checkpoint', async () => {
    const repo = project();
    writeFileSync(repo.path('runs/2026-11-01/out.json'), 'my edit\n');
    const report = await check(repo);
    const id = idOf(report, 'runs/2026-11-01');
    assert.equal(report.entries.find((e) => e.id === id)!.safety_tier, 'confirm');
    const held = await cleanJson(repo, ['--dry-run']);
    assert.deepEqual(held.outcomes[0], ['runs/2026-11-01', 'needs-approval', null]);
    assert.equal(existsSync(repo.path('runs/2026-11-01/out.json')), true);

    const approved = await cleanJson(repo, ['--approve', id]);
    assert.equal(approved.code, 0, approved.stderr);
    assert.deepEqual(approved.outcomes, [
      ['runs/2026-11-01', 'applied', null],
      ['runs/2026-11-05', 'applied', null],
    ]);
    // The WIP checkpoint holds the edit: recoverable from history.
    assert.equal(repo.git(['show', 'HEAD~1:runs/2026-11-01/out.json']), 'my edit');
  });

  it('a file edited between check and clean is stale evidence, never deleted unasked', async () => {
    const repo = project();
    await check(repo);
    writeFileSync(repo.path('runs/2026-11-01/out.json'), 'edited after check\n');
    const result = await cleanJson(repo);
    assert.deepEqual(result.outcomes, [
      ['runs/2026-11-01', 'skipped', 'changed-since-check'],
      ['runs/2026-11-05', 'applied', null],
    ]);
    assert.equal(readFileSync(repo.path('runs/2026-11-01/out.json'), 'utf8'), 'edited after check\n');
  });

  it('a new file inside a matched folder after check skips that folder (stale evidence)', async () => {
    const repo = project();
    const report = await check(repo);
    repo.write({ 'runs/2026-11-05/new-result.json': 'fresh\n' });
    const result = await cleanJson(repo, ['--approve', idOf(report, 'runs/2026-11-05')]);
    assert.deepEqual(result.outcomes, [
      ['runs/2026-11-01', 'applied', null],
      ['runs/2026-11-05', 'skipped', 'changed-since-check'],
    ]);
    assert.equal(readFileSync(repo.path('runs/2026-11-05/new-result.json'), 'utf8'), 'fresh\n');
    assert.equal(existsSync(repo.path('runs/2026-11-05/out.json')), true);
  });

  it('a rule removed from the config since check: the report is refused, nothing deleted', async () => {
    const repo = project();
    await check(repo);
    repo.commit('drop rules', { '.dochygiene.yml': '' }, { date: '2026-11-21T00:00:00Z' });
    const result = await runCli(['hygiene', 'clean'], { cwd: repo.dir, env });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /no lifecycle rule "runs" is configured/);
    assert.equal(existsSync(repo.path('runs/2026-11-01/out.json')), true);
  });

  it('a rule whose lifetime changed since check skips its entries (rule-changed)', async () => {
    const repo = project();
    await check(repo);
    repo.commit(
      'keep runs',
      { '.dochygiene.yml': RUNS_CONFIG.replace('lifetime: temporary', 'lifetime: keep') },
      { date: '2026-11-21T00:00:00Z' },
    );
    const result = await cleanJson(repo);
    assert.deepEqual(
      result.outcomes.map((o) => o[2]),
      ['rule-changed', 'rule-changed'],
    );
    assert.equal(existsSync(repo.path('runs/2026-11-01/out.json')), true);
  });

  it('an untracked file edited between check and clean, its old mtime put back, is kept (changed-since-check)', async () => {
    const repo = project();
    const old = oldScratch(repo);
    const report = await check(repo);
    const id = idOf(report, 'scratch-notes.md');
    // Same length, same mtime: only the bytes tell.
    writeFileSync(repo.path('scratch-notes.md'), 'SCRATCH\n');
    utimesSync(repo.path('scratch-notes.md'), old, old);
    const result = await cleanJson(repo, ['--approve', id]);
    assert.deepEqual(result.outcomes.at(-1), ['scratch-notes.md', 'skipped', 'changed-since-check']);
    assert.equal(readFileSync(repo.path('scratch-notes.md'), 'utf8'), 'SCRATCH\n');
  });

  it('an untracked file touched (not edited) between check and clean is young again: kept (younger-than-cutoff)', async () => {
    const repo = project();
    oldScratch(repo);
    const report = await check(repo);
    const recent = new Date(Date.parse(NOW) - DAY / 2);
    utimesSync(repo.path('scratch-notes.md'), recent, recent);
    const result = await cleanJson(repo, ['--approve', idOf(report, 'scratch-notes.md')]);
    assert.deepEqual(result.outcomes.at(-1), ['scratch-notes.md', 'skipped', 'younger-than-cutoff']);
    assert.equal(readFileSync(repo.path('scratch-notes.md'), 'utf8'), 'scratch\n');
  });

  it('untracked: confirm; approved, removed from the disk in the same commit run', async () => {
    const repo = project();
    oldScratch(repo);
    const report = await check(repo);
    const entry = report.entries.find((e) => e.path === 'scratch-notes.md')!;
    assert.equal(entry.safety_tier, 'confirm');
    assert.equal(entry.is_reversible, false);
    const unasked = await cleanJson(repo, ['--dry-run']);
    assert.deepEqual(unasked.outcomes.at(-1), ['scratch-notes.md', 'needs-approval', null]);
    assert.equal(existsSync(repo.path('scratch-notes.md')), true);
    const approved = await cleanJson(repo, ['--approve', entry.id]);
    assert.equal(approved.code, 0, approved.stderr);
    assert.equal(existsSync(repo.path('scratch-notes.md')), false);
    // No hold folder is left behind in the git dir.
    assert.equal(
      existsSync(repo.path('.git/sourcesteward/hold')) &&
        snapshotTree(repo.path('.git/sourcesteward/hold')).size > 0,
      false,
    );
  });

  it('served_when: confirm only through a proposal, and only applied with approval', async () => {
    const repo = project();
    repo.commit('spec', { 'specs/auth.md': '# Auth spec\n' }, { date: '2026-11-20T00:00:00Z' });
    const proposals = repo.path('..', `${repo.dir.split('/').pop()}-proposals.json`);
    writeFileSync(
      proposals,
      JSON.stringify([
        {
          path: 'specs/auth.md',
          category: { class: 'stale', subtype: 'served' },
          signals: [],
          op: 'the auth spec shipped in v2',
          op_type: 'deterministic',
          exact_edit: { kind: 'delete-path', recursive: false },
          confidence: 0.8,
        },
      ]),
    );
    const checked = await runCli(['hygiene', 'check', '--proposals', proposals], { cwd: repo.dir, env });
    assert.equal(checked.code, 0, checked.stderr);
    const report = JSON.parse(readFileSync(repo.path('.dochygiene/report.json'), 'utf8')) as Report;
    const spec = report.entries.find((e) => e.path === 'specs/auth.md')!;
    assert.equal(spec.safety_tier, 'confirm');
    const unasked = await cleanJson(repo, ['--dry-run']);
    assert.ok(unasked.outcomes.some((o) => o[0] === 'specs/auth.md' && o[1] === 'needs-approval'));
    assert.equal(existsSync(repo.path('specs/auth.md')), true);
    const approved = await cleanJson(repo, ['--approve', spec.id]);
    assert.ok(approved.outcomes.some((o) => o[0] === 'specs/auth.md' && o[1] === 'applied'));
    assert.ok(changedIn(repo).includes('D\tspecs/auth.md'));
  });
});

describe('lifecycle deletions: failure half-way and refusals', () => {
  it('a failed commit puts every deleted byte back: tracked files and held untracked ones', async () => {
    const repo = project();
    oldScratch(repo);
    const report = await check(repo);
    const before = { head: repo.head(), index: repo.git(['ls-files', '-s']), tree: snapshotTree(repo.dir) };
    await assert.rejects(
      clean({
        cwd: repo.dir,
        clock: fixedClock(NOW),
        env: testEnv(),
        approve: [idOf(report, 'scratch-notes.md')],
        faults: {
          beforeCommit: () => {
            throw new Error('commit refused (simulated)');
          },
        },
      }),
      /rolled back; nothing changed/,
    );
    assert.equal(repo.head(), before.head);
    assert.equal(repo.git(['ls-files', '-s']), before.index);
    const after = snapshotTree(repo.dir);
    for (const [path, bytes] of before.tree)
      if (!path.startsWith('.dochygiene/')) assert.equal(after.get(path), bytes, path);
  });

  it('hygiene apply refuses to delete a unit with uncommitted changes (no checkpoint there)', async () => {
    const repo = project();
    writeFileSync(repo.path('runs/2026-11-01/out.json'), 'my edit\n');
    const report = await check(repo);
    const id = idOf(report, 'runs/2026-11-01');
    const result = await runCliJson<{ files: { path: string; status: string; reason?: string }[] }>(
      ['hygiene', 'apply', '--report', '.dochygiene/report.json', '--only', id],
      { cwd: repo.dir, env },
    );
    assert.deepEqual(
      result.json.files.map((f) => [f.path, f.status, f.reason]),
      [['runs/2026-11-01', 'skipped', 'uncommitted-changes']],
    );
    assert.equal(readFileSync(repo.path('runs/2026-11-01/out.json'), 'utf8'), 'my edit\n');
  });

  it('hygiene apply refuses an untracked unit (no record to put it back from) and git-rms a clean one', async () => {
    const repo = project();
    oldScratch(repo);
    const report = await check(repo);
    const scratch = idOf(report, 'scratch-notes.md');
    const run = idOf(report, 'runs/2026-11-01');
    const head = repo.head();
    const result = await runCliJson<{ files: { path: string; status: string; reason?: string }[] }>(
      ['hygiene', 'apply', '--report', '.dochygiene/report.json', '--only', scratch, '--only', run],
      { cwd: repo.dir, env },
    );
    assert.deepEqual(
      result.json.files.map((f) => [f.path, f.status, f.reason ?? null]),
      [
        ['runs/2026-11-01', 'applied', null],
        ['scratch-notes.md', 'skipped', 'untracked'],
      ],
    );
    assert.equal(readFileSync(repo.path('scratch-notes.md'), 'utf8'), 'scratch\n');
    assert.equal(repo.head(), head, 'apply commits nothing');
    assert.deepEqual(repo.git(['diff', '--cached', '--name-status']).split('\n'), [
      'D\truns/2026-11-01/log.txt',
      'D\truns/2026-11-01/out.json',
    ]);
  });

  const failAt = (wanted: string) => (path: string) => {
    if (path === wanted) throw new Error('disk full (simulated)');
  };
  for (const [step, faults] of [
    ['moving the third file aside', { beforeHold: failAt('runs/2026-11-05/log.txt') }],
    ['removing the second unit from the index', { afterUnstage: failAt('runs/2026-11-05') }],
    ['holding the untracked file, the last step', { afterHold: failAt('scratch-notes.md') }],
  ] as const) {
    it(`a failure while ${step} rolls back every deleted byte, the index and the checkpoint`, async () => {
      const repo = project();
      repo.write({ 'README.md': '# Project, edited\n' });
      oldScratch(repo);
      const report = await check(repo);
      const before = { head: repo.head(), index: repo.git(['ls-files', '-s']), tree: snapshotTree(repo.dir) };
      await assert.rejects(
        clean({
          cwd: repo.dir,
          clock: fixedClock(NOW),
          env: testEnv(),
          approve: [idOf(report, 'scratch-notes.md')],
          faults,
        }),
        /rolled back; nothing changed/,
      );
      assert.equal(repo.head(), before.head, 'the checkpoint is unwound');
      assert.equal(repo.git(['ls-files', '-s']), before.index);
      const after = snapshotTree(repo.dir);
      for (const [path, bytes] of before.tree)
        if (!path.startsWith('.dochygiene/')) assert.equal(after.get(path), bytes, path);
      assert.equal(
        existsSync(repo.path('.git/sourcesteward')),
        false,
        'no hold folder, lock or journal left',
      );
    });
  }

  it('a dry run deletes nothing', async () => {
    const repo = project();
    await check(repo);
    const before = snapshotTree(repo.dir);
    const result = await cleanJson(repo, ['--dry-run']);
    assert.deepEqual(
      result.outcomes.map((o) => o[1]),
      ['would-apply', 'would-apply'],
    );
    const after = snapshotTree(repo.dir);
    for (const [path, bytes] of before)
      if (!path.startsWith('.dochygiene/')) assert.equal(after.get(path), bytes, path);
  });
});

describe('lifecycle extract: distil before delete', () => {
  /**
   * One old tracked note under `notes/`, a rule with `extract`, and a vault script; the vault
   * command is the user's (`user`, the user config's environment), never the repository's.
   */
  function extractProject(
    extract: 'repo' | 'cross-repo',
    vaultExit: number,
    vaultEdits = false,
  ): { repo: TestRepo; received: string; vaultCommand: string; user: NodeJS.ProcessEnv } {
    const repo = removeLater(makeRepo({ initialCommit: false }));
    const received = repo.path('..', `${repo.dir.split('/').pop()}-vault.txt`);
    const script = repo.path('..', `${repo.dir.split('/').pop()}-vault.cjs`);
    writeFileSync(
      script,
      `require('node:fs').appendFileSync(${JSON.stringify(received)}, process.env.STW_LIFECYCLE_RULE + ' ' + process.argv[2] + '\\n');${vaultEdits ? " require('node:fs').appendFileSync(process.argv[2], 'written while extracting\\n');" : ''} process.exit(${vaultExit});\n`,
    );
    const vaultCommand = `  vault_command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(script)}]\n`;
    const config = [
      'lifecycle:',
      '  rules:',
      '    - name: notes',
      '      match: "notes/*.txt"',
      '      type: file',
      '      lifetime: temporary',
      '      retain_recent: 0',
      `      extract: ${extract}`,
      '',
    ].join('\n');
    repo.commit(
      'setup',
      {
        'README.md': '# P\n',
        '.gitignore': '.dochygiene/\n',
        '.dochygiene.yml': config,
        'notes/old.txt': 'Lesson: keep this\n',
      },
      { date: '2026-10-01T00:00:00Z' },
    );
    return { repo, received, vaultCommand, user: userConfig(`lifecycle:\n${vaultCommand}`) };
  }

  it('cross-repo: the vault command gets the unit first, then it is deleted; the entry is confirm', async () => {
    const { repo, received, user } = extractProject('cross-repo', 0);
    const report = await check(repo, user);
    const entry = report.entries.find((e) => e.path === 'notes/old.txt')!;
    assert.equal(entry.safety_tier, 'confirm');
    assert.equal(entry.lifecycle?.extract, 'cross-repo');
    const result = await cleanJson(repo, ['--approve', entry.id], user);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(readFileSync(received, 'utf8'), `notes ${repo.path('notes/old.txt')}\n`);
    assert.ok(changedIn(repo).includes('D\tnotes/old.txt'));
  });

  it('cross-repo: a failing vault command means no delete (extract-failed)', async () => {
    const { repo, user } = extractProject('cross-repo', 3);
    const report = await check(repo, user);
    const result = await cleanJson(repo, ['--approve', report.entries[0]!.id], user);
    assert.deepEqual(result.outcomes, [['notes/old.txt', 'skipped', 'extract-failed']]);
    assert.equal(readFileSync(repo.path('notes/old.txt'), 'utf8'), 'Lesson: keep this\n');
  });

  it('cross-repo with no vault command in the user config: extract-failed, nothing run or deleted', async () => {
    const { repo, received } = extractProject('cross-repo', 0);
    const report = await check(repo);
    const result = await cleanJson(repo, ['--approve', report.entries[0]!.id]);
    assert.deepEqual(result.outcomes, [['notes/old.txt', 'skipped', 'extract-failed']]);
    assert.equal(existsSync(received), false);
    assert.equal(readFileSync(repo.path('notes/old.txt'), 'utf8'), 'Lesson: keep this\n');
  });

  it("a repository's own vault_command is refused in one line and never run, by check and by clean", async () => {
    const { repo, received, vaultCommand } = extractProject('cross-repo', 0);
    // The report is made before the hostile config arrives (a pull, say): clean reads it again.
    const report = await check(repo);
    const hostile = readFileSync(repo.path('.dochygiene.yml'), 'utf8').replace(
      'lifecycle:\n',
      `lifecycle:\n${vaultCommand}`,
    );
    writeFileSync(repo.path('.dochygiene.yml'), hostile);
    for (const args of [['check'], ['clean', '--approve', report.entries[0]!.id], ['clean', '--yes']]) {
      const result = await runCliJson<{ status: string; error: { code: string; message: string } }>(
        ['hygiene', ...args],
        { cwd: repo.dir, env },
      );
      assert.equal(result.code, 1, args.join(' '));
      assert.equal(result.json.error.code, 'user-only-key', args.join(' '));
      assert.match(
        result.json.error.message,
        /^\.dochygiene\.yml: lifecycle\.vault_command may come only from you, not from the repository \(it runs a command\); set it with lifecycle\.vault_command: in \/.*\/sourcesteward\/config\.yml$/,
      );
    }
    assert.equal(existsSync(received), false, 'the vault command never ran');
    assert.equal(readFileSync(repo.path('notes/old.txt'), 'utf8'), 'Lesson: keep this\n');
  });

  it('cross-repo: a unit that changes while the extract runs is not deleted (changed-since-check)', async () => {
    const { repo, user } = extractProject('cross-repo', 0, true);
    const report = await check(repo, user);
    const result = await cleanJson(repo, ['--approve', report.entries[0]!.id], user);
    assert.deepEqual(result.outcomes, [['notes/old.txt', 'skipped', 'changed-since-check']]);
    assert.equal(
      readFileSync(repo.path('notes/old.txt'), 'utf8'),
      'Lesson: keep this\nwritten while extracting\n',
    );
  });

  it('repo: with no distilled text, nothing is deleted (extract-failed)', async () => {
    const { repo } = extractProject('repo', 0);
    const report = await check(repo);
    const result = await cleanJson(repo, ['--approve', report.entries[0]!.id]);
    assert.deepEqual(result.outcomes, [['notes/old.txt', 'skipped', 'extract-failed']]);
    assert.equal(existsSync(repo.path('notes/old.txt')), true);
  });
});
