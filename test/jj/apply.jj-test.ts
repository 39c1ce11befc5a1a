import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { schemaValidator } from '../../src/core/schema.js';
import { applyTidyPlan, type TidyApplyOptions, type TidyApplyResult } from '../../src/tidy/apply.js';
import type { TidyPlanV1 } from '../../src/tidy/types.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/git-repo.js';
import { checkedPlan, STW_NOW } from '../tidy/helpers.js';
import { controlledDeadline, type JjRepo, jjTestEnv, makeJjRepo } from './helpers.js';

const validateResult = schemaValidator('tidy-apply-v1.schema.json');
const env = (extra: NodeJS.ProcessEnv = {}) => jjTestEnv({ STW_NOW, ...extra });
const made: JjRepo[] = [];
after(() => {
  for (const repo of made) repo.cleanup();
});

interface Fixture {
  repo: JjRepo;
  stateDir: string;
  commits: Record<string, string>;
  changes: Record<string, string>;
}

/** done ← done2 ← main, and wip off done; the working copy on main. */
function fixture(): Fixture {
  const repo = makeJjRepo();
  made.push(repo);
  const commits: Record<string, string> = {};
  const changes: Record<string, string> = {};
  for (const name of ['done', 'done2', 'main']) {
    repo.commit(name, { [`${name}.txt`]: `${name}\n` });
    repo.jj(['bookmark', 'create', name, '-r', '@-']);
    const ids = repo.ids('@-');
    commits[name] = ids.commit;
    changes[name] = ids.change;
  }
  repo.jj(['new', 'done']);
  repo.commit('wip', { 'wip.txt': 'wip\n' });
  repo.jj(['bookmark', 'create', 'wip', '-r', '@-']);
  commits['wip'] = repo.ids('@-').commit;
  repo.jj(['new', 'main']);
  return { repo, stateDir: makeTempDir('stw-jj-apply-state-'), commits, changes };
}

async function plan(f: Fixture): Promise<TidyPlanV1> {
  const result = await runCliJson(['tidy', 'plan', f.repo.dir, '--base', 'main', '--state-dir', f.stateDir], {
    cwd: f.repo.dir,
    env: env(),
  });
  assert.equal(result.code, 0, result.stderr);
  const p = checkedPlan(result.json);
  assert.deepEqual(
    p.effects.map((e) => e.ref),
    ['done', 'done2'],
  );
  return p;
}

async function apply(f: Fixture, planId: string, extra: NodeJS.ProcessEnv = {}) {
  const result = await runCliJson<TidyApplyResult>(
    ['tidy', 'apply', '--plan', planId, '--state-dir', f.stateDir, '--authorize'],
    { cwd: f.stateDir, env: env(extra) },
  );
  assert.deepEqual(validateResult(result.json), [], 'the result matches schema v1');
  return result;
}

function crash(f: Fixture, planId: string, at: string) {
  return runCli(['tidy', 'apply', '--plan', planId, '--state-dir', f.stateDir, '--authorize', '--json'], {
    cwd: f.stateDir,
    env: env({ STW_TEST_HOOKS: '1', STW_TEST_CRASH_AT: at }),
  });
}

/** Local bookmark name → its targets. */
/** Applies in-process, for the test seams (`checkpoint`, `deadline`). */
function applyHere(f: Fixture, planId: string, options: Partial<TidyApplyOptions> = {}) {
  return applyTidyPlan({ planId, stateDir: f.stateDir, authorize: true, env: env(), ...options });
}

function locals(repo: JjRepo): Map<string, string> {
  return new Map(
    repo
      .bookmarkLines()
      .map((line) => JSON.parse(line) as { name: string; remote?: string; target: unknown })
      .filter((entry) => entry.remote === undefined)
      .map((entry) => [entry.name, JSON.stringify(entry.target)]),
  );
}

function journal(f: Fixture, planId: string): Record<string, unknown>[] {
  return readFileSync(join(f.stateDir, 'journals', `${planId}.jsonl`), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Every planned commit is still reachable from a bookmark: nothing is lost without a pin. */
function assertNothingLost(f: Fixture, p: TidyPlanV1): void {
  const now = locals(f.repo);
  for (const effect of p.effects) {
    const at = JSON.stringify([effect.old_oid]);
    assert.ok(
      now.get(effect.ref) === at || now.get(effect.recovery_ref ?? '') === at,
      `${effect.ref}: neither it nor its recovery bookmark is at ${effect.old_oid}`,
    );
  }
}

describe('tidy apply on jj', () => {
  it('pins each commit with a recovery bookmark, deletes the local bookmark, never abandons the change', async () => {
    const f = fixture();
    const p = await plan(f);
    const opsBefore = f.repo.opLog().split('\n').filter(Boolean);
    const { code, stderr, json } = await apply(f, p.plan_id);
    assert.equal(code, 0, stderr);
    assert.equal(json.status, 'complete');
    assert.deepEqual(
      json.actions.map((a) => [a.ref, a.outcome, a.verified, a.recovery_ref]),
      [
        ['done', 'deleted', true, `stw-recovery/${p.plan_id}/1`],
        ['done2', 'deleted', true, `stw-recovery/${p.plan_id}/2`],
      ],
    );
    const now = locals(f.repo);
    assert.equal(now.has('done'), false);
    assert.equal(now.has('done2'), false);
    assert.equal(now.get(`stw-recovery/${p.plan_id}/1`), JSON.stringify([f.commits['done']]));
    assert.equal(now.get(`stw-recovery/${p.plan_id}/2`), JSON.stringify([f.commits['done2']]));
    assert.equal(now.get('wip'), JSON.stringify([f.commits['wip']]), 'the retained bookmark is untouched');
    // The changes are not abandoned: same commit, same change id, still visible.
    assert.deepEqual(f.repo.ids(`commit_id(${f.commits['done']})`), {
      commit: f.commits['done'],
      change: f.changes['done'],
    });
    // Exactly four operations, each the child of the one before: create, delete, create, delete.
    const opsAfter = f.repo.opLog().split('\n').filter(Boolean);
    assert.deepEqual(opsAfter.slice(4), opsBefore);
    const descriptions = f.repo
      .jj(['--ignore-working-copy', 'op', 'log', '--no-graph', '-n4', '-T', 'description ++ "\\n"'])
      .split('\n')
      .filter(Boolean);
    assert.equal(descriptions.length, 4);
    assert.match(descriptions[3]!, /^create bookmark stw-recovery\//);
    assert.match(descriptions[2]!, /^delete bookmark done$/);
    assert.ok(json.limitations.some((l) => l.includes('not an atomic compare-and-swap')));
    // The journal names the operations, and the restore command puts the bookmark back.
    const intents = journal(f, p.plan_id).filter((r) => r['type'] === 'intent');
    assert.equal(intents[0]?.['operation'], p.jj?.operation_id);
    const restore = json.recovery.find((r) => r.ref === 'done')!.restore_command;
    execFileSync('sh', ['-c', restore], { cwd: f.repo.dir, env: env() });
    assert.equal(locals(f.repo).get('done'), JSON.stringify([f.commits['done']]));
  });

  it('a re-run verifies the recorded postconditions and does nothing else', async () => {
    const f = fixture();
    const p = await plan(f);
    assert.equal((await apply(f, p.plan_id)).json.status, 'complete');
    const ops = f.repo.opLog();
    const again = await apply(f, p.plan_id);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(
      again.json.actions.map((a) => [a.outcome, a.verified]),
      [
        ['already-done', true],
        ['already-done', true],
      ],
    );
    assert.equal(f.repo.opLog(), ops, 'no operation');
  });

  it('a concurrent operation between plan and apply refuses as stale, before any effect', async () => {
    const f = fixture();
    const p = await plan(f);
    f.repo.jj(['bookmark', 'create', 'unrelated', '-r', 'main']);
    const before = locals(f.repo);
    const { code, json } = await apply(f, p.plan_id);
    assert.equal(code, 1);
    assert.equal(json.status, 'refused');
    assert.equal(json.refusal?.code, 'stale-proof');
    assert.match(json.refusal?.message ?? '', /another jj operation ran.*"unrelated"/);
    assert.deepEqual(locals(f.repo), before, 'nothing deleted, no recovery bookmark');
    assert.deepEqual(json.recovery, []);
  });

  it('a bookmark moved after planning refuses as stale', async () => {
    const f = fixture();
    const p = await plan(f);
    f.repo.jj(['bookmark', 'set', 'done', '-r', f.commits['wip']!]);
    const { code, json } = await apply(f, p.plan_id);
    assert.equal(code, 1);
    assert.equal(json.refusal?.code, 'stale-proof');
    assert.match(json.refusal?.message ?? '', /bookmark "done"/);
    assert.equal(locals(f.repo).get('done'), JSON.stringify([f.commits['wip']]));
    assert.equal(locals(f.repo).has('done2'), true);
  });

  it('an operation concurrent with the effects is detected by the parent check and stops the run', async () => {
    const f = fixture();
    const p = await plan(f);
    // In-process, a checkpoint runs another jj operation right after the intent: the
    // recovery bookmark's operation then has that one as its parent.
    const result = await applyHere(f, p.plan_id, {
      checkpoint: (step, actionId) => {
        if (step === 'after-intent' && actionId === 1)
          f.repo.jj(['bookmark', 'create', 'racer', '-r', 'main']);
      },
    });
    assert.equal(result.status, 'failed');
    assert.equal(result.actions[0]?.outcome, 'failed');
    assert.equal(result.actions[0]?.reason, 'manual-review-required');
    assert.match(result.actions[0]?.message ?? '', /another operation ran concurrently/);
    assert.equal(result.actions[1]?.outcome, 'not-attempted');
    const now = locals(f.repo);
    assert.equal(now.get('done'), JSON.stringify([f.commits['done']]), 'not deleted');
    assert.equal(
      now.get(`stw-recovery/${p.plan_id}/1`),
      JSON.stringify([f.commits['done']]),
      'the pin stays',
    );
    assert.deepEqual(
      result.recovery.map((r) => r.ref),
      ['done'],
    );
  });

  it('a deadline passing inside an action, after its pin, reports the action failed during it, not before it', async () => {
    const f = fixture();
    const p = await plan(f);
    // The run's deadline, passed by the checkpoint right after action 1's recovery bookmark.
    let expired = false;
    const deadline = controlledDeadline(() => (expired ? 0 : 60_000));
    const result = await applyHere(f, p.plan_id, {
      deadline,
      checkpoint: (step, actionId) => {
        if (step === 'after-pin' && actionId === 1) expired = true;
      },
    });
    assert.equal(result.actions[0]?.outcome, 'failed');
    assert.equal(result.actions[0]?.reason, 'deadline');
    assert.match(result.actions[0]?.message ?? '', /during this action, after its intent was journaled/);
    assert.equal(result.actions[1]?.outcome, 'not-attempted');
    assert.equal(result.actions[1]?.reason, 'deadline');
    assert.deepEqual(result.interruption, { cause: 'deadline', before_action_id: 2 });
    assert.equal(locals(f.repo).get('done'), JSON.stringify([f.commits['done']]), 'not deleted');
    assert.deepEqual(
      result.recovery.map((r) => r.ref),
      ['done'],
    );
    // The next run finds the pin and the bookmark both there: a person reviews it.
    const { json } = await apply(f, p.plan_id);
    assert.equal(json.actions[0]?.outcome, 'refused');
    assert.equal(json.actions[0]?.reason, 'manual-review-required');
  });

  it('an action does not start with less of the deadline left than it may need', async () => {
    const f = fixture();
    const p = await plan(f);
    const before = locals(f.repo);
    // 1.5 s left: under the reserve an action needs before it starts (docs/tidy.md).
    const deadline = controlledDeadline(() => 1_500);
    const result = await applyHere(f, p.plan_id, {
      deadline,
    });
    assert.deepEqual(result.interruption, { cause: 'deadline', before_action_id: 1 });
    assert.deepEqual(
      result.actions.map((a) => [a.outcome, a.reason]),
      result.actions.map(() => ['not-attempted', 'deadline']),
    );
    assert.deepEqual(locals(f.repo), before, 'nothing deleted, no recovery bookmark');
  });

  it('an action deleted by a killed run but not yet verified keeps its pin and says verification is pending when the next run stops before it', async () => {
    const f = fixture();
    const p = await plan(f);
    const crashed = await crash(f, p.plan_id, 'after-outcome:1');
    assert.equal(crashed.code, null, `killed (stderr: ${crashed.stderr})`);
    // Too little of the deadline left to start an action: the run stops before action 1,
    // whose deletion the journal records but no run verified (the same as on Git).
    const result = await applyHere(f, p.plan_id, { deadline: controlledDeadline(() => 1_500) });
    assert.deepEqual(result.interruption, { cause: 'deadline', before_action_id: 1 });
    assert.equal(result.actions[0]?.outcome, 'not-attempted');
    assert.equal(result.actions[0]?.reason, 'verification-pending');
    assert.match(result.actions[0]?.message ?? '', /^deleted by an earlier run and not yet verified; /);
    assert.equal(result.actions[1]?.reason, 'deadline');
    assert.deepEqual(
      result.recovery.map((r) => [r.ref, r.recovery_ref]),
      [['done', `stw-recovery/${p.plan_id}/1`]],
    );
    assert.equal(locals(f.repo).get(`stw-recovery/${p.plan_id}/1`), JSON.stringify([f.commits['done']]));
    assertNothingLost(f, p);
  });

  for (const step of [
    'after-intent',
    'after-pin',
    'after-transaction',
    'after-outcome',
    'after-verified',
  ] as const) {
    it(`SIGKILL ${step} of action 1, then a re-run`, async () => {
      const f = fixture();
      const p = await plan(f);
      const crashed = await crash(f, p.plan_id, `${step}:1`);
      assert.equal(crashed.code, null, `killed (stderr: ${crashed.stderr})`);
      assertNothingLost(f, p);
      assert.equal(
        locals(f.repo).get('done2'),
        JSON.stringify([f.commits['done2']]),
        'action 2 never started',
      );

      const { json } = await apply(f, p.plan_id);
      assertNothingLost(f, p);
      const types = journal(f, p.plan_id)
        .filter((r) => r['action_id'] === 1)
        .map((r) => `${r['type']}${r['result'] ? `:${r['result']}` : ''}`);
      if (step === 'after-pin') {
        // The recovery bookmark exists and the delete never ran: two histories are
        // possible from here on, so a person reviews it; nothing is retried blindly.
        assert.equal(json.actions[0]?.outcome, 'refused');
        assert.equal(json.actions[0]?.reason, 'manual-review-required');
        assert.equal(locals(f.repo).get('done'), JSON.stringify([f.commits['done']]));
        assert.deepEqual(types, ['intent']);
        assert.deepEqual(
          json.recovery.map((r) => r.ref),
          ['done'],
        );
        return;
      }
      assert.equal(json.status, 'complete', JSON.stringify(json.actions));
      assert.equal(locals(f.repo).has('done'), false);
      assert.equal(locals(f.repo).has('done2'), false);
      const expected: Record<string, string[]> = {
        'after-intent': ['intent', 'outcome:failed', 'intent', 'outcome:deleted', 'verified'],
        'after-transaction': ['intent', 'outcome:deleted', 'verified'],
        'after-outcome': ['intent', 'outcome:deleted', 'verified'],
        'after-verified': ['intent', 'outcome:deleted', 'verified'],
      };
      assert.deepEqual(types, expected[step]);
      assert.equal(json.actions[0]?.recovered, step === 'after-transaction' || step === 'after-outcome');
    });
  }
});
