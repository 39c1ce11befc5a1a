/**
 * `stw task list`: every task the store records, with what the store knows (creation
 * plan, journal state) and what the repository shows now (destination identity,
 * registration, branch tip). Read-only: no git call writes, no file is changed.
 */
import { lstat } from 'node:fs/promises';
import { idOf, sameId } from '../core/confined-fs.js';
import { Deadline } from '../core/deadline.js';
import { isStwError, RefusalError } from '../core/errors.js';
import type { WorktreeRecord } from '../core/git.js';
import { type GitCallContext, observeGitRaw, readWorktrees } from '../tidy/backends/git/observe.js';
import { type JjCallContext, readCurrentOperation, readWorkspaces } from '../tidy/backends/jj/observe.js';
import type { JjWorkspace } from '../tidy/backends/jj/observe-parse.js';
import { requireSupportedJj } from '../tidy/backends/jj/plan.js';
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

async function branchOid(branch: string, ctx: GitCallContext): Promise<string | null> {
  const result = await observeGitRaw(
    ['for-each-ref', '--format=%(refname)%00%(objectname)', '--', branch],
    ctx,
    'git for-each-ref',
  );
  if (result.code !== 0) return null;
  for (const line of result.stdout.toString('utf8').split('\n')) {
    const [name, oid] = line.split('\0');
    if (name === branch && oid !== undefined) return oid;
  }
  return null;
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
  const worktreeLists = new Map<string, Promise<WorktreeRecord[]>>();
  const workspaceLists = new Map<string, Promise<JjWorkspace[]>>();
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
      if (task.backend === 'jj') {
        const ctx: JjCallContext = {
          deadline,
          bounds,
          signal: options.signal,
          cwd: task.source.path,
          env: options.env ?? process.env,
        };
        let list = workspaceLists.get(task.source.common_dir);
        if (list === undefined) {
          // The same version gate as tidy's: an unsupported jj gives no workspace list.
          list = requireSupportedJj(ctx, ctx.env)
            .then(() => readCurrentOperation(ctx))
            .then((op) => readWorkspaces(op, ctx));
          workspaceLists.set(task.source.common_dir, list);
        }
        const listed = (await list).find((w) => w.name === task.workspace && w.root === task.destination);
        entry.now.registration = listed === undefined ? 'missing' : 'registered';
        entry.now.workspace =
          listed === undefined
            ? null
            : {
                name: listed.name,
                root: task.destination,
                commit_id: listed.commit_id,
                change_id: listed.change_id,
                parents: listed.parents,
              };
        continue;
      }
      const ctx: GitCallContext = { deadline, bounds, signal: options.signal, cwd: task.source.path };
      let list = worktreeLists.get(task.source.common_dir);
      if (list === undefined) {
        list = readWorktrees(ctx);
        worktreeLists.set(task.source.common_dir, list);
      }
      const listed = (await list).find((worktree) => worktree.path === task.destination);
      entry.now.registration = listed === undefined ? 'missing' : 'registered';
      entry.now.worktree =
        listed === undefined
          ? null
          : { branch: listed.branch ?? null, head: listed.head ?? null, locked: listed.locked ?? null };
      entry.now.branch_oid = await branchOid(task.branch, ctx);
    } catch (error) {
      if (!isStwError(error)) throw error;
      entry.now.problem = error.message;
    }
  }
  return result;
}
