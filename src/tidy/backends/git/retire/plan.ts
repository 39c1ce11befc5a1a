/**
 * Retirement planning on Git (docs/tasks.md): the source repository must be the task's
 * (path, identity, binding), then the observation, the blockers and — when it retires —
 * the ordered effects: pin, files, the lock task create wrote, the registration.
 */
import { sameId } from '../../../../core/confined-fs.js';
import { RefusalError } from '../../../../core/errors.js';
import type { LoadedGitTask, LoadedTask } from '../../../../task/store.js';
import { bindingMismatch } from '../../../engine/binding.js';
import { type RetirementSelection, retirementActions } from '../../../retire/decide.js';
import { MAX_MANIFEST_FILE_BYTES } from '../../../retire/manifest.js';
import { recordHead, targetHead } from '../../../retire/plan.js';
import { writeRetirementRecord } from '../../../retire/store.js';
import {
  RECOVERY_LIMITS,
  RETIREMENT_LIMITS,
  type RetirementEffect,
  type RetirementRecord,
  type TidyPlanV2,
} from '../../../retire/types.js';
import { checkStateDir, newPlanId } from '../../../store.js';
import type { ObserveContext } from '../../../types.js';
import { IncompleteObservationError, recoveryRefFor, type TidyBounds } from '../../../types.js';
import type { RetirementPlanRequest } from '../../backend.js';
import { readGitBinding } from '../binding.js';
import type { GitCallContext } from '../observe.js';
import { isGitTask } from '../task/record.js';
import { retirementBlockers } from './decide.js';
import { observeRetirement, type RetirementObservation } from './observe.js';

export const INTEGRATION_METHOD = 'git merge-base --is-ancestor';

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

/** Observes, decides and stores the retirement of one Git task. */
export async function planGitRetirement(
  plan: TidyPlanV2,
  anyTask: LoadedTask,
  request: RetirementPlanRequest,
  ctx: ObserveContext,
): Promise<string> {
  if (!isGitTask(anyTask))
    throw new RefusalError('tampered-task', `task ${anyTask.task.task_id} names no known backend`);
  const loaded = anyTask;
  const { deadline, bounds } = ctx;
  const { stateDir, key, selection } = request;
  const obs = await observeRetirement(loaded, request.path, request.base, ctx);
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
  const call = { deadline, bounds, signal: ctx.signal, cwd: obs.layout.path };
  await checkTaskBinding(loaded, obs, call);
  await checkStateDir(stateDir, [
    obs.layout.toplevel ?? '',
    obs.layout.gitDir,
    obs.layout.commonDir,
    loaded.task.destination,
    ...obs.worktrees.map((worktree) => worktree.path),
  ]);
  if (deadline.isExpired)
    throw new IncompleteObservationError('deadline', 'the planning deadline passed; evidence is incomplete');
  plan.plan_id = newPlanId();
  plan.retirement = buildRecord(loaded, obs, selection, plan.plan_id, bounds);
  plan.status = 'complete';
  const binding = await readGitBinding(obs.layout.commonDir, obs.base.oid, call);
  return writeRetirementRecord(stateDir, plan, bounds.maxRecordBytes, { key, binding });
}
