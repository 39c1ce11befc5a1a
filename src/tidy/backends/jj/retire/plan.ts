/**
 * The retirement plan of a jj task workspace (schema v2, docs/tasks.md, "Tasks on jj"):
 * the source repository is the one the task was made in (path, identity, binding), the
 * observation at one pinned operation, the full disk comparison, the decision and — when
 * it retires — the ordered effects apply performs (./apply.ts). Stored and sealed like
 * any other plan.
 */
import { lstat } from 'node:fs/promises';
import { sameId } from '../../../../core/confined-fs.js';
import { RefusalError } from '../../../../core/errors.js';
import type { LoadedJjTask, LoadedTask } from '../../../../task/store.js';
import type { JjTaskCreationPlan } from '../../../../task/types.js';
import { bindingMismatch } from '../../../engine/binding.js';
import { type RetirementSelection, retirementActions } from '../../../retire/decide.js';
import { MAX_MANIFEST_FILE_BYTES } from '../../../retire/manifest.js';
import { recordHead, targetHead } from '../../../retire/plan.js';
import { writeRetirementRecord } from '../../../retire/store.js';
import {
  RETIREMENT_LIMITS,
  type RetirementEffect,
  type RetirementRecord,
  type TidyPlanV2,
} from '../../../retire/types.js';
import { checkStateDir, newPlanId } from '../../../store.js';
import {
  type ObserveContext,
  type RepositoryBinding,
  recoveryBookmarkFor,
  type TidyBounds,
} from '../../../types.js';
import type { RetirementPlanRequest } from '../../backend.js';
import { type JjCallContext, readCommitRoots } from '../observe.js';
import { requireSupportedJj } from '../plan.js';
import { isJjTask } from '../task/record.js';
import { jjRetirementBlockers } from './decide.js';
import { type JjRetirementObservation, observeJjRetirement } from './observe.js';

/** What the jj recovery bookmark covers and does not. */
export const JJ_RECOVERY_LIMITS: readonly string[] = [
  'the recovery bookmark keeps the working-copy commit and its change; untracked and ignored content is not backed up (retirement retains a workspace that has any)',
  'there is no automatic rollback: files and the workspace are not restored',
  'recovery bookmarks stay after success; review them before removing any',
];

export const JJ_DISK_COMPARISON =
  'every entry below the destination (manifest) against the working-copy commit tree in the backing Git repository (git ls-tree: executable bit and blob id); jj was not asked to snapshot';

async function bindingOf(
  obs: JjRetirementObservation,
  commit: string,
  ctx: JjCallContext,
): Promise<RepositoryBinding> {
  const info = await lstat(obs.repoDir, { bigint: true });
  return {
    metadata_dir: obs.repoDir,
    device: info.dev.toString(),
    inode: info.ino.toString(),
    root_commits: await readCommitRoots(obs.operationId, commit, ctx),
  };
}

/** PATH's repository is the one the task was created in: the jj repository directory by path and identity, and the binding. */
async function checkJjSource(loaded: LoadedJjTask, obs: JjRetirementObservation, ctx: JjCallContext) {
  const source = loaded.task.source;
  if (
    obs.repoDir !== source.common_dir ||
    obs.repoDirIdentity === null ||
    !sameId(obs.repoDirIdentity, source.common_dir_identity)
  )
    throw new RefusalError(
      'foreign-repository',
      `PATH is not the jj repository task ${loaded.task.task_id} was created in (${source.common_dir})`,
    );
  const mismatch = bindingMismatch(loaded.binding, await bindingOf(obs, loaded.task.start_oid, ctx));
  if (mismatch !== null)
    throw new RefusalError(
      'foreign-repository',
      `PATH is not the repository task ${loaded.task.task_id} was created from: ${mismatch}`,
    );
}

/** The ordered effects of a jj retirement that retires: pin, forget, then (when selected) the files. */
export function jjRetirementEffects(
  planId: string,
  task: JjTaskCreationPlan,
  commit: string,
  selection: RetirementSelection,
): RetirementEffect[] {
  const pin = recoveryBookmarkFor(planId, 1);
  const effects: RetirementEffect[] = [
    {
      effect_id: 1,
      type: 'pin-recovery-ref',
      description: `jj bookmark create ${pin} -r commit_id(${commit}) (creation only): keeps the working-copy commit and its change`,
      recovery_ref: pin,
      oid: commit,
    },
    {
      effect_id: 2,
      type: 'remove-registration',
      description: `jj workspace forget ${task.workspace}: jj forgets the workspace, its files stay on disk`,
      workspace: task.workspace,
    },
  ];
  if (selection.removeFiles !== null)
    effects.push({
      effect_id: 3,
      type: 'remove-files',
      description: `remove the manifest entries of ${task.destination} through confined directory handles, verifying each; keep anything else`,
      root: task.destination,
    });
  return effects;
}

function buildJjRecord(
  loaded: LoadedJjTask,
  obs: JjRetirementObservation,
  selection: RetirementSelection,
  bounds: TidyBounds,
  planId: string,
): RetirementRecord {
  const { task, journal } = loaded;
  const created = journal.created!;
  const blockers = jjRetirementBlockers(loaded, obs, selection, bounds.maxEntries);
  const wc = obs.workingCopy;
  const parent = wc?.parents.length === 1 ? wc.parents[0]! : null;
  const listed = obs.listed;
  const retires = blockers.length === 0 && wc !== null;
  return {
    ...recordHead(loaded, selection),
    target: {
      ...targetHead(loaded),
      branch: null,
      start_oid: task.start_oid,
      tip_oid: wc?.commit_id ?? null,
    },
    integration: {
      base_oid: obs.base.commit,
      tip_oid: parent,
      ancestor_of_base: obs.parentIntegrated,
      method: `jj log -r 'commit_id(<parent>) & ::bookmarks(exact:"<base>")' at the observed operation`,
    },
    registration: {
      recorded: created.registration,
      observed: obs.registration,
      listed: listed !== undefined,
      lock_owned: false,
    },
    manifest: {
      root: task.destination,
      complete: obs.manifest?.complete ?? false,
      max_entries: bounds.maxEntries,
      max_file_bytes: MAX_MANIFEST_FILE_BYTES,
      entries: obs.manifest?.entries ?? [],
    },
    jj: {
      operation_id: obs.operationId,
      workspace: {
        recorded: created.workspace,
        observed:
          listed === undefined
            ? null
            : {
                name: listed.name,
                root: listed.root ?? '',
                commit_id: listed.commit_id,
                change_id: listed.change_id,
                parents: listed.parents,
              },
      },
      working_copy:
        wc === null
          ? null
          : {
              commit_id: wc.commit_id,
              change_id: wc.change_id,
              parents: wc.parents,
              empty: wc.empty,
              conflict: wc.conflict,
              tree_id: obs.trees?.commit ?? null,
              parent_tree_id: obs.trees?.parent ?? null,
            },
      disk_comparison: JJ_DISK_COMPARISON,
    },
    decision: retires ? 'retire' : 'retain',
    actions: retirementActions(selection, blockers),
    effects: retires ? jjRetirementEffects(planId, task, wc!.commit_id, selection) : [],
    blockers,
    recovery: {
      ref: retires ? recoveryBookmarkFor(planId, 1) : null,
      oid: retires ? wc!.commit_id : null,
      limits: [...JJ_RECOVERY_LIMITS],
    },
    limits: [...RETIREMENT_LIMITS],
  };
}

/** Observes, decides and stores the retirement plan of a jj task; fills `plan`. Throws refusals. */
export async function planJjRetirement(
  plan: TidyPlanV2,
  anyTask: LoadedTask,
  request: RetirementPlanRequest,
  ctx: ObserveContext,
): Promise<string> {
  if (!isJjTask(anyTask))
    throw new RefusalError('tampered-task', `task ${anyTask.task.task_id} names no known backend`);
  const loaded = anyTask;
  plan.backend = { name: 'jj', version: await requireSupportedJj(ctx, request.env) };
  const call: JjCallContext = { ...ctx, cwd: request.path, env: request.env };
  const obs = await observeJjRetirement(loaded, request.path, request.base, call);
  plan.repository = {
    path: request.path,
    toplevel: obs.workspaceRoot,
    git_dir: obs.gitDir,
    common_dir: obs.repoDir,
    object_format: 'sha1',
    is_shallow: false,
  };
  plan.base = { selector: request.base, ref: obs.base.name, oid: obs.base.commit };
  await checkJjSource(loaded, obs, call);
  await checkStateDir(request.stateDir, [
    obs.workspaceRoot,
    obs.repoDir,
    obs.gitDir,
    loaded.task.destination,
    ...obs.workspaces.map((w) => w.root ?? ''),
  ]);
  plan.plan_id = newPlanId();
  plan.retirement = buildJjRecord(loaded, obs, request.selection, ctx.bounds, plan.plan_id);
  plan.status = 'complete';
  const binding = await bindingOf(obs, obs.base.commit, call);
  return writeRetirementRecord(request.stateDir, plan, ctx.bounds.maxRecordBytes, {
    key: request.key,
    binding,
  });
}
