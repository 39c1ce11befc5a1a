import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fixedClock } from '../../src/core/clock.js';
import { Deadline } from '../../src/core/deadline.js';
import { schemaValidator } from '../../src/core/schema.js';
import type { TaskCreateResult } from '../../src/task/create.js';
import type { TaskListResult } from '../../src/task/list.js';
import { loadTask } from '../../src/task/store.js';
import type { JjTaskCreatedFacts, JjTaskCreationPlan } from '../../src/task/types.js';
import { readCommitState, visibleCommitRevset } from '../../src/tidy/backends/jj/observe.js';
import { jjRetirementBlockers } from '../../src/tidy/backends/jj/retire/decide.js';
import { observeJjRetirement } from '../../src/tidy/backends/jj/retire/observe.js';
import { isJjTask } from '../../src/tidy/backends/jj/task/record.js';
import { loadPlanKey, planKeyPath } from '../../src/tidy/plan-key.js';
import { applyRetirement, type RetirementApplyResult } from '../../src/tidy/retire/apply.js';
import type { TidyPlanV2 } from '../../src/tidy/retire/types.js';
import { DEFAULT_PLAN_BOUNDS } from '../../src/tidy/types.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/git-repo.js';
import { STW_NOW } from '../tidy/helpers.js';
import { type JjRepo, jjTestEnv, makeJjRepo } from './helpers.js';

const validateCreate = schemaValidator('task-create-v1.schema.json');
const validateList = schemaValidator('task-list-v1.schema.json');
const validatePlan = schemaValidator('tidy-plan-v2.schema.json');
const validateApply = schemaValidator('tidy-apply-v2.schema.json');
const env = (extra: NodeJS.ProcessEnv = {}) => jjTestEnv({ STW_NOW, ...extra });
const cleanups: (() => void)[] = [];
after(() => {
  for (const cleanup of cleanups) cleanup();
});

export interface JjTaskFixture {
  repo: JjRepo;
  stateDir: string;
  parent: string;
  main: string;
}

/** main: README.md, src/a.txt, bin/run.sh (executable); the working copy on an empty commit above main. */
export function jjTaskRepo(options: { colocate?: boolean } = {}): JjTaskFixture {
  const repo = makeJjRepo(options);
  repo.write({ 'README.md': '# r\n', 'src/a.txt': 'a\n', 'bin/run.sh': '#!/bin/sh\necho run\n' });
  chmodSync(join(repo.dir, 'bin/run.sh'), 0o755);
  const main = repo.commit('project');
  repo.jj(['bookmark', 'create', 'main', '-r', '@-']);
  const stateDir = makeTempDir('stw-jj-task-state-');
  chmodSync(stateDir, 0o700);
  const parent = makeTempDir('stw-jj-tasks-');
  cleanups.push(() => repo.cleanup());
  return { repo, stateDir, parent, main };
}

function createJjArgs(
  f: JjTaskFixture,
  taskId: string,
  extra: string[] = [],
  given: { base?: string; owner?: string; dest?: string } = {},
): string[] {
  return [
    'task',
    'create',
    f.repo.dir,
    '--base',
    given.base ?? 'main',
    '--task',
    taskId,
    '--owner',
    given.owner ?? 'alice',
    '--dest',
    given.dest ?? join(f.parent, taskId),
    '--state-dir',
    f.stateDir,
    ...extra,
  ];
}

export function createJjTask(
  f: JjTaskFixture,
  taskId = 'task-1',
  extra: string[] = [],
  given: { base?: string; owner?: string; dest?: string } = {},
) {
  return runCliJson<TaskCreateResult>(createJjArgs(f, taskId, extra, given), { cwd: f.repo.dir, env: env() });
}

interface WorkspaceLine {
  name: string;
  target: { commit_id: string; change_id: string; parents: string[] };
}

function workspaces(repo: JjRepo): WorkspaceLine[] {
  return repo
    .jj(['--ignore-working-copy', 'workspace', 'list', '-T', 'json(self) ++ "\\n"'])
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as WorkspaceLine);
}

describe('stw task create on jj', () => {
  for (const colocate of [true, false])
    it(`makes a jj workspace on the base and records it as an owned task (${colocate ? 'colocated' : 'not colocated'})`, async () => {
      const f = jjTaskRepo({ colocate });
      const dest = join(f.parent, 'task-1');
      const { code, stderr, json } = await createJjTask(f);
      assert.equal(code, 0, stderr);
      assert.deepEqual(validateCreate(json), []);
      assert.equal(json.status, 'complete');
      const task = json.task as JjTaskCreationPlan;
      assert.equal(task.backend, 'jj');
      assert.equal(task.workspace, 'stw-task-task-1');
      assert.deepEqual(task.base, { selector: 'main', ref: 'main', oid: f.main });
      assert.equal(task.start_oid, f.main);
      assert.equal(task.destination, dest);
      const created = json.created as JjTaskCreatedFacts;
      const listed = workspaces(f.repo).find((w) => w.name === 'stw-task-task-1');
      assert.ok(listed, 'jj lists the new workspace');
      // Commit, change and operation ids are separate fields, each in its own format.
      assert.equal(created.workspace.commit_id, listed.target.commit_id);
      assert.equal(created.workspace.change_id, listed.target.change_id);
      assert.deepEqual(created.workspace.parents, [f.main]);
      assert.match(created.workspace.change_id, /^[k-z]{32}$/);
      assert.match(created.operation_id, /^[0-9a-f]{128}$/);
      assert.equal(created.workspace.root, dest);
      // The files of the base are checked out, executable bit included.
      assert.equal(readFileSync(join(dest, 'src/a.txt'), 'utf8'), 'a\n');
      assert.equal(statSync(join(dest, 'bin/run.sh')).mode & 0o111, 0o111);
      assert.ok(existsSync(join(dest, '.jj', 'repo')));
      assert.equal(existsSync(join(dest, '.git')), false, 'no Git worktree behind jj');
      const journal = readFileSync(join(f.stateDir, 'tasks', 'task-1.jsonl'), 'utf8')
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { type: string }).type);
      assert.deepEqual(journal, ['intent', 'created', 'completed']);

      const list = await runCliJson<TaskListResult>(['task', 'list', '--state-dir', f.stateDir], {
        cwd: f.stateDir,
        env: env(),
      });
      assert.equal(list.code, 0, list.stderr);
      assert.deepEqual(validateList(list.json), []);
      const entry = list.json.tasks[0]!;
      assert.equal(entry.creation.complete, true);
      assert.equal(entry.now.destination, 'present');
      assert.equal(entry.now.registration, 'registered');
      assert.equal(entry.now.workspace?.commit_id, created.workspace.commit_id);
      assert.equal(entry.now.worktree, null);
    });

  it('refuses --branch, an unknown base bookmark and a task id already recorded, making no workspace', async () => {
    const f = jjTaskRepo();
    const before = f.repo.opLog();
    const branch = await createJjTask(f, 'b', ['--branch', 'x']);
    assert.equal(branch.json.refusal?.code, 'unsupported');
    const unknown = await createJjTask(f, 'u', [], { base: 'refs/heads/main', owner: 'o' });
    assert.equal(unknown.json.refusal?.code, 'base-unresolved');
    for (const result of [branch, unknown]) {
      assert.equal(result.code, 1);
      assert.deepEqual(validateCreate(result.json), []);
      assert.equal(result.json.record, null);
    }
    assert.equal(f.repo.opLog(), before, 'a refusal runs no jj operation');
    assert.deepEqual(
      workspaces(f.repo).map((w) => w.name),
      ['default'],
    );
    const first = await createJjTask(f, 'dup');
    assert.equal(first.code, 0, first.stderr);
    const again = await createJjTask(f, 'dup', [], { dest: join(f.parent, 'other') });
    assert.equal(again.json.refusal?.code, 'task-exists');
    // A workspace of that name made by someone else is never taken over.
    f.repo.jj(['workspace', 'add', '--name', 'stw-task-taken', join(f.parent, 'by-hand')]);
    const taken = await createJjTask(f, 'taken');
    assert.equal(taken.json.refusal?.code, 'workspace-exists');
    assert.equal(existsSync(join(f.parent, 'taken')), false);
  });
});

describe('stw task create on jj, killed or stopped part way', () => {
  const journalTypes = (f: JjTaskFixture, id: string) => {
    const path = join(f.stateDir, 'tasks', `${id}.jsonl`);
    if (!existsSync(path)) return null;
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => (JSON.parse(line) as { type: string }).type);
  };
  it('SIGKILL after jj workspace add: the journal stops after intent and the workspace is not an owned task', async () => {
    const f = jjTaskRepo();
    const killed = await runCli(createJjArgs(f, 'k'), {
      cwd: f.repo.dir,
      env: env({ STW_TEST_HOOKS: '1', STW_TEST_CRASH_AT: 'after-add' }),
    });
    assert.equal(killed.code, null, 'killed by SIGKILL');
    assert.deepEqual(journalTypes(f, 'k'), ['intent']);
    assert.ok(workspaces(f.repo).some((w) => w.name === 'stw-task-k'));
    const list = await runCliJson<TaskListResult>(['task', 'list', '--state-dir', f.stateDir], {
      cwd: f.stateDir,
      env: env(),
    });
    assert.equal(list.json.tasks[0]?.creation.complete, false);
    assert.match(list.json.tasks[0]?.creation.problem ?? '', /^the creation journal stops after intent/);
    const plan = await retirePlan(f, 'k', false);
    assert.equal(plan.code, 1);
    assert.equal(plan.json.refusal?.code, 'ownership-incomplete');
  });

  it('a signal once the record is written stops before the intent: no workspace, no jj operation, nothing journaled', async () => {
    const f = jjTaskRepo();
    const before = f.repo.opLog();
    const stopped = await runCliJson<TaskCreateResult>(createJjArgs(f, 's'), {
      cwd: f.repo.dir,
      env: env({ STW_TEST_HOOKS: '1', STW_TEST_INTERRUPT_AT: 'after-record' }),
    });
    assert.equal(stopped.code, 1);
    assert.deepEqual(validateCreate(stopped.json), []);
    assert.deepEqual(stopped.json.failure, {
      code: 'cancelled',
      message: 'stopped by a signal before the workspace was created',
    });
    assert.equal(f.repo.opLog(), before, 'no jj operation ran');
    assert.deepEqual(
      workspaces(f.repo).map((w) => w.name),
      ['default'],
    );
    assert.equal(journalTypes(f, 's'), null);
    const plan = await retirePlan(f, 's', false);
    assert.equal(plan.json.refusal?.code, 'ownership-incomplete');
  });
});

describe('stw task list on jj', () => {
  it('reads no workspace list from an unsupported jj: the entry says why and the registration stays unknown', async () => {
    const f = jjTaskRepo();
    assert.equal((await createJjTask(f)).code, 0);
    const fake = makeTempDir('stw-fake-jj-');
    cleanups.push(() => rmSync(fake, { recursive: true, force: true }));
    writeFileSync(join(fake, 'jj'), "#!/bin/sh\necho 'jj 0.10.0'\n");
    chmodSync(join(fake, 'jj'), 0o755);
    const list = await runCliJson<TaskListResult>(['task', 'list', '--state-dir', f.stateDir], {
      cwd: f.stateDir,
      env: env({ PATH: `${fake}:${process.env['PATH'] ?? ''}` }),
    });
    assert.deepEqual(validateList(list.json), []);
    const entry = list.json.tasks[0]!;
    assert.equal(entry.now.registration, 'unknown');
    assert.equal(entry.now.workspace, null);
    assert.match(entry.now.problem ?? '', /jj 0\.10\.0 is outside the supported range/);
  });
});

describe('stw task create --backend git in a jj repository', () => {
  it('refuses (unsupported) and makes no Git worktree jj would not know', async () => {
    const f = jjTaskRepo({ colocate: true });
    const ops = f.repo.opLog();
    const { code, json, stderr } = await createJjTask(f, 'task-1', ['--backend', 'git']);
    assert.equal(code, 1, stderr);
    assert.equal(json.refusal?.code, 'unsupported');
    assert.match(json.refusal?.message ?? '', /jj repository/);
    assert.equal(existsSync(join(f.parent, 'task-1')), false);
    assert.equal(existsSync(join(f.stateDir, 'tasks', 'task-1.jsonl')), false);
    assert.equal(f.repo.opLog(), ops);
  });
});

async function retirePlan(f: JjTaskFixture, taskId = 'task-1', removeFiles = true) {
  const result = await runCliJson<TidyPlanV2>(
    [
      'tidy',
      'plan',
      f.repo.dir,
      '--base',
      'main',
      '--state-dir',
      f.stateDir,
      '--task',
      taskId,
      '--owner',
      'alice',
      '--remove-registration',
      ...(removeFiles ? ['--remove-files', join(f.parent, taskId)] : []),
    ],
    { cwd: f.repo.dir, env: env() },
  );
  assert.deepEqual(validatePlan(result.json), [], 'the plan matches schema v2');
  return result;
}

function codes(plan: TidyPlanV2): string[] {
  return plan.retirement!.blockers.map((b) => b.code);
}

describe('retirement plans of jj task workspaces', () => {
  it('proves a clean workspace eligible: empty working-copy commit, one integrated parent, identical trees, clean disk; no snapshot', async () => {
    const f = jjTaskRepo();
    assert.equal((await createJjTask(f)).code, 0);
    const before = f.repo.opLog();
    const { code, stderr, json } = await retirePlan(f);
    assert.equal(code, 0, stderr);
    assert.equal(f.repo.opLog(), before, 'planning ran no jj operation (no snapshot)');
    const r = json.retirement!;
    assert.equal(json.backend.name, 'jj');
    assert.deepEqual(codes(json), [], JSON.stringify(r.blockers));
    assert.equal(r.jj?.working_copy?.empty, true);
    assert.deepEqual(r.jj?.working_copy?.parents, [f.main]);
    assert.equal(r.jj?.working_copy?.tree_id, r.jj?.working_copy?.parent_tree_id);
    assert.equal(r.integration.ancestor_of_base, true);
    assert.equal(r.target.branch, null);
    assert.ok(r.manifest.entries.some((e) => e.path === 'bin/run.sh' && e.mode === '0755'));
    assert.equal(r.decision, 'retire');
    assert.deepEqual(
      r.effects.map((e) => e.type),
      ['pin-recovery-ref', 'remove-registration', 'remove-files'],
    );
    assert.equal(r.effects[0]?.recovery_ref, `stw-recovery/${json.plan_id}/1`);
    assert.equal(r.effects[0]?.oid, r.jj?.working_copy?.commit_id);
    assert.equal(r.effects[1]?.workspace, 'stw-task-task-1');
  });

  it('retains a dirty file, an untracked file and a non-empty working-copy commit', async () => {
    const f = jjTaskRepo();
    for (const id of ['dirty', 'untracked', 'snapshotted']) assert.equal((await createJjTask(f, id)).code, 0);
    writeFileSync(join(f.parent, 'dirty', 'src/a.txt'), 'changed\n');
    writeFileSync(join(f.parent, 'untracked', 'new.txt'), 'new\n');
    writeFileSync(join(f.parent, 'snapshotted', 'src/a.txt'), 'recorded\n');
    f.repo.jj(['status'], { cwd: join(f.parent, 'snapshotted') }); // jj snapshots it: a non-empty commit
    const dirty = (await retirePlan(f, 'dirty')).json;
    assert.deepEqual(codes(dirty), ['dirty']);
    assert.equal(
      dirty.retirement!.blockers.find((b) => b.code === 'dirty')?.path,
      join(f.parent, 'dirty', 'src/a.txt'),
    );
    const untracked = (await retirePlan(f, 'untracked', false)).json;
    assert.deepEqual(codes(untracked), ['untracked']);
    const snapshotted = (await retirePlan(f, 'snapshotted')).json;
    assert.equal(snapshotted.retirement!.jj?.working_copy?.empty, false);
    assert.ok(codes(snapshotted).includes('dirty'), JSON.stringify(snapshotted.retirement!.blockers));
    for (const plan of [dirty, untracked, snapshotted]) {
      assert.equal(plan.retirement!.decision, 'retain');
      assert.deepEqual(plan.retirement!.effects, []);
      const applied = await apply(f, plan.plan_id);
      assert.equal(applied.code, 1);
      assert.equal(applied.json.refusal?.code, 'plan-retains');
    }
    assert.equal(
      readFileSync(join(f.parent, 'dirty', 'src/a.txt'), 'utf8'),
      'changed\n',
      'nothing was removed',
    );
    assert.ok(
      workspaces(f.repo).some((w) => w.name === 'stw-task-dirty'),
      'nothing was forgotten',
    );
  });

  it('retains a symbolic link of the working-copy commit whatever is on disk, a changed executable bit and a changed type', async () => {
    const f = jjTaskRepo();
    symlinkSync('README.md', join(f.repo.dir, 'link'));
    f.repo.commit('a link');
    f.repo.jj(['bookmark', 'set', 'main', '-r', '@-']);
    for (const id of ['link', 'link-to-file', 'mode', 'file-to-dir', 'dir-to-file'])
      assert.equal((await createJjTask(f, id)).code, 0);
    const dest = (id: string, rel: string) => join(f.parent, id, rel);
    unlinkSync(dest('link-to-file', 'link'));
    writeFileSync(dest('link-to-file', 'link'), 'work jj has not snapshotted\n');
    chmodSync(dest('mode', 'bin/run.sh'), 0o644);
    unlinkSync(dest('file-to-dir', 'src/a.txt'));
    mkdirSync(dest('file-to-dir', 'src/a.txt'));
    writeFileSync(dest('file-to-dir', 'src/a.txt/inner'), 'a\n');
    rmSync(dest('dir-to-file', 'src'), { recursive: true });
    writeFileSync(dest('dir-to-file', 'src'), 'a\n');
    const expected: [string, string, string][] = [
      ['link', 'symlink', 'link'],
      ['link-to-file', 'symlink', 'link'],
      ['mode', 'dirty', 'bin/run.sh'],
      ['file-to-dir', 'dirty', 'src/a.txt'],
      ['dir-to-file', 'dirty', 'src/a.txt'],
    ];
    for (const [id, code, path] of expected) {
      const plan = (await retirePlan(f, id)).json;
      assert.equal(plan.retirement!.decision, 'retain', id);
      assert.ok(
        plan.retirement!.blockers.some((b) => b.code === code && b.path === dest(id, path)),
        `${id}: ${JSON.stringify(plan.retirement!.blockers)}`,
      );
      const applied = await apply(f, plan.plan_id);
      assert.equal(applied.json.refusal?.code, 'plan-retains', id);
    }
    assert.equal(readFileSync(dest('link-to-file', 'link'), 'utf8'), 'work jj has not snapshotted\n');
  });

  it('retains, also forget-only, when the disk was not compared: no manifest, or an incomplete one', async () => {
    const f = jjTaskRepo();
    assert.equal((await createJjTask(f)).code, 0);
    const loaded = await loadTask(f.stateDir, 'task-1', await loadPlanKey(planKeyPath(), f.stateDir));
    assert.ok(isJjTask(loaded));
    const ctx = {
      cwd: f.repo.dir,
      env: env(),
      deadline: Deadline.after(30_000),
      bounds: { ...DEFAULT_PLAN_BOUNDS },
    };
    const obs = await observeJjRetirement(loaded, f.repo.dir, 'main', ctx);
    const forgetOnly = { removeRegistration: true, removeFiles: null };
    const blockers = (o: typeof obs) => jjRetirementBlockers(loaded, o, forgetOnly, 64).map((b) => b.code);
    assert.deepEqual(blockers(obs), []);
    assert.ok(obs.manifest);
    // What the observation holds without confined directory handles: no manifest at all.
    assert.deepEqual(blockers({ ...obs, confinement: false, manifest: null }), ['uncertain']);
    assert.ok(blockers({ ...obs, manifest: { ...obs.manifest, complete: false } }).includes('uncertain'));
  });

  it('retains an ignored file: jj never snapshots it, so removal would lose it', async () => {
    const f = jjTaskRepo();
    f.repo.write({ '.gitignore': '*.log\n' });
    f.repo.commit('ignore logs');
    f.repo.jj(['bookmark', 'set', 'main', '-r', '@-']);
    assert.equal((await createJjTask(f)).code, 0);
    writeFileSync(join(f.parent, 'task-1', 'build.log'), 'only here\n');
    for (const removeFiles of [true, false]) {
      const plan = (await retirePlan(f, 'task-1', removeFiles)).json;
      assert.deepEqual(codes(plan), ['untracked']);
      assert.equal(plan.retirement!.blockers[0]?.path, join(f.parent, 'task-1', 'build.log'));
    }
    assert.equal(f.repo.jj(['file', 'list'], { cwd: join(f.parent, 'task-1') }).includes('build.log'), false);
  });

  it('retains a conflicted working-copy commit with two parents', async () => {
    const f = jjTaskRepo();
    assert.equal((await createJjTask(f)).code, 0);
    const sides = ['x', 'y'].map((text) => {
      f.repo.jj(['new', 'main', '-m', `side ${text}`]);
      f.repo.write({ 'src/a.txt': `${text}\n` });
      return f.repo.ids('@').commit;
    });
    const dest = join(f.parent, 'task-1');
    f.repo.jj(['new', ...sides.map((c) => `commit_id(${c})`)], { cwd: dest });
    const plan = (await retirePlan(f)).json;
    assert.equal(plan.retirement!.jj?.working_copy?.conflict, true);
    assert.equal(plan.retirement!.jj?.working_copy?.parents.length, 2);
    assert.ok(codes(plan).includes('conflict'), JSON.stringify(plan.retirement!.blockers));
    assert.ok(codes(plan).includes('unsupported'));
    assert.equal(plan.retirement!.decision, 'retain');
    const applied = await apply(f, plan.plan_id);
    assert.equal(applied.json.refusal?.code, 'plan-retains');
    assert.ok(workspaces(f.repo).some((w) => w.name === 'stw-task-task-1'));
  });

  it('retains a working-copy commit whose parent is not integrated, and refuses a foreign owner', async () => {
    const f = jjTaskRepo();
    assert.equal((await createJjTask(f)).code, 0);
    const dest = join(f.parent, 'task-1');
    writeFileSync(join(dest, 'work.txt'), 'work\n');
    f.repo.jj(['commit', '-m', 'task work'], { cwd: dest });
    const plan = (await retirePlan(f)).json;
    assert.deepEqual(codes(plan), ['not-integrated']);
    const foreign = await runCliJson<TidyPlanV2>(
      [
        'tidy',
        'plan',
        f.repo.dir,
        '--base',
        'main',
        '--state-dir',
        f.stateDir,
        '--task',
        'task-1',
        '--owner',
        'bob',
        '--remove-registration',
      ],
      { cwd: f.repo.dir, env: env() },
    );
    assert.equal(foreign.code, 1);
    assert.equal(foreign.json.refusal?.code, 'owner-mismatch');
  });
});

async function apply(f: JjTaskFixture, planId: string, extra: NodeJS.ProcessEnv = {}) {
  const result = await runCliJson<RetirementApplyResult>(
    ['tidy', 'apply', '--plan', planId, '--state-dir', f.stateDir, '--authorize'],
    { cwd: f.stateDir, env: env(extra) },
  );
  assert.deepEqual(validateApply(result.json), [], 'the result matches schema v2');
  return result;
}

function crash(f: JjTaskFixture, planId: string, at: string) {
  return runCli(['tidy', 'apply', '--plan', planId, '--state-dir', f.stateDir, '--authorize', '--json'], {
    cwd: f.stateDir,
    env: env({ STW_TEST_HOOKS: '1', STW_TEST_CRASH_AT: at }),
  });
}

function bookmarkAt(repo: JjRepo, name: string): string | undefined {
  const line = repo
    .bookmarkLines()
    .map((l) => JSON.parse(l) as { name: string; remote?: string; target: string[] })
    .find((b) => b.name === name && b.remote === undefined);
  return line?.target[0];
}

function isVisible(repo: JjRepo, commit: string): boolean {
  return (
    repo.jj([
      '--ignore-working-copy',
      'log',
      '--no-graph',
      '-r',
      visibleCommitRevset(commit),
      '-T',
      'commit_id',
    ]).length > 0
  );
}

describe('commit visibility on jj', () => {
  it('an abandoned commit is not visible, though commit_id() still resolves it', async () => {
    const f = jjTaskRepo();
    const side = f.repo.commit('side work', { 'side.txt': 'side\n' });
    const before = f.repo.op();
    const ctx = {
      cwd: f.repo.dir,
      env: env(),
      deadline: Deadline.after(30_000),
      bounds: { ...DEFAULT_PLAN_BOUNDS },
    };
    assert.ok(isVisible(f.repo, side));
    assert.equal((await readCommitState(before, side, ctx))?.commit_id, side);
    f.repo.jj(['abandon', '-r', `commit_id(${side})`]);
    const hidden = f.repo.jj([
      '--ignore-working-copy',
      'log',
      '--no-graph',
      '-r',
      `present(commit_id(${side}))`,
      '-T',
      'commit_id',
    ]);
    assert.equal(hidden, side, 'jj still resolves the abandoned commit by id');
    assert.equal(isVisible(f.repo, side), false);
    assert.equal(await readCommitState(f.repo.op(), side, ctx), null);
    assert.equal(
      (await readCommitState(before, side, ctx))?.commit_id,
      side,
      'visible at the earlier operation',
    );
    await assert.rejects(readCommitState(before, 'main', ctx), /not a commit id/);
  });
});

describe('retirement apply on jj', () => {
  it('--remove-registration forgets exactly the workspace and keeps its files; the change is pinned, never abandoned', async () => {
    const f = jjTaskRepo();
    assert.equal((await createJjTask(f)).code, 0);
    assert.equal((await createJjTask(f, 'other')).code, 0);
    const { json: plan } = await retirePlan(f, 'task-1', false);
    assert.equal(plan.retirement!.decision, 'retire', JSON.stringify(plan.retirement!.blockers));
    const wc = plan.retirement!.jj!.working_copy!.commit_id;
    const { code, stderr, json } = await apply(f, plan.plan_id);
    assert.equal(code, 0, stderr);
    assert.equal(json.status, 'complete');
    assert.deepEqual(
      json.effects.map((e) => [e.type, e.outcome, e.verified]),
      [
        ['pin-recovery-ref', 'done', true],
        ['remove-registration', 'done', true],
      ],
    );
    assert.deepEqual(
      workspaces(f.repo)
        .map((w) => w.name)
        .sort(),
      ['default', 'stw-task-other'],
    );
    assert.equal(readFileSync(join(f.parent, 'task-1', 'src/a.txt'), 'utf8'), 'a\n', 'files stay');
    assert.equal(bookmarkAt(f.repo, `stw-recovery/${plan.plan_id}/1`), wc);
    assert.ok(isVisible(f.repo, wc), 'the working-copy commit is still visible');
    assert.equal(json.recovery?.present, true);
    const journal = readFileSync(join(f.stateDir, 'journals', `${plan.plan_id}.jsonl`), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; operation?: string });
    assert.ok(
      journal.filter((r) => r.type === 'verified').every((r) => /^[0-9a-f]{128}$/.test(r.operation ?? '')),
    );
    // A re-run verifies the recorded postconditions and changes nothing.
    const ops = f.repo.opLog();
    const again = await apply(f, plan.plan_id);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(
      again.json.effects.map((e) => e.outcome),
      ['already-done', 'already-done'],
    );
    assert.equal(f.repo.opLog(), ops);
    // The restore command works although the destination still holds the files.
    const restore = json.recovery!.restore_command;
    assert.match(restore, /task-1\.restored'?$/);
    execFileSync('sh', ['-c', restore], { cwd: f.repo.dir, env: env(), stdio: 'pipe' });
    assert.equal(readFileSync(join(f.parent, 'task-1.restored', 'src/a.txt'), 'utf8'), 'a\n');
    assert.ok(workspaces(f.repo).some((w) => w.name === 'stw-task-task-1'));
  });

  it('--remove-files then removes the verified manifest and nothing else', async () => {
    const f = jjTaskRepo();
    assert.equal((await createJjTask(f)).code, 0);
    writeFileSync(join(f.parent, 'sibling.txt'), 'keep\n');
    const { json: plan } = await retirePlan(f);
    assert.equal(plan.retirement!.decision, 'retire', JSON.stringify(plan.retirement!.blockers));
    const { code, stderr, json } = await apply(f, plan.plan_id);
    assert.equal(code, 0, stderr);
    assert.deepEqual(
      json.effects.map((e) => [e.type, e.outcome]),
      [
        ['pin-recovery-ref', 'done'],
        ['remove-registration', 'done'],
        ['remove-files', 'done'],
      ],
    );
    assert.equal(existsSync(join(f.parent, 'task-1')), false);
    assert.equal(readFileSync(join(f.parent, 'sibling.txt'), 'utf8'), 'keep\n');
    assert.deepEqual(
      workspaces(f.repo).map((w) => w.name),
      ['default'],
    );
    assert.equal(
      readFileSync(join(f.repo.dir, 'src/a.txt'), 'utf8'),
      'a\n',
      'the source workspace is untouched',
    );
    execFileSync('sh', ['-c', json.recovery!.restore_command], {
      cwd: f.repo.dir,
      env: env(),
      stdio: 'pipe',
    });
    assert.equal(readFileSync(join(f.parent, 'task-1', 'src/a.txt'), 'utf8'), 'a\n', 'restored in place');
  });

  it('refuses as stale when a jj operation ran between plan and apply, and changes nothing', async () => {
    const f = jjTaskRepo();
    assert.equal((await createJjTask(f)).code, 0);
    const { json: plan } = await retirePlan(f);
    f.repo.jj(['--ignore-working-copy', 'bookmark', 'create', 'concurrent', '-r', 'main']);
    const ops = f.repo.opLog();
    const { code, json } = await apply(f, plan.plan_id);
    assert.equal(code, 1);
    assert.equal(json.effects[0]?.outcome, 'refused');
    assert.equal(json.effects[0]?.reason, 'stale-proof');
    assert.match(json.effects[0]?.message ?? '', /concurrent/);
    assert.equal(f.repo.opLog(), ops, 'no jj operation ran');
    assert.ok(workspaces(f.repo).some((w) => w.name === 'stw-task-task-1'));
    assert.ok(existsSync(join(f.parent, 'task-1', 'src/a.txt')));
  });

  it('refuses as stale when the workspace got dirty between plan and apply', async () => {
    const f = jjTaskRepo();
    assert.equal((await createJjTask(f)).code, 0);
    const { json: plan } = await retirePlan(f);
    writeFileSync(join(f.parent, 'task-1', 'late.txt'), 'late\n');
    const { code, json } = await apply(f, plan.plan_id);
    assert.equal(code, 1);
    assert.equal(json.effects[0]?.reason, 'stale-proof');
    assert.match(json.effects[0]?.message ?? '', /untracked/);
    assert.equal(bookmarkAt(f.repo, `stw-recovery/${plan.plan_id}/1`), undefined, 'no pin was made');
  });

  for (const at of ['after-intent:2', 'after-effect:2', 'after-outcome:1', 'after-effect:3'])
    it(`SIGKILL at ${at}, then a re-run resolves the interrupted effect from jj and the disk and completes`, async () => {
      const f = jjTaskRepo();
      assert.equal((await createJjTask(f)).code, 0);
      const { json: plan } = await retirePlan(f);
      const killed = await crash(f, plan.plan_id, at);
      assert.equal(killed.code, null, 'killed by SIGKILL, no exit code');
      const rerun = await apply(f, plan.plan_id);
      assert.equal(rerun.code, 0, rerun.stderr);
      assert.equal(rerun.json.status, 'complete');
      assert.ok(rerun.json.effects.every((e) => e.outcome === 'done' || e.outcome === 'already-done'));
      assert.equal(existsSync(join(f.parent, 'task-1')), false);
      assert.deepEqual(
        workspaces(f.repo).map((w) => w.name),
        ['default'],
      );
      assert.ok(bookmarkAt(f.repo, `stw-recovery/${plan.plan_id}/1`));
    });

  it('a jj operation landing between the guard and the verification makes the effect partial, never retried', async () => {
    const f = jjTaskRepo();
    assert.equal((await createJjTask(f)).code, 0);
    const { json: plan } = await retirePlan(f);
    const result = await applyRetirement({
      planId: plan.plan_id,
      stateDir: f.stateDir,
      authorize: true,
      env: env(),
      clock: fixedClock(STW_NOW),
      checkpoint: (step, id) => {
        if (step === 'after-outcome' && id === 1)
          f.repo.jj(['--ignore-working-copy', 'bookmark', 'create', 'concurrent', '-r', 'main']);
      },
    });
    assert.equal(result.status, 'partial');
    const pin = result.effects[0]!;
    assert.equal(pin.outcome, 'partial');
    assert.equal(pin.reason, 'manual-review-required');
    assert.match(pin.message ?? '', /another jj operation ran.*concurrent/);
    assert.notEqual(result.effects[1]?.outcome, 'done');
    assert.ok(
      workspaces(f.repo).some((w) => w.name === 'stw-task-task-1'),
      'nothing was forgotten',
    );
    const ops = f.repo.opLog();
    const rerun = await apply(f, plan.plan_id);
    assert.equal(rerun.code, 1);
    assert.equal(rerun.json.status, 'partial');
    assert.equal(rerun.json.effects[0]?.outcome, 'partial');
    assert.equal(rerun.json.effects[0]?.reason, 'manual-review-required');
    assert.equal(f.repo.opLog(), ops, 'the re-run ran no jj operation');
    assert.ok(existsSync(join(f.parent, 'task-1', 'src/a.txt')));
  });

  it('SIGKILL half way through the removal leaves a partial that is never retried blindly', async () => {
    const f = jjTaskRepo();
    assert.equal((await createJjTask(f)).code, 0);
    const { json: plan } = await retirePlan(f);
    await crash(f, plan.plan_id, 'after-entry:3');
    const rerun = await apply(f, plan.plan_id);
    assert.equal(rerun.code, 1);
    assert.equal(rerun.json.status, 'partial');
    const files = rerun.json.effects[2]!;
    assert.equal(files.outcome, 'partial');
    assert.equal(files.reason, 'manual-review-required');
    assert.ok(existsSync(join(f.parent, 'task-1')), 'the rest stays for review');
  });
});

describe("stw task create on jj keeps the user's snapshot settings", () => {
  it('snapshot.auto-track = "none()" in the user config: an untracked secret stays untracked', async () => {
    const f = jjTaskRepo();
    const userConfig = join(makeTempDir('stw-jj-user-config-'), 'config.toml');
    writeFileSync(userConfig, 'snapshot.auto-track = "none()"\n');
    writeFileSync(join(f.repo.dir, 'secret.env'), 'TOKEN=hunter2\n');
    const created = await runCliJson<TaskCreateResult>(
      [
        'task',
        'create',
        f.repo.dir,
        '--base',
        'main',
        '--task',
        'task-1',
        '--owner',
        'alice',
        '--dest',
        join(f.parent, 'task-1'),
        '--state-dir',
        f.stateDir,
      ],
      { cwd: f.repo.dir, env: jjTestEnv({ STW_NOW, JJ_CONFIG: userConfig }) },
    );
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.json.status, 'complete');
    // Read without a snapshot: what stw's workspace add recorded in @ and the operation log.
    const tracked = f.repo.jj(['--ignore-working-copy', 'file', 'list', '-r', '@']);
    assert.doesNotMatch(tracked, /secret\.env/);
    const everywhere = f.repo.jj([
      '--ignore-working-copy',
      'log',
      '--no-graph',
      '-r',
      'all()',
      '-T',
      'commit_id ++ "\\n"',
    ]);
    for (const commit of everywhere.split('\n').filter((line) => line !== ''))
      assert.doesNotMatch(f.repo.jj(['--ignore-working-copy', 'file', 'list', '-r', commit]), /secret\.env/);
  });
});
