/**
 * `stw task create`: a checkout for a new task (a Git worktree on a task branch, a jj
 * workspace), recorded in the private store so that retirement can later prove
 * SourceSteward made it. The common checks are here; the backend (`Backend.createTask`)
 * observes, writes the creation plan (exclusive record) and runs `runCreation` (`run.ts`,
 * on the engine): journal `intent` → native add → the post-creation observation →
 * `created` → `completed`.
 * Returns what happened; never prints.
 */

import { lstat, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { type Clock, formatInstant, systemClock } from '../core/clock.js';
import { checkDirectoryChain, idOf, isWithin, type PhysicalId } from '../core/confined-fs.js';
import { Deadline } from '../core/deadline.js';
import { isStwError, RefusalError, type StwError } from '../core/errors.js';
import { backendInfo, loadBackend, selectBackend } from '../tidy/backends/registry.js';
import { checkTextBound } from '../tidy/bounded.js';
import { checkStateDirPrivate } from '../tidy/store.js';
import { type BackendName, DEFAULT_APPLY_BOUNDS, type TidyBounds } from '../tidy/types.js';
import type { TaskCreateStep } from './run.js';
import { type AnyTaskCreatedFacts, checkId, type TaskCreationPlan } from './types.js';

export interface CreateTaskOptions {
  /** PATH: the source repository (main worktree, linked worktree or subdirectory). */
  path: string;
  base: string;
  taskId: string;
  owner: string;
  /** `--dest`: an absolute path that does not exist yet, in an existing real directory. */
  dest: string;
  stateDir: string;
  /** `--branch`: a short branch name; default `stw/task/<task_id>` (Git only). */
  branch?: string | undefined;
  /** `--backend`: overrides the choice made from `.jj/` / `.git` at or above PATH. */
  backend?: BackendName | undefined;
  /** The environment jj runs with (hardened by src/core/jj.ts); defaults to this process's. */
  env?: NodeJS.ProcessEnv;
  /** The key that authenticates the record (the plan key); defaults to `planKeyPath()`, created on first use. */
  keyFile?: string | undefined;
  cwd?: string;
  clock?: Clock;
  bounds?: TidyBounds;
  signal?: AbortSignal;
  /** TEST-ONLY crash and interrupt injection at a creation boundary. */
  checkpoint?: ((step: TaskCreateStep, id: number) => void | Promise<void>) | undefined;
}

export type TaskCreateStatus = 'complete' | 'refused' | 'failed';

export interface TaskCreateResult {
  schema_version: 1;
  status: TaskCreateStatus;
  task: TaskCreationPlan | null;
  /** What creation observed once the worktree or workspace existed; null when it did not get that far. */
  created: AnyTaskCreatedFacts | null;
  record: string | null;
  journal: string | null;
  refusal: { code: string; message: string } | null;
  failure: { code: string; message: string } | null;
}

async function canonical(path: string): Promise<string> {
  return realpath(path).catch(() => resolve(path));
}

/** The destination checks: absolute, canonical, absent, in a real directory, outside repository and store. */
export async function checkDestination(
  dest: string,
  avoid: readonly { what: string; path: string }[],
): Promise<void> {
  if (!isAbsolute(dest))
    throw new RefusalError(
      'destination-not-absolute',
      `--dest ${JSON.stringify(dest)} is not an absolute path`,
    );
  if (resolve(dest) !== dest || dest === sep)
    throw new RefusalError(
      'destination-not-canonical',
      `--dest ${JSON.stringify(dest)} is not canonical (no "..", ".", repeated or trailing "/")`,
    );
  try {
    const info = await lstat(dest);
    throw new RefusalError(
      info.isSymbolicLink() ? 'destination-symlink' : 'destination-exists',
      info.isSymbolicLink()
        ? `--dest ${JSON.stringify(dest)} is a symbolic link`
        : `--dest ${JSON.stringify(dest)} already exists`,
    );
  } catch (error) {
    if (isStwError(error)) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const chain = await checkDirectoryChain(dirname(dest));
  if (chain.problem !== null || !chain.exists)
    throw new RefusalError(
      chain.problem?.includes('symbolic link') ? 'destination-symlink' : 'destination-parent-missing',
      chain.problem === null
        ? `the parent of --dest ${JSON.stringify(dest)} does not exist`
        : `--dest ${JSON.stringify(dest)} is not reached through real directories: ${chain.problem}`,
    );
  for (const { what, path } of avoid) {
    if (path === '') continue;
    const real = await canonical(path);
    if (isWithin(real, dest) || isWithin(dest, real))
      throw new RefusalError(
        what === 'store' ? 'destination-inside-store' : 'destination-inside-repository',
        `--dest ${JSON.stringify(dest)} overlaps the ${what} ${JSON.stringify(real)}`,
      );
  }
}

export async function identityOf(path: string): Promise<PhysicalId> {
  return idOf(await lstat(path, { bigint: true }));
}

export function emptyResult(): TaskCreateResult {
  return {
    schema_version: 1,
    status: 'refused',
    task: null,
    created: null,
    record: null,
    journal: null,
    refusal: null,
    failure: null,
  };
}

export function problem(error: StwError): { code: string; message: string } {
  return { code: error.code, message: error.message };
}

/** Creates and records one task worktree. Known failures come back as a result, never thrown. */
export async function createTask(options: CreateTaskOptions): Promise<TaskCreateResult> {
  const bounds = options.bounds ?? { ...DEFAULT_APPLY_BOUNDS };
  const deadline = Deadline.after(bounds.deadlineMs);
  const clock = options.clock ?? systemClock;
  const now = () => formatInstant(clock.now());
  const cwd = options.cwd ?? process.cwd();
  const result = emptyResult();
  try {
    for (const [label, text] of [
      ['PATH', options.path],
      ['--base', options.base],
      ['--dest', options.dest],
      ['--state-dir', options.stateDir],
      ['--branch', options.branch ?? ''],
    ] as const)
      checkTextBound(label, text, bounds.maxTextBytes);
    checkId('--task', options.taskId);
    checkId('--owner', options.owner);
    const stateDir = resolve(cwd, options.stateDir);
    await checkStateDirPrivate(stateDir);
    const observe = { deadline, bounds, signal: options.signal };
    const path = resolve(cwd, options.path);
    if (options.backend !== undefined) {
      // Some backends keep every checkout of their repositories: a checkout made behind
      // their back would be one they do not know (docs/tasks.md).
      const detected = backendInfo(selectBackend(path, undefined));
      if (detected.name !== options.backend && !detected.allowsForeignTasks) {
        const asked = backendInfo(options.backend);
        throw new RefusalError(
          'unsupported',
          `task create --backend ${asked.name} refuses a ${detected.displayName} repository: ${detected.displayName} would not know the ${asked.displayName} ${asked.checkoutNoun}; omit --backend to make a ${detected.displayName} ${detected.checkoutNoun}`,
        );
      }
    }
    const backend = await loadBackend(selectBackend(path, options.backend));
    return await backend.createTask(options, { stateDir, observe, now, result });
  } catch (error) {
    if (isStwError(error)) {
      result.status = error instanceof RefusalError ? 'refused' : 'failed';
      if (result.status === 'refused') result.refusal = problem(error);
      else result.failure = problem(error);
      return result;
    }
    throw error;
  }
}
