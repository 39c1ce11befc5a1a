import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { Deadline } from '../../src/core/deadline.js';
import { applyTidyPlan } from '../../src/tidy/apply.js';
import {
  apply,
  assertNothingLost,
  cleanupFixtures,
  crashRun,
  fixture,
  journalOf,
  journalRecords,
  plan,
  refMap,
  STW_NOW,
} from './apply-fixture.js';

after(cleanupFixtures);

describe('stw tidy apply: crash injection and retry', () => {
  for (const step of ['after-intent', 'after-transaction', 'after-outcome', 'after-verified'] as const) {
    it(`killed ${step} of action 1, a re-run completes and no branch is lost without a pin`, async () => {
      const f = fixture();
      const p = await plan(f);
      const crashed = await crashRun(f, p.plan_id, `${step}:1`);
      assert.equal(crashed.code, null, `the process was killed (stderr: ${crashed.stderr})`);
      assertNothingLost(f, p);
      assert.equal(refMap(f.repo).get('refs/heads/done2'), f.oids['done2'], 'action 2 never started');

      const { json } = await apply(f, p.plan_id);
      assert.equal(json.status, 'complete');
      assertNothingLost(f, p);
      const refs = refMap(f.repo);
      assert.equal(refs.has('refs/heads/done'), false);
      assert.equal(refs.has('refs/heads/done2'), false);
      assert.equal(refs.get(`refs/stw-recovery/${p.plan_id}/1`), f.oids['done']);
      assert.equal(refs.get(`refs/stw-recovery/${p.plan_id}/2`), f.oids['done2']);
      const first = json.actions[0]!;
      assert.equal(first.outcome, step === 'after-verified' ? 'already-done' : 'deleted');
      assert.equal(first.recovered, step === 'after-transaction' || step === 'after-outcome');

      // The journal tells the whole story, in protocol order, and a third run is a no-op.
      const types = journalRecords(f, p.plan_id)
        .filter((r) => r['action_id'] === 1)
        .map((r) => `${r['type']}${r['result'] ? `:${r['result']}` : ''}`);
      const expected: Record<typeof step, string[]> = {
        'after-intent': ['intent', 'outcome:failed', 'intent', 'outcome:deleted', 'verified'],
        'after-transaction': ['intent', 'outcome:deleted', 'verified'],
        'after-outcome': ['intent', 'outcome:deleted', 'verified'],
        'after-verified': ['intent', 'outcome:deleted', 'verified'],
      };
      assert.deepEqual(types, expected[step]);
      const again = await apply(f, p.plan_id);
      assert.deepEqual(
        again.json.actions.map((a) => a.outcome),
        ['already-done', 'already-done'],
      );
    });
  }

  it('an action deleted by a killed run but not yet verified keeps its pin and says verification is pending when the next run stops before it', async () => {
    const f = fixture();
    const p = await plan(f);
    const crashed = await crashRun(f, p.plan_id, 'after-outcome:1');
    assert.equal(crashed.code, null, `the process was killed (stderr: ${crashed.stderr})`);
    const result = await applyTidyPlan({
      planId: p.plan_id,
      stateDir: f.stateDir,
      authorize: true,
      deadline: Deadline.after(0),
    });
    assert.equal(result.status, 'cancelled', JSON.stringify(result));
    assert.deepEqual(result.interruption, { cause: 'deadline', before_action_id: 1 });
    assert.deepEqual(
      result.actions.map((a) => [a.outcome, a.reason]),
      [
        ['not-attempted', 'verification-pending'],
        ['not-attempted', 'deadline'],
      ],
    );
    assert.match(result.actions[0]!.message ?? '', /^deleted by an earlier run and not yet verified; /);
    assert.deepEqual(
      result.recovery.map((r) => [r.ref, r.recovery_ref]),
      [['refs/heads/done', `refs/stw-recovery/${p.plan_id}/1`]],
    );
    assertNothingLost(f, p);
  });

  it('killed after the transaction with a torn journal tail: the tail is kept as evidence and the run completes', async () => {
    const f = fixture();
    const p = await plan(f);
    await crashRun(f, p.plan_id, 'after-transaction:2');
    const torn = '{"type":"outcome","action_id":2,"res';
    appendFileSync(journalOf(f, p.plan_id), torn);
    assertNothingLost(f, p);
    const { json } = await apply(f, p.plan_id);
    assert.equal(json.status, 'complete');
    assert.deepEqual(
      json.actions.map((a) => [a.outcome, a.recovered]),
      [
        ['already-done', false],
        ['deleted', true],
      ],
    );
    assert.deepEqual(
      journalRecords(f, p.plan_id).find((r) => r['type'] === 'torn-tail-discarded'),
      { type: 'torn-tail-discarded', bytes: torn.length, text: torn, at: STW_NOW },
    );
  });

  it('a journal that does not fit the plan or the protocol refuses before any effect', async () => {
    const f = fixture();
    const p = await plan(f);
    await crashRun(f, p.plan_id, 'after-intent:1');
    // A forged record: an outcome for action 2, which never had an intent.
    appendFileSync(
      journalOf(f, p.plan_id),
      `${JSON.stringify({ type: 'outcome', action_id: 2, result: 'deleted', at: STW_NOW })}\n`,
    );
    const before = f.repo.refs();
    const { json } = await apply(f, p.plan_id);
    assert.equal(json.status, 'refused');
    assert.equal(json.refusal?.code, 'journal-corrupt');
    assert.equal(f.repo.refs(), before);
    assertNothingLost(f, p);
  });

  it('an interrupted intent whose repository state has two possible histories refuses manual-review-required', async () => {
    const f = fixture();
    const p = await plan(f, ['done']);
    await crashRun(f, p.plan_id, 'after-transaction:1');
    // Someone restored the branch from the pin before the journal learned the outcome:
    // pin and branch both present. Was it never deleted, or deleted and restored?
    f.repo.git(['branch', 'done', `refs/stw-recovery/${p.plan_id}/1`]);
    const before = f.repo.refs();
    const { json } = await apply(f, p.plan_id);
    assert.equal(json.status, 'refused');
    assert.equal(json.actions[0]?.reason, 'manual-review-required');
    assert.equal(f.repo.refs(), before, 'nothing changed');
    assert.deepEqual(
      json.recovery.map((r) => r.recovery_ref),
      [`refs/stw-recovery/${p.plan_id}/1`],
      'the existing pin is still reported as a recovery root',
    );
    // It stays refused on every later run: the open intent is never retried blindly.
    assert.equal((await apply(f, p.plan_id)).json.actions[0]?.reason, 'manual-review-required');
  });

  it('an interrupted intent with no effect is retried only after full revalidation', async () => {
    const f = fixture();
    const p = await plan(f, ['done']);
    await crashRun(f, p.plan_id, 'after-intent:1');
    f.repo.commit('base moves on', { 'e.txt': 'e\n' });
    const { json } = await apply(f, p.plan_id);
    assert.equal(json.status, 'refused');
    assert.equal(json.refusal?.code, 'base-moved');
    assert.equal(refMap(f.repo).get('refs/heads/done'), f.oids['done']);
  });

  it('a transaction that fails half-way changes nothing, is journaled as failed, and a later run succeeds', async () => {
    const f = fixture();
    const p = await plan(f, ['done']);
    // A ref where the pin's parent directory must go makes the transaction fail (D/F conflict).
    f.repo.git(['update-ref', `refs/stw-recovery/${p.plan_id}`, 'HEAD']);
    const { json } = await apply(f, p.plan_id);
    assert.equal(json.status, 'failed');
    assert.equal(json.actions[0]?.reason, 'transaction-failed');
    assert.equal(refMap(f.repo).get('refs/heads/done'), f.oids['done'], 'the branch is intact');
    assertNothingLost(f, p);

    f.repo.git(['update-ref', '-d', `refs/stw-recovery/${p.plan_id}`]);
    const retry = await apply(f, p.plan_id);
    assert.equal(retry.json.status, 'complete');
    assert.deepEqual(
      journalRecords(f, p.plan_id).map((r) => `${r['type']}${r['result'] ? `:${r['result']}` : ''}`),
      ['intent', 'outcome:failed', 'intent', 'outcome:deleted', 'verified'],
    );
  });
});

describe('stw tidy apply: deadline and cancellation', () => {
  it('an expired deadline stops before the first action and changes nothing', async () => {
    const f = fixture();
    const p = await plan(f);
    const before = f.repo.refs();
    const { json } = await apply(f, p.plan_id, {
      STW_TEST_HOOKS: '1',
      STW_TEST_TIDY_BOUNDS: JSON.stringify({ deadlineMs: 0 }),
    });
    assert.equal(json.status, 'cancelled');
    assert.deepEqual(json.interruption, { cause: 'deadline', before_action_id: 1 });
    assert.deepEqual(
      json.actions.map((a) => [a.outcome, a.reason]),
      [
        ['not-attempted', 'deadline'],
        ['not-attempted', 'deadline'],
      ],
    );
    assert.equal(f.repo.refs(), before);
  });

  it('truncated evidence (output over the bound) refuses and deletes nothing', async () => {
    const f = fixture();
    const p = await plan(f);
    const before = f.repo.refs();
    const { json } = await apply(f, p.plan_id, {
      STW_TEST_HOOKS: '1',
      STW_TEST_TIDY_BOUNDS: JSON.stringify({ maxOutputBytes: 8 }),
    });
    assert.equal(json.status, 'refused');
    assert.equal(json.refusal?.code, 'evidence-incomplete');
    assert.equal(f.repo.refs(), before);
    assert.equal(json.journal, null);
  });

  it('SIGTERM during action 1 lets it finish, stops before action 2, and reports what completed', async () => {
    const f = fixture();
    const p = await plan(f);
    const { json } = await apply(f, p.plan_id, {
      STW_TEST_HOOKS: '1',
      STW_TEST_INTERRUPT_AT: 'after-transaction:1',
    });
    assert.equal(json.status, 'partial');
    assert.deepEqual(json.interruption, { cause: 'signal', before_action_id: 2 });
    assert.deepEqual(
      json.actions.map((a) => [a.outcome, a.reason]),
      [
        ['deleted', null],
        ['not-attempted', 'cancelled'],
      ],
    );
    assert.equal(refMap(f.repo).get('refs/heads/done2'), f.oids['done2']);
    assert.deepEqual(
      json.recovery.map((r) => r.ref),
      ['refs/heads/done'],
    );
    const resumed = await apply(f, p.plan_id);
    assert.deepEqual(
      resumed.json.actions.map((a) => a.outcome),
      ['already-done', 'deleted'],
    );
  });
});
