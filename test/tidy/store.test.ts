import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fixedClock } from '../../src/core/clock.js';
import { RefusalError } from '../../src/core/errors.js';
import { planTidy } from '../../src/tidy/plan.js';
import { loadOrCreatePlanKey, loadPlanKey, planKeyPath } from '../../src/tidy/plan-key.js';
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

/** The key planTidy used (the default path, which the test runner points at a temp dir). */
function keyFor(state: string): Promise<Buffer> {
  return loadPlanKey(planKeyPath(), state);
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
  it('writes once (exclusive, 0600) and reads back authenticated', async () => {
    const { state, plan, path } = await storedPlan();
    assert.equal(path, join(state, 'plans', `${plan.plan_id}.json`));
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const key = await keyFor(state);
    const record = JSON.parse(readFileSync(path, 'utf8'));
    assert.equal(record.record_format, 3);
    assert.match(record.integrity, /^hmac-sha256:[0-9a-f]{64}$/);
    assert.equal(record.integrity, planIntegrity(plan, record.binding, key));
    assert.equal(typeof record.binding.inode, 'string');
    assert.equal(record.binding.root_commits.length, 1);
    const stored = await readPlanRecord(state, plan.plan_id, key);
    assert.deepEqual(stored.plan, plan);
    checkedPlan(stored.plan);
    await assert.rejects(writePlanRecord(state, plan, { key, binding: record.binding }), /EEXIST/);
  });

  it('refuses stateless, malformed and unknown plan ids', async () => {
    const state = privateDir();
    const key = randomBytes(32);
    await assert.rejects(readPlanRecord(state, '', key), refusedWith('stateless-plan'));
    await assert.rejects(readPlanRecord(state, '../etc/passwd', key), refusedWith('invalid-plan-id'));
    await assert.rejects(
      readPlanRecord(state, 'ABCDEF'.padEnd(32, '0'), key),
      refusedWith('invalid-plan-id'),
    );
    await assert.rejects(readPlanRecord(state, newPlanId(), key), refusedWith('unknown-plan'));
  });

  it('refuses an edited record as tampered', async () => {
    const { state, plan, path } = await storedPlan();
    const key = await keyFor(state);
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text.replace('"decision": "delete"', '"decision": "retain"'));
    await assert.rejects(readPlanRecord(state, plan.plan_id, key), refusedWith('tampered-plan'));
    writeFileSync(path, '{ not json');
    await assert.rejects(readPlanRecord(state, plan.plan_id, key), refusedWith('tampered-plan'));
  });

  it('refuses a record edited and re-hashed without the key: base, repository, or a sha256 hash', async () => {
    const { state, plan, path } = await storedPlan();
    const key = await keyFor(state);
    const original = JSON.parse(readFileSync(path, 'utf8'));
    const edits: ((record: {
      plan: TidyPlanV1;
      binding: Record<string, unknown>;
      integrity: string;
    }) => void)[] = [
      (record) => {
        record.plan.base.selector = 'refs/heads/elsewhere';
        record.plan.base.ref = 'refs/heads/elsewhere';
      },
      (record) => {
        record.plan.repository!.path = '/somewhere/else';
      },
      (record) => {
        record.binding['inode'] = '1';
      },
    ];
    for (const edit of edits) {
      const record = structuredClone(original);
      edit(record);
      // Re-hashed the old way (an unkeyed hash of the plan) and with a key of the forger's own.
      for (const integrity of [
        `sha256:${createHash('sha256').update(JSON.stringify(record.plan)).digest('hex')}`,
        planIntegrity(record.plan, record.binding, randomBytes(32)),
      ]) {
        writeFileSync(path, JSON.stringify({ ...record, integrity }));
        await assert.rejects(readPlanRecord(state, plan.plan_id, key), refusedWith('tampered-plan'));
      }
    }
  });

  it('refuses a record whose integrity was recomputed but which breaks the schema', async () => {
    const { state, plan, path } = await storedPlan();
    const key = await keyFor(state);
    const binding = JSON.parse(readFileSync(path, 'utf8')).binding;
    const forged = { ...plan, targets: plan.targets.map((t) => ({ ...t, reasons: ['not-integrated'] })) };
    writeFileSync(
      path,
      JSON.stringify({
        record_format: 3,
        plan: forged,
        binding,
        integrity: planIntegrity(forged as TidyPlanV1, binding, key),
      }),
    );
    await assert.rejects(readPlanRecord(state, plan.plan_id, key), refusedWith('tampered-plan'));
  });

  it('refuses older records (planning-only, or an unkeyed hash) with replan-required', async () => {
    const { state, plan, path } = await storedPlan();
    const key = await keyFor(state);
    const { effects: _effects, ...old } = plan;
    writeFileSync(path, JSON.stringify({ record_format: 1, plan: old, integrity: 'sha256:00' }));
    await assert.rejects(readPlanRecord(state, plan.plan_id, key), refusedWith('replan-required'));
    writeFileSync(path, JSON.stringify({ record_format: 2, plan: old, integrity: 'sha256:00' }));
    await assert.rejects(readPlanRecord(state, plan.plan_id, key), refusedWith('replan-required'));
    writeFileSync(path, JSON.stringify({ record_format: 2, plan, integrity: 'sha256:00' }));
    await assert.rejects(readPlanRecord(state, plan.plan_id, key), refusedWith('replan-required'));
  });

  it('refuses a symlinked record and an oversized one', async () => {
    const { state, plan, path } = await storedPlan();
    const key = await keyFor(state);
    const elsewhere = join(privateDir(), 'copy.json');
    writeFileSync(elsewhere, readFileSync(path));
    const id = newPlanId();
    symlinkSync(elsewhere, join(state, 'plans', `${id}.json`));
    await assert.rejects(readPlanRecord(state, id, key), refusedWith('tampered-plan'));
    await assert.rejects(readPlanRecord(state, plan.plan_id, key, 100), refusedWith('bound-exceeded'));
  });
});

describe('the plan key', () => {
  it('is created on first use with mode 0600 in a 0700 directory, then reused', async () => {
    const home = privateDir();
    const path = planKeyPath({ XDG_STATE_HOME: home });
    assert.equal(path, join(home, 'sourcesteward', 'key'));
    const key = await loadOrCreatePlanKey(path, privateDir());
    assert.equal(key.length, 32);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(statSync(join(home, 'sourcesteward')).mode & 0o777, 0o700);
    assert.deepEqual(await loadOrCreatePlanKey(path, privateDir()), key);
    assert.deepEqual(await loadPlanKey(path, privateDir()), key);
    // A relative XDG_STATE_HOME is ignored, as the XDG spec says.
    assert.equal(
      planKeyPath({ XDG_STATE_HOME: 'rel', HOME: home }),
      join(home, '.local', 'state', 'sourcesteward', 'key'),
    );
  });

  it('refuses a missing key at verification, an unsafe key, and a key inside the state directory', async () => {
    const home = privateDir();
    const path = planKeyPath({ XDG_STATE_HOME: home });
    await assert.rejects(loadPlanKey(path, privateDir()), refusedWith('plan-key-missing'));
    await loadOrCreatePlanKey(path, privateDir());
    chmodSync(path, 0o644);
    await assert.rejects(loadPlanKey(path, privateDir()), refusedWith('plan-key-unsafe'));
    chmodSync(path, 0o600);
    writeFileSync(path, 'short');
    await assert.rejects(loadPlanKey(path, privateDir()), refusedWith('plan-key-unsafe'));
    const link = join(home, 'link');
    symlinkSync(path, link);
    await assert.rejects(loadPlanKey(link, privateDir()), refusedWith('plan-key-unsafe'));
    const state = privateDir();
    await assert.rejects(
      loadOrCreatePlanKey(join(state, 'sourcesteward', 'key'), state),
      refusedWith('plan-key-in-state-dir'),
    );
  });
});
