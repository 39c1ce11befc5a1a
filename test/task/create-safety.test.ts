import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fixedClock } from '../../src/core/clock.js';
import { schemaValidator } from '../../src/core/schema.js';
import { createTask as createTaskLibrary, type TaskCreateResult } from '../../src/task/create.js';
import type { TaskListResult } from '../../src/task/list.js';
import type { TaskCreateStep } from '../../src/task/run.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import {
  cleanupTaskFixtures,
  createTask,
  createTaskArgs,
  planRetire,
  refOid,
  STW_NOW,
  type TaskFixture,
  taskRepo,
} from './fixture.js';

// Task creation is the creating path of owned tasks: it runs on the engine's journaled
// run (src/task/run.ts), and a creation that did not complete never proves ownership.

after(cleanupTaskFixtures);

const validateCreate = schemaValidator('task-create-v1.schema.json');
type Base = ReturnType<typeof taskRepo>;

function createArgs(base: Base, taskId = 't', extra: string[] = []): string[] {
  return createTaskArgs(base, taskId, 'alice', extra);
}

function journalTypes(base: Base, taskId = 't'): string[] | null {
  const path = join(base.stateDir, 'tasks', `${taskId}.jsonl`);
  if (!existsSync(path)) return null;
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { type: string }).type);
}

function worktreeCount(base: Base): number {
  return base.repo
    .git(['worktree', 'list', '--porcelain'])
    .split('\n')
    .filter((l) => l.startsWith('worktree ')).length;
}

async function listed(base: Base) {
  const list = await runCliJson<TaskListResult>(['task', 'list', '--state-dir', base.stateDir], {
    cwd: base.stateDir,
  });
  assert.equal(list.code, 0, list.stderr);
  return list.json.tasks;
}

/** The task is recorded but not owned: retirement planning refuses to prove it. */
async function assertNotOwned(base: Base, problem: RegExp): Promise<void> {
  const [entry] = await listed(base);
  assert.equal(entry?.creation.complete, false);
  assert.match(entry?.creation.problem ?? '', problem);
  const fixture: TaskFixture = {
    ...base,
    dest: join(base.parent, 't'),
    taskId: 't',
    owner: 'alice',
    branch: 'refs/heads/stw/task/t',
  };
  const plan = await planRetire(fixture, { files: false });
  assert.equal(plan.json.refusal?.code, 'ownership-incomplete');
}

/** createTask in-process, with a test checkpoint: a change made by someone else mid-creation. */
function createInProcess(base: Base, checkpoint: (step: TaskCreateStep) => void): Promise<TaskCreateResult> {
  return createTaskLibrary({
    path: base.repo.dir,
    base: 'refs/heads/main',
    taskId: 't',
    owner: 'alice',
    dest: join(base.parent, 't'),
    stateDir: base.stateDir,
    cwd: base.repo.dir,
    clock: fixedClock(STW_NOW),
    checkpoint,
  });
}

describe('task create: killed half-way', () => {
  for (const [at, journal, worktree, problem] of [
    ['after-intent', ['intent'], false, /^the creation journal stops after intent/],
    ['after-add', ['intent'], true, /^the creation journal stops after intent/],
    ['after-created', ['intent', 'created'], true, /^the creation journal stops after created/],
  ] as const) {
    it(`SIGKILL ${at}: the journal says how far it got, the task is not owned, and the id is not reused`, async () => {
      const base = taskRepo();
      const killed = await runCli(createArgs(base), {
        cwd: base.repo.dir,
        env: { STW_NOW, STW_TEST_HOOKS: '1', STW_TEST_CRASH_AT: at },
      });
      assert.equal(killed.code, null, 'killed by SIGKILL');
      assert.deepEqual(journalTypes(base), journal);
      assert.equal(worktreeCount(base), worktree ? 2 : 1);
      await assertNotOwned(base, problem);
      const again = await runCliJson<TaskCreateResult>(
        [
          ...createArgs(base).slice(0, -4),
          '--dest',
          join(base.parent, 'other'),
          '--state-dir',
          base.stateDir,
        ],
        { cwd: base.repo.dir, env: { STW_NOW } },
      );
      assert.equal(again.json.refusal?.code, 'task-exists');
      assert.deepEqual(journalTypes(base), journal, 'a refused re-run appends nothing');
      assert.equal(worktreeCount(base), worktree ? 2 : 1);
      assert.equal(existsSync(join(base.parent, 'other')), false);
    });
  }
});

describe('task create: stopped before the creation', () => {
  it('a signal once the record is written stops the run before its intent: nothing is made or journaled', async () => {
    const base = taskRepo();
    const stopped = await runCliJson<TaskCreateResult>(createArgs(base), {
      cwd: base.repo.dir,
      env: { STW_NOW, STW_TEST_HOOKS: '1', STW_TEST_INTERRUPT_AT: 'after-record' },
    });
    assert.equal(stopped.code, 1);
    assert.deepEqual(validateCreate(stopped.json), []);
    assert.equal(stopped.json.status, 'failed');
    assert.deepEqual(stopped.json.failure, {
      code: 'cancelled',
      message: 'stopped by a signal before the worktree was created',
    });
    assert.equal(stopped.json.created, null);
    assert.equal(worktreeCount(base), 1);
    assert.equal(refOid(base.repo, 'refs/heads/stw/task/t'), undefined, 'no branch was made');
    assert.equal(journalTypes(base), null, 'no journal was started');
    await assertNotOwned(base, /^the creation journal is empty or missing$/);
  });
});

describe('task create: concurrent changes', () => {
  it('the task branch made by someone else after the checks: git refuses, the failure is journaled, their branch is untouched', async () => {
    const base = taskRepo();
    const side = base.repo.commit('side', { 'side.txt': 'side\n' });
    base.repo.git(['reset', '-q', '--hard', 'HEAD~1']);
    const result = await createInProcess(base, (step) => {
      if (step === 'after-record') base.repo.git(['branch', 'stw/task/t', side]);
    });
    assert.equal(result.status, 'failed');
    assert.equal(result.failure?.code, 'worktree-add-failed');
    assert.deepEqual(journalTypes(base), ['intent', 'failed']);
    assert.equal(refOid(base.repo, 'refs/heads/stw/task/t'), side);
    assert.equal(worktreeCount(base), 1);
    await assertNotOwned(base, /^creation failed: /);
  });

  it('a destination filled by someone else after the checks: nothing of theirs is touched, the task is not owned', async () => {
    const base = taskRepo();
    const dest = join(base.parent, 't');
    const result = await createInProcess(base, (step) => {
      if (step !== 'after-record') return;
      mkdirSync(dest);
      writeFileSync(join(dest, 'theirs.txt'), 'theirs\n');
    });
    assert.equal(result.status, 'failed');
    assert.equal(result.failure?.code, 'worktree-add-failed');
    assert.equal(readFileSync(join(dest, 'theirs.txt'), 'utf8'), 'theirs\n');
    assert.equal(worktreeCount(base), 1);
    await assertNotOwned(base, /^creation failed: /);
  });

  it('a worktree changed between the native add and its read-back fails the post-creation check: journaled, not owned', async () => {
    const base = taskRepo();
    const result = await createInProcess(base, (step) => {
      if (step === 'after-add')
        writeFileSync(base.repo.path('.git', 'worktrees', 't', 'locked'), 'someone else');
    });
    assert.equal(result.status, 'failed');
    assert.equal(result.failure?.code, 'post-creation-check-failed');
    assert.match(result.failure?.message ?? '', /the worktree lock is not the one requested/);
    assert.deepEqual(journalTypes(base), ['intent', 'failed']);
    assert.equal(result.created, null);
    await assertNotOwned(base, /^creation failed: the new worktree does not look as created/);
  });

  it('a creation journal already there (its record removed by hand) refuses before anything is written', async () => {
    const f = await createTask(taskRepo(), 't');
    const journal = join(f.stateDir, 'tasks', 't.jsonl');
    const before = readFileSync(journal, 'utf8');
    unlinkSync(join(f.stateDir, 'tasks', 't.json'));
    const again = await runCliJson<TaskCreateResult>(
      [
        ...createArgs(f).slice(0, -4),
        '--dest',
        join(f.parent, 'other'),
        '--state-dir',
        f.stateDir,
        '--branch',
        'other',
      ],
      { cwd: f.repo.dir, env: { STW_NOW } },
    );
    assert.equal(again.code, 1);
    assert.equal(again.json.status, 'refused');
    assert.equal(again.json.refusal?.code, 'task-exists');
    assert.match(again.json.refusal?.message ?? '', /already has a creation journal/);
    assert.equal(readFileSync(journal, 'utf8'), before, 'the journal is left as it was');
    assert.equal(existsSync(join(f.stateDir, 'tasks', 't.json')), false, 'no record was written');
    assert.equal(existsSync(join(f.parent, 'other')), false);
    assert.equal(worktreeCount(f), 2, 'only the first task worktree exists');
  });

  it('a creation journal that appears once the record is written refuses the run before its intent', async () => {
    const base = taskRepo();
    const journal = join(base.stateDir, 'tasks', 't.jsonl');
    const theirs = '{"type":"intent","task_id":"t","at":"2026-01-01T00:00:00Z"}\n';
    const result = await createInProcess(base, (step) => {
      if (step === 'after-record') writeFileSync(journal, theirs);
    });
    assert.equal(result.status, 'refused');
    assert.equal(result.refusal?.code, 'task-exists');
    assert.equal(readFileSync(journal, 'utf8'), theirs, 'nothing was appended');
    assert.equal(worktreeCount(base), 1);
    assert.equal(refOid(base.repo, 'refs/heads/stw/task/t'), undefined);
  });
});

describe('task creation journals read by the engine', () => {
  it('a symlinked, oversized or non-JSON journal is a tampered task; a torn tail leaves creation incomplete', async () => {
    const base = taskRepo();
    for (const id of ['a', 'b', 'c', 'd']) await createTask(base, id);
    const journal = (id: string) => join(base.stateDir, 'tasks', `${id}.jsonl`);
    unlinkSync(journal('a'));
    symlinkSync(journal('d'), journal('a'));
    writeFileSync(journal('b'), `${'x'.repeat(1_048_577)}\n`);
    writeFileSync(journal('c'), 'not json\n');
    writeFileSync(journal('d'), `${readFileSync(journal('d'), 'utf8')}{"type":"comp`);
    const tasks = await listed(base);
    assert.deepEqual(
      tasks.map((t) => [
        t.task_id,
        t.record_problem?.code ?? null,
        t.record_problem?.message ?? t.creation.problem,
      ]),
      [
        ['a', 'tampered-task', `task journal ${JSON.stringify(journal('a'))} is a symbolic link`],
        ['b', 'bound-exceeded', `task journal ${JSON.stringify(journal('b'))} is larger than 1048576 bytes`],
        ['c', 'tampered-task', `task journal ${JSON.stringify(journal('c'))} is not valid JSON lines`],
        ['d', null, 'the creation journal ends in a torn line'],
      ],
    );
  });
});
