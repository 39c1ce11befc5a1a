import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { schemaValidator } from '../../src/core/schema.js';
import type { TaskCreateResult } from '../../src/task/create.js';
import type { TaskListResult } from '../../src/task/list.js';
import type { GitTaskCreationPlan, TaskCreatedFacts } from '../../src/task/types.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { cleanupTaskFixtures, createTask, STW_NOW, taskRepo, validateTaskList } from './fixture.js';

const validateCreate = schemaValidator('task-create-v1.schema.json');

after(cleanupTaskFixtures);

async function create(base: ReturnType<typeof taskRepo>, args: Record<string, string>) {
  const flags = {
    base: 'refs/heads/main',
    task: 't',
    owner: 'alice',
    dest: join(base.parent, 't'),
    'state-dir': base.stateDir,
    ...args,
  };
  return runCliJson<TaskCreateResult>(
    ['task', 'create', base.repo.dir, ...Object.entries(flags).flatMap(([k, v]) => [`--${k}`, v])],
    { cwd: base.repo.dir, env: { STW_NOW } },
  );
}

describe('stw task create', () => {
  it('creates a locked worktree on a new branch and records plan and completed journal', async () => {
    const f = await createTask(taskRepo());
    const { json } = f.created;
    assert.equal((json.task as GitTaskCreationPlan | null)?.branch, 'refs/heads/stw/task/task-1');
    assert.equal(json.task?.destination, f.dest);
    assert.equal(json.task?.start_oid, f.repo.head('refs/heads/main'));
    assert.equal(json.task?.created_at, STW_NOW);
    assert.match(json.created?.destination_identity.ino ?? '', /^\d+$/);
    assert.equal((json.created as TaskCreatedFacts | null)?.registration.gitdir, `${f.dest}/.git`);
    const listed = f.repo.git(['worktree', 'list', '--porcelain']);
    assert.match(
      listed,
      new RegExp(
        `worktree ${f.dest}\\nHEAD [0-9a-f]+\\nbranch refs/heads/stw/task/task-1\\nlocked sourcesteward task task-1`,
      ),
    );
    const journal = readFileSync(join(f.stateDir, 'tasks', 'task-1.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { type: string }).type);
    assert.deepEqual(journal, ['intent', 'created', 'completed']);
    const record = JSON.parse(readFileSync(join(f.stateDir, 'tasks', 'task-1.json'), 'utf8')) as {
      task: { owner: string };
      integrity: string;
    };
    assert.equal(record.task.owner, 'alice');
    assert.match(record.integrity, /^hmac-sha256:[0-9a-f]{64}$/);
  });

  it('--branch names the new branch', async () => {
    const f = await createTask(taskRepo(), 'named', 'bob', ['--branch', 'feature/named']);
    assert.equal((f.created.json.task as GitTaskCreationPlan | null)?.branch, 'refs/heads/feature/named');
  });

  for (const [name, setup, code] of [
    [
      'an existing destination',
      (b: ReturnType<typeof taskRepo>) => {
        mkdirSync(join(b.parent, 't'));
        return {};
      },
      'destination-exists',
    ],
    [
      'a destination inside the repository',
      (b: ReturnType<typeof taskRepo>) => ({ dest: join(b.repo.dir, 'inner') }),
      'destination-inside-repository',
    ],
    [
      'a destination inside the store',
      (b: ReturnType<typeof taskRepo>) => ({ dest: join(b.stateDir, 'inner') }),
      'destination-inside-store',
    ],
    [
      'a destination reached through a symlink',
      (b: ReturnType<typeof taskRepo>) => {
        mkdirSync(join(b.parent, 'real'));
        symlinkSync(join(b.parent, 'real'), join(b.parent, 'link'));
        return { dest: join(b.parent, 'link', 't') };
      },
      'destination-symlink',
    ],
    [
      'a destination that is itself a symlink',
      (b: ReturnType<typeof taskRepo>) => {
        symlinkSync('/tmp', join(b.parent, 't'));
        return {};
      },
      'destination-symlink',
    ],
    ['a relative destination', () => ({ dest: 'relative/t' }), 'destination-not-absolute'],
    ['a task id with a slash', () => ({ task: 'a/b' }), 'invalid-id'],
    ['an owner id with a control character', () => ({ owner: 'al\u001bice' }), 'invalid-id'],
    ['a task id over 128 bytes', () => ({ task: 'x'.repeat(129) }), 'invalid-id'],
    ['a short base name', () => ({ base: 'main' }), 'short-selector'],
  ] as const) {
    it(`refuses ${name} (exit 1, one line naming it) and writes nothing`, async () => {
      const base = taskRepo();
      const overrides = setup(base);
      const result = await create(base, overrides);
      assert.equal(result.code, 1);
      assert.equal(result.json.status, 'refused');
      assert.equal(result.json.refusal?.code, code);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      assert.equal(result.json.record, null);
      assert.deepEqual(validateCreate(result.json), []);
      assert.doesNotMatch(base.repo.git(['worktree', 'list']), /\n/, 'no worktree was added');
    });
  }

  it('takes a .jj/ repository to jj: with no jj on PATH it refuses not-found, never a Git worktree', async () => {
    const base = taskRepo();
    mkdirSync(join(base.repo.dir, '.jj'));
    const empty = join(base.parent, 'empty-bin');
    mkdirSync(empty);
    const result = await runCliJson<TaskCreateResult>(
      [
        'task',
        'create',
        base.repo.dir,
        '--base',
        'main',
        '--task',
        't',
        '--owner',
        'o',
        '--dest',
        join(base.parent, 't'),
        '--state-dir',
        base.stateDir,
      ],
      { cwd: base.repo.dir, env: { STW_NOW, PATH: empty } },
    );
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.json.refusal?.code, 'not-found');
    assert.equal(result.json.record, null);
    assert.deepEqual(validateCreate(result.json), []);
    assert.doesNotMatch(base.repo.git(['worktree', 'list']), /\n/, 'no worktree was added');
    assert.equal(existsSync(join(base.stateDir, 'tasks')), false, 'nothing was written to the store');
  });

  it('refuses a task id the store already records, and a branch that exists', async () => {
    const f = await createTask(taskRepo());
    const again = await create(f, { task: 'task-1', dest: join(f.parent, 'other') });
    assert.equal(again.json.refusal?.code, 'task-exists');
    f.repo.branch('taken');
    const taken = await create(f, { task: 'task-2', branch: 'taken', dest: join(f.parent, 'other') });
    assert.equal(taken.json.refusal?.code, 'branch-exists');
  });

  it('--help tells what the command does and lists every flag', async () => {
    const base = taskRepo();
    const create = await runCli(['task', 'create', '--help'], { cwd: base.repo.dir });
    assert.equal(create.code, 0);
    for (const flag of ['--base', '--task', '--owner', '--dest', '--state-dir', '--branch', '--json'])
      assert.match(create.stdout, new RegExp(`\\n  ${flag} `));
    const list = await runCli(['task', 'list', '--help'], { cwd: base.repo.dir });
    assert.match(list.stdout, /^Usage: stw task list --state-dir DIR \[--json\]/);
    const group = await runCli(['task', '--help'], { cwd: base.repo.dir });
    assert.match(group.stdout, /create .*\n.*list /s);
  });

  it('a failing git worktree add is journaled as failed, and the task is not owned', async () => {
    const base = taskRepo();
    writeFileSync(base.repo.path('.git', 'worktrees'), 'in the way\n'); // git cannot make its admin dir
    const result = await create(base, {});
    assert.equal(result.code, 1);
    assert.equal(result.json.status, 'failed');
    assert.equal(result.json.failure?.code, 'worktree-add-failed');
    const journal = readFileSync(join(base.stateDir, 'tasks', 't.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { type: string }).type);
    assert.deepEqual(journal, ['intent', 'failed']);
    const list = await runCliJson<TaskListResult>(['task', 'list', '--state-dir', base.stateDir], {
      cwd: base.stateDir,
    });
    assert.equal(list.json.tasks[0]?.creation.complete, false);
    assert.match(list.json.tasks[0]?.creation.problem ?? '', /^creation failed: /);
  });

  it('missing required flags are usage errors (exit 2)', async () => {
    const base = taskRepo();
    const result = await runCli(['task', 'create', '--task', 't'], { cwd: base.repo.dir });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--base is required/);
  });
});

describe('stw task list', () => {
  it('lists what the store knows and what the repository shows now', async () => {
    const f = await createTask(taskRepo());
    const g = await createTask({ repo: f.repo, stateDir: f.stateDir, parent: f.parent }, 'task-2', 'bob');
    rmSync(g.dest, { recursive: true, force: true });
    // A creation that never completed: the journal stops after its intent.
    const journal = join(f.stateDir, 'tasks', 'task-2.jsonl');
    writeFileSync(journal, `${readFileSync(journal, 'utf8').split('\n')[0]}\n`);
    const { code, json } = await runCliJson<TaskListResult>(['task', 'list', '--state-dir', f.stateDir], {
      cwd: f.stateDir,
    });
    assert.equal(code, 0);
    assert.deepEqual(validateTaskList(json), []);
    assert.deepEqual(
      json.tasks.map((t) => [
        t.task_id,
        t.task?.owner,
        t.creation.complete,
        t.now.destination,
        t.now.registration,
        t.now.worktree?.locked !== null,
      ]),
      [
        ['task-1', 'alice', true, 'present', 'registered', true],
        ['task-2', 'bob', false, 'absent', 'registered', true],
      ],
    );
    assert.equal(json.tasks[0]?.now.branch_oid, f.repo.head('refs/heads/main'));
    const human = await runCli(['task', 'list', '--state-dir', f.stateDir], { cwd: f.stateDir });
    assert.match(
      human.stdout,
      /task-2\n.*\n.*: absent\n {4}creation: incomplete \(the creation journal stops after intent/,
    );
  });

  it('a tampered record is listed with its problem', async () => {
    const f = await createTask(taskRepo());
    const path = join(f.stateDir, 'tasks', 'task-1.json');
    writeFileSync(path, readFileSync(path, 'utf8').replace('"alice"', '"mallory"'));
    const { json } = await runCliJson<TaskListResult>(['task', 'list', '--state-dir', f.stateDir], {
      cwd: f.stateDir,
    });
    assert.equal(json.tasks[0]?.record_problem?.code, 'tampered-task');
  });
});
