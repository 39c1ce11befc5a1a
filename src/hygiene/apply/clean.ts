import type { Clock } from '../../core/clock.js';
import { Deadline } from '../../core/deadline.js';
import type { RunLock } from '../state/run-lock.js';
import type { Entry } from '../types.js';
import { type ApplyFaults, applyReport } from './applier.js';
import { type CleanResult, countOutcomes, gateOutcome, mergeOutcomes } from './clean-outcomes.js';
import { type CleanPlan, type PlanCleanOptions, planClean, recheckWritable } from './clean-plan.js';
import type { PreparedRewrite } from './generative.js';
import { type GuardedPlan, guardCleanPlan } from './keep-references.js';
import { acquireRunLock, type InterruptedRunReport, removeStaleTemps } from './recovery.js';
import { followedMoves, lifecycleContext, preparedRewrites } from './steps/apply.js';
import { pendingChanges } from './steps/checkpoint.js';
import { runCleanTransaction } from './transaction.js';

/**
 * `clean` (docs/hygiene-clean.md): the plan (load, validate, gate — no side effects:
 * `clean-plan.ts`) and the act are separate. The act takes the run lock (step 3, settling an
 * interrupted run: `recovery.ts`) and runs steps 4–9 as one transaction (`transaction.ts`,
 * one module per step in `steps/`).
 */

export type { CleanEntryOutcome, CleanResult } from './clean-outcomes.js';
export {
  type CleanPlan,
  checkReportBelongs,
  type GateDecision,
  isSameRoot,
  loadReportFor,
  type PlanCleanOptions,
  type PlannedEntry,
  planClean,
} from './clean-plan.js';
export { WIP_MESSAGE } from './steps/checkpoint.js';
export { cleanupMessage } from './steps/commit.js';

export interface CleanFaults extends ApplyFaults {
  /** Called once the checkpoint is made (or found unnecessary), before the first file. */
  afterCheckpoint?: () => void | Promise<void>;
  /** Called after staging, just before the cleanup commit. */
  beforeCommit?: () => void | Promise<void>;
  /** Called once the cleanup commit exists, before `last_clean` is stamped. */
  afterCommit?: () => void | Promise<void>;
}

export interface CleanOptions extends PlanCleanOptions {
  clock: Clock;
  /** Plan only: report what would happen; change nothing, not even state. */
  dryRun?: boolean;
  /** The environment whose git identity and user config the commits use; default: this process's. */
  env?: NodeJS.ProcessEnv;
  /** A plan already made (and shown to the user) by `planClean` with the same options. */
  plan?: CleanPlan;
  /** Interrupt (SIGINT): checked between files; an interrupted run is rolled back. */
  signal?: AbortSignal;
  /**
   * Distils and checks the approved generative entries (`apply/generative.ts`), before any
   * change; under `dryRun` it must not call a model. Without it, generative entries are skipped.
   */
  prepareRewrites?: (entries: Entry[], dryRun: boolean) => Promise<ReadonlyMap<string, PreparedRewrite>>;
  /** Test-only failure injection. */
  faults?: CleanFaults;
  /** Called once the pre-flight checks passed, before the first change (e.g. to list what will apply). */
  onBeforeChanges?: (plan: CleanPlan) => void;
  /** Skip the user's pre-commit and commit-msg hooks on the cleanup commit, as `git commit --no-verify` does. */
  noVerify?: boolean;
  /** The repository's run lock, already held by the caller (`sweep`); default: `clean` takes it. */
  lock?: HeldLock;
}

/** A run lock taken with `acquireRunLock`, with what it found of an interrupted run. */
export interface HeldLock {
  lock: RunLock | undefined;
  interrupted?: InterruptedRunReport;
}

/**
 * Applies the approved entries and makes exactly one cleanup commit (docs/hygiene-clean.md,
 * steps 3–9), holding the repository's run lock throughout. On a hard failure before the
 * commit the run is settled from its own record (every file it wrote, the checkpoint, the
 * index: `settle.ts`) and an OperationalError is thrown.
 */
export async function clean(options: CleanOptions): Promise<CleanResult> {
  const deadline = options.deadline ?? Deadline.none();
  const planned = options.plan ?? (await planClean(options));
  if (options.dryRun)
    return dryRunClean(await guarded(await recheckWritable(planned, deadline), deadline), options, deadline);
  const own =
    options.lock === undefined
      ? await acquireRunLock(planned.root, 'clean', options.clock, options.env, deadline)
      : undefined;
  const held = options.lock ?? own!;
  try {
    // A recovered run changed the tree the plan was made from (a moved file is back, say):
    // plan again, with the same decisions.
    const current =
      held.interrupted !== undefined && held.interrupted.restored.length > 0
        ? await planClean({
            cwd: planned.root,
            ...planned.decisions,
            ...(options.generative ? { generative: options.generative } : {}),
            ...(planned.configFile !== undefined ? { configFile: planned.configFile } : {}),
            deadline,
          })
        : planned;
    const plan = await guarded(await recheckWritable(current, deadline), deadline);
    const removed = await removeStaleTemps(plan.plan.root, [
      ...new Set(plan.report.entries.map((e) => e.path)),
    ]);
    const result = await runCleanTransaction(plan, options, deadline, held.lock);
    if (held.interrupted !== undefined) result.interrupted_run = held.interrupted;
    if (removed.length > 0) result.removed_temp_files = removed;
    return result;
  } finally {
    await own?.lock?.release();
  }
}

/**
 * The reference invariant (keep-references.ts): approved entries that would break a
 * reference that resolves now are skipped, and a move takes its inbound links with it (extra
 * entries in the report handed to the applier).
 */
async function guarded(plan: CleanPlan, deadline: Deadline): Promise<GuardedPlan> {
  if (plan.apply.length === 0) return { plan, report: plan.report, apply: plan.apply, rewrites: [] };
  return guardCleanPlan(plan, deadline);
}

/** `--dry-run`: every guard runs as the real run's would (hash, conflicts, destinations); nothing is written or moved. */
async function dryRunClean(
  guard: GuardedPlan,
  options: CleanOptions,
  deadline: Deadline,
): Promise<CleanResult> {
  const { plan } = guard;
  const base = { root: plan.root, report_generated_at: plan.report.generated_at };
  if (plan.apply.length === 0) {
    const entries = plan.entries.map((entry) => ({ ...entry, outcome: gateOutcome(entry) }));
    return { status: 'dry-run', ...base, entries, files: [], counts: countOutcomes(entries) };
  }
  // Every guard runs (hash, conflicts, destinations); nothing is written or moved.
  const rewrites = await preparedRewrites(guard, options, true);
  const simulated = await applyReport({
    root: plan.root,
    report: guard.report,
    only: guard.apply,
    deadline,
    env: options.env,
    dryRun: true,
    // Judged as the real run judges: it records (so untracked units may go) and checkpoints
    // uncommitted work (so an approved dirty unit may go); nothing moves here.
    lifecycle: await lifecycleContext(plan, options, {
      checkpointed: Object.values(await pendingChanges(plan.root, deadline)).some(Boolean),
      baseHead: 'HEAD',
      holdDir: '',
    }),
    ...(rewrites !== undefined ? { rewrites } : {}),
    follows: followedMoves(guard),
  });
  const entries = mergeOutcomes(plan.entries, simulated, gateOutcome, 'would-apply');
  return {
    status: 'dry-run',
    ...base,
    entries,
    files: simulated.files,
    counts: countOutcomes(entries),
    link_rewrites: guard.rewrites,
  };
}
