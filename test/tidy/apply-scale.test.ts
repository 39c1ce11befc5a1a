import assert from 'node:assert/strict';
import { chmodSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fixedClock } from '../../src/core/clock.js';
import { schemaValidator } from '../../src/core/schema.js';
import { applyTidyPlan, type TidyApplyResult } from '../../src/tidy/apply.js';
import { planTidy } from '../../src/tidy/plan.js';
import { DEFAULT_APPLY_BOUNDS, type TidyPlanV1 } from '../../src/tidy/types.js';
import { runCliJson } from '../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo } from '../helpers/git-repo.js';
import { makeBranches, STW_NOW } from './helpers.js';

const clock = fixedClock(STW_NOW);
const validateResult = schemaValidator('tidy-apply-v1.schema.json');
const cleanups: (() => void)[] = [];
after(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** `count` integrated branches b/0000… at main's first commit, main one commit ahead, and a stored plan. */
async function manyBranches(
  count: number,
): Promise<{ repo: TestRepo; stateDir: string; plan: TidyPlanV1; at: string }> {
  const repo = makeRepo();
  const stateDir = makeTempDir('stw-state-');
  chmodSync(stateDir, 0o700);
  cleanups.push(
    () => repo.cleanup(),
    () => rmSync(stateDir, { recursive: true, force: true }),
  );
  const at = repo.head();
  makeBranches(
    repo,
    Array.from({ length: count }, (_, i) => `b/${String(i).padStart(4, '0')}`),
    at,
  );
  repo.git(['pack-refs', '--all']);
  repo.commit('ahead', { 'a.txt': 'a\n' });
  const { plan } = await planTidy({ path: repo.dir, base: 'refs/heads/main', stateDir, clock });
  assert.equal(plan.status, 'complete', plan.refusal?.message);
  assert.equal(plan.effects.length, count);
  return { repo, stateDir, plan, at };
}

function refsOf(repo: TestRepo): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of repo.refs().split('\n')) {
    const [name, oid] = line.split(' ');
    if (name && oid) map.set(name, oid);
  }
  return map;
}

/** No test depends on the machine's speed: the deadline is raised far above the target. */
const slowMachineBounds = { ...DEFAULT_APPLY_BOUNDS, deadlineMs: 600_000 };

describe('tidy apply at scale', () => {
  it('deletes 1,000 branches in one apply, each pinned, journaled and verified', async () => {
    const s = await manyBranches(1000);
    const { json, code } = await runCliJson<TidyApplyResult>(
      ['tidy', 'apply', '--plan', s.plan.plan_id, '--state-dir', s.stateDir, '--authorize'],
      {
        cwd: s.stateDir,
        env: {
          STW_NOW,
          STW_TEST_HOOKS: '1',
          STW_TEST_TIDY_BOUNDS: JSON.stringify({ deadlineMs: slowMachineBounds.deadlineMs }),
        },
      },
    );
    assert.deepEqual(validateResult(json), []);
    assert.equal(code, 0);
    assert.equal(json.status, 'complete');
    assert.equal(json.actions.length, 1000);
    assert.ok(json.actions.every((a) => a.outcome === 'deleted' && a.verified));
    const refs = refsOf(s.repo);
    for (const effect of s.plan.effects) {
      assert.equal(refs.has(effect.ref), false, effect.ref);
      assert.equal(refs.get(effect.recovery_ref!), s.at, effect.recovery_ref!);
    }
    assert.equal(json.recovery.length, 1000);
    const records = readFileSync(join(s.stateDir, 'journals', `${s.plan.plan_id}.jsonl`), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; action_id: number });
    for (const type of ['intent', 'outcome', 'verified'])
      assert.deepEqual(
        records.filter((r) => r.type === type).map((r) => r.action_id),
        s.plan.effects.map((e) => e.action_id),
        type,
      );
    // Every action's intent is journaled before its outcome.
    const firstSeen = new Map<string, number>();
    for (const [i, r] of records.entries()) {
      const key = `${r.type}:${r.action_id}`;
      if (!firstSeen.has(key)) firstSeen.set(key, i);
    }
    for (const e of s.plan.effects)
      assert.ok(firstSeen.get(`intent:${e.action_id}`)! < firstSeen.get(`outcome:${e.action_id}`)!);
  });

  it('a base that moves during a long apply refuses every action after it, and deletes none of them', async () => {
    const s = await manyBranches(40);
    const result = await applyTidyPlan({
      planId: s.plan.plan_id,
      stateDir: s.stateDir,
      authorize: true,
      clock,
      bounds: slowMachineBounds,
      checkpoint: (step, id) => {
        if (step === 'after-verified' && id === 3) s.repo.commit('base moves on', { 'm.txt': 'm\n' });
      },
    });
    assert.deepEqual(validateResult(result), []);
    assert.equal(result.status, 'partial');
    assert.equal(result.refusal?.code, 'base-moved');
    const refs = refsOf(s.repo);
    for (const action of result.actions) {
      if (action.action_id <= 3) assert.equal(action.outcome, 'deleted', `action ${action.action_id}`);
      else {
        assert.notEqual(action.outcome, 'deleted', `action ${action.action_id}`);
        assert.equal(refs.get(action.ref), s.at, `${action.ref} is untouched`);
        assert.equal(refs.has(action.recovery_ref), false, 'and not pinned');
      }
    }
  });

  it('a worktree added mid-apply refuses the branch it holds (and the rest), deleting none of them', async () => {
    const s = await manyBranches(40);
    const wt = `${s.repo.dir}-wt`;
    cleanups.push(() => rmSync(wt, { recursive: true, force: true }));
    const held = s.plan.effects[9]!;
    const result = await applyTidyPlan({
      planId: s.plan.plan_id,
      stateDir: s.stateDir,
      authorize: true,
      clock,
      bounds: slowMachineBounds,
      checkpoint: (step, id) => {
        if (step === 'after-verified' && id === 1)
          s.repo.worktree(wt, { branch: held.ref.slice('refs/heads/'.length) });
      },
    });
    assert.deepEqual(validateResult(result), []);
    assert.equal(result.refusal?.code, 'worktrees-changed');
    assert.equal(result.actions[0]?.outcome, 'deleted');
    const heldAction = result.actions[held.action_id - 1]!;
    assert.notEqual(heldAction.outcome, 'deleted');
    assert.equal(refsOf(s.repo).get(held.ref), s.at, 'the held branch is untouched');
    for (const action of result.actions.slice(1))
      assert.equal(refsOf(s.repo).get(action.ref), s.at, `${action.ref} is untouched`);
  });
});
