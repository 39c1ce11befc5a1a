/**
 * Task records in the private store: `DIR/tasks/<task_id>.json` (the creation plan,
 * written once, exclusive, fsynced, bound to its repository and authenticated with the
 * plan key, as stored tidy plans are — docs/tasks.md) beside `DIR/tasks/<task_id>.jsonl`
 * (the creation journal: `journal.ts`). Read strictly: a record that fails its checks
 * refuses, it is never repaired or guessed at.
 */

import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { RefusalError } from '../core/errors.js';
import { writeFileExclusive } from '../core/fs-atomic.js';
import { backendInfo, isBackendName } from '../tidy/backends/registry.js';
import { authenticate, isAuthentic } from '../tidy/plan-key.js';
import type { RepositoryBinding } from '../tidy/types.js';
import { loadTaskJournal, type TaskJournal } from './journal.js';
import {
  type AnyTaskCreatedFacts,
  type GitTaskCreationPlan,
  isValidTaskId,
  type JjTaskCreatedFacts,
  type JjTaskCreationPlan,
  type StoredTaskRecord,
  TASK_RECORD_FORMAT,
  type TaskCreatedFacts,
  type TaskCreationPlan,
} from './types.js';

const MAX_TASK_RECORD_BYTES = 1_048_576;

/** The record's authentication tag: HMAC of the creation plan and its repository binding. */
export function taskIntegrity(task: TaskCreationPlan, binding: RepositoryBinding, key: Buffer): string {
  return authenticate({ task, binding }, key);
}

export function tasksDir(stateDir: string): string {
  return join(stateDir, 'tasks');
}

export function taskRecordPath(stateDir: string, taskId: string): string {
  return join(tasksDir(stateDir), `${taskId}.json`);
}

export function taskJournalPath(stateDir: string, taskId: string): string {
  return join(tasksDir(stateDir), `${taskId}.jsonl`);
}

async function realDirOrAbsent(path: string): Promise<boolean> {
  try {
    const info = await lstat(path);
    if (info.isSymbolicLink() || !info.isDirectory())
      throw new RefusalError('state-dir-symlink', `${JSON.stringify(path)} is not a real directory`);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Refuses `task-exists` when the store already records the id, or still holds its
 * creation journal (a record removed by hand): a new creation starts a new journal.
 * Checked again, race-free, by the creation run once the record is written.
 */
export async function checkTaskIdFree(stateDir: string, taskId: string): Promise<void> {
  if (await exists(taskRecordPath(stateDir, taskId)))
    throw new RefusalError(
      'task-exists',
      `task ${taskId} is already recorded in ${JSON.stringify(stateDir)}`,
    );
  const journal = taskJournalPath(stateDir, taskId);
  if (await exists(journal))
    throw new RefusalError(
      'task-exists',
      `task ${taskId} already has a creation journal ${JSON.stringify(journal)}; nothing was created`,
    );
}

/** Writes the creation plan once; refuses `task-exists` when the id is taken. */
export async function writeTaskRecord(
  stateDir: string,
  task: TaskCreationPlan,
  sealing: { key: Buffer; binding: RepositoryBinding },
): Promise<string> {
  const dir = tasksDir(stateDir);
  if (!(await realDirOrAbsent(dir))) await mkdir(dir, { mode: 0o700 });
  const record: StoredTaskRecord = {
    record_format: TASK_RECORD_FORMAT,
    task,
    binding: sealing.binding,
    integrity: taskIntegrity(task, sealing.binding, sealing.key),
  };
  const path = taskRecordPath(stateDir, task.task_id);
  try {
    await writeFileExclusive(path, `${JSON.stringify(record, null, 2)}\n`, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new RefusalError(
        'task-exists',
        `task ${task.task_id} is already recorded in ${JSON.stringify(path)}`,
      );
    throw error;
  }
  return path;
}

async function readBounded(path: string, limit: number, what: string): Promise<string | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP')
      throw new RefusalError('tampered-task', `${what} ${JSON.stringify(path)} is a symbolic link`);
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile())
      throw new RefusalError('tampered-task', `${what} ${JSON.stringify(path)} is not a file`);
    if (info.size > limit)
      throw new RefusalError(
        'bound-exceeded',
        `${what} ${JSON.stringify(path)} is larger than ${limit} bytes`,
      );
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The shape checks of a creation plan (the integrity hash ties it to what create wrote). */
function checkTaskShape(task: unknown, taskId: string): asserts task is TaskCreationPlan {
  const bad = (why: string) => new RefusalError('tampered-task', `task record ${taskId} ${why}`);
  if (!isObject(task)) throw bad('has no task');
  const backend = task['backend'];
  if (!isBackendName(backend)) throw bad('names no known backend');
  const own = backendInfo(backend).taskRecordFields;
  for (const key of ['task_id', 'owner', 'created_at', 'start_oid', 'destination', ...own])
    if (typeof task[key] !== 'string') throw bad(`lacks ${key}`);
  if (!isObject(task['source']) || !isObject(task['base'])) throw bad('lacks its source or base');
  const source = task['source'];
  if (!isObject(source['common_dir_identity']) || typeof source['common_dir'] !== 'string')
    throw bad('lacks its source identity');
  if (task['task_id'] !== taskId) throw bad('carries a different task_id');
}

export interface LoadedTask<
  T extends TaskCreationPlan = TaskCreationPlan,
  F extends AnyTaskCreatedFacts = AnyTaskCreatedFacts,
> {
  path: string;
  task: T;
  /** The repository the record is bound to (checked against the repository by its users). */
  binding: RepositoryBinding;
  /** The record's verified integrity value. */
  integrity: string;
  /** The creation journal, folded (`journal.ts`). */
  journal: TaskJournal<F>;
}

export type LoadedGitTask = LoadedTask<GitTaskCreationPlan, TaskCreatedFacts>;
export type LoadedJjTask = LoadedTask<JjTaskCreationPlan, JjTaskCreatedFacts>;

/**
 * Loads one task: the creation plan (authenticated with `key`, the plan key) and its
 * journal. Refuses `unknown-task` when the store does not know the id,
 * `task-record-outdated` for a record of an earlier, unkeyed format, `tampered-task` when
 * a record fails its checks. An incomplete journal is returned as such, not refused: the
 * caller decides (retirement refuses it as incomplete ownership; `task list` shows it).
 */
export async function loadTask(stateDir: string, taskId: string, key: Buffer): Promise<LoadedTask> {
  if (!isValidTaskId(taskId))
    throw new RefusalError('invalid-id', `--task ${JSON.stringify(taskId)} is not a valid task id`);
  const dir = tasksDir(stateDir);
  if (!(await realDirOrAbsent(dir)))
    throw new RefusalError('unknown-task', `the store ${JSON.stringify(stateDir)} records no task ${taskId}`);
  const path = taskRecordPath(stateDir, taskId);
  const text = await readBounded(path, MAX_TASK_RECORD_BYTES, 'task record');
  if (text === undefined)
    throw new RefusalError('unknown-task', `the store ${JSON.stringify(stateDir)} records no task ${taskId}`);
  let record: Partial<StoredTaskRecord>;
  try {
    record = JSON.parse(text) as Partial<StoredTaskRecord>;
  } catch {
    throw new RefusalError('tampered-task', `task record ${taskId} is not valid JSON`);
  }
  if (isObject(record) && (record.record_format as number) === 1)
    throw new RefusalError(
      'task-record-outdated',
      `task record ${taskId} was written by an earlier version without a keyed integrity check or repository binding; it cannot prove ownership, so retire that worktree by hand (git worktree remove)`,
    );
  if (!isObject(record) || record.record_format !== TASK_RECORD_FORMAT)
    throw new RefusalError('tampered-task', `task record ${taskId} has an unknown record_format`);
  if (!isObject(record.binding))
    throw new RefusalError('tampered-task', `task record ${taskId} lacks its repository binding`);
  if (!isAuthentic({ task: record.task, binding: record.binding }, key, record.integrity))
    throw new RefusalError(
      'tampered-task',
      `task record ${taskId} fails its authentication check (edited, or made with another plan key)`,
    );
  checkTaskShape(record.task, taskId);

  const journal = await loadTaskJournal(taskJournalPath(stateDir, taskId), taskId, record.task.backend);
  return { path, task: record.task, binding: record.binding, integrity: record.integrity!, journal };
}

/** Every recorded task id, sorted (at most `limit`; more refuses `bound-exceeded`). */
export async function listTaskIds(stateDir: string, limit: number): Promise<string[]> {
  const dir = tasksDir(stateDir);
  if (!(await realDirOrAbsent(dir))) return [];
  const ids = (await readdir(dir))
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.slice(0, -'.json'.length))
    .filter(isValidTaskId)
    .sort();
  if (ids.length > limit)
    throw new RefusalError('bound-exceeded', `the store records ${ids.length} tasks; the bound is ${limit}`);
  return ids;
}
