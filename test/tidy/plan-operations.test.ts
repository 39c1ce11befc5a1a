import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fixedClock } from '../../src/core/clock.js';
import { schemaValidator } from '../../src/core/schema.js';
import { applyTidyPlan } from '../../src/index.js';
import { planTidy } from '../../src/tidy/plan.js';
import { DEFAULT_PLAN_BOUNDS, type TidyPlanV1 } from '../../src/tidy/types.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo, testEnv } from '../helpers/git-repo.js';
import { checkedPlan, STW_NOW, target } from './helpers.js';

/**
 * A branch that a rebase or bisect started from is held by its worktree even though git
 * lists that worktree as detached (git's own `branch -d` refuses it). Real rebases and
 * bisects in real repositories: the plan retains the branch with a checked-out blocker,
 * and apply refuses a delete whose rebase began after planning.
 */

const clock = fixedClock(STW_NOW);
const validateResult = schemaValidator('tidy-apply-v1.schema.json');
const cleanups: (() => void)[] = [];
after(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function newRepo(): TestRepo {
  const repo = makeRepo();
  cleanups.push(() => repo.cleanup());
  return repo;
}

function linkedWorktree(repo: TestRepo, name: string, options: { branch?: string; at?: string }): string {
  const path = `${repo.dir}-${name}`;
  cleanups.push(() => rmSync(path, { recursive: true, force: true }));
  repo.worktree(path, options);
  return path;
}

/** Runs git where a non-zero exit is expected (a rebase stopping at a conflict). */
function gitStops(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): void {
  const result = spawnSync('git', args, { cwd, env: testEnv(env), encoding: 'utf8' });
  assert.notEqual(
    result.status,
    0,
    `expected git ${args.join(' ')} to stop: ${result.stdout}${result.stderr}`,
  );
}

/** The todo editor that turns every `pick` into `edit`. */
const EDIT_ALL = { GIT_SEQUENCE_EDITOR: "sed -i -e 's/^pick/edit/'" };
/** The todo editor that puts a `break` first: the rebase stops before doing anything. */
const BREAK_FIRST = { GIT_SEQUENCE_EDITOR: "sed -i -e '1i break'" };

async function planFor(repo: TestRepo, refs: string[], stateDir?: string): Promise<TidyPlanV1> {
  const { plan, exitCode } = await planTidy({
    path: repo.dir,
    base: 'refs/heads/main',
    refs,
    stateDir,
    clock,
  });
  assert.equal(exitCode, 0, JSON.stringify(plan.refusal));
  return checkedPlan(plan);
}

function worktreeAt(plan: TidyPlanV1, path: string) {
  const found = plan.worktrees.find((worktree) => worktree.path === path);
  assert.ok(found, `worktree ${path} in plan`);
  return found;
}

describe('tidy plan: rebases and bisects hold their branch', () => {
  it('an interactive rebase in a linked worktree (stopped at edit, amended) retains the branch', async () => {
    // feature was fast-forward merged into main, then main moved on (the reviewer's repro).
    const repo = newRepo();
    repo.git(['checkout', '-q', '-b', 'feature']);
    const feature = repo.commit('feature work', { 'f.txt': 'f\n' });
    repo.checkout('main');
    repo.git(['merge', '-q', '--ff-only', 'feature']);
    repo.commit('main moves on', { 'm.txt': 'm\n' });
    const wt = linkedWorktree(repo, 'wt-rebase', { branch: 'feature' });
    repo.git(['rebase', '-q', '-i', 'HEAD~1'], { cwd: wt, env: EDIT_ALL });
    repo.git(['commit', '-q', '--amend', '-m', 'feature work, amended'], { cwd: wt });

    const plan = await planFor(repo, ['refs/heads/feature']);
    const t = target(plan, 'refs/heads/feature');
    assert.equal(t.oid, feature);
    assert.equal(t.decision, 'retain');
    assert.deepEqual(t.reasons, ['integrated', 'checked-out']);
    assert.deepEqual(t.blockers, [{ reason: 'checked-out', worktree: wt, operation: 'rebase' }]);
    const listed = worktreeAt(plan, wt);
    assert.equal(listed.detached, true);
    assert.equal(listed.branch, null);
    assert.deepEqual(listed.operations, [
      { kind: 'rebase', file: 'rebase-merge/head-name', branch: 'refs/heads/feature' },
    ]);
    assert.equal(listed.operations_unreadable, null);
    assert.deepEqual(worktreeAt(plan, repo.dir).operations, []);
    assert.equal(plan.effects.length, 0);

    // The human rendering carries the same fact; and the user's rebase still finishes.
    const human = await runCli(
      ['tidy', 'plan', repo.dir, '--base', 'refs/heads/main', '--ref', 'refs/heads/feature'],
      {
        cwd: repo.dir,
      },
    );
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /blocker: checked-out \(rebase in progress\) in worktree /);
    assert.match(human.stdout, /rebase in progress of "?refs\/heads\/feature/);
    repo.git(['rebase', '--continue'], { cwd: wt });
    assert.notEqual(repo.git(['rev-parse', 'refs/heads/feature']), feature);
  });

  for (const backend of ['--apply', '--merge']) {
    it(`a conflicting non-interactive rebase (${backend}) in the main worktree retains the branch`, async () => {
      const repo = newRepo();
      const c0 = repo.head();
      repo.git(['checkout', '-q', '-b', 'other']);
      repo.commit('other edits a', { 'a.txt': 'other\n' });
      repo.git(['checkout', '-q', '-b', 'topic', c0]);
      const topic = repo.commit('topic edits a', { 'a.txt': 'topic\n' });
      repo.checkout('main');
      repo.git(['merge', '-q', '--ff-only', 'topic']);
      repo.commit('main moves on', { 'm.txt': 'm\n' });
      repo.checkout('topic');
      gitStops(repo.dir, ['rebase', backend, 'other']);

      const plan = await planFor(repo, ['refs/heads/topic', 'refs/heads/other']);
      const t = target(plan, 'refs/heads/topic');
      assert.equal(t.oid, topic);
      assert.equal(t.decision, 'retain');
      assert.deepEqual(t.reasons, ['integrated', 'checked-out']);
      assert.deepEqual(t.blockers, [{ reason: 'checked-out', worktree: repo.dir, operation: 'rebase' }]);
      const main = worktreeAt(plan, repo.dir);
      assert.equal(main.detached, true);
      const file = backend === '--apply' ? 'rebase-apply/head-name' : 'rebase-merge/head-name';
      assert.deepEqual(main.operations, [{ kind: 'rebase', file, branch: 'refs/heads/topic' }]);
      // The branch the rebase is onto is what HEAD shows: not held by the rebase.
      assert.deepEqual(
        target(plan, 'refs/heads/other').blockers.map((b) => b.reason),
        ['worktree-head'],
      );
    });
  }

  it('a bisect in the main worktree retains the branch it started from', async () => {
    const repo = newRepo();
    const good = repo.head();
    for (const n of [1, 2, 3]) repo.commit(`c${n}`, { 'n.txt': `${n}\n` });
    const topic = repo.branch('topic');
    repo.commit('c4', { 'n.txt': '4\n' });
    repo.checkout('topic');
    repo.git(['bisect', 'start', topic, good]);
    assert.notEqual(repo.git(['rev-parse', 'HEAD']), topic, 'bisect checked out a midpoint');

    const plan = await planFor(repo, ['refs/heads/topic']);
    const t = target(plan, 'refs/heads/topic');
    assert.equal(t.decision, 'retain');
    assert.deepEqual(t.reasons, ['integrated', 'checked-out']);
    assert.deepEqual(t.blockers, [{ reason: 'checked-out', worktree: repo.dir, operation: 'bisect' }]);
    assert.deepEqual(worktreeAt(plan, repo.dir).operations, [
      { kind: 'bisect', file: 'BISECT_START', branch: 'refs/heads/topic' },
    ]);
    repo.git(['bisect', 'reset']);
    assert.equal(repo.git(['symbolic-ref', 'HEAD']), 'refs/heads/topic');
  });

  it('a bisect started on a detached HEAD holds no branch', async () => {
    const repo = newRepo();
    const good = repo.head();
    for (const n of [1, 2, 3]) repo.commit(`c${n}`, { 'n.txt': `${n}\n` });
    const done = repo.branch('done');
    repo.git(['checkout', '-q', '--detach', 'main']);
    repo.git(['bisect', 'start', 'HEAD', good]);
    const plan = await planFor(repo, ['refs/heads/done']);
    const [operation] = worktreeAt(plan, repo.dir).operations ?? [];
    assert.deepEqual(operation, { kind: 'bisect', file: 'BISECT_START', branch: null });
    assert.equal(target(plan, 'refs/heads/done').oid, done);
  });

  it('unreadable, oversized or malformed rebase/bisect state makes every target uncertain', async () => {
    const repo = newRepo();
    repo.branch('done');
    repo.commit('ahead', { 'a.txt': 'a\n' });
    const wt = linkedWorktree(repo, 'wt-state', { at: repo.head() });
    const adminDir = repo.git(['rev-parse', '--path-format=absolute', '--git-dir'], { cwd: wt });
    const baseline = await planFor(repo, ['refs/heads/done']);
    assert.equal(target(baseline, 'refs/heads/done').decision, 'delete');

    const cases: [string, () => void, RegExp][] = [
      [
        'oversized head-name',
        () => {
          mkdirSync(join(adminDir, 'rebase-merge'));
          writeFileSync(join(adminDir, 'rebase-merge', 'head-name'), `refs/heads/${'x'.repeat(5000)}\n`);
        },
        /rebase-merge\/head-name: larger than 4097 bytes/,
      ],
      [
        'rebase-merge without head-name',
        () => mkdirSync(join(adminDir, 'rebase-merge')),
        /rebase-merge exists without head-name/,
      ],
      [
        'BISECT_START that is a directory',
        () => mkdirSync(join(adminDir, 'BISECT_START')),
        /BISECT_START: not a regular file/,
      ],
      [
        'BISECT_START that is a FIFO (must not block)',
        () => execFileSync('mkfifo', [join(adminDir, 'BISECT_START')]),
        /BISECT_START: not a regular file/,
      ],
      [
        'head-name that is not a ref name',
        () => {
          mkdirSync(join(adminDir, 'rebase-apply'));
          writeFileSync(join(adminDir, 'rebase-apply', 'head-name'), 'refs/heads/a..b\n');
        },
        /rebase-apply\/head-name: does not name a branch/,
      ],
    ];
    if (process.getuid?.() !== 0)
      cases.push([
        'unreadable head-name',
        () => {
          mkdirSync(join(adminDir, 'rebase-merge'));
          writeFileSync(join(adminDir, 'rebase-merge', 'head-name'), 'refs/heads/done\n');
          chmodSync(join(adminDir, 'rebase-merge', 'head-name'), 0o000);
        },
        /rebase-merge\/head-name: EACCES/,
      ]);
    for (const [label, make, why] of cases) {
      make();
      try {
        const plan = await planFor(repo, ['refs/heads/done']);
        const t = target(plan, 'refs/heads/done');
        assert.equal(t.decision, 'retain', label);
        assert.ok(t.reasons.includes('uncertain'), label);
        assert.equal(t.evidence.ancestor_of_base, null, label);
        assert.ok(
          t.evidence.notes.some((note) => why.test(note)),
          `${label}: ${t.evidence.notes.join(' | ')}`,
        );
        assert.match(worktreeAt(plan, wt).operations_unreadable ?? '', why, label);
        assert.equal(plan.effects.length, 0, label);
      } finally {
        for (const name of ['rebase-merge', 'rebase-apply', 'BISECT_START'])
          rmSync(join(adminDir, name), { recursive: true, force: true });
      }
    }
    // `git am` keeps its state in rebase-apply too; it holds no branch and is not a rebase.
    mkdirSync(join(adminDir, 'rebase-apply'));
    writeFileSync(join(adminDir, 'rebase-apply', 'applying'), '');
    const am = await planFor(repo, ['refs/heads/done']);
    assert.equal(target(am, 'refs/heads/done').decision, 'delete');
    assert.deepEqual(worktreeAt(am, wt).operations, []);
  });

  it('reads every worktree git dir, listed or not, within the entry bound', async () => {
    const repo = newRepo();
    const done = repo.branch('done');
    repo.commit('ahead', { 'a.txt': 'a\n' });
    // An admin dir git does not list (no gitdir file) that still records a rebase of done.
    const stray = join(repo.dir, '.git', 'worktrees', 'stray');
    mkdirSync(join(stray, 'rebase-merge'), { recursive: true });
    writeFileSync(join(stray, 'rebase-merge', 'head-name'), 'refs/heads/done\n');
    const plan = await planFor(repo, ['refs/heads/done']);
    assert.equal(plan.worktrees.length, 1, 'git lists only the main worktree');
    const t = target(plan, 'refs/heads/done');
    assert.equal(t.oid, done);
    assert.equal(t.decision, 'retain');
    assert.deepEqual(t.blockers, [{ reason: 'checked-out', worktree: stray, operation: 'rebase' }]);

    // More worktree git dirs than the entry bound: refused, never a partial read.
    for (const id of ['a', 'b', 'c']) mkdirSync(join(repo.dir, '.git', 'worktrees', id));
    const bounded = await planTidy({
      path: repo.dir,
      base: 'refs/heads/main',
      refs: ['refs/heads/done'],
      clock,
      bounds: { ...DEFAULT_PLAN_BOUNDS, maxEntries: 3 },
    });
    assert.equal(bounded.plan.status, 'refused');
    assert.equal(bounded.plan.refusal?.code, 'bound-exceeded');
    assert.match(bounded.plan.refusal?.message ?? '', /4 worktree registrations/);
  });
});

describe('tidy apply: a rebase that starts after planning', () => {
  it('refuses the delete as stale and leaves the branch for the rebase', async () => {
    const repo = newRepo();
    const stateDir = makeTempDir('stw-state-');
    chmodSync(stateDir, 0o700);
    cleanups.push(() => rmSync(stateDir, { recursive: true, force: true }));
    const done = repo.branch('done');
    repo.commit('second', { 'b.txt': 'b\n' });
    const kept = repo.branch('kept');
    const tip = repo.commit('third', { 'c.txt': 'c\n' });
    // A linked worktree detached at main's tip, there before planning.
    const wt = linkedWorktree(repo, 'wt-later', { at: tip });

    const plan = await planFor(repo, ['refs/heads/done', 'refs/heads/kept'], stateDir);
    assert.equal(target(plan, 'refs/heads/done').decision, 'delete');
    assert.equal(target(plan, 'refs/heads/kept').decision, 'delete');
    assert.equal(plan.effects.length, 2);

    // After planning, a rebase of `done` starts there and stops at once: HEAD is still
    // detached at the same commit, so the worktree list looks exactly as planned; only
    // the rebase state says `done` is in use.
    repo.git(['rebase', '-q', '-i', '--onto', tip, 'refs/heads/done', 'done'], { cwd: wt, env: BREAK_FIRST });
    assert.equal(repo.git(['rev-parse', 'HEAD'], { cwd: wt }), tip);

    const result = await applyTidyPlan({ planId: plan.plan_id, stateDir, authorize: true, clock });
    assert.deepEqual(validateResult(result), []);
    const [first, second] = result.actions;
    assert.equal(first?.ref, 'refs/heads/done');
    assert.equal(first?.outcome, 'refused');
    assert.equal(first?.reason, 'stale-proof');
    assert.match(first?.message ?? '', /now retained: integrated, checked-out/);
    // The other, unrelated branch is still deleted (with its recovery ref).
    assert.equal(second?.outcome, 'deleted');
    assert.equal(result.status, 'partial');
    assert.equal(repo.git(['rev-parse', 'refs/heads/done']), done);
    assert.equal(repo.git(['rev-parse', second?.recovery_ref ?? '']), kept);

    // The user's rebase is intact and finishes.
    repo.git(['rebase', '--continue'], { cwd: wt });
    assert.equal(repo.git(['symbolic-ref', 'HEAD'], { cwd: wt }), 'refs/heads/done');
  });
});
