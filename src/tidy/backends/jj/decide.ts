/**
 * Decisions from a jj observation (pure; docs/tidy.md, "jj"). A bookmark is `delete`
 * only when its one target is an ancestor of (or equal to) the base bookmark's commit and
 * nothing retains it: the base itself, a workspace's working copy (or its parent) at the
 * commit, a conflicted target, or a bookmark of the same name on a real remote.
 */

import {
  JJ_ANCESTRY_METHOD,
  JJ_RECOVERY_PREFIX,
  type JjPlanWorkspace,
  type JjTargetFacts,
  type PlanBlocker,
  type PlanTarget,
  REASON_CODES,
  type ReasonCode,
} from '../../types.js';
import { GIT_PSEUDO_REMOTE, type JjObservation } from './observe.js';

function ordered(reasons: Set<ReasonCode>): ReasonCode[] {
  return REASON_CODES.filter((code) => reasons.has(code));
}

/** The workspaces as the plan records them. */
export function planJjWorkspaces(observation: Pick<JjObservation, 'workspaces'>): JjPlanWorkspace[] {
  return observation.workspaces.map((w) => ({
    name: w.name,
    root: w.root,
    commit_id: w.commit_id,
    change_id: w.change_id,
    parents: [...w.parents],
  }));
}

/**
 * Workspaces whose working copy is the commit or sits directly on it (the usual state
 * after `jj new BOOKMARK` or `jj edit`): the bookmark names what that workspace works on.
 */
function workspaceBlockers(commit: string, observation: JjObservation): PlanBlocker[] {
  return observation.workspaces
    .filter((w) => w.commit_id === commit || w.parents.includes(commit))
    .map((w) => ({ reason: 'workspace-revision' as const, worktree: w.root, workspace: w.name }));
}

/** One bookmark's decision. */
export function decideBookmark(name: string, observation: JjObservation): PlanTarget {
  const local = observation.bookmarks.local.find((b) => b.name === name);
  if (local === undefined) throw new Error(`decideBookmark: ${name} was not observed`);
  const reasons = new Set<ReasonCode>();
  const notes: string[] = [];
  const blockers: PlanBlocker[] = [];
  const remotes = observation.bookmarks.remote
    .filter((r) => r.name === name && r.remote !== GIT_PSEUDO_REMOTE)
    .map((r) => ({ remote: r.remote, tracked: r.tracking_targets !== null, targets: [...r.targets] }));
  const conflicted = local.targets.length > 1;
  const commit = conflicted ? null : (local.targets[0] as string);
  const facts: JjTargetFacts = {
    change_id: commit === null ? null : (observation.changes.get(commit) ?? null),
    targets: [...local.targets],
    remotes,
  };
  let ancestor: boolean | null = null;

  if (conflicted) {
    reasons.add('conflicted');
    notes.push(`conflicted bookmark: ${local.targets.length} sides`);
  } else if (commit !== null) {
    if (facts.change_id === null) {
      reasons.add('uncertain');
      notes.push('the target commit was not listed by jj log');
    } else ancestor = observation.integrated.has(commit);
    if (name === observation.base.name || commit === observation.base.commit)
      blockers.push({ reason: 'is-base', worktree: null });
    blockers.push(...workspaceBlockers(commit, observation));
  }
  if (name.startsWith(JJ_RECOVERY_PREFIX)) {
    reasons.add('unsupported');
    notes.push('a recovery bookmark left by tidy apply: review it and remove it by hand');
  }
  if (remotes.length > 0) {
    reasons.add('remote-associated');
    notes.push(
      `also on ${remotes.map((r) => `${r.remote} (${r.tracked ? 'tracked' : 'not tracked'})`).join(', ')}`,
    );
  }
  if (observation.isShallow) {
    reasons.add('uncertain');
    notes.push('the backing Git repository is shallow: ancestry cannot be proved');
    ancestor = commit === observation.base.commit ? true : null;
  }
  if (ancestor === true) reasons.add('integrated');
  else if (ancestor === false) reasons.add('not-integrated');
  for (const blocker of blockers) reasons.add(blocker.reason);

  const list = ordered(reasons);
  return {
    ref: name,
    oid: commit,
    decision: list.length === 1 && list[0] === 'integrated' ? 'delete' : 'retain',
    reasons: list,
    evidence: {
      ancestor_of_base: ancestor,
      method: JJ_ANCESTRY_METHOD,
      object_type: commit === null ? null : 'commit',
      symref_target: null,
      notes,
    },
    blockers,
    jj: facts,
  };
}

export function decideJjTargets(observation: JjObservation): PlanTarget[] {
  return observation.selected.map((name) => decideBookmark(name, observation));
}
