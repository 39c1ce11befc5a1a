import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixedClock } from '../../src/core/clock.js';
import { schemaValidator } from '../../src/core/schema.js';
import type { TaskCreateResult } from '../../src/task/create.js';
import type { RetirementApplyResult } from '../../src/tidy/retire/apply.js';
import { planRetirement } from '../../src/tidy/retire/plan.js';
import type { TidyPlanV2 } from '../../src/tidy/retire/types.js';
import { type CliResult, runCli, runCliJson } from '../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo } from '../helpers/git-repo.js';

/** Shared set-up for owned-task tests: real repositories, the built CLI, a private store. */

export const STW_NOW = '2026-03-01T12:00:00Z';
const validatePlan = schemaValidator('tidy-plan-v2.schema.json');
const validateApply = schemaValidator('tidy-apply-v2.schema.json');
const validateCreate = schemaValidator('task-create-v1.schema.json');
export const validateTaskList = schemaValidator('task-list-v1.schema.json');
const cleanups: (() => void)[] = [];

export function cleanupTaskFixtures(): void {
  for (const cleanup of cleanups.splice(0)) cleanup();
}

export interface TaskFixture {
  repo: TestRepo;
  stateDir: string;
  /** The folder task destinations go in; it also holds `sibling.txt`, which must never be touched. */
  parent: string;
  dest: string;
  taskId: string;
  owner: string;
  branch: string;
}

/**
 * main: README.md, src/a.txt, bin/run.sh (executable), .gitignore (`*.log`). The state
 * dir and the destinations' parent are separate private temp dirs.
 */
export function taskRepo(): Omit<TaskFixture, 'dest' | 'taskId' | 'owner' | 'branch'> {
  const repo = makeRepo();
  repo.commit('project', {
    'src/a.txt': 'a\n',
    'bin/run.sh': '#!/bin/sh\necho run\n',
    '.gitignore': '*.log\n',
  });
  chmodSync(repo.path('bin/run.sh'), 0o755);
  repo.git(['add', 'bin/run.sh']);
  repo.commit('executable');
  const stateDir = makeTempDir('stw-state-');
  chmodSync(stateDir, 0o700);
  const parent = makeTempDir('stw-tasks-');
  execFileSync('sh', ['-c', 'echo keep > "$1/sibling.txt"', 'sh', parent]);
  cleanups.push(
    () => repo.cleanup(),
    () => execFileSync('rm', ['-rf', stateDir, parent]),
  );
  return { repo, stateDir, parent };
}

/** `stw task create` of `taskId` on main, into `<parent>/<taskId>`, plus `extra`. */
export function createTaskArgs(
  base: Omit<TaskFixture, 'dest' | 'taskId' | 'owner' | 'branch'>,
  taskId = 'task-1',
  owner = 'alice',
  extra: string[] = [],
): string[] {
  return [
    'task',
    'create',
    base.repo.dir,
    '--base',
    'refs/heads/main',
    '--task',
    taskId,
    '--owner',
    owner,
    '--dest',
    join(base.parent, taskId),
    '--state-dir',
    base.stateDir,
    ...extra,
  ];
}

export async function createTask(
  base: Omit<TaskFixture, 'dest' | 'taskId' | 'owner' | 'branch'>,
  taskId = 'task-1',
  owner = 'alice',
  extra: string[] = [],
): Promise<TaskFixture & { created: CliResult & { json: TaskCreateResult } }> {
  const dest = join(base.parent, taskId);
  const created = await runCliJson<TaskCreateResult>(createTaskArgs(base, taskId, owner, extra), {
    cwd: base.repo.dir,
    env: { STW_NOW },
  });
  assert.equal(created.code, 0, created.stderr);
  assert.deepEqual(validateCreate(created.json), [], 'the result matches the task-create schema');
  assert.equal(created.json.status, 'complete');
  return { ...base, dest, taskId, owner, branch: `refs/heads/stw/task/${taskId}`, created };
}

/** A task with one committed change (a new file in a new folder) that main fast-forwarded to. */
export async function integratedTask(taskId = 'task-1'): Promise<TaskFixture> {
  const f = await createTask(taskRepo(), taskId);
  commitInTask(f, { 'docs/notes.md': '# notes\n' });
  return f;
}

/** Commits `files` in the task worktree and fast-forwards main to it (integrated by ancestry). */
export function commitInTask(f: TaskFixture, files: Record<string, string>, integrate = true): string {
  for (const [rel, content] of Object.entries(files)) {
    execFileSync('sh', [
      '-c',
      'mkdir -p "$(dirname "$1")" && printf %s "$2" > "$1"',
      'sh',
      join(f.dest, rel),
      content,
    ]);
  }
  f.repo.git(['-C', f.dest, 'add', '--', ...Object.keys(files)]);
  f.repo.git(['-C', f.dest, 'commit', '-q', '--no-verify', '-m', 'task work']);
  const tip = f.repo.git(['-C', f.dest, 'rev-parse', 'HEAD']);
  if (integrate) f.repo.git(['merge', '-q', '--ff-only', tip]);
  return tip;
}

export async function planRetire(
  f: TaskFixture,
  options: { files?: boolean; extra?: string[]; env?: NodeJS.ProcessEnv; cwd?: string; path?: string } = {},
): Promise<CliResult & { json: TidyPlanV2 }> {
  const args = [
    'tidy',
    'plan',
    options.path ?? f.repo.dir,
    '--base',
    'refs/heads/main',
    '--state-dir',
    f.stateDir,
    '--task',
    f.taskId,
    '--owner',
    f.owner,
    '--remove-registration',
  ];
  if (options.files !== false) args.push('--remove-files', f.dest);
  const result = await runCliJson<TidyPlanV2>([...args, ...(options.extra ?? [])], {
    cwd: options.cwd ?? f.repo.dir,
    env: { STW_NOW, ...options.env },
  });
  assert.deepEqual(validatePlan(result.json), [], 'the plan matches schema v2');
  assert.equal(result.code, result.json.status === 'complete' ? 0 : 1, result.stderr);
  return result;
}

/**
 * A complete retirement plan that retires, made in-process (the CLI path is covered by
 * the plan tests; this keeps the apply and crash tests to the processes they are about).
 */
export async function retirePlan(f: TaskFixture): Promise<TidyPlanV2> {
  const { plan: json } = await planRetirement({
    path: f.repo.dir,
    base: 'refs/heads/main',
    stateDir: f.stateDir,
    taskId: f.taskId,
    owner: f.owner,
    removeRegistration: true,
    removeFiles: f.dest,
    clock: fixedClock(STW_NOW),
  });
  assert.deepEqual(validatePlan(json), [], 'the plan matches schema v2');
  assert.equal(json.status, 'complete', JSON.stringify(json.refusal));
  assert.equal(json.retirement?.decision, 'retire', JSON.stringify(json.retirement?.blockers));
  return json;
}

export async function applyRetire(
  f: TaskFixture,
  planId: string,
  env: NodeJS.ProcessEnv = {},
): Promise<CliResult & { json: RetirementApplyResult }> {
  const result = await runCliJson<RetirementApplyResult>(
    ['tidy', 'apply', '--plan', planId, '--state-dir', f.stateDir, '--authorize'],
    { cwd: f.stateDir, env: { STW_NOW, ...env } },
  );
  assert.deepEqual(validateApply(result.json), [], 'the result matches schema v2');
  assert.equal(result.code, result.json.status === 'complete' ? 0 : 1, `exit code for ${result.json.status}`);
  return result;
}

export function crashRetire(f: TaskFixture, planId: string, at: string): Promise<CliResult> {
  return runCli(['tidy', 'apply', '--plan', planId, '--state-dir', f.stateDir, '--authorize'], {
    cwd: f.stateDir,
    env: { STW_NOW, STW_TEST_HOOKS: '1', STW_TEST_CRASH_AT: at },
  });
}

export function refOid(repo: TestRepo, ref: string): string | undefined {
  const out = repo.git(['for-each-ref', '--format=%(refname) %(objectname)', '--', ref]);
  const line = out.split('\n').find((l) => l.startsWith(`${ref} `));
  return line?.split(' ')[1];
}

export function blockerCodes(plan: TidyPlanV2): string[] {
  return [...new Set((plan.retirement?.blockers ?? []).map((b) => b.code))];
}

export function journalTypes(f: TaskFixture, planId: string): string[] {
  const path = join(f.stateDir, 'journals', `${planId}.jsonl`);
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .map((r) => `${r['type']}:${r['effect_id'] ?? ''}${r['result'] ? `:${r['result']}` : ''}`);
}

/** Every path below `dir` (relative, sorted), links not followed. */
export function listTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    const full = rel === '' ? dir : join(dir, rel);
    for (const name of readdirSync(full).sort()) {
      const child = rel === '' ? name : `${rel}/${name}`;
      out.push(child);
      const info = lstatSync(join(dir, child));
      if (info.isDirectory() && !info.isSymbolicLink()) walk(child);
    }
  };
  walk('');
  return out;
}
