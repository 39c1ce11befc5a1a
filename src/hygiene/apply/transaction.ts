import { formatInstant } from '../../core/clock.js';
import type { Deadline } from '../../core/deadline.js';
import { OperationalError } from '../../core/errors.js';
import type { RunLock } from '../state/run-lock.js';
import type { ApplyResult } from './applier.js';
import type { CleanOptions } from './clean.js';
import {
  type CleanEntryOutcome,
  type CleanResult,
  countOutcomes,
  gateOutcome,
  mergeOutcomes,
  ranRewrites,
} from './clean-outcomes.js';
import { kindOf } from './clean-plan.js';
import { commitDates } from './git-steps.js';
import type { GuardedPlan } from './keep-references.js';
import { holdDirFor } from './lifecycle.js';
import { type RunRecord, type RunRecorder, startRun } from './run-record.js';
import { type RunVerdict, settleRun } from './settle.js';
import { applyStep, preparedRewrites } from './steps/apply.js';
import { makeCheckpoint, pendingChanges } from './steps/checkpoint.js';
import { commitCleanup, messageFor } from './steps/commit.js';
import { preflight } from './steps/preflight.js';
import { releaseHeldFiles } from './steps/release.js';
import { stageApplied, stagedPaths } from './steps/stage.js';
import { stampLastClean } from './steps/stamp.js';

/**
 * Steps 4–9 of clean as one transaction (docs/hygiene-clean.md): pre-flight, checkpoint,
 * apply, stage, commit, stamp, release. Until the cleanup commit exists, a failure settles
 * the run from its record (`settleRun`, the very verdict a crashed run gets from the next
 * one); once it exists, what fails only warns.
 */

type Base = { root: string; report_generated_at: string };

/** Where a run stands once the steps before the commit are done. */
type BeforeCommit =
  | {
      kind: 'commit';
      applied: ApplyResult;
      entries: CleanEntryOutcome[];
      counts: CleanResult['counts'];
      commit: string;
      message: string;
    }
  | { kind: 'finished'; result: CleanResult };

export async function runCleanTransaction(
  guard: GuardedPlan,
  options: CleanOptions,
  deadline: Deadline,
  lock: RunLock | undefined,
): Promise<CleanResult> {
  const { plan } = guard;
  const { root, report } = plan;
  const base: Base = { root, report_generated_at: report.generated_at };
  if (plan.apply.length === 0) {
    const entries = plan.entries.map((entry) => ({ ...entry, outcome: gateOutcome(entry) }));
    const counts = countOutcomes(entries);
    return { status: counts.skipped > 0 ? 'partial' : 'nothing', ...base, entries, files: [], counts };
  }
  const repo = await preflight(root, options.env, deadline);
  // Distil before the first change: a failed or cancelled model request leaves everything as it was.
  const rewrites = await preparedRewrites(guard, options, false);
  options.onBeforeChanges?.(plan);
  const pending = await pendingChanges(root, deadline);
  const recorder = await startRun(root, repo, deadline, lock, formatInstant(options.clock.now()));
  const byId = new Map(report.entries.map((entry) => [entry.id, entry]));
  // Journaled before its first use, so that the next run finds what a crash left held.
  if (plan.apply.some((id) => kindOf(byId.get(id)!) === 'delete-path'))
    recorder.note({ type: 'hold', dir: holdDirFor(repo.gitDir) });

  const ran: { applied?: ApplyResult } = {};
  let done: BeforeCommit;
  try {
    done = await untilCommitted(guard, options, deadline, recorder, lock, { pending, rewrites, base, ran });
  } catch (error) {
    const verdict = await settleRun(root, options.env, deadline, recorder.record);
    throw failedRunError(error, verdict, recorder.record, ran.applied);
  }
  if (done.kind === 'finished') return done.result;
  return afterCommit(done, guard, options, deadline, recorder, base);
}

/** Steps 5–8: checkpoint, apply, stage, commit; or the run's end when there is nothing to commit. */
async function untilCommitted(
  guard: GuardedPlan,
  options: CleanOptions,
  deadline: Deadline,
  recorder: RunRecorder,
  lock: RunLock | undefined,
  run: {
    pending: { dirty: boolean; stagedState: boolean };
    rewrites: Awaited<ReturnType<typeof preparedRewrites>>;
    base: Base;
    ran: { applied?: ApplyResult };
  },
): Promise<BeforeCommit> {
  const { root } = guard.plan;
  const { env } = options;
  const dates = commitDates(env, options.clock);
  if (run.pending.dirty || run.pending.stagedState)
    await makeCheckpoint(recorder, root, env, deadline, dates, run.pending);
  await options.faults?.afterCheckpoint?.();
  const applied = await applyStep(guard, options, deadline, recorder, lock, run.rewrites);
  run.ran.applied = applied;
  await stageApplied(applied, root, env, deadline);

  const entries = mergeOutcomes(guard.plan.entries, applied, gateOutcome, 'applied');
  const counts = countOutcomes(entries);
  const finished = (status: CleanResult['status']): CleanResult => ({
    status: counts.skipped > 0 ? 'partial' : status,
    ...run.base,
    entries,
    files: applied.files,
    counts,
  });
  if (!applied.files.some((file) => file.status === 'applied'))
    // Nothing to commit: leave no checkpoint behind either.
    return {
      kind: 'finished',
      result: await unwound(finished('nothing'), recorder, root, options, deadline),
    };
  if (stagedPaths(applied).length === 0) {
    // Approved lifecycle deletions of untracked files alone: they have no history, so
    // there is nothing to commit. They are declared final, and the checkpoint is unwound.
    await releaseHeldFiles(recorder);
    return {
      kind: 'finished',
      result: await unwound(finished('removed'), recorder, root, options, deadline),
    };
  }
  const message = messageFor(applied, guard.plan, counts.skipped);
  await options.faults?.beforeCommit?.();
  const commit = await commitCleanup(
    recorder,
    root,
    env,
    deadline,
    dates,
    message,
    options.noVerify === true,
  );
  return { kind: 'commit', applied, entries, counts, commit, message };
}

/** A run that ends without a commit settles its checkpoint (rolled back); one that cannot be undone is a warning. */
async function unwound(
  result: CleanResult,
  recorder: RunRecorder,
  root: string,
  options: CleanOptions,
  deadline: Deadline,
): Promise<CleanResult> {
  const verdict = await settleRun(root, options.env, deadline, recorder.record);
  if (verdict.outcome === 'left-alone') {
    if (recorder.record.wip !== undefined) result.wip_commit = recorder.record.wip;
    result.warnings = [`the checkpoint could not be unwound: ${verdict.problem}`];
  }
  return result;
}

/** Steps 9 and the release: the commit exists and stands; what fails from here on is a warning, never a rollback. */
async function afterCommit(
  done: Extract<BeforeCommit, { kind: 'commit' }>,
  guard: GuardedPlan,
  options: CleanOptions,
  deadline: Deadline,
  recorder: RunRecorder,
  base: Base,
): Promise<CleanResult> {
  const { record } = recorder;
  const warnings: string[] = [];
  const result: CleanResult = {
    status: done.counts.skipped > 0 ? 'partial' : 'committed',
    ...base,
    entries: done.entries,
    files: done.applied.files,
    commit: done.commit,
    message: done.message,
    hooks_ran: options.noVerify !== true,
    counts: done.counts,
    link_rewrites: ranRewrites(done.applied, guard.rewrites),
  };
  if (record.wip !== undefined) result.wip_commit = record.wip;
  if (record.staged !== undefined) result.staged_ref = record.staged.ref;
  await stampLastClean(result, done.commit, base.root, deadline, options, warnings);
  try {
    // What lifecycle deletions held is final (a crash before this is finished by the next
    // run, which finds the commit).
    await releaseHeldFiles(recorder);
  } catch (error) {
    warnings.push(
      `the commit was made, but the deleted files held in ${record.holdDir} could not be removed: ${(error as Error).message}`,
    );
  }
  if (warnings.length > 0) result.warnings = warnings;
  return result;
}

/** The failure, and what settling the run from its record did about it. */
function failedRunError(
  error: unknown,
  verdict: RunVerdict,
  record: RunRecord,
  applied: ApplyResult | undefined,
): OperationalError {
  const reason = (error as Error).message;
  const output = (error as { details?: Record<string, unknown> }).details?.['tool_output'];
  const baseline = record.wip ?? record.head;
  const ok = verdict.outcome === 'rolled-back';
  const message =
    verdict.outcome === 'rolled-back'
      ? `cleanup failed and was rolled back; nothing changed (${reason})`
      : verdict.outcome === 'committed'
        ? `cleanup failed after its commit ${verdict.commit} was made (${reason}); the commit stands`
        : `cleanup failed (${reason}) and the rollback did not finish (${verdict.problem}); your work is in commit ${baseline}`;
  return new OperationalError('clean-failed', message, {
    reason,
    rolled_back: ok,
    baseline,
    ...(typeof output === 'string' ? { tool_output: output } : {}),
    ...(record.wip ? { wip_commit: record.wip, original_head: record.head } : {}),
    ...(verdict.outcome === 'committed' ? { commit: verdict.commit } : {}),
    ...(!ok && record.staged ? { staged_ref: record.staged.ref } : {}),
    ...(ok ? {} : { left_alone: verdict.left_alone }),
    files: applied?.files ?? [],
  });
}
