import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Report } from '../../src/hygiene/types.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';

/**
 * Crash injection for lifecycle deletions in `clean`: the built CLI is killed with SIGKILL
 * at every lifecycle step boundary (before and after each file is moved into the run's
 * hold folder, after each unit leaves the index, before and after the commit). After each
 * kill every deleted byte is in the worktree or the hold folder; the next run reports the
 * interrupted one, puts every held file back (an untracked one included), and leaves the
 * repository as one uninterrupted run would.
 */

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

const NOW = { STW_NOW: '2026-12-01T00:00:00Z' };
const DAY = 86_400_000;
const CONFIG = [
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
  '',
].join('\n');
const DATES = ['2026-11-01', '2026-11-05', '2026-11-10', '2026-11-15', '2026-11-20'];
const EXPIRED = ['runs/2026-11-01', 'runs/2026-11-05'];
const SCRATCH = 'scratch-notes.md';
const SCRATCH_TEXT = 'my untracked scratch notes\n';
const EDITED = '# Project, edited and not committed\n';

const runFiles = (unit: string) => {
  const date = unit.slice('runs/'.length);
  return { [`${unit}/log.txt`]: `log of ${date}\n`, [`${unit}/out.json`]: `{"run":"${date}"}\n` };
};

/** Five committed runs (two expired), an old untracked scratch file, an uncommitted edit; checked. */
async function project(): Promise<{ repo: TestRepo; start: string; scratchId: string }> {
  const repo = makeRepo({ initialCommit: false });
  repos.push(repo);
  repo.commit(
    'setup',
    { 'README.md': '# Project\n', '.dochygiene.yml': CONFIG, '.gitignore': '.dochygiene/\n' },
    { date: '2026-10-01T00:00:00Z' },
  );
  for (const date of DATES)
    repo.commit(`run ${date}`, runFiles(`runs/${date}`), { date: `${date}T12:00:00Z` });
  const start = repo.head();
  repo.write({ [SCRATCH]: SCRATCH_TEXT, 'README.md': EDITED });
  const old = new Date(Date.parse(NOW.STW_NOW) - 10 * DAY);
  utimesSync(repo.path(SCRATCH), old, old);
  const checked = await runCli(['hygiene', 'check'], { cwd: repo.dir, env: NOW });
  assert.equal(checked.code, 0, checked.stderr);
  const report = JSON.parse(readFileSync(repo.path('.dochygiene/report.json'), 'utf8')) as Report;
  const scratchId = report.entries.find((entry) => entry.path === SCRATCH)!.id;
  return { repo, start, scratchId };
}

/** Every file under the git dir's hold folder, by its worktree path, with its bytes. */
function heldFiles(repo: TestRepo): Map<string, string> {
  const held = new Map<string, string>();
  const hold = repo.path('.git', 'sourcesteward', 'hold');
  if (!existsSync(hold)) return held;
  for (const run of readdirSync(hold)) {
    const walk = (rel: string) => {
      for (const entry of readdirSync(join(hold, run, rel), { withFileTypes: true })) {
        const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
        if (entry.isDirectory()) walk(path);
        else held.set(path, readFileSync(join(hold, run, path), 'utf8'));
      }
    };
    walk('');
  }
  return held;
}

/** Every deleted byte is in exactly one place: the worktree or the hold folder. */
function assertRecoverable(repo: TestRepo, start: string): void {
  const held = heldFiles(repo);
  const expected = { ...Object.assign({}, ...EXPIRED.map(runFiles)), [SCRATCH]: SCRATCH_TEXT } as Record<
    string,
    string
  >;
  for (const [path, text] of Object.entries(expected)) {
    const inTree = existsSync(repo.path(path)) ? readFileSync(repo.path(path), 'utf8') : undefined;
    const places = [inTree, held.get(path)].filter((found) => found !== undefined);
    assert.deepEqual(places, [text], `${path} is in exactly one place, with its bytes`);
  }
  const readme = readFileSync(repo.path('README.md'), 'utf8');
  const commits = repo
    .git(['log', '--format=%H', `${start}..HEAD`])
    .split('\n')
    .filter(Boolean);
  const versions = [readme, ...commits.map((c) => `${repo.git(['show', `${c}:README.md`])}\n`)];
  assert.ok(versions.includes(EDITED), 'the uncommitted edit is in the worktree or the checkpoint');
}

const STEPS = [
  ['after-checkpoint', 'rolled-back'],
  ['before-hold:1', 'rolled-back'],
  ['after-hold:1', 'rolled-back'],
  ['after-hold:3', 'rolled-back'],
  ['after-unstage:1', 'rolled-back'],
  ['after-unstage:2', 'rolled-back'],
  ['before-hold:5', 'rolled-back'],
  ['after-hold:5', 'rolled-back'],
  ['before-commit', 'rolled-back'],
  ['after-commit', 'committed'],
] as const;

describe('stw hygiene clean: SIGKILL at every lifecycle step boundary', () => {
  for (const [step, outcome] of STEPS) {
    it(`killed at ${step}: nothing is lost; the next run reports it (${outcome}) and puts held files back`, async () => {
      const { repo, start, scratchId } = await project();
      const crashed = await runCli(['hygiene', 'clean', '--approve', scratchId], {
        cwd: repo.dir,
        env: { ...NOW, STW_TEST_HOOKS: '1', STW_TEST_CRASH_AT: step },
      });
      assert.equal(crashed.code, null, `killed (stdout: ${crashed.stdout} stderr: ${crashed.stderr})`);
      assertRecoverable(repo, start);

      // The next run, without approving the untracked file this time.
      const next = await runCliJson(['hygiene', 'clean'], { cwd: repo.dir, env: NOW });
      const interrupted = next.json['interrupted_run'] as Record<string, unknown> | undefined;
      assert.equal(interrupted?.['outcome'], outcome, JSON.stringify(next.json));
      assert.equal(interrupted?.['original_head'], start);
      assert.equal(existsSync(repo.path('.git', 'sourcesteward')), false, 'no hold folder, lock or journal');

      // One WIP commit of the edit, one cleanup commit holding exactly the expired runs' git rm.
      assert.equal(repo.git(['rev-list', '--count', `${start}..HEAD`]), '2');
      assert.equal(repo.git(['show', 'HEAD~1:README.md']), EDITED.trimEnd());
      assert.deepEqual(
        repo.git(['diff-tree', '--no-commit-id', '-r', '--name-status', 'HEAD']).split('\n'),
        EXPIRED.flatMap((unit) => Object.keys(runFiles(unit)).map((path) => `D\t${path}`)),
      );
      for (const unit of EXPIRED) assert.equal(existsSync(repo.path(unit)), false, unit);
      if (outcome === 'rolled-back') {
        // Put back byte for byte, and not deleted again: this run did not approve it.
        assert.equal(readFileSync(repo.path(SCRATCH), 'utf8'), SCRATCH_TEXT);
        assert.equal(next.code, 0, next.stderr);
        assert.ok(['committed', 'partial'].includes(String(next.json['status'])));
      } else {
        // The crashed run's commit stood, and with it the approved deletion.
        assert.equal(existsSync(repo.path(SCRATCH)), false);
      }
    });
  }
});
