import assert from 'node:assert/strict';
import { chmodSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fixedClock } from '../../src/core/clock.js';
import { schemaValidator } from '../../src/core/schema.js';
import { applyTidyPlan, type TidyApplyResult } from '../../src/index.js';
import { planTidy } from '../../src/tidy/plan.js';
import type { TidyPlanV1 } from '../../src/tidy/types.js';
import { makeRepo, makeTempDir, type TestRepo } from '../helpers/git-repo.js';

const validateResult = schemaValidator('tidy-apply-v1.schema.json');
const clock = fixedClock('2026-03-01T12:00:00Z');
const cleanups: (() => void)[] = [];
after(() => {
  for (const cleanup of cleanups) cleanup();
});

interface Setup {
  repo: TestRepo;
  stateDir: string;
  plan: TidyPlanV1;
  oids: { one: string; two: string; side: string };
}

/** Two integrated branches `one` and `two` (delete), and a stored plan for them. */
async function setup(): Promise<Setup> {
  const repo = makeRepo();
  const stateDir = makeTempDir('stw-state-');
  chmodSync(stateDir, 0o700);
  cleanups.push(() => repo.cleanup());
  const one = repo.branch('one');
  repo.commit('second', { 'b.txt': 'b\n' });
  const two = repo.branch('two');
  repo.commit('third', { 'c.txt': 'c\n' });
  repo.checkout('two');
  repo.git(['checkout', '-q', '-b', 'side']);
  const side = repo.commit('side work', { 's.txt': 's\n' });
  repo.checkout('main');
  const result = await planTidy({
    path: repo.dir,
    base: 'refs/heads/main',
    refs: ['refs/heads/one', 'refs/heads/two'],
    stateDir,
    clock,
  });
  assert.equal(result.plan.status, 'complete');
  assert.equal(result.plan.effects.length, 2);
  return { repo, stateDir, plan: result.plan, oids: { one, two, side } };
}

function checked(result: TidyApplyResult): TidyApplyResult {
  assert.deepEqual(validateResult(result), []);
  return result;
}

function journal(s: Setup): string[] {
  return readFileSync(join(s.stateDir, 'journals', `${s.plan.plan_id}.jsonl`), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => {
      const record = JSON.parse(line) as {
        type: string;
        action_id: number;
        result?: string;
        reason?: string;
      };
      return [record.type, record.action_id, record.result, record.reason]
        .filter((x) => x !== undefined)
        .join(':');
    });
}

describe('applyTidyPlan (library)', () => {
  it('returns data and takes its time from the injected clock', async () => {
    const s = await setup();
    const result = checked(
      await applyTidyPlan({ planId: s.plan.plan_id, stateDir: s.stateDir, authorize: true, clock }),
    );
    assert.equal(result.status, 'complete');
    assert.equal(result.started_at, '2026-03-01T12:00:00Z');
    const records = readFileSync(result.journal!, 'utf8').trimEnd().split('\n');
    for (const line of records) assert.equal((JSON.parse(line) as { at: string }).at, '2026-03-01T12:00:00Z');
  });

  it('a branch moved after revalidation is stopped by the compare-and-swap: refused, untouched, journaled', async () => {
    const s = await setup();
    let moved = '';
    const result = checked(
      await applyTidyPlan({
        planId: s.plan.plan_id,
        stateDir: s.stateDir,
        authorize: true,
        clock,
        // A concurrent writer moves `one` after its revalidation and intent, before the transaction.
        checkpoint: (step, actionId) => {
          if (step === 'after-intent' && actionId === 1) {
            s.repo.git(['update-ref', 'refs/heads/one', s.oids.side]);
            moved = s.oids.side;
          }
        },
      }),
    );
    assert.equal(moved, s.oids.side);
    assert.equal(result.status, 'partial');
    assert.equal(result.actions[0]?.outcome, 'refused');
    assert.equal(result.actions[0]?.reason, 'stale-proof');
    assert.match(result.actions[0]?.message ?? '', /compare-and-swap refused/);
    assert.equal(result.actions[1]?.outcome, 'deleted');
    assert.equal(
      s.repo.head('refs/heads/one'),
      s.oids.side,
      'the moved branch is left where its writer put it',
    );
    assert.equal(
      s.repo.git(['for-each-ref', `refs/stw-recovery/${s.plan.plan_id}/1`]),
      '',
      'no pin without a deletion',
    );
    assert.deepEqual(journal(s), [
      'intent:1',
      'outcome:1:refused:stale-proof',
      'intent:2',
      'outcome:2:deleted',
      'verified:2',
    ]);
  });

  it('cancellation between actions stops before the next one and reports what completed', async () => {
    const s = await setup();
    const controller = new AbortController();
    const result = checked(
      await applyTidyPlan({
        planId: s.plan.plan_id,
        stateDir: s.stateDir,
        authorize: true,
        clock,
        signal: controller.signal,
        onProgress: (event) => {
          if (event.action_id === 1) controller.abort();
        },
      }),
    );
    assert.equal(result.status, 'partial');
    assert.deepEqual(result.interruption, { cause: 'signal', before_action_id: 2 });
    assert.deepEqual(
      result.actions.map((a) => a.outcome),
      ['deleted', 'not-attempted'],
    );
    assert.equal(s.repo.head('refs/heads/two'), s.oids.two);
  });

  it('a signal that arrives before any action cancels with nothing changed', async () => {
    const s = await setup();
    const before = s.repo.refs();
    const controller = new AbortController();
    controller.abort();
    const result = checked(
      await applyTidyPlan({
        planId: s.plan.plan_id,
        stateDir: s.stateDir,
        authorize: true,
        clock,
        signal: controller.signal,
      }),
    );
    assert.equal(result.status, 'cancelled');
    assert.equal(s.repo.refs(), before);
  });

  it('applies a plan made from a linked worktree path', async () => {
    const repo = makeRepo();
    const stateDir = makeTempDir('stw-state-');
    chmodSync(stateDir, 0o700);
    const wtParent = makeTempDir('stw-wt-');
    cleanups.push(
      () => repo.cleanup(),
      () => rmSync(wtParent, { recursive: true, force: true }),
    );
    const done = repo.branch('done');
    repo.commit('more', { 'm.txt': 'm\n' });
    const linked = repo.worktree(join(wtParent, 'linked'), { newBranch: 'feature' });
    const planned = await planTidy({
      path: linked,
      base: 'refs/heads/main',
      refs: ['refs/heads/done'],
      stateDir,
      clock,
    });
    assert.equal(planned.plan.effects.length, 1);
    const result = checked(
      await applyTidyPlan({ planId: planned.plan.plan_id, stateDir, authorize: true, clock }),
    );
    assert.equal(result.status, 'complete');
    assert.equal(result.repository, linked);
    assert.equal(repo.git(['for-each-ref', 'refs/heads/done']), '');
    assert.equal(repo.head(`refs/stw-recovery/${planned.plan.plan_id}/1`), done);
  });

  it('without authorization nothing is read: even a missing store is not looked at', async () => {
    const result = checked(
      await applyTidyPlan({ planId: 'x', stateDir: '/nonexistent/state', authorize: false, clock }),
    );
    assert.equal(result.status, 'refused');
    assert.equal(result.refusal?.code, 'authorization-required');
  });

  it('an over-long plan id or state dir is refused by the bounds', async () => {
    const s = await setup();
    const long = checked(
      await applyTidyPlan({ planId: 'a'.repeat(129), stateDir: s.stateDir, authorize: true, clock }),
    );
    assert.equal(long.refusal?.code, 'bound-exceeded');
    assert.ok(long.plan_id.length <= 130, 'the echoed id is bounded');
  });
});
