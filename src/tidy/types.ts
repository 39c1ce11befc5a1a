/**
 * Tidy data contracts: plan schema v1, the closed reason set and bounds
 * (docs/tidy.md) and the backend seam. Shared by `tidy plan` and `tidy apply`.
 */
import type { Deadline } from '../core/deadline.js';
import { OperationalError } from '../core/errors.js';
import { describeOutcome, type RunResult } from '../core/run.js';

/** The closed reason set, in the order reasons are listed on a target. */
export const REASON_CODES = [
  'integrated',
  'not-integrated',
  'is-base',
  'checked-out',
  'worktree-head',
  'workspace-revision',
  'conflicted',
  'remote-associated',
  'uncertain',
  'unsupported',
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

/** Reasons the Git backend can produce (the others are jj-only). */
export const GIT_REASON_CODES: readonly ReasonCode[] = [
  'integrated',
  'not-integrated',
  'is-base',
  'checked-out',
  'worktree-head',
  'uncertain',
  'unsupported',
];

/** Reasons the jj backend can produce. */
export const JJ_REASON_CODES: readonly ReasonCode[] = [
  'integrated',
  'not-integrated',
  'is-base',
  'workspace-revision',
  'conflicted',
  'remote-associated',
  'uncertain',
  'unsupported',
];

/** Reasons that block deletion even of an integrated target. */
export const BLOCKER_REASONS = ['is-base', 'checked-out', 'worktree-head', 'workspace-revision'] as const;
export type BlockerReason = (typeof BLOCKER_REASONS)[number];

export type Decision = 'delete' | 'retain';
export type PlanStatus = 'complete' | 'refused' | 'incomplete';
export type ObjectFormat = 'sha1' | 'sha256';
export type BackendName = 'git' | 'jj';

/** Capability limits every Git plan states. */
export const GIT_PLAN_LIMITS: readonly string[] = [
  'only native ancestry permits deletion: squash/rebase equivalence is evidence for review, never permission, and is checked for a bounded number of branches',
  'forge (pull request) state not consulted; no network',
  'remote branches and upstream configuration not considered',
  'replace objects and grafts ignored',
  'observation is a sample, not a transaction: apply revalidates each action',
];

/** Capability limits every jj plan states. */
export const JJ_PLAN_LIMITS: readonly string[] = [
  'native ancestry only: squash/patch equivalence not evaluated',
  'forge (pull request) state not consulted; no network, no jj git fetch',
  'observed at one pinned operation without snapshotting: disk state is not observed, so working-copy cleanliness is not established',
  'deleting a bookmark never abandons its change; jj has no per-bookmark compare-and-swap, so apply checks the operation parent and the whole bookmark delta instead',
  'observation is a sample, not a transaction: apply revalidates at a fresh operation',
];

/** How the jj backend establishes ancestry (recorded on each target). */
export const JJ_ANCESTRY_METHOD = 'jj log -r \'bookmarks(exact:"NAME") & ::bookmarks(exact:"BASE")\'';

/** How the Git backend establishes ancestry (recorded on each target). */
export const GIT_ANCESTRY_METHOD = 'git for-each-ref --merged';

// ---------------------------------------------------------------------------
// Bounds

export interface TidyBounds {
  /** Total budget for the whole command, shared by every native call. */
  deadlineMs: number;
  /** Cap on each native call's stdout and stderr. */
  maxOutputBytes: number;
  /** Cap on an encoded plan/result/record. */
  maxRecordBytes: number;
  /** Cap on observed entries (refs, worktrees) in aggregate. */
  maxEntries: number;
  /** Cap on paths and selectors, in UTF-8 bytes. */
  maxTextBytes: number;
  /** Cap on ids (plan ids, object ids), in bytes. */
  maxIdBytes: number;
}

export const DEFAULT_PLAN_BOUNDS: Readonly<TidyBounds> = Object.freeze({
  deadlineMs: 10_000,
  maxOutputBytes: 65_536,
  maxRecordBytes: 1_048_576,
  maxEntries: 1024,
  maxTextBytes: 4096,
  maxIdBytes: 128,
});

export const DEFAULT_APPLY_BOUNDS: Readonly<TidyBounds> = Object.freeze({
  ...DEFAULT_PLAN_BOUNDS,
  deadlineMs: 60_000,
});

const BOUND_KEYS: readonly (keyof TidyBounds)[] = [
  'deadlineMs',
  'maxOutputBytes',
  'maxRecordBytes',
  'maxEntries',
  'maxTextBytes',
  'maxIdBytes',
];

/**
 * The bounds for a command. TEST-ONLY: when `STW_TEST_HOOKS=1`, the JSON object in
 * `STW_TEST_TIDY_BOUNDS` overrides any subset of the keys so tests can force bounds low.
 * Not a user feature and not documented for users.
 */
export function boundsFromEnv(
  env: NodeJS.ProcessEnv,
  defaults: Readonly<TidyBounds> = DEFAULT_PLAN_BOUNDS,
): TidyBounds {
  const bounds: TidyBounds = { ...defaults };
  if (env['STW_TEST_HOOKS'] !== '1') return bounds;
  const raw = env['STW_TEST_TIDY_BOUNDS'];
  if (raw === undefined || raw === '') return bounds;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error('STW_TEST_TIDY_BOUNDS is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null) throw new Error('STW_TEST_TIDY_BOUNDS is not an object');
  for (const [key, value] of Object.entries(parsed)) {
    if (!(BOUND_KEYS as readonly string[]).includes(key))
      throw new Error(`STW_TEST_TIDY_BOUNDS: unknown key ${key}`);
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
      throw new Error(`STW_TEST_TIDY_BOUNDS: ${key} must be a non-negative integer`);
    bounds[key as keyof TidyBounds] = value;
  }
  return bounds;
}

// ---------------------------------------------------------------------------
// Plan schema v1 (schemas/tidy-plan-v1.schema.json)

export interface PlanRepository {
  /** PATH as given, resolved through symlinks. */
  path: string;
  /** The worktree root containing PATH; null in a bare repository. */
  toplevel: string | null;
  git_dir: string;
  common_dir: string;
  object_format: ObjectFormat;
  is_shallow: boolean;
}

export interface PlanBackend {
  name: BackendName;
  /** The native tool's version, e.g. "2.39.5"; null when it could not be read. */
  version: string | null;
}

export interface PlanBase {
  /** The selector exactly as given. */
  selector: string;
  /** The full ref name when the selector is a ref; null for an object id selector. */
  ref: string | null;
  /** The base commit; null only when the plan was refused before it resolved. */
  oid: string | null;
}

export interface PlanSelection {
  mode: 'explicit' | 'all-local-branches';
  /** Selected full ref names, in target order. */
  refs: string[];
}

export interface PlanWorktree {
  path: string;
  head: string | null;
  branch: string | null;
  detached: boolean;
  bare: boolean;
  /** null when not locked; the reason ("" when none given) when locked. */
  locked: string | null;
  /** null when not prunable; git's reason when prunable. */
  prunable: string | null;
  is_main: boolean;
  /**
   * Rebases and bisects in progress in this worktree, read from its git dir. During
   * them git shows the worktree as detached but treats the branch they started from as
   * checked out here. Absent in plans written before this field existed.
   */
  operations?: PlanWorktreeOperation[];
  /** Why this worktree's rebase/bisect state could not be read; null when it was read. */
  operations_unreadable?: string | null;
}

export type WorktreeOperationKind = 'rebase' | 'bisect';

export interface PlanWorktreeOperation {
  kind: WorktreeOperationKind;
  /** The state file it was read from, relative to the worktree's git dir. */
  file: string;
  /** The branch the operation started from; null when it started on a detached HEAD. */
  branch: string | null;
}

export interface PlanBlocker {
  reason: BlockerReason;
  /** The worktree (jj: workspace root) that holds the target, or null (is-base, or a jj workspace whose root is not recorded). */
  worktree: string | null;
  /** jj: the name of the workspace whose working copy uses the target. Absent on Git. */
  workspace?: string;
  /**
   * For `checked-out`: the rebase or bisect in progress through which the worktree holds
   * the branch; null for a plain checkout and other reasons. Absent in older plans.
   */
  operation?: WorktreeOperationKind | null;
}

export interface PlanEvidence {
  /** true / false from native ancestry; null when not established (uncertain/unsupported). */
  ancestor_of_base: boolean | null;
  method: string;
  /** The tip's object type; null when the object is missing. */
  object_type: string | null;
  /** The ref a symbolic branch points to, or null. */
  symref_target: string | null;
  /** Why the evidence is uncertain or unsupported (one line each); empty otherwise. */
  notes: string[];
  /**
   * For a `not-integrated` target: whether its changes are already in the base although
   * its commits are not (a squash or rebase merge). Evidence only: the decision stays
   * `retain`. Absent on other targets and in plans written before this field existed.
   */
  equivalence?: PlanEquivalence;
}

export type EquivalenceStatus = 'equivalent' | 'not-equivalent' | 'skipped';
export type EquivalenceMethod = 'patch-id' | 'merge-tree';

/** Squash/rebase evidence for one target (docs/tidy.md, "Equivalence evidence"). */
export interface PlanEquivalence {
  status: EquivalenceStatus;
  /** How `equivalent` was proved; null otherwise. */
  method: EquivalenceMethod | null;
  /**
   * The base commit that already holds the branch's changes: the squash commit
   * (`patch-id`) or the base commit the test merge was made on (`merge-tree`); null
   * unless `equivalent`.
   */
  base_commit: string | null;
  /** The branch's merge base with the base commit; null when not read. */
  merge_base: string | null;
  /** One line: what was proved, what was not found, or why it was skipped. */
  detail: string;
}

/** jj facts about one bookmark target, beside the backend-independent fields. */
export interface JjTargetFacts {
  /** The change id of the target commit; null for a conflicted bookmark. */
  change_id: string | null;
  /** The bookmark's target as jj lists it: one commit, or the sides of a conflict (null: absent side). */
  targets: (string | null)[];
  /** Bookmarks of the same name on real remotes (never the `git` pseudo-remote of a colocated repository). */
  remotes: { remote: string; tracked: boolean; targets: (string | null)[] }[];
}

export interface PlanTarget {
  /** Git: the full ref name; jj: the bookmark name. */
  ref: string;
  /** Git: the tip; jj: the commit id. null only for a conflicted jj bookmark (see `jj.targets`). */
  oid: string | null;
  decision: Decision;
  reasons: ReasonCode[];
  evidence: PlanEvidence;
  blockers: PlanBlocker[];
  /** jj only. */
  jj?: JjTargetFacts;
}

export interface PlanEffect {
  action_id: number;
  type: 'delete-ref';
  ref: string;
  old_oid: string;
  /** Git: `refs/stw-recovery/<plan_id>/<action_id>`; jj: the bookmark `stw-recovery/<plan_id>/<action_id>`; null in a stateless plan. */
  recovery_ref: string | null;
}

export interface PlanRefusal {
  code: string;
  message: string;
  /** What to do instead (a selection command, the full refs matching a short name). */
  hint?: string;
}

/** One jj workspace as observed at the pinned operation. */
export interface JjPlanWorkspace {
  name: string;
  /** Its root directory as jj records it; null when not recorded. */
  root: string | null;
  /** Its working-copy commit and that commit's change id (distinct id spaces). */
  commit_id: string;
  change_id: string;
  parents: string[];
}

/** What a jj plan observed, beside the backend-independent fields. */
export interface JjPlanFacts {
  /** The operation every observation ran at (`--at-op`). */
  operation_id: string;
  /** The workspace PATH is in. */
  workspace: string;
  workspaces: JjPlanWorkspace[];
}

export interface TidyPlanV1 {
  schema_version: 1;
  status: PlanStatus;
  /** "" when stateless; 32 lowercase hex characters when stored. */
  plan_id: string;
  created_at: string;
  tool_version: string;
  backend: PlanBackend;
  /** null only when PATH is not a repository (refused plan). */
  repository: PlanRepository | null;
  base: PlanBase;
  selection: PlanSelection;
  worktrees: PlanWorktree[];
  targets: PlanTarget[];
  effects: PlanEffect[];
  limits: string[];
  refusal: PlanRefusal | null;
  /** jj only: the pinned operation and the workspaces. */
  jj?: JjPlanFacts;
}

export const PLAN_SCHEMA_FILE = 'tidy-plan-v1.schema.json';

// ---------------------------------------------------------------------------
// Stored plans and recovery refs

/**
 * The current stored-record format. 1 was planning-only (no effects) and 2 carried an
 * unkeyed hash: both need a replan.
 */
export const RECORD_FORMAT = 3;

/**
 * The repository a stored plan was made for, beyond its paths: apply refuses a plan whose
 * repository was replaced (recloned, moved, another repository at the same path).
 */
export interface RepositoryBinding {
  /** The backend's metadata directory (Git: the common git dir), through symlinks. */
  metadata_dir: string;
  /** Its device and inode numbers, in decimal. */
  device: string;
  inode: string;
  /** The root commits of the base commit's history, sorted. */
  root_commits: string[];
}

export interface StoredPlanRecord {
  record_format: 3;
  plan: TidyPlanV1;
  binding: RepositoryBinding;
  /** `hmac-sha256:<hex>` of `JSON.stringify({plan, binding})` (compact) under the plan key. */
  integrity: string;
}

export const PLAN_ID_PATTERN = /^[0-9a-f]{32}$/;
export const RECOVERY_REF_PREFIX = 'refs/stw-recovery/';

export const JJ_RECOVERY_PREFIX = 'stw-recovery/';

/** The recovery bookmark for one action of a stored jj plan. */
export function recoveryBookmarkFor(planId: string, actionId: number): string {
  return `${JJ_RECOVERY_PREFIX}${planId}/${actionId}`;
}

/** The private recovery ref for one action of a stored plan. */
export function recoveryRefFor(planId: string, actionId: number): string {
  return `${RECOVERY_REF_PREFIX}${planId}/${actionId}`;
}

// ---------------------------------------------------------------------------
// Backend seam (only git is built; jj comes later)

export interface ObserveRequest {
  /** PATH: the main worktree, a linked worktree or a subdirectory. */
  path: string;
  baseSelector: string;
  /** Explicit full ref names, or undefined for every local branch. */
  refs: readonly string[] | undefined;
  /** Apply's re-observation: explicit refs that no longer exist are left out instead of refusing. */
  omitMissingRefs?: boolean;
  /**
   * Read each tip's committer time (GitObservation.tipTimes) when more than this many
   * branches are selected: the squash evidence checks the newest first. Unset: never.
   */
  tipTimesAbove?: number;
}

/** What every observation call shares: one deadline for the whole command, and the bounds. */
export interface ObserveContext {
  deadline: Deadline;
  bounds: TidyBounds;
  signal?: AbortSignal | undefined;
}

/** Codes under which an observation is incomplete (status `incomplete`, exit 1). */
export type IncompleteCode =
  | 'output-bound-exceeded'
  | 'deadline'
  | 'cancelled'
  | 'git-not-found'
  | 'git-failed'
  | 'jj-failed'
  | 'malformed-output';

/** Evidence could not be observed completely (truncated, timed out, failed): never a decision. */
export class IncompleteObservationError extends OperationalError {
  declare readonly code: IncompleteCode;
}

/**
 * Why a bounded call that did not exit gave no evidence: the one wording for git and jj.
 * `tool` names what failed (`git-failed` / `jj-failed`) for any other outcome.
 */
export function incompleteCall(
  result: RunResult,
  label: string,
  tool: 'git' | 'jj',
): IncompleteObservationError {
  switch (result.kind) {
    case 'truncated':
      return new IncompleteObservationError(
        'output-bound-exceeded',
        `${label} produced more than ${result.limit} bytes; evidence is incomplete`,
      );
    case 'timed-out':
      return new IncompleteObservationError(
        'deadline',
        `${label} ran past the deadline; evidence is incomplete`,
      );
    case 'cancelled':
      return new IncompleteObservationError('cancelled', `${label} was cancelled`);
    case 'not-found':
      if (tool === 'git')
        return new IncompleteObservationError('git-not-found', 'git is not installed or not on PATH');
      return new IncompleteObservationError('jj-failed', describeOutcome(result, label));
    default:
      return new IncompleteObservationError(`${tool}-failed`, describeOutcome(result, label));
  }
}

// ---------------------------------------------------------------------------
// Retirement backend seam (owned task retirement, docs/tasks.md). The plan and apply of
// a retirement are backend-independent; a backend supplies the native effects and the
// reads that establish what each one did. Filesystem removal is never native: it is the
// shared confined, manifest-verified removal.

/** What the repository shows for one native retirement effect. */
export type NativeEffectState = 'done' | 'not-done' | 'inconsistent';

export interface NativeInspection {
  state: NativeEffectState;
  /** One line: what was found. */
  detail: string;
}

export interface RetirementNativeContext {
  /** The source repository's path (where native commands run). */
  cwd: string;
  deadline: Deadline;
  maxBytes: number;
}

/** Native effects of one backend for one task. */
export interface RetirementBackend {
  name: BackendName;
  /**
   * Whether the registration can be removed while the files stay: jj can forget a
   * workspace and keep its files; git cannot (a registration-only git plan retains as
   * unsupported, and git removes the registration after the files are gone).
   */
  canRemoveRegistrationKeepingFiles: boolean;
  /**
   * The effects return null when the native command reported success, else one line of
   * what it reported; either way the caller inspects afterwards to learn what happened.
   */
  /**
   * Pins the task's commit at the recovery name; creation only, never moves an existing pin.
   * `branch`: the task branch it preserves (git records it in the pin's reflog; null on jj).
   */
  pin(name: string, oid: string, branch: string | null, ctx: RetirementNativeContext): Promise<string | null>;
  inspectPin(name: string, oid: string, ctx: RetirementNativeContext): Promise<NativeInspection>;
  /** Removes the lock the tool created, only when its text is exactly `lock` (git; jj has none). */
  removeOwnLock(
    destination: string,
    adminDir: string,
    lock: string,
    ctx: RetirementNativeContext,
  ): Promise<string | null>;
  inspectLock(adminDir: string, lock: string, ctx: RetirementNativeContext): Promise<NativeInspection>;
  /** Removes the registration (git: `worktree remove` of the emptied path; jj: `workspace forget`). */
  removeRegistration(
    destination: string,
    adminDir: string,
    ctx: RetirementNativeContext,
  ): Promise<string | null>;
  inspectRegistration(
    destination: string,
    adminDir: string,
    ctx: RetirementNativeContext,
  ): Promise<NativeInspection>;
}
