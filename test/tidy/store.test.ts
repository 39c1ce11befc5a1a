import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fixedClock } from '../../src/core/clock.js';
import { RefusalError } from '../../src/core/errors.js';
import { planTidy } from '../../src/tidy/plan.js';
import {
  checkStateDir,
  newPlanId,
  planIntegrity,
  readPlanRecord,
  writePlanRecord,
} from '../../src/tidy/store.js';
import type { TidyPlanV1 } from '../../src/tidy/types.js';
import { makeRepo, makeTempDir } from '../helpers/git-repo.js';
import { checkedPlan, STW_NOW } from './helpers.js';

function privateDir(): string {
  const dir = makeTempDir('stw-state-');
  chmodSync(dir, 0o700);
  return dir;
}

const refusedWith = (code: string) => (error: unknown) => {
  assert.ok(error instanceof RefusalError, String(error));
  assert.equal(error.code, code);
  return true;
};

/** A real stored plan from a small repository. */
async function storedPlan(): Promise<{ state: string; plan: TidyPlanV1; path: string }> {
  const repo = makeRepo();
  try {
    repo.branch('merged');
    repo.commit('ahead', { 'a.txt': 'a\n' });
    const state = privateDir();
    const result = await planTidy({
      path: repo.dir,
      base: 'refs/heads/main',
      stateDir: state,
      clock: fixedClock(STW_NOW),
    });
    assert.equal(result.exitCode, 0, result.plan.refusal?.message);
    assert.ok(result.recordPath !== null);
    return { state, plan: result.plan, path: result.recordPath };
  } finally {
    repo.cleanup();
  }
}

describe('checkStateDir', () => {
  const repoPaths = (repo: string) => [repo, join(repo, '.git'), join(repo, '.git')];

  it('accepts a private directory outside the repository', async () => {
    const repo = makeTempDir();
    await checkStateDir(privateDir(), repoPaths(repo));
  });

  it('refuses a missing directory, a file, a symlink and wrong modes', async () => {
    const repo = makeTempDir();
    await assert.rejects(
      checkStateDir(join(privateDir(), 'nope'), repoPaths(repo)),
      refusedWith('state-dir-missing'),
    );
    const file = join(privateDir(), 'file');
    writeFileSync(file, '');
    await assert.rejects(checkStateDir(file, repoPaths(repo)), refusedWith('state-dir-not-directory'));
    const link = `${privateDir()}-link`;
    symlinkSync(privateDir(), link);
    await assert.rejects(checkStateDir(link, repoPaths(repo)), refusedWith('state-dir-symlink'));
    for (const mode of [0o755, 0o750, 0o701, 0o1700, 0o600]) {
      const dir = privateDir();
      chmodSync(dir, mode);
      await assert.rejects(
        checkStateDir(dir, repoPaths(repo)),
        refusedWith('state-dir-mode'),
        mode.toString(8),
      );
    }
  });

  it('refuses a store inside, equal to, or containing a repository path', async () => {
    const parent = privateDir();
    const repo = join(parent, 'repo');
    mkdirSync(join(repo, '.git'), { recursive: true });
    const inside = join(repo, 'state');
    mkdirSync(inside, { mode: 0o700 });
    chmodSync(inside, 0o700);
    chmodSync(repo, 0o700);
    await assert.rejects(checkStateDir(inside, repoPaths(repo)), refusedWith('state-dir-overlap'));
    await assert.rejects(checkStateDir(repo, repoPaths(repo)), refusedWith('state-dir-overlap'));
    await assert.rejects(checkStateDir(parent, repoPaths(repo)), refusedWith('state-dir-overlap'));
    // a worktree elsewhere counts too
    const worktree = privateDir();
    await assert.rejects(
      checkStateDir(worktree, [...repoPaths(repo), worktree]),
      refusedWith('state-dir-overlap'),
    );
  });
});

describe('stored plan records', () => {
  it('writes once (exclusive, 0600) and reads back verified', async () => {
    const { state, plan, path } = await storedPlan();
    assert.equal(path, join(state, 'plans', `${plan.plan_id}.json`));
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const record = JSON.parse(readFileSync(path, 'utf8'));
    assert.equal(record.record_format, 2);
    assert.equal(record.integrity, planIntegrity(plan));
    const stored = await readPlanRecord(state, plan.plan_id);
    assert.deepEqual(stored.plan, plan);
    checkedPlan(stored.plan);
    await assert.rejects(writePlanRecord(state, plan), /EEXIST/);
  });

  it('refuses stateless, malformed and unknown plan ids', async () => {
    const state = privateDir();
    await assert.rejects(readPlanRecord(state, ''), refusedWith('stateless-plan'));
    await assert.rejects(readPlanRecord(state, '../etc/passwd'), refusedWith('invalid-plan-id'));
    await assert.rejects(readPlanRecord(state, 'ABCDEF'.padEnd(32, '0')), refusedWith('invalid-plan-id'));
    await assert.rejects(readPlanRecord(state, newPlanId()), refusedWith('unknown-plan'));
  });

  it('refuses an edited record as tampered', async () => {
    const { state, plan, path } = await storedPlan();
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text.replace('"decision": "delete"', '"decision": "retain"'));
    await assert.rejects(readPlanRecord(state, plan.plan_id), refusedWith('tampered-plan'));
    writeFileSync(path, '{ not json');
    await assert.rejects(readPlanRecord(state, plan.plan_id), refusedWith('tampered-plan'));
  });

  it('refuses a record whose integrity was recomputed but which breaks the schema', async () => {
    const { state, plan, path } = await storedPlan();
    const forged = { ...plan, targets: plan.targets.map((t) => ({ ...t, reasons: ['not-integrated'] })) };
    writeFileSync(
      path,
      JSON.stringify({ record_format: 2, plan: forged, integrity: planIntegrity(forged as TidyPlanV1) }),
    );
    await assert.rejects(readPlanRecord(state, plan.plan_id), refusedWith('tampered-plan'));
  });

  it('refuses a planning-only record (format 1, or without effects) with replan-required', async () => {
    const { state, plan, path } = await storedPlan();
    const { effects: _effects, ...old } = plan;
    writeFileSync(path, JSON.stringify({ record_format: 1, plan: old, integrity: 'sha256:00' }));
    await assert.rejects(readPlanRecord(state, plan.plan_id), refusedWith('replan-required'));
    writeFileSync(path, JSON.stringify({ record_format: 2, plan: old, integrity: 'sha256:00' }));
    await assert.rejects(readPlanRecord(state, plan.plan_id), refusedWith('replan-required'));
  });

  it('refuses a symlinked record and an oversized one', async () => {
    const { state, plan, path } = await storedPlan();
    const elsewhere = join(privateDir(), 'copy.json');
    writeFileSync(elsewhere, readFileSync(path));
    const id = newPlanId();
    symlinkSync(elsewhere, join(state, 'plans', `${id}.json`));
    await assert.rejects(readPlanRecord(state, id), refusedWith('tampered-plan'));
    await assert.rejects(readPlanRecord(state, plan.plan_id, 100), refusedWith('bound-exceeded'));
  });
});
