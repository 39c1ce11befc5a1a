/**
 * `tidy plan` on Git: observe, decide, read the equivalence evidence, and store a
 * complete plan when asked to.
 */

import { effectsFor } from '../../plan-effects.js';
import { IncompleteObservationError, type PlanRepository, type TidyPlanV1 } from '../../types.js';
import type { TidyPlanRequest } from '../backend.js';
import { decideGitTargets, planWorktrees } from './decide.js';
import { DEFAULT_EQUIVALENCE_CHECKS, readEquivalence } from './equivalence.js';
import { observeGit, type PartialGitObservation } from './observe.js';

function repositoryFrom(partial: PartialGitObservation): PlanRepository | null {
  const layout = partial.layout;
  if (layout === undefined) return null;
  return {
    path: layout.path,
    toplevel: layout.toplevel ?? null,
    git_dir: layout.gitDir,
    common_dir: layout.commonDir,
    object_format: layout.objectFormat,
    is_shallow: layout.isShallow,
  };
}

/**
 * The Git plan: observe, decide, read the equivalence evidence, and store a complete plan
 * when asked to. Fills `plan`; returns the stored record's path (null when nothing is stored).
 */
export async function planGit(plan: TidyPlanV1, request: TidyPlanRequest): Promise<string | null> {
  const partial: PartialGitObservation = {};
  try {
    return await planObserved(plan, request, partial);
  } catch (error) {
    // A plan that stops still reports what was observed before it stopped.
    plan.repository = repositoryFrom(partial);
    plan.backend.version = partial.gitVersion ?? null;
    if (partial.base)
      plan.base = { selector: partial.base.selector, ref: partial.base.ref, oid: partial.base.oid };
    if (partial.worktrees) plan.worktrees = planWorktrees(partial.worktrees);
    throw error;
  }
}

async function planObserved(
  plan: TidyPlanV1,
  request: TidyPlanRequest,
  partial: PartialGitObservation,
): Promise<string | null> {
  const { options, path, explicit, stateDir, deadline, bounds, counter } = request;
  // The store (and node:crypto behind it) loads only when a plan is stored.
  const storing =
    stateDir === undefined ? undefined : { dir: stateDir, store: await import('../../store.js') };
  const maxChecks = options.equivalenceChecks ?? DEFAULT_EQUIVALENCE_CHECKS;
  const observation = await observeGit(
    // More branches than checks: the evidence checks the newest tips, by their times.
    {
      path,
      baseSelector: options.base,
      refs: explicit,
      ...(maxChecks > 0 ? { tipTimesAbove: maxChecks } : {}),
    },
    { deadline, bounds, signal: options.signal, counter, partial, betweenReads: options.betweenReads },
  );
  const { layout } = observation;
  if (storing !== undefined)
    await storing.store.checkStateDir(storing.dir, [
      layout.toplevel ?? '',
      layout.gitDir,
      layout.commonDir,
      ...observation.worktrees.map((worktree) => worktree.path),
    ]);

  plan.backend.version = observation.gitVersion;
  plan.repository = repositoryFrom(partial);
  plan.base = { selector: observation.base.selector, ref: observation.base.ref, oid: observation.base.oid };
  plan.selection = { mode: observation.selection.mode, refs: [...observation.selection.refs] };
  plan.worktrees = planWorktrees(observation.worktrees, observation.worktreeStates);
  plan.targets = decideGitTargets(observation);
  options.beforeEvidence?.();
  // Evidence only, after the decisions: it never changes one.
  const equivalence = await readEquivalence(
    plan.targets,
    {
      commonDir: layout.commonDir,
      objectFormat: layout.objectFormat,
      baseOid: observation.base.oid,
      gitVersion: observation.gitVersion,
      maxChecks,
      tipTimes: observation.tipTimes,
    },
    { deadline, bounds, signal: options.signal, cwd: layout.path, counter },
  );
  // Interrupted while the evidence was read: the plan is not complete (nothing is stored).
  if (options.signal?.aborted)
    throw new IncompleteObservationError(
      'cancelled',
      'the plan was interrupted during the equivalence checks',
    );
  for (const target of plan.targets) {
    const found = equivalence.get(target.ref);
    if (found !== undefined) target.evidence.equivalence = found;
  }
  plan.status = 'complete';
  if (observation.baseChanged || observation.worktreesChanged) {
    // Every decision rests on the base and the worktree list: all targets are retained.
    plan.status = 'incomplete';
    plan.refusal = {
      code: 'changed-during-observation',
      message: observation.baseChanged
        ? 'the base changed during observation; every target is retained as uncertain'
        : "the worktree list or a worktree's rebase/bisect state changed during observation; every target is retained as uncertain",
    };
  }
  const planId = storing !== undefined && plan.status === 'complete' ? storing.store.newPlanId() : '';
  plan.plan_id = planId;
  plan.effects = effectsFor(plan.targets, planId);

  request.checkRecordSize(plan);
  if (storing === undefined || plan.status !== 'complete') return null;
  const { loadOrCreatePlanKey, planKeyPath } = await import('../../plan-key.js');
  const { readGitBinding } = await import('./binding.js');
  const key = await loadOrCreatePlanKey(options.keyFile ?? planKeyPath(), storing.dir);
  const binding = await readGitBinding(layout.commonDir, observation.base.oid, {
    deadline,
    bounds,
    signal: options.signal,
    cwd: layout.path,
    counter,
  });
  return storing.store.writePlanRecord(storing.dir, plan, { key, binding }, bounds.maxRecordBytes);
}
