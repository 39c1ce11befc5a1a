import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadOrCreatePlanKey } from '../../src/tidy/plan-key.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir, testEnv } from '../helpers/git-repo.js';
import {
  applyRetire,
  cleanupTaskFixtures,
  integratedTask,
  planRetire,
  retirePlan,
  STW_NOW,
  type TaskFixture,
  taskRepo,
} from './fixture.js';

// Task records and retirement plans are sealed with the plan key and bound to their
// repository (docs/tasks.md, "The private store"): write access to the store alone can
// neither edit nor forge one, and a record made for one repository refuses in another.

after(cleanupTaskFixtures);

function recordPath(f: TaskFixture): string {
  return join(f.stateDir, 'tasks', `${f.taskId}.json`);
}

/** Edits a stored JSON record and, like a forger without the key, re-hashes it with sha256. */
function editAndRehash(path: string, edit: (record: Record<string, any>) => void, field: string): void {
  const record = JSON.parse(readFileSync(path, 'utf8')) as Record<string, any>;
  edit(record);
  const { integrity: _old, ...rest } = record;
  const sealed = field === 'task' ? { task: rest['task'], binding: rest['binding'] } : rest;
  record['integrity'] = `sha256:${createHash('sha256').update(JSON.stringify(sealed)).digest('hex')}`;
  writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
}

/** The human CLI run of a retirement plan (no --json): exit code and stderr. */
function planHuman(f: TaskFixture, path = f.repo.dir) {
  return runCli(
    [
      'tidy',
      'plan',
      path,
      '--base',
      'refs/heads/main',
      '--state-dir',
      f.stateDir,
      '--task',
      f.taskId,
      '--owner',
      f.owner,
      '--remove-registration',
      '--remove-files',
      f.dest,
    ],
    { cwd: f.repo.dir, env: { STW_NOW } },
  );
}

function assertOneLineRefusal(result: { code: number | null; stderr: string }, code: string): void {
  assert.equal(result.code, 1, result.stderr);
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, result.stderr);
  assert.match(lines[0]!, new RegExp(code));
}

describe('task records are keyed and bound to their repository', () => {
  it('a task record carries its binding and an HMAC, not a bare hash', async () => {
    const f = await integratedTask();
    const record = JSON.parse(readFileSync(recordPath(f), 'utf8'));
    assert.equal(record.record_format, 2);
    assert.match(record.integrity, /^hmac-sha256:[0-9a-f]{64}$/);
    assert.deepEqual(Object.keys(record.binding).sort(), ['device', 'inode', 'metadata_dir', 'root_commits']);
    assert.deepEqual(record.binding.root_commits, [f.repo.git(['rev-list', '--max-parents=0', 'HEAD'])]);
  });

  it('an edited, re-hashed task record is refused (tampered-task, exit 1, one line)', async () => {
    const f = await integratedTask();
    editAndRehash(recordPath(f), (record) => (record['task'].owner = 'mallory'), 'task');
    const result = await planHuman({ ...f, owner: 'mallory' });
    assertOneLineRefusal(result, 'tampered-task');
    const { json } = await planRetire({ ...f, owner: 'mallory' });
    assert.equal(json.refusal?.code, 'tampered-task');
    assert.match(json.refusal?.message ?? '', /authentication/);
  });

  it('without its key a record is refused, and planning creates no key', async () => {
    const f = await integratedTask();
    const otherHome = makeTempDir('stw-other-key-');
    const missing = await planRetire(f, { env: { XDG_STATE_HOME: otherHome } });
    assert.equal(missing.json.refusal?.code, 'plan-key-missing');
    assert.equal(existsSync(join(otherHome, 'sourcesteward', 'key')), false);
    // Under another user's (or another machine's) key the record does not verify.
    await loadOrCreatePlanKey(join(otherHome, 'sourcesteward', 'key'), f.stateDir);
    const other = await planRetire(f, { env: { XDG_STATE_HOME: otherHome } });
    assert.equal(other.json.refusal?.code, 'tampered-task');
    execFileSync('rm', ['-rf', otherHome]);
  });

  it('a record of the earlier unkeyed format is refused as outdated', async () => {
    const f = await integratedTask();
    const record = JSON.parse(readFileSync(recordPath(f), 'utf8'));
    const old = {
      record_format: 1,
      task: record.task,
      integrity: `sha256:${createHash('sha256').update(JSON.stringify(record.task)).digest('hex')}`,
    };
    writeFileSync(recordPath(f), `${JSON.stringify(old, null, 2)}\n`);
    const { json } = await planRetire(f);
    assert.equal(json.refusal?.code, 'task-record-outdated');
  });

  it('a task record used with another repository is refused (foreign-repository, exit 1, one line)', async () => {
    const f = await integratedTask();
    const other = taskRepo();
    assertOneLineRefusal(await planHuman(f, other.repo.dir), 'foreign-repository');
  });

  it('task list reports a tampered record and still lists the others', async () => {
    const f = await integratedTask('task-a');
    editAndRehash(recordPath(f), (record) => (record['task'].destination = '/tmp/elsewhere'), 'task');
    const list = await runCli(['task', 'list', '--state-dir', f.stateDir, '--json'], { cwd: f.stateDir });
    const json = JSON.parse(list.stdout);
    assert.equal(json.tasks[0].record_problem.code, 'tampered-task');
  });
});

describe('retirement plans are keyed and bound to their repository', () => {
  it('a stored retirement plan is sealed with the plan key and bound to the repository', async () => {
    const f = await integratedTask();
    const plan = await retirePlan(f);
    const record = JSON.parse(readFileSync(join(f.stateDir, 'plans', `${plan.plan_id}.json`), 'utf8'));
    assert.match(record.integrity, /^hmac-sha256:[0-9a-f]{64}$/);
    assert.equal(record.binding.metadata_dir, join(f.repo.dir, '.git'));
    assert.match(plan.retirement!.task.record_integrity, /^hmac-sha256:/);
  });

  it('an edited, re-hashed retirement plan is refused (tampered-plan, exit 1, one line); nothing is removed', async () => {
    const f = await integratedTask();
    const plan = await retirePlan(f);
    const path = join(f.stateDir, 'plans', `${plan.plan_id}.json`);
    editAndRehash(path, (record) => (record['plan'].base.selector = 'refs/heads/other'), 'plan');
    const human = await runCli(
      ['tidy', 'apply', '--plan', plan.plan_id, '--state-dir', f.stateDir, '--authorize'],
      {
        cwd: f.stateDir,
        env: { STW_NOW },
      },
    );
    assertOneLineRefusal(human, 'tampered-plan');
    const { json } = await applyRetire(f, plan.plan_id);
    assert.equal(json.refusal?.code, 'tampered-plan');
    assert.ok(existsSync(join(f.dest, 'docs', 'notes.md')), 'the task files stay');
  });

  it('an unkeyed retirement plan of the earlier kind needs a replan', async () => {
    const f = await integratedTask();
    const plan = await retirePlan(f);
    const path = join(f.stateDir, 'plans', `${plan.plan_id}.json`);
    const record = JSON.parse(readFileSync(path, 'utf8'));
    const old = {
      record_format: 3,
      plan: record.plan,
      integrity: `sha256:${createHash('sha256').update(JSON.stringify(record.plan)).digest('hex')}`,
    };
    writeFileSync(path, `${JSON.stringify(old, null, 2)}\n`);
    const { json } = await applyRetire(f, plan.plan_id);
    assert.equal(json.refusal?.code, 'replan-required');
    assert.ok(existsSync(f.dest));
  });

  it('a plan applied to another repository at the same path is refused (repository-changed); nothing is removed', async () => {
    const f = await integratedTask();
    const plan = await retirePlan(f);
    // Another repository now stands where the plan's repository was: a clone, same path.
    const moved = `${f.repo.dir}-original`;
    renameSync(f.repo.dir, moved);
    execFileSync('git', ['clone', '-q', moved, f.repo.dir], { env: testEnv() });
    const { json, code } = await applyRetire(f, plan.plan_id);
    assert.equal(code, 1);
    assert.equal(json.refusal?.code, 'repository-changed');
    assert.match(json.refusal?.message ?? '', /another device or inode/);
    assert.ok(existsSync(join(f.dest, 'docs', 'notes.md')), 'the task files stay');
    execFileSync('rm', ['-rf', f.repo.dir]);
    renameSync(moved, f.repo.dir);
  });
});
