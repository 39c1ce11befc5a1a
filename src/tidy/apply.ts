/**
 * `tidy apply` (docs/tidy.md, "Apply"): executes the reviewed delete effects of one stored plan,
 * each revalidated against a fresh observation, journaled durably, pinned by a recovery
 * ref and deleted by compare-and-swap in one Git ref transaction, then verified.
 * Returns exactly what happened; never prints.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Clock, formatInstant, systemClock } from '../core/clock.js';
import { Deadline } from '../core/deadline.js';
import { RefusalError, type StwError } from '../core/errors.js';
import { toolVersion } from '../core/package.js';
import { backendInfo, loadBackend } from './backends/registry.js';
import { checkTextBound } from './bounded.js';
import { isIoError, journalPath } from './engine/journal.js';
import { ApplyLock } from './engine/lock.js';
import type { JournalAction } from './journal.js';
import { loadPlanKey, planKeyPath } from './plan-key.js';
import { checkStateDir, checkStateDirPrivate, readPlanRecord } from './store.js';
import {
  DEFAULT_APPLY_BOUNDS,
  type PlanEffect,
  type RepositoryBinding,
  type TidyBounds,
  type TidyPlanV1,
} from './types.js';

export const APPLY_SCHEMA_FILE = 'tidy-apply-v1.schema.json';

export type TidyApplyStatus = 'complete' | 'refused' | 'partial' | 'failed' | 'cancelled';
export type ActionOutcome = 'deleted' | 'already-done' | 'refused' | 'failed' | 'not-attempted';

export interface TidyApplyAction {
  action_id: number;
  type: 'delete-ref';
  ref: string;
  old_oid: string;
  recovery_ref: string;
  outcome: ActionOutcome;
  /** Why an action was not completed (stale-proof, manual-review-required, …); null when done. */
  reason: string | null;
  /** One line of detail for the reader. */
  message: string | null;
  /** The postcondition (target absent, recovery ref at old_oid) was verified in this run. */
  verified: boolean;
  /** Established by inspecting the repository after an interrupted earlier run. */
  recovered: boolean;
}

export interface RecoveryEntry {
  ref: string;
  recovery_ref: string;
  oid: string;
  /** The exact command that restores the reference, for a POSIX shell in the repository. */
  restore_command: string;
}

export interface TidyApplyProblem {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export interface TidyApplyResult {
  schema_version: 1;
  status: TidyApplyStatus;
  plan_id: string;
  started_at: string;
  tool_version: string;
  /** The repository path recorded in the plan; null when the plan was not loaded. */
  repository: string | null;
  /** The plan's journal; null when none exists. */
  journal: string | null;
  actions: TidyApplyAction[];
  recovery: RecoveryEntry[];
  limitations: string[];
  interruption: { cause: 'deadline' | 'signal'; before_action_id: number | null } | null;
  /** Why the plan (or its remaining actions) was refused. */
  refusal: TidyApplyProblem | null;
  /** The operational failure that stopped the run (status failed). */
  failure: TidyApplyProblem | null;
}

/** Protocol boundaries at which the test-only checkpoint is called (crash injection). */
/** `after-pin` is jj's (after the recovery bookmark, before the delete); git pins inside its transaction. */
export type TidyApplyStep =
  | 'after-intent'
  | 'after-pin'
  | 'after-transaction'
  | 'after-outcome'
  | 'after-verified';
export const TIDY_APPLY_STEPS: readonly TidyApplyStep[] = [
  'after-intent',
  'after-pin',
  'after-transaction',
  'after-outcome',
  'after-verified',
];

export interface TidyApplyProgress {
  action_id: number;
  ref: string;
  outcome: ActionOutcome;
}

/** What a backend's delete run gets: the checked plan, its result to fill, the run's bounds. */
export interface DeleteRunInputs {
  plan: TidyPlanV1;
  binding: RepositoryBinding;
  result: TidyApplyResult;
  stateDir: string;
  journalPath: string;
  bounds: TidyBounds;
  deadline: Deadline;
  options: TidyApplyOptions;
  now: () => string;
  env: NodeJS.ProcessEnv;
}

export interface TidyApplyOptions {
  planId: string;
  stateDir: string;
  /** The explicit authorization; without it nothing is read or written. */
  authorize: boolean;
  clock?: Clock;
  /** Aborted on SIGINT/SIGTERM: the run stops before the next action. */
  signal?: AbortSignal;
  /** Defaults to DEFAULT_APPLY_BOUNDS (60 s deadline). */
  bounds?: TidyBounds;
  /** The plan key that authenticates stored plans; defaults to `planKeyPath()`. */
  keyFile?: string | undefined;
  /** The environment native tools inherit (hardened per tool); defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Called after each action settles. */
  onProgress?: (event: TidyApplyProgress) => void;
  /** TEST-ONLY: called at each protocol boundary; the CLI uses it for crash injection. */
  checkpoint?: (step: TidyApplyStep, actionId: number) => void | Promise<void>;
  /** TEST-ONLY: the run's deadline instead of one `bounds.deadlineMs` from now. */
  deadline?: Deadline;
}

/** What apply never does, stated with every result. */
export const TIDY_APPLY_LIMITATIONS: readonly string[] = [
  'untracked and ignored files are not backed up',
  'there is no general undo: each deleted branch is restored from its recovery ref with the command shown',
  'worktree registrations and files are not restored',
  "a deleted branch's reflog is removed by git with it; the recovery ref keeps its commit",
  'branch configuration (branch.<name>.*, e.g. its upstream) is left in place',
  'recovery refs are kept after success; review them before removing any',
  'checks are samples, not a repository lock: a change after revalidation is stopped by the compare-and-swap, but ABA races cannot all be ruled out',
];

/** Echoed ids are bounded so that a hostile --plan cannot inflate the result. */
const ECHO_ID_LIMIT = 128;

function emptyResult(planId: string, startedAt: string): TidyApplyResult {
  return {
    schema_version: 1,
    status: 'refused',
    plan_id: planId.length <= ECHO_ID_LIMIT ? planId : `${planId.slice(0, ECHO_ID_LIMIT)}…`,
    started_at: startedAt,
    tool_version: toolVersion(),
    repository: null,
    journal: null,
    actions: [],
    recovery: [],
    limitations: [...TIDY_APPLY_LIMITATIONS],
    interruption: null,
    refusal: null,
    failure: null,
  };
}

function refused(result: TidyApplyResult, error: StwError): TidyApplyResult {
  result.status = 'refused';
  result.refusal = {
    code: error.code,
    message: error.message,
    ...(error.details === undefined ? {} : { details: error.details }),
  };
  return result;
}

function tampered(planId: string, why: string): RefusalError {
  return new RefusalError('tampered-plan', `plan record ${planId} ${why}`);
}

/**
 * Checks that the effects are exactly the plan's own: one delete per `delete` target,
 * ids 1..n in order, each pin named by the plan. The integrity check already ties the
 * record to what the planner wrote; this rejects a planner bug or a forged-but-hashed record.
 */
function checkPlanEffects(plan: TidyPlanV1): void {
  if (plan.repository === null || plan.base.oid === null)
    throw tampered(plan.plan_id, 'has no repository or base');
  const backend = backendInfo(plan.backend.name);
  if (backend.plansAtOperation && plan.jj === undefined)
    throw tampered(plan.plan_id, `is a ${backend.name} plan without its observed operation`);
  const recoveryName = backend.recoveryName;
  const deletable = new Map(plan.targets.filter((t) => t.decision === 'delete').map((t) => [t.ref, t.oid]));
  if (plan.effects.length !== deletable.size)
    throw tampered(plan.plan_id, 'has effects that do not match its targets');
  const seen = new Set<string>();
  plan.effects.forEach((effect, index) => {
    if (effect.type !== 'delete-ref' || effect.action_id !== index + 1)
      throw tampered(plan.plan_id, `has an unexpected effect at position ${index + 1}`);
    if (deletable.get(effect.ref) !== effect.old_oid || seen.has(effect.ref))
      throw tampered(plan.plan_id, `effect ${effect.action_id} does not match a delete target`);
    if (effect.recovery_ref !== recoveryName(plan.plan_id, effect.action_id))
      throw tampered(plan.plan_id, `effect ${effect.action_id} names an unexpected recovery ref`);
    seen.add(effect.ref);
  });
}

function repositoryPaths(plan: TidyPlanV1): string[] {
  const repo = plan.repository;
  if (repo === null) return [];
  const paths = [
    repo.path,
    repo.git_dir,
    repo.common_dir,
    ...plan.worktrees.map((w) => w.path),
    ...(plan.jj?.workspaces ?? []).map((w) => w.root ?? ''),
  ];
  if (repo.toplevel !== null) paths.push(repo.toplevel);
  return paths;
}

export function toDeleteEffect(effect: PlanEffect): JournalAction {
  return {
    action_id: effect.action_id,
    ref: effect.ref,
    old_oid: effect.old_oid,
    // checkPlanEffects guarantees a stored plan names every pin.
    recovery_ref: effect.recovery_ref ?? '',
  };
}

export function finalStatus(result: TidyApplyResult, deletedThisRun: number): TidyApplyStatus {
  const outcomes = result.actions.map((a) => a.outcome);
  const done = outcomes.filter((o) => o === 'deleted' || o === 'already-done').length;
  if (result.interruption !== null) return deletedThisRun > 0 ? 'partial' : 'cancelled';
  if (outcomes.includes('failed')) return 'failed';
  if (done === outcomes.length) return 'complete';
  return done > 0 ? 'partial' : 'refused';
}

/**
 * Applies one stored plan. Refusals of the inputs (no authorization, unknown, stateless,
 * tampered or older plans, store checks) come back as a `refused` result; so do stale
 * proofs. Only programming errors throw.
 */
export async function applyTidyPlan(options: TidyApplyOptions): Promise<TidyApplyResult> {
  const clock = options.clock ?? systemClock;
  const now = () => formatInstant(clock.now());
  const result = emptyResult(options.planId, now());
  // Authorization comes first: without it, not even the store is read.
  if (!options.authorize)
    return refused(
      result,
      new RefusalError(
        'authorization-required',
        'tidy apply changes the repository only with --authorize; review the stored plan first',
      ),
    );

  const bounds = options.bounds ?? { ...DEFAULT_APPLY_BOUNDS };
  const deadline = options.deadline ?? Deadline.after(bounds.deadlineMs);
  const stateDir = resolve(options.stateDir);
  let plan: TidyPlanV1;
  let binding: RepositoryBinding;
  try {
    checkTextBound('--state-dir', options.stateDir, bounds.maxTextBytes);
    checkTextBound('--plan', options.planId, bounds.maxIdBytes);
    await checkStateDirPrivate(stateDir);
    const key = await loadPlanKey(options.keyFile ?? planKeyPath(), stateDir);
    const stored = await readPlanRecord(stateDir, options.planId, key, bounds.maxRecordBytes);
    plan = stored.plan;
    checkPlanEffects(plan);
    // The same store checks as at plan time, against the repository paths the plan recorded
    // (revalidation refuses if the registrations differ now).
    await checkStateDir(stateDir, repositoryPaths(plan));
    binding = stored.record.binding;
  } catch (error) {
    if (error instanceof RefusalError) return refused(result, error);
    if (isIoError(error)) return refused(result, ioRefusal(error, stateDir));
    throw error;
  }

  result.repository = plan.repository!.path;
  if (plan.effects.length === 0) {
    result.status = 'complete';
    return result;
  }
  result.actions = plan.effects.map(toDeleteEffect).map((effect) => ({
    action_id: effect.action_id,
    type: 'delete-ref',
    ref: effect.ref,
    old_oid: effect.old_oid,
    recovery_ref: effect.recovery_ref,
    outcome: 'not-attempted',
    reason: null,
    message: null,
    verified: false,
    recovered: false,
  }));
  const path = journalPath(stateDir, plan.plan_id);

  let lock: ApplyLock;
  try {
    lock = await ApplyLock.acquire(stateDir, plan.plan_id);
  } catch (error) {
    if (error instanceof RefusalError) return refused(result, error);
    if (isIoError(error)) return refused(result, ioRefusal(error, stateDir));
    throw error;
  }
  const backend = await loadBackend(plan.backend.name);
  try {
    await backend.applyDeletes({
      plan,
      binding,
      result,
      stateDir,
      journalPath: path,
      bounds,
      deadline,
      options,
      now,
      env: options.env ?? process.env,
    });
  } finally {
    lock.release();
  }
  result.journal = existsSync(path) ? path : null;
  return result;
}

function ioRefusal(error: NodeJS.ErrnoException, stateDir: string): RefusalError {
  return new RefusalError(
    'state-dir-unreadable',
    `state directory ${JSON.stringify(stateDir)}: ${error.message}`,
  );
}
