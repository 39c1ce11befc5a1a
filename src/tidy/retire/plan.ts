/**
 * `planRetirement`: the schema-v2 plan that retires one owned task (docs/tasks.md).
 * Ownership first (the store's creation plan and completed journal, the owner, the
 * source repository's identity), then the observation, then the decision and — when it
 * retires — the ordered effects apply would perform. Always stored (the store is
 * required); changes nothing else. Known failures come back as a refused or incomplete
 * plan, never thrown.
 */
import { resolve } from 'node:path';
import { type Clock, formatInstant, systemClock } from '../../core/clock.js';
import { Deadline } from '../../core/deadline.js';
import { isStwError, RefusalError } from '../../core/errors.js';
import { toolVersion } from '../../core/package.js';
import { type LoadedTask, loadTask } from '../../task/store.js';
import { checkId } from '../../task/types.js';
import { loadBackend } from '../backends/registry.js';
import { checkTextBound } from '../bounded.js';
import { loadPlanKey, planKeyPath } from '../plan-key.js';
import { checkStateDirPrivate } from '../store.js';
import { DEFAULT_PLAN_BOUNDS, type TidyBounds } from '../types.js';
import type { RetirementSelection } from './decide.js';
import type { RetirementRecord, TidyPlanV2 } from './types.js';

export interface RetirementPlanOptions {
  path: string;
  base: string;
  stateDir: string;
  taskId: string;
  owner: string;
  /** `--remove-registration`: required (the registration is what retirement removes). */
  removeRegistration: boolean;
  /** `--remove-files`: must equal the recorded canonical destination. */
  removeFiles?: string | undefined;
  /** The plan key that authenticates task records and stored plans; defaults to `planKeyPath()`. */
  keyFile?: string | undefined;
  /** The environment jj runs with (jj tasks; hardened by src/core/jj.ts). */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  clock?: Clock;
  bounds?: TidyBounds;
  signal?: AbortSignal;
}

export interface RetirementPlanResult {
  plan: TidyPlanV2;
  exitCode: 0 | 1;
  recordPath: string | null;
}

/** Ownership that a path or a label alone can never give: the store's records must agree. */
export function checkOwnership(loaded: LoadedTask, owner: string): void {
  const { task, journal } = loaded;
  if (task.owner !== owner)
    throw new RefusalError(
      'owner-mismatch',
      `task ${task.task_id} is owned by ${JSON.stringify(task.owner)}, not ${JSON.stringify(owner)}`,
    );
  if (!journal.complete || journal.created === undefined)
    throw new RefusalError(
      'ownership-incomplete',
      `task ${task.task_id} has no completed creation journal (${journal.problem ?? 'no created record'}): its ownership is not proved`,
    );
}

/** The task, selection and source of a retirement record, the same for both backends. */
export function recordHead(
  loaded: LoadedTask,
  selection: RetirementSelection,
): Pick<RetirementRecord, 'task' | 'selection' | 'source'> {
  const { task, journal } = loaded;
  return {
    task: {
      task_id: task.task_id,
      owner: task.owner,
      created_at: task.created_at,
      record: loaded.path,
      record_integrity: loaded.integrity,
      journal: journal.path,
    },
    selection: { remove_registration: selection.removeRegistration, remove_files: selection.removeFiles },
    source: {
      path: task.source.path,
      common_dir: task.source.common_dir,
      common_dir_identity: task.source.common_dir_identity,
      object_format: task.source.object_format,
    },
  };
}

/** The target's destination and its identities, as the task's creation recorded them. */
export function targetHead(
  loaded: LoadedTask,
): Pick<RetirementRecord['target'], 'destination' | 'destination_identity' | 'parent_identity'> {
  const created = loaded.journal.created!;
  return {
    destination: loaded.task.destination,
    destination_identity: created.destination_identity,
    parent_identity: created.parent_identity,
  };
}

/** Plans the retirement of one owned task. */
export async function planRetirement(options: RetirementPlanOptions): Promise<RetirementPlanResult> {
  const bounds = options.bounds ?? { ...DEFAULT_PLAN_BOUNDS };
  const deadline = Deadline.after(bounds.deadlineMs);
  const clock = options.clock ?? systemClock;
  const cwd = options.cwd ?? process.cwd();
  const plan: TidyPlanV2 = {
    schema_version: 2,
    status: 'refused',
    plan_id: '',
    created_at: formatInstant(clock.now()),
    tool_version: toolVersion(),
    backend: { name: 'git', version: null },
    repository: null,
    base: { selector: options.base, ref: null, oid: null },
    plan: null,
    refusal: null,
  };
  try {
    for (const [label, text] of [
      ['PATH', options.path],
      ['--base', options.base],
      ['--state-dir', options.stateDir],
      ['--remove-files', options.removeFiles ?? ''],
    ] as const)
      checkTextBound(label, text, bounds.maxTextBytes);
    checkId('--task', options.taskId);
    checkId('--owner', options.owner);
    if (!options.removeRegistration)
      throw new RefusalError(
        'selection-required',
        'retirement needs --remove-registration (and --remove-files for git)',
      );
    const stateDir = resolve(cwd, options.stateDir);
    await checkStateDirPrivate(stateDir);
    // Verifies the task record; the same key seals the plan below (it exists: task create made it).
    const key = await loadPlanKey(options.keyFile ?? planKeyPath(), stateDir);
    const anyTask = await loadTask(stateDir, options.taskId, key);
    checkOwnership(anyTask, options.owner);
    if (options.removeFiles !== undefined && options.removeFiles !== anyTask.task.destination)
      throw new RefusalError(
        'remove-files-mismatch',
        `--remove-files ${JSON.stringify(options.removeFiles)} is not the recorded destination ${JSON.stringify(anyTask.task.destination)} of task ${anyTask.task.task_id}`,
      );
    const selection = {
      removeRegistration: options.removeRegistration,
      removeFiles: options.removeFiles ?? null,
    };
    const backend = await loadBackend(anyTask.task.backend);
    const recordPath = await backend.planRetirement(
      plan,
      anyTask,
      {
        path: resolve(cwd, options.path),
        base: options.base,
        stateDir,
        selection,
        key,
        env: options.env ?? process.env,
      },
      { deadline, bounds, signal: options.signal },
    );
    return { plan, exitCode: 0, recordPath };
  } catch (error) {
    if (!isStwError(error)) throw error;
    plan.status = error instanceof RefusalError ? 'refused' : 'incomplete';
    plan.refusal = { code: error.code, message: error.message };
    plan.plan_id = '';
    delete plan.retirement;
  }
  return { plan, exitCode: 1, recordPath: null };
}
