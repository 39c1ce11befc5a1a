import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import type { TidyPlanV2 } from '../../src/tidy/retire/types.js';
import {
  applyRetire,
  cleanupTaskFixtures,
  crashRetire,
  integratedTask,
  journalTypes,
  listTree,
  refOid,
  retirePlan,
  type TaskFixture,
} from '../task/fixture.js';

after(cleanupTaskFixtures);

const STEPS = ['after-intent', 'after-effect', 'after-outcome', 'after-verified'] as const;
const EFFECTS = ['pin-recovery-ref', 'remove-files', 'remove-own-lock', 'remove-registration'];

/**
 * The invariants after any crash: nothing outside the manifest was removed (the parent
 * holds only the sibling and what is left of the destination, every path left in the
 * destination is a manifest entry, the source repository is untouched), and the task's
 * commit is held by the branch and — once the pin effect ran — by the pin.
 */
function assertNothingLost(f: TaskFixture, plan: TidyPlanV2, tip: string, repoTree: string[]): void {
  const parent = listTree(f.parent).filter((path) => !path.startsWith(`${f.taskId}/`));
  assert.ok(parent.includes('sibling.txt'), 'the sibling is kept');
  assert.ok(
    parent.every((path) => path === 'sibling.txt' || path === f.taskId),
    JSON.stringify(parent),
  );
  if (existsSync(f.dest)) {
    const planned = new Set(plan.retirement!.manifest.entries.map((e) => e.path));
    for (const path of listTree(f.dest)) assert.ok(planned.has(path), `${path} is a manifest entry`);
  }
  assert.deepEqual(
    listTree(f.repo.dir).filter((p) => !p.startsWith('.git/')),
    repoTree,
    'the source worktree is untouched',
  );
  assert.equal(refOid(f.repo, f.branch), tip, 'the task branch stays');
}

describe('stw tidy apply (retirement): SIGKILL at every step boundary, then a re-run', () => {
  for (const [index, effect] of EFFECTS.entries()) {
    const id = index + 1;
    for (const step of STEPS) {
      it(`killed ${step} of effect ${id} (${effect}): the re-run completes and the journal tells what happened`, async () => {
        const f = await integratedTask();
        const tip = f.repo.head(f.branch);
        const plan = await retirePlan(f);
        const pin = `refs/stw-recovery/${plan.plan_id}/1`;
        const repoTree = listTree(f.repo.dir).filter((p) => !p.startsWith('.git/'));
        const crashed = await crashRetire(f, plan.plan_id, `${step}:${id}`);
        assert.equal(crashed.code, null, `the process was killed (stderr: ${crashed.stderr})`);
        assertNothingLost(f, plan, tip, repoTree.concat());
        if (id > 1 || step !== 'after-intent')
          assert.equal(refOid(f.repo, pin), tip, 'pinned before anything is removed');

        const { json } = await applyRetire(f, plan.plan_id);
        assert.equal(json.status, 'complete', JSON.stringify(json.effects));
        assert.equal(existsSync(f.dest), false);
        assert.equal(refOid(f.repo, pin), tip);
        assertNothingLost(f, plan, tip, repoTree);
        assert.deepEqual(
          json.effects.map((e) => e.outcome),
          EFFECTS.map((_, i) =>
            i + 1 < id || (i + 1 === id && step === 'after-verified') ? 'already-done' : 'done',
          ),
        );
        assert.equal(json.effects[index]?.recovered, step === 'after-effect' || step === 'after-outcome');

        const ahead = EFFECTS.slice(0, index).flatMap((_, i) => [
          `intent:${i + 1}`,
          `outcome:${i + 1}:done`,
          `verified:${i + 1}`,
        ]);
        const here: Record<(typeof STEPS)[number], string[]> = {
          'after-intent': [
            `intent:${id}`,
            `outcome:${id}:not-done`,
            `intent:${id}`,
            `outcome:${id}:done`,
            `verified:${id}`,
          ],
          'after-effect': [`intent:${id}`, `outcome:${id}:done`, `verified:${id}`],
          'after-outcome': [`intent:${id}`, `outcome:${id}:done`, `verified:${id}`],
          'after-verified': [`intent:${id}`, `outcome:${id}:done`, `verified:${id}`],
        };
        const behind = EFFECTS.slice(id).flatMap((_, i) => [
          `intent:${id + i + 1}`,
          `outcome:${id + i + 1}:done`,
          `verified:${id + i + 1}`,
        ]);
        assert.deepEqual(journalTypes(f, plan.plan_id), [...ahead, ...here[step], ...behind]);
      });
    }
  }

  it('killed in the middle of the file removal: the re-run reports partial for manual review and removes nothing more', async () => {
    const f = await integratedTask();
    const tip = f.repo.head(f.branch);
    const plan = await retirePlan(f);
    const repoTree = listTree(f.repo.dir).filter((p) => !p.startsWith('.git/'));
    const crashed = await crashRetire(f, plan.plan_id, 'after-entry:2');
    assert.equal(crashed.code, null);
    const left = listTree(f.dest);
    assertNothingLost(f, plan, tip, repoTree);
    const { json } = await applyRetire(f, plan.plan_id);
    assert.equal(json.status, 'partial');
    assert.deepEqual(
      json.effects.map((e) => [e.outcome, e.reason]),
      [
        ['already-done', null],
        ['partial', 'manual-review-required'],
        ['not-attempted', 'not-attempted'],
        ['not-attempted', 'not-attempted'],
      ],
    );
    assert.deepEqual(listTree(f.dest), left, 'no blind retry');
    assert.equal(refOid(f.repo, `refs/stw-recovery/${plan.plan_id}/1`), tip);
    assert.deepEqual(journalTypes(f, plan.plan_id).slice(-2), ['intent:2', 'outcome:2:partial']);
    // Every later run says the same and changes nothing.
    const again = await applyRetire(f, plan.plan_id);
    assert.equal(again.json.effects[1]?.reason, 'manual-review-required');
    assert.deepEqual(listTree(f.dest), left);
  });
});

describe('stw tidy apply (retirement): SIGTERM', () => {
  it('SIGTERM after the pin stops before the files: partial, pinned, and a re-run completes', async () => {
    const f = await integratedTask();
    const plan = await retirePlan(f);
    const { json } = await applyRetire(f, plan.plan_id, {
      STW_TEST_HOOKS: '1',
      STW_TEST_INTERRUPT_AT: 'after-verified:1',
    });
    assert.equal(json.status, 'partial');
    assert.deepEqual(json.interruption, { cause: 'signal', before_effect_id: 2 });
    assert.deepEqual(
      json.effects.map((e) => [e.outcome, e.reason]),
      [
        ['done', null],
        ['not-attempted', 'cancelled'],
        ['not-attempted', 'cancelled'],
        ['not-attempted', 'cancelled'],
      ],
    );
    assert.equal(json.recovery?.present, true);
    assert.ok(existsSync(f.dest), 'nothing was removed');
    const resumed = await applyRetire(f, plan.plan_id);
    assert.equal(resumed.json.status, 'complete');
    assert.equal(existsSync(f.dest), false);
  });
});
