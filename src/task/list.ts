/**
 * `stw task list`: every task the store records, with what the store knows (creation
 * plan, journal state) and what the repository shows now (destination identity,
 * registration, branch tip). Read-only: no git call writes, no file is changed.
 */
import { lstat } from 'node:fs/promises';
import { idOf, sameId } from '../core/confined-fs.js';
import { Deadline } from '../core/deadline.js';
import { isStwError, RefusalError } from '../core/errors.js';
import { loadBackend } from '../tidy/backends/registry.js';
import { loadPlanKey, planKeyPath } from '../tidy/plan-key.js';
import { checkStateDirPrivate } from '../tidy/store.js';
import { DEFAULT_PLAN_BOUNDS, type TidyBounds } from '../tidy/types.js';
import { listTaskIds, loadTask } from './store.js';
import type { JjWorkspaceFacts, TaskCreationPlan } from './types.js';

export type DestinationState = 'present' | 'absent' | 'replaced' | 'not-a-directory' | 'unknown';
export type RegistrationState = 'registered' | 'missing' | 'unknown';

export interface TaskListEntry {
  task_id: string;
  /** The creation plan as recorded; null when the record could not be read. */
  task: TaskCreationPlan | null;
  creation: { complete: boolean; problem: string | null; journal: string };
  /** What the filesystem and the source repository show now. */
  now: {
    destination: DestinationState;
    registration: RegistrationState;
    /** The worktree's branch and HEAD as git lists them; null when not registered. */
    worktree: { branch: string | null; head: string | null; locked: string | null } | null;
    /** The task branch's commit now; null when the branch is gone or unreadable (and on jj). */
    branch_oid: string | null;
    /**
     * jj: the task's workspace as `jj workspace list` shows it at the current operation
     * (stored state, not snapshotted); null when jj does not list it, and for Git tasks.
     */
    workspace: JjWorkspaceFacts | null;
    /** Why part of the current view could not be read; null when it was. */
    problem: string | null;
  };
  /** Why the task's records could not be read (tampered, unreadable); null when they were. */
  record_problem: { code: string; message: string } | null;
}

export interface TaskListResult {
  schema_version: 1;
  status: 'complete' | 'refused';
  state_dir: string;
  tasks: TaskListEntry[];
  refusal: { code: string; message: string } | null;
}

export interface ListTasksOptions {
  stateDir: string;
  /** The plan key that authenticates task records; defaults to `planKeyPath()`. */
  keyFile?: string | undefined;
  bounds?: TidyBounds;
  signal?: AbortSignal;
  /** The environment jj runs with (hardened by src/core/jj.ts). */
  env?: NodeJS.ProcessEnv;
}

async function destinationState(task: TaskCreationPlan, expected: { dev: string; ino: string } | undefined) {
  try {
    const info = await lstat(task.destination, { bigint: true });
    if (!info.isDirectory() || info.isSymbolicLink()) return 'not-a-directory' as const;
    if (expected === undefined) return 'present' as const;
    return sameId(idOf(info), expected) ? ('present' as const) : ('replaced' as const);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? ('absent' as const) : ('unknown' as const);
  }
}

/** Lists the store's tasks. A store that fails its checks refuses; one bad record is reported in place. */
export async function listTasks(options: ListTasksOptions): Promise<TaskListResult> {
  const bounds = options.bounds ?? { ...DEFAULT_PLAN_BOUNDS };
  const deadline = Deadline.after(bounds.deadlineMs);
  const result: TaskListResult = {
    schema_version: 1,
    status: 'complete',
    state_dir: options.stateDir,
    tasks: [],
    refusal: null,
  };
  let ids: string[];
  try {
    await checkStateDirPrivate(options.stateDir);
    ids = await listTaskIds(options.stateDir, bounds.maxEntries);
  } catch (error) {
    if (!(error instanceof RefusalError)) throw error;
    result.status = 'refused';
    result.refusal = { code: error.code, message: error.message };
    return result;
  }
  // With no usable key no record can be verified: each task shows why (record_problem).
  let key: Buffer | RefusalError | undefined;
  const keyOrProblem = async () => {
    if (key !== undefined) return key;
    try {
      key = await loadPlanKey(options.keyFile ?? planKeyPath(), options.stateDir);
    } catch (error) {
      if (!(error instanceof RefusalError)) throw error;
      key = error;
    }
    return key;
  };
  // One listing per repository and backend, for all of its tasks.
  const lists = new Map<string, Promise<unknown>>();
  for (const id of ids) {
    const entry: TaskListEntry = {
      task_id: id,
      task: null,
      creation: { complete: false, problem: null, journal: '' },
      now: {
        destination: 'unknown',
        registration: 'unknown',
        worktree: null,
        branch_oid: null,
        workspace: null,
        problem: null,
      },
      record_problem: null,
    };
    result.tasks.push(entry);
    let loaded: Awaited<ReturnType<typeof loadTask>>;
    try {
      const verifier = await keyOrProblem();
      if (verifier instanceof RefusalError) throw verifier;
      loaded = await loadTask(options.stateDir, id, verifier);
    } catch (error) {
      if (!isStwError(error)) throw error;
      entry.record_problem = { code: error.code, message: error.message };
      continue;
    }
    const { task, journal } = loaded;
    entry.task = task;
    entry.creation = { complete: journal.complete, problem: journal.problem, journal: journal.path };
    entry.now.destination = await destinationState(task, journal.created?.destination_identity);
    try {
      const backend = await loadBackend(task.backend);
      await backend.observeTask(task, entry, {
        ctx: { deadline, bounds, signal: options.signal },
        env: options.env ?? process.env,
        cache: lists,
      });
    } catch (error) {
      if (!isStwError(error)) throw error;
      entry.now.problem = error.message;
    }
  }
  return result;
}
