/**
 * `tidy plan` on the jj backend (docs/tidy.md, "jj"). It checks the jj on PATH against
 * the supported range first: a missing jj refuses `not-found`, one outside the range
 * `unsupported`, and neither falls back to Git (a colocated repository's Git view is not
 * jj's truth). Then it observes at one pinned operation, decides and, with a state
 * directory, stores the plan bound to the jj repository.
 */
import type { BigIntStats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { RefusalError } from '../../../core/errors.js';
import { probeJj } from '../../../core/jj.js';
import { effectsFor } from '../../plan-effects.js';
import { loadOrCreatePlanKey, planKeyPath } from '../../plan-key.js';
import { checkStateDir, newPlanId, writePlanRecord } from '../../store.js';
import {
  IncompleteObservationError,
  JJ_PLAN_LIMITS,
  type ObserveContext,
  type PlanRepository,
  type RepositoryBinding,
  recoveryBookmarkFor,
  type TidyPlanV1,
} from '../../types.js';
import type { TidyPlanRequest } from '../backend.js';
import { decideJjTargets, planJjWorkspaces } from './decide.js';
import { type JjCallContext, type JjObservation, observeJj, readBaseRoots } from './observe.js';

export interface JjPlanRequest {
  /** PATH, absolute. */
  path: string;
  base: string;
  /** Explicit bookmark names, or undefined for every local bookmark. */
  names: readonly string[] | undefined;
  /** Absolute, already checked private; undefined for a stateless plan. */
  stateDir: string | undefined;
  keyFile: string | undefined;
  env: NodeJS.ProcessEnv;
}

/**
 * The repository as plan v1 records it on jj: `toplevel` is the workspace root,
 * `git_dir` the backing Git repository (`jj git root`), `common_dir` the jj repository
 * directory every workspace shares (`.jj/repo`, through its pointer file in a secondary
 * workspace).
 */
export function jjRepository(observation: JjObservation): PlanRepository {
  return {
    path: observation.path,
    toplevel: observation.workspaceRoot,
    git_dir: observation.gitDir,
    common_dir: observation.repoDir,
    object_format: 'sha1',
    is_shallow: observation.isShallow,
  };
}

/** Every path the state directory must stay out of. */
export function jjRepositoryPaths(observation: JjObservation): string[] {
  return [
    observation.path,
    observation.workspaceRoot,
    observation.repoDir,
    observation.gitDir,
    ...observation.workspaces.map((w) => w.root ?? ''),
  ];
}

/** The stored plan's binding: the jj repository directory's identity and the base's roots. */
export async function readJjBinding(
  observation: JjObservation,
  ctx: JjCallContext,
): Promise<RepositoryBinding> {
  let info: BigIntStats;
  try {
    info = await stat(observation.repoDir, { bigint: true });
  } catch (error) {
    throw new IncompleteObservationError(
      'jj-failed',
      `the jj repository directory ${JSON.stringify(observation.repoDir)} could not be read: ${(error as Error).message}`,
    );
  }
  return {
    metadata_dir: observation.repoDir,
    device: info.dev.toString(),
    inode: info.ino.toString(),
    root_commits: await readBaseRoots(observation.operationId, observation.base.name, ctx),
  };
}

/** Probes jj and returns the supported version, or throws the refusal. */
export async function requireSupportedJj(ctx: ObserveContext, env: NodeJS.ProcessEnv): Promise<string> {
  const probe = await probeJj({ deadline: ctx.deadline, env, signal: ctx.signal });
  if (probe.kind !== 'supported') throw new RefusalError(probe.kind, probe.message);
  return probe.version;
}

/** Stores the filled plan (after the caller's size check); the record's path, or null when stateless. */
export type StoreJjPlan = (maxRecordBytes: number) => Promise<string | null>;

/** Fills `plan` from a jj observation and returns how to store it. Throws refusals. */
export async function planJj(
  plan: TidyPlanV1,
  request: JjPlanRequest,
  ctx: ObserveContext,
  counter: { calls: number },
): Promise<StoreJjPlan> {
  plan.backend.name = 'jj';
  plan.limits = [...JJ_PLAN_LIMITS];
  const version = await requireSupportedJj(ctx, request.env);
  plan.backend.version = version;
  const call: JjCallContext = { ...ctx, cwd: request.path, env: request.env, counter };
  const observation = await observeJj(
    { path: request.path, base: request.base, names: request.names, version },
    call,
  );
  if (request.stateDir !== undefined) await checkStateDir(request.stateDir, jjRepositoryPaths(observation));

  plan.repository = jjRepository(observation);
  plan.base = { selector: request.base, ref: observation.base.name, oid: observation.base.commit };
  plan.selection = { mode: observation.mode, refs: [...observation.selected] };
  plan.worktrees = [];
  plan.jj = {
    operation_id: observation.operationId,
    workspace: observation.workspace,
    workspaces: planJjWorkspaces(observation),
  };
  plan.targets = decideJjTargets(observation);
  plan.status = 'complete';
  const planId = request.stateDir !== undefined ? newPlanId() : '';
  plan.plan_id = planId;
  plan.effects = effectsFor(plan.targets, planId, recoveryBookmarkFor);
  return async (maxRecordBytes: number) => {
    if (request.stateDir === undefined) return null;
    const key = await loadOrCreatePlanKey(request.keyFile ?? planKeyPath(), request.stateDir);
    const binding = await readJjBinding(observation, call);
    return writePlanRecord(request.stateDir, plan, { key, binding }, maxRecordBytes);
  };
}

/** `tidy plan` on jj, behind the backend interface: observe at one operation, decide, store when asked. */
export async function planJjTidy(plan: TidyPlanV1, request: TidyPlanRequest): Promise<string | null> {
  const { options, path, explicit, stateDir, deadline, bounds, counter } = request;
  try {
    const store = await planJj(
      plan,
      {
        path,
        base: options.base,
        names: explicit,
        stateDir,
        keyFile: options.keyFile,
        env: options.env ?? process.env,
      },
      { deadline, bounds, signal: options.signal },
      counter,
    );
    request.checkRecordSize(plan);
    return await store(bounds.maxRecordBytes);
  } catch (error) {
    // A plan that stops names no repository: what jj showed is not reported half-observed.
    plan.repository = null;
    throw error;
  }
}
