/**
 * Decisions from a Git observation (pure): each target's reasons from the closed set,
 * its evidence and blockers, and the effects apply would perform. `delete` requires
 * `integrated` and nothing else; everything uncertain or blocked is retained.
 */
import type { WorktreeRecord } from '../../../core/git.js';
import {
  GIT_ANCESTRY_METHOD,
  type PlanBlocker,
  type PlanTarget,
  type PlanWorktree,
  REASON_CODES,
  type ReasonCode,
} from '../../types.js';
import type { GitObservation, ObservedBranch, WorktreeGitState } from './observe.js';

/** The state read for a listed worktree: the common dir's for the main one, else by path. */
function stateOf(
  worktree: WorktreeRecord,
  states: readonly WorktreeGitState[],
): WorktreeGitState | undefined {
  return worktree.isMain ? states[0] : states.slice(1).find((state) => state.worktree === worktree.path);
}

/**
 * The worktree list as plan v1 reports it, with each worktree's rebases and bisects in
 * progress when their state was read (`states` from the same observation).
 */
export function planWorktrees(
  worktrees: readonly WorktreeRecord[],
  states?: readonly WorktreeGitState[],
): PlanWorktree[] {
  return worktrees.map((worktree) => {
    const planned: PlanWorktree = {
      path: worktree.path,
      head: worktree.head ?? null,
      branch: worktree.branch ?? null,
      detached: worktree.isDetached,
      bare: worktree.isBare,
      locked: worktree.locked ?? null,
      prunable: worktree.prunable ?? null,
      is_main: worktree.isMain,
    };
    if (states !== undefined) {
      const state = stateOf(worktree, states);
      planned.operations = state === undefined ? [] : state.operations.map((op) => ({ ...op }));
      planned.operations_unreadable = state?.unreadable ?? null;
    }
    return planned;
  });
}

/**
 * Blockers for one branch: the base itself (the base ref, or a branch pointing at the
 * base commit — docs/tidy.md, reason `is-base`), a worktree
 * that has it checked out (main or linked, locked or prunable alike), a worktree with a
 * rebase or bisect in progress that started from it (git shows that worktree detached,
 * but treats the branch as checked out there), and a detached worktree whose HEAD is its
 * commit.
 */
export function blockersFor(
  branch: Pick<ObservedBranch, 'ref' | 'oid'>,
  base: { ref: string | null; oid: string },
  worktrees: readonly WorktreeRecord[],
  states: readonly WorktreeGitState[] = [],
): PlanBlocker[] {
  const blockers: PlanBlocker[] = [];
  if (branch.ref === base.ref || branch.oid === base.oid)
    blockers.push({ reason: 'is-base', worktree: null, operation: null });
  for (const worktree of worktrees) {
    // A bare entry carries its HEAD's branch or detached commit (see readWorktrees).
    if (worktree.branch === branch.ref)
      blockers.push({ reason: 'checked-out', worktree: worktree.path, operation: null });
    else if (worktree.isDetached && worktree.head === branch.oid)
      blockers.push({ reason: 'worktree-head', worktree: worktree.path, operation: null });
  }
  // Every worktree git dir counts, listed or not: git refuses `branch -d` for all of them.
  for (const state of states)
    for (const operation of state.operations)
      if (operation.branch === branch.ref)
        blockers.push({
          reason: 'checked-out',
          worktree: state.worktree ?? state.gitDir,
          operation: operation.kind,
        });
  return blockers;
}

const ALL_ZERO_OID = /^0+$/;

/**
 * Why git's listing of a worktree does not say what it holds, or null when it does. git
 * lists a worktree whose HEAD it cannot read (unreadable, garbage, missing) with an
 * all-zero HEAD and no branch: whatever that worktree has checked out is unknown, so any
 * branch may be the one it holds.
 */
export function unknownWorktreeState(worktree: WorktreeRecord): string | null {
  if (worktree.branch !== undefined) return null; // a branch, possibly unborn
  if (worktree.head === undefined || ALL_ZERO_OID.test(worktree.head))
    return worktree.isBare
      ? 'its HEAD names neither a branch nor a commit'
      : 'git could not read its HEAD (listed with no branch and no commit)';
  if (!worktree.isDetached) return 'git lists it with neither a branch nor a detached HEAD';
  return null;
}

function ordered(reasons: Set<ReasonCode>): ReasonCode[] {
  return REASON_CODES.filter((code) => reasons.has(code));
}

/** One target's decision from the observation. */
export function decideBranch(branch: ObservedBranch, observation: GitObservation): PlanTarget {
  const { base, layout } = observation;
  const reasons = new Set<ReasonCode>();
  const notes: string[] = [];
  let ancestor: boolean | null = null;

  if (observation.baseChanged) {
    reasons.add('uncertain');
    notes.push('the base changed during observation');
  }
  if (observation.worktreesChanged) {
    reasons.add('uncertain');
    notes.push("the worktree list or a worktree's rebase/bisect state changed during observation");
  }
  if (branch.changed) {
    reasons.add('uncertain');
    notes.push('the branch changed during observation');
  }
  for (const state of observation.worktreeStates) {
    if (state.unreadable === null) continue;
    // Any branch could be the one a rebase or bisect there started from.
    reasons.add('uncertain');
    notes.push(
      `the rebase/bisect state of worktree ${state.worktree ?? state.gitDir} could not be read (${state.unreadable})`,
    );
  }
  for (const worktree of observation.worktrees) {
    const why = unknownWorktreeState(worktree);
    if (why === null) continue;
    reasons.add('uncertain');
    notes.push(`worktree ${worktree.path}: ${why}`);
  }
  if (branch.symref !== null) {
    reasons.add('unsupported');
    notes.push('symbolic branch ref: deleting it would act on the branch it points to');
  }

  if (branch.objectType === null) {
    reasons.add('uncertain');
    notes.push('the tip object is missing from the repository');
  } else if (branch.objectType !== 'commit') {
    reasons.add('unsupported');
    notes.push(`the tip is a ${branch.objectType}, not a commit`);
  } else if (branch.oid === base.oid) {
    ancestor = true; // equal to the base commit: no history needed
  } else if (layout.isShallow) {
    reasons.add('uncertain');
    notes.push('shallow repository: ancestry cannot be proved');
  } else {
    ancestor = branch.isMerged;
  }
  if (reasons.has('uncertain') && branch.oid !== base.oid) ancestor = null;
  if (ancestor === true) reasons.add('integrated');
  else if (ancestor === false) reasons.add('not-integrated');

  const blockers = blockersFor(branch, base, observation.worktrees, observation.worktreeStates);
  for (const blocker of blockers) reasons.add(blocker.reason);

  const list = ordered(reasons);
  return {
    ref: branch.ref,
    oid: branch.oid,
    decision: list.length === 1 && list[0] === 'integrated' ? 'delete' : 'retain',
    reasons: list,
    evidence: {
      ancestor_of_base: ancestor,
      method: GIT_ANCESTRY_METHOD,
      object_type: branch.objectType,
      symref_target: branch.symref,
      notes,
    },
    blockers,
  };
}

export function decideGitTargets(observation: GitObservation): PlanTarget[] {
  return observation.branches.map((branch) => decideBranch(branch, observation));
}
