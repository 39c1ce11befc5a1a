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
import { sameId } from '../../core/confined-fs.js';
import { Deadline } from '../../core/deadline.js';
import { isStwError, RefusalError } from '../../core/errors.js';
import { toolVersion } from '../../core/package.js';
import { isGitTask, isJjTask, type LoadedGitTask, type LoadedTask, loadTask } from '../../task/store.js';
import { checkId } from '../../task/types.js';
import { bindingMismatch, readGitBinding } from '../backends/git/binding.js';
import type { GitCallContext } from '../backends/git/observe.js';
import { checkTextBound } from '../bounded.js';
import { loadPlanKey, planKeyPath } from '../plan-key.js';
import { checkStateDir, checkStateDirPrivate, newPlanId } from '../store.js';
import {
  DEFAULT_PLAN_BOUNDS,
  IncompleteObservationError,
  recoveryRefFor,
  type TidyBounds,
} from '../types.js';
import { type RetirementSelection, retirementActions, retirementBlockers } from './decide.js';
import { MAX_MANIFEST_FILE_BYTES } from './manifest.js';
import { observeRetirement, type RetirementObservation } from './observe-git.js';
import { writeRetirementRecord } from './store.js';
import {
  RECOVERY_LIMITS,
  RETIREMENT_LIMITS,
  type RetirementEffect,
  type RetirementRecord,
  type TidyPlanV2,
} from './types.js';

export const INTEGRATION_METHOD = 'git merge-base --is-ancestor';

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

/** The observed repository must be the one the task was created from (path and physical identity). */
export function checkSource(loaded: LoadedGitTask, obs: RetirementObservation): void {
  const source = loaded.task.source;
  if (
    obs.layout.commonDir !== source.common_dir ||
    obs.commonDirIdentity === null ||
    !sameId(obs.commonDirIdentity, source.common_dir_identity) ||
    obs.layout.objectFormat !== source.object_format
  )
    throw new RefusalError(
      'foreign-repository',
      `PATH is not the repository task ${loaded.task.task_id} was created from (${source.common_dir})`,
    );
}

/**
 * The repository now is the one the task record is bound to: the same git dir (path,
 * device, inode) and the same root commits below the task's start commit.
 */
export async function checkTaskBinding(
  loaded: LoadedGitTask,
  obs: RetirementObservation,
  ctx: GitCallContext,
): Promise<void> {
  const now = await readGitBinding(obs.layout.commonDir, loaded.task.start_oid, ctx);
  const mismatch = bindingMismatch(loaded.binding, now);
  if (mismatch !== null)
    throw new RefusalError(
      'foreign-repository',
      `PATH is not the repository task ${loaded.task.task_id} was created from: ${mismatch}`,
    );
}

/** The ordered native effects of a retirement that retires. */
export function retirementEffects(
  planId: string,
  loaded: LoadedGitTask,
  obs: RetirementObservation,
  entries: number,
): RetirementEffect[] {
  const { task } = loaded;
  const adminDir = loaded.journal.created!.registration.admin_dir;
  const effects: RetirementEffect[] = [];
  const add = (effect: Omit<RetirementEffect, 'effect_id'>) =>
    effects.push({ effect_id: effects.length + 1, ...effect });
  const pin = recoveryRefFor(planId, 1);
  add({
    type: 'pin-recovery-ref',
    description: `create ${pin} at ${obs.branchOid} (git update-ref, create-only)`,
    recovery_ref: pin,
    oid: obs.branchOid!,
  });
  add({
    type: 'remove-files',
    description: `remove the ${entries} manifest entries of ${task.destination} through confined directory handles, verifying each; keep anything else`,
    root: task.destination,
    entries,
  });
  if (obs.registration?.lock === task.lock_reason)
    add({
      type: 'remove-own-lock',
      description: `git worktree unlock ${task.destination}, only while ${adminDir}/locked holds exactly the lock task create wrote`,
      admin_dir: adminDir,
      lock: task.lock_reason,
    });
  add({
    type: 'remove-registration',
    description: `git worktree remove ${task.destination} once it is gone (deletes only ${adminDir})`,
    admin_dir: adminDir,
  });
  return effects;
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

function buildRecord(
  loaded: LoadedGitTask,
  obs: RetirementObservation,
  selection: RetirementSelection,
  planId: string,
  bounds: TidyBounds,
): RetirementRecord {
  const { task, journal } = loaded;
  const created = journal.created!;
  const blockers = retirementBlockers(loaded, obs, selection, bounds.maxEntries);
  const actions = retirementActions(selection, blockers);
  const retires = blockers.length === 0;
  const entries = obs.manifest?.entries ?? [];
  const effects = retires ? retirementEffects(planId, loaded, obs, entries.length) : [];
  return {
    ...recordHead(loaded, selection),
    target: {
      ...targetHead(loaded),
      branch: task.branch,
      start_oid: task.start_oid,
      tip_oid: obs.branchOid,
    },
    integration: {
      base_oid: obs.base.oid,
      tip_oid: obs.branchOid,
      ancestor_of_base: obs.ancestor.value,
      method: INTEGRATION_METHOD,
    },
    registration: {
      recorded: created.registration,
      observed: obs.registration,
      listed: obs.listed !== undefined,
      lock_owned: obs.registration?.lock === task.lock_reason,
    },
    manifest: {
      root: task.destination,
      complete: obs.manifest?.complete ?? false,
      max_entries: bounds.maxEntries,
      max_file_bytes: MAX_MANIFEST_FILE_BYTES,
      entries,
    },
    decision: retires ? 'retire' : 'retain',
    actions,
    effects,
    blockers,
    recovery: {
      ref: retires ? recoveryRefFor(planId, 1) : null,
      oid: retires ? obs.branchOid : null,
      limits: [...RECOVERY_LIMITS],
    },
    limits: [...RETIREMENT_LIMITS],
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
  let recordPath: string | null = null;
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
    if (isJjTask(anyTask)) {
      const { planJjRetirement } = await import('./plan-jj.js');
      recordPath = await planJjRetirement(
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
    }
    if (!isGitTask(anyTask))
      throw new RefusalError('tampered-task', `task ${options.taskId} names no known backend`);
    const loaded = anyTask;
    const obs = await observeRetirement(loaded, resolve(cwd, options.path), options.base, {
      deadline,
      bounds,
      signal: options.signal,
    });
    plan.backend.version = obs.gitVersion;
    plan.repository = {
      path: obs.layout.path,
      toplevel: obs.layout.toplevel ?? null,
      git_dir: obs.layout.gitDir,
      common_dir: obs.layout.commonDir,
      object_format: obs.layout.objectFormat,
      is_shallow: obs.layout.isShallow,
    };
    plan.base = { selector: obs.base.selector, ref: obs.base.ref, oid: obs.base.oid };
    checkSource(loaded, obs);
    const call = { deadline, bounds, signal: options.signal, cwd: obs.layout.path };
    await checkTaskBinding(loaded, obs, call);
    await checkStateDir(stateDir, [
      obs.layout.toplevel ?? '',
      obs.layout.gitDir,
      obs.layout.commonDir,
      loaded.task.destination,
      ...obs.worktrees.map((worktree) => worktree.path),
    ]);
    if (deadline.isExpired)
      throw new IncompleteObservationError(
        'deadline',
        'the planning deadline passed; evidence is incomplete',
      );
    plan.plan_id = newPlanId();
    plan.retirement = buildRecord(loaded, obs, selection, plan.plan_id, bounds);
    plan.status = 'complete';
    const binding = await readGitBinding(obs.layout.commonDir, obs.base.oid, call);
    recordPath = await writeRetirementRecord(stateDir, plan, bounds.maxRecordBytes, { key, binding });
  } catch (error) {
    if (!isStwError(error)) throw error;
    plan.status = error instanceof RefusalError ? 'refused' : 'incomplete';
    plan.refusal = { code: error.code, message: error.message };
    plan.plan_id = '';
    delete plan.retirement;
    recordPath = null;
  }
  return { plan, exitCode: plan.status === 'complete' ? 0 : 1, recordPath };
}
