import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fixedClock } from '../../src/core/clock.js';
import type { TaskRegistration } from '../../src/task/types.js';
import { applyRetirement } from '../../src/tidy/retire/apply.js';
import {
  applyRetire,
  blockerCodes,
  cleanupTaskFixtures,
  integratedTask,
  listTree,
  planRetire,
  refOid,
  retirePlan,
  STW_NOW,
  type TaskFixture,
} from '../task/fixture.js';

after(cleanupTaskFixtures);

/**
 * A commit made on a detached HEAD inside the task worktree, then the branch checked out
 * again: only the worktree's HEAD reflog (ADMIN/logs/HEAD) reaches it, and `git worktree
 * remove` deletes that reflog.
 */
function detachedCommit(f: TaskFixture): string {
  const git = (args: string[]) => f.repo.git(['-C', f.dest, ...args]);
  git(['checkout', '-q', '--detach']);
  git(['commit', '-q', '--allow-empty', '--no-verify', '-m', 'detached work']);
  const oid = git(['rev-parse', 'HEAD']);
  git(['checkout', '-q', 'stw/task/task-1']);
  return oid;
}

function adminDir(f: TaskFixture): string {
  return f.repo.git(['-C', f.dest, 'rev-parse', '--absolute-git-dir']);
}

/** An ordinary reflog line moving HEAD to `oid`. */
function reflogLine(oid: string, zero: string): string {
  return `${zero} ${oid} Someone <someone@example.com> 1700000000 +0000\tcommit: by hand\n`;
}

describe('stw tidy plan --task: commits only the worktree HEAD reflog keeps', () => {
  it('a detached-HEAD commit retains the plan, naming it and the reflog', async () => {
    const f = await integratedTask();
    const lost = detachedCommit(f);
    const { json } = await planRetire(f);
    const r = json.retirement!;
    assert.equal(r.decision, 'retain');
    assert.deepEqual(r.effects, []);
    const blocker = r.blockers.find((b) => b.code === 'unreferenced-commit');
    assert.ok(blocker, JSON.stringify(r.blockers));
    assert.equal(blocker.path, join(adminDir(f), 'logs', 'HEAD'));
    assert.match(
      blocker.message,
      new RegExp(`1 commit is reachable only .*${lost}.*git branch NAME ${lost}`),
    );
    assert.deepEqual(blockerCodes(json), ['unreferenced-commit'], 'nothing else blocks');
  });

  it('kept on a branch, the same commit no longer blocks', async () => {
    const f = await integratedTask();
    const lost = detachedCommit(f);
    f.repo.git(['branch', 'keep', lost]);
    const { json } = await planRetire(f);
    assert.equal(json.retirement?.decision, 'retire', JSON.stringify(json.retirement?.blockers));
  });

  it("a commit reset away on the task branch stays in the branch's own reflog and does not block", async () => {
    const f = await integratedTask();
    f.repo.git(['-C', f.dest, 'commit', '-q', '--allow-empty', '--no-verify', '-m', 'undone']);
    f.repo.git(['-C', f.dest, 'reset', '-q', '--hard', 'HEAD~']);
    const { json } = await planRetire(f);
    assert.equal(json.retirement?.decision, 'retire', JSON.stringify(json.retirement?.blockers));
  });

  it('a reflog beyond the bound retains (bound-exceeded), never assumed empty', async () => {
    const f = await integratedTask();
    const zero = '0'.repeat(40);
    let lines = '';
    for (let i = 0; i < 40; i++) lines += reflogLine(i.toString(16).padStart(40, 'a'), zero);
    appendFileSync(join(adminDir(f), 'logs', 'HEAD'), lines);
    const { json } = await planRetire(f, {
      env: { STW_TEST_HOOKS: '1', STW_TEST_TIDY_BOUNDS: JSON.stringify({ maxEntries: 32 }) },
    });
    assert.equal(json.retirement?.decision, 'retain');
    const blocker = json.retirement!.blockers.find((b) => b.code === 'bound-exceeded');
    assert.equal(blocker?.path, join(adminDir(f), 'logs', 'HEAD'));
    assert.match(blocker?.message ?? '', /more than 32 commits/);
  });
});

describe('stw tidy apply: a reflog-only commit appearing after planning', () => {
  it('before the pin: refused as a stale proof, nothing removed, no pin', async () => {
    const f = await integratedTask();
    const plan = await retirePlan(f);
    const lost = detachedCommit(f);
    const before = listTree(f.dest);
    const { json } = await applyRetire(f, plan.plan_id);
    assert.equal(json.status, 'refused');
    assert.equal(json.effects[0]?.reason, 'stale-proof');
    assert.match(json.effects[0]?.message ?? '', new RegExp(`unreferenced-commit .*${lost}`));
    assert.deepEqual(listTree(f.dest), before);
    assert.equal(refOid(f.repo, `refs/stw-recovery/${plan.plan_id}/1`), undefined);
    assert.equal(f.repo.git(['cat-file', '-t', lost]), 'commit');
  });

  it('after the files went: the registration and its reflog stay (partial, for review)', async () => {
    const f = await integratedTask();
    const plan = await retirePlan(f);
    const admin = (plan.retirement!.registration.recorded as TaskRegistration).admin_dir;
    // A commit no ref reaches, recorded in the worktree's reflog right after the files are removed.
    const lost = f.repo.git(['commit-tree', '-m', 'late', 'HEAD^{tree}']);
    const result = await applyRetirement({
      planId: plan.plan_id,
      stateDir: f.stateDir,
      authorize: true,
      clock: fixedClock(STW_NOW),
      checkpoint: (step, id) => {
        if (step === 'after-verified' && id === 2)
          appendFileSync(join(admin, 'logs', 'HEAD'), reflogLine(lost, '0'.repeat(40)));
      },
    });
    assert.equal(result.status, 'partial');
    assert.deepEqual(
      result.effects.map((e) => [e.type, e.outcome, e.reason]),
      [
        ['pin-recovery-ref', 'done', null],
        ['remove-files', 'done', null],
        ['remove-own-lock', 'refused', 'stale-proof'],
        ['remove-registration', 'not-attempted', 'not-attempted'],
      ],
    );
    assert.match(result.effects[2]?.message ?? '', new RegExp(lost));
    assert.ok(existsSync(join(admin, 'logs', 'HEAD')), 'the reflog is kept');
    assert.match(readFileSync(join(admin, 'logs', 'HEAD'), 'utf8'), new RegExp(lost));
    assert.match(f.repo.git(['worktree', 'list']), new RegExp(f.dest), 'the registration stays');
  });
});
