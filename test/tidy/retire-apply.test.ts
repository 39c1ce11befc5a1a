import assert from 'node:assert/strict';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fixedClock } from '../../src/core/clock.js';
import type { TaskRegistration } from '../../src/task/types.js';
import { applyRetirement } from '../../src/tidy/retire/apply.js';
import type { PinsListing } from '../../src/tidy/review.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import {
  applyRetire,
  cleanupTaskFixtures,
  integratedTask,
  journalTypes,
  listTree,
  planRetire,
  refOid,
  retirePlan,
  STW_NOW,
} from '../task/fixture.js';

after(cleanupTaskFixtures);

describe('stw tidy apply: retiring a clean integrated task', () => {
  it('create, then retire: the destination and registration go, the branch stays pinned', async () => {
    const f = await integratedTask();
    const tip = f.repo.head(f.branch);
    const plan = await retirePlan(f);
    const { json, stdout } = await applyRetire(f, plan.plan_id);
    assert.equal(json.status, 'complete');
    assert.deepEqual(
      json.effects.map((e) => [e.type, e.outcome, e.verified]),
      [
        ['pin-recovery-ref', 'done', true],
        ['remove-files', 'done', true],
        ['remove-own-lock', 'done', true],
        ['remove-registration', 'done', true],
      ],
    );
    assert.equal(json.effects[1]?.removed, plan.retirement!.manifest.entries.length);
    assert.equal(existsSync(f.dest), false, 'the destination folder is gone');
    assert.deepEqual(listTree(f.parent), ['sibling.txt'], 'nothing else in the parent was touched');
    assert.doesNotMatch(f.repo.git(['worktree', 'list', '--porcelain']), new RegExp(f.dest));
    assert.equal(refOid(f.repo, f.branch), tip, 'the task branch stays');
    assert.equal(refOid(f.repo, `refs/stw-recovery/${plan.plan_id}/1`), tip, 'and is pinned');
    assert.deepEqual(json.recovery, {
      ref: `refs/stw-recovery/${plan.plan_id}/1`,
      oid: tip,
      present: true,
      restore_command: `git update-ref refs/heads/stw/task/task-1 refs/stw-recovery/${plan.plan_id}/1 ''`,
    });
    // The pin describes itself: tidy pins names the task branch without the state directory.
    const pins = await runCliJson<PinsListing>(['tidy', 'pins', f.repo.dir], { cwd: f.parent });
    assert.deepEqual(
      pins.json.pins.map((pin) => [pin.recovery_ref, pin.branch, pin.restore_command]),
      [[json.recovery?.ref, f.branch, json.recovery?.restore_command]],
    );
    assert.deepEqual(journalTypes(f, plan.plan_id), [
      'intent:1',
      'outcome:1:done',
      'verified:1',
      'intent:2',
      'outcome:2:done',
      'verified:2',
      'intent:3',
      'outcome:3:done',
      'verified:3',
      'intent:4',
      'outcome:4:done',
      'verified:4',
    ]);
    assert.match(stdout, /"status": "complete"/);

    // A completed retry verifies the recorded postconditions and changes nothing.
    const again = await applyRetire(f, plan.plan_id);
    assert.equal(again.json.status, 'complete');
    assert.ok(again.json.effects.every((e) => e.outcome === 'already-done' && e.verified));

    // Deleting the branch is an ordinary reference cleanup once it is integrated (and main moved on).
    f.repo.commit('main moves on');
    const branchPlan = await runCliJson<{ targets: { decision: string }[] }>(
      ['tidy', 'plan', f.repo.dir, '--base', 'refs/heads/main', '--ref', f.branch],
      { cwd: f.repo.dir },
    );
    assert.equal(branchPlan.json.targets[0]?.decision, 'delete');
  });

  it('human output lists each effect, the journal and the restore command', async () => {
    const f = await integratedTask();
    const plan = await retirePlan(f);
    const result = await runCli(
      ['tidy', 'apply', '--plan', plan.plan_id, '--state-dir', f.stateDir, '--authorize'],
      {
        cwd: f.stateDir,
        env: { STW_NOW },
      },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /tidy apply \(retirement\): complete/);
    assert.match(result.stdout, /2\. remove-files: done \(verified\)\n {5}removed \d+ entries/);
    assert.match(
      result.stdout,
      /restore the branch: git update-ref refs\/heads\/stw\/task\/task-1 refs\/stw-recovery\//,
    );
  });
});

describe('stw tidy apply: retirement refusals and stale proofs (exit 1, nothing removed)', () => {
  async function assertStale(
    mutate: (f: Awaited<ReturnType<typeof integratedTask>>) => void,
    pattern: RegExp,
  ) {
    const f = await integratedTask();
    const plan = await retirePlan(f);
    mutate(f);
    const before = listTree(f.dest);
    const { json, stderr } = await applyRetire(f, plan.plan_id);
    assert.equal(json.status, 'refused');
    assert.equal(json.effects[0]?.outcome, 'refused');
    assert.equal(json.effects[0]?.reason, 'stale-proof');
    assert.match(json.effects[0]?.message ?? '', pattern);
    assert.deepEqual(listTree(f.dest), before, 'nothing was removed');
    assert.equal(refOid(f.repo, `refs/stw-recovery/${plan.plan_id}/1`), undefined, 'no pin was made');
    assert.match(stderr, /^stw: tidy apply refused: /);
    assert.equal(stderr.trim().split('\n').length, 1);
  }

  it('a file added after planning', () =>
    assertStale((f) => writeFileSync(join(f.dest, 'docs/late.md'), 'new\n'), /late\.md/));

  it('a mode change after planning', () =>
    assertStale((f) => chmodSync(join(f.dest, 'src/a.txt'), 0o600), /src\/a\.txt/));

  it('a symlink planted after planning', () =>
    assertStale((f) => symlinkSync(f.parent, join(f.dest, 'src/escape')), /symlink .*src\/escape/));

  it('a replaced destination (same path, new inode) after planning', () =>
    assertStale((f) => {
      renameSync(f.dest, `${f.dest}.old`);
      cpSync(`${f.dest}.old`, f.dest, { recursive: true });
      rmSync(`${f.dest}.old`, { recursive: true });
    }, /destination-replaced/));

  it('a plan that retains is refused naming its blocker', async () => {
    const f = await integratedTask();
    writeFileSync(join(f.dest, 'notes.log'), 'mine\n');
    const { json: plan } = await planRetire(f);
    assert.equal(plan.retirement?.decision, 'retain');
    const { json, stderr } = await applyRetire(f, plan.plan_id);
    assert.equal(json.refusal?.code, 'plan-retains');
    assert.match(stderr, /ignored .*notes\.log/);
    assert.equal(readFileSync(join(f.dest, 'notes.log'), 'utf8'), 'mine\n');
  });

  it('without --authorize nothing is read or written', async () => {
    const f = await integratedTask();
    const plan = await retirePlan(f);
    const result = await runCliJson<{ status: string; refusal: { code: string } }>(
      ['tidy', 'apply', '--plan', plan.plan_id, '--state-dir', f.stateDir],
      { cwd: f.stateDir },
    );
    assert.equal(result.code, 1);
    assert.equal(result.json.refusal.code, 'authorization-required');
    assert.equal(journalTypes(f, plan.plan_id).length, 0);
  });

  it('a tampered plan record is refused', async () => {
    const f = await integratedTask();
    const plan = await retirePlan(f);
    const path = join(f.stateDir, 'plans', `${plan.plan_id}.json`);
    writeFileSync(path, readFileSync(path, 'utf8').replace(`"root": "${f.dest}"`, `"root": "${f.parent}"`));
    const { json } = await applyRetire(f, plan.plan_id);
    assert.equal(json.refusal?.code, 'tampered-plan');
    assert.ok(existsSync(f.dest));
  });

  it('a lock taken by someone else after the files went is never removed', async () => {
    const f = await integratedTask();
    const plan = await retirePlan(f);
    const admin = (plan.retirement!.registration.recorded as TaskRegistration).admin_dir;
    // Run the library directly and, right after the files are removed, swap the lock.
    const result = await applyRetirement({
      planId: plan.plan_id,
      stateDir: f.stateDir,
      authorize: true,
      clock: fixedClock(STW_NOW),
      checkpoint: (step, id) => {
        if (step === 'after-verified' && id === 2) writeFileSync(join(admin, 'locked'), 'someone else\n');
      },
    });
    assert.equal(result.status, 'partial');
    assert.deepEqual(
      result.effects.map((e) => [e.type, e.outcome, e.reason]),
      [
        ['pin-recovery-ref', 'done', null],
        ['remove-files', 'done', null],
        ['remove-own-lock', 'refused', 'lock-not-owned'],
        ['remove-registration', 'not-attempted', 'not-attempted'],
      ],
    );
    assert.equal(readFileSync(join(admin, 'locked'), 'utf8'), 'someone else\n');
  });
});

describe('stw tidy apply: unexpected files during removal are kept, with their folders', () => {
  it('a file appearing mid-removal is retained, its folder too, and the registration stays', async () => {
    const f = await integratedTask();
    const plan = await retirePlan(f);
    let planted = false;
    const result = await applyRetirement({
      planId: plan.plan_id,
      stateDir: f.stateDir,
      authorize: true,
      clock: fixedClock(STW_NOW),
      checkpoint: (step) => {
        if (step === 'after-entry' && !planted) {
          planted = true;
          mkdirSync(join(f.dest, 'src', 'new'), { recursive: true });
          writeFileSync(join(f.dest, 'src', 'new', 'late.txt'), 'late\n');
        }
      },
    });
    assert.equal(result.status, 'partial');
    const files = result.effects[1]!;
    assert.equal(files.outcome, 'partial');
    assert.equal(files.reason, 'manual-review-required');
    assert.deepEqual(
      files.retained.map((r) => r.path),
      ['src/new', 'src', '.git', '.'],
    );
    assert.deepEqual(listTree(f.dest), ['.git', 'src', 'src/new', 'src/new/late.txt']);
    assert.equal(
      f.repo.git(['-C', f.dest, 'rev-parse', '--abbrev-ref', 'HEAD']),
      'stw/task/task-1',
      'git still knows it',
    );
    assert.deepEqual(
      result.effects.slice(2).map((e) => e.outcome),
      ['not-attempted', 'not-attempted'],
    );
    assert.match(f.repo.git(['worktree', 'list']), new RegExp(f.dest), 'the registration stays');
    // A re-run never retries it blindly.
    const again = await applyRetire(f, plan.plan_id);
    assert.equal(again.json.status, 'partial');
    assert.equal(again.json.effects[1]?.reason, 'manual-review-required');
    assert.equal(readFileSync(join(f.dest, 'src', 'new', 'late.txt'), 'utf8'), 'late\n');
  });
});
