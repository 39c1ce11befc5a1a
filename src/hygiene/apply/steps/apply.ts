import type { Deadline } from '../../../core/deadline.js';
import { OperationalError } from '../../../core/errors.js';
import { loadConfig } from '../../config.js';
import type { RunLock } from '../../state/run-lock.js';
import type { Entry } from '../../types.js';
import { type ApplyResult, applyReport } from '../applier.js';
import type { CleanOptions } from '../clean.js';
import type { CleanPlan } from '../clean-plan.js';
import type { PreparedRewrite } from '../generative.js';
import { type GuardedPlan, keepRewritesResolving } from '../keep-references.js';
import type { LifecycleApplyContext } from '../lifecycle.js';
import type { RunRecorder } from '../run-record.js';

/**
 * Step 6 of clean, apply: each file as one transaction (`applier.ts`), every write journaled
 * before it is made. The generative rewrites are prepared before any change (a failed or
 * cancelled model request leaves everything as it was).
 */

/** Distils the approved generative entries (`dryRun`: no model call) and holds each to the reference invariant. */
export async function preparedRewrites(
  guard: GuardedPlan,
  options: CleanOptions,
  dryRun: boolean,
): Promise<ReadonlyMap<string, PreparedRewrite> | undefined> {
  const rewrites = await options.prepareRewrites?.(approvedGenerative(guard.plan), dryRun);
  if (rewrites === undefined || guard.world === undefined) return rewrites;
  return keepRewritesResolving(guard.world, guard.plan.report, rewrites);
}

/** The approved generative entries of a plan, in plan order. */
function approvedGenerative(plan: CleanPlan): Entry[] {
  const byId = new Map(plan.report.entries.map((entry) => [entry.id, entry]));
  return plan.apply.map((id) => byId.get(id)!).filter((entry) => entry.op_type === 'generative');
}

/** Each link rewrite's id → the move it follows: the applier applies it only after that move. */
export const followedMoves = (guard: GuardedPlan): Map<string, string> =>
  new Map(guard.rewrites.map((rewrite) => [rewrite.id, rewrite.for_entry]));

/** What the applier needs for `delete-path` entries: the rules as configured now and this run's facts. */
export async function lifecycleContext(
  plan: CleanPlan,
  options: CleanOptions,
  run: { checkpointed: boolean; baseHead: string; holdDir: string },
): Promise<LifecycleApplyContext> {
  const { lifecycle } = await loadConfig(plan.root, options.env, plan.configFile);
  return {
    rules: lifecycle.rules,
    ...(lifecycle.vault_command ? { vaultCommand: lifecycle.vault_command } : {}),
    ...(options.env ? { env: options.env } : {}),
    nowMs: options.clock.now().getTime(),
    approved: new Set(plan.decisions.approve),
    ...run,
  };
}

/** Applies the guarded plan's entries, journaling each edit; a file that failed fails the run. */
export async function applyStep(
  guard: GuardedPlan,
  options: CleanOptions,
  deadline: Deadline,
  recorder: RunRecorder,
  lock: RunLock | undefined,
  rewrites: ReadonlyMap<string, PreparedRewrite> | undefined,
): Promise<ApplyResult> {
  const { plan } = guard;
  const { record } = recorder;
  const applied = await applyReport({
    root: plan.root,
    report: guard.report,
    only: guard.apply,
    deadline,
    env: options.env,
    onEdit: (edit) => recorder.note({ type: 'edit', ...edit }),
    ...(lock === undefined ? {} : { tempDir: lock.tempDir }),
    ...(record.holdDir !== undefined
      ? {
          lifecycle: await lifecycleContext(plan, options, {
            checkpointed: record.wip !== undefined,
            baseHead: record.head,
            holdDir: record.holdDir,
          }),
        }
      : {}),
    ...(rewrites !== undefined ? { rewrites } : {}),
    follows: followedMoves(guard),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.faults ? { faults: options.faults } : {}),
  });
  if (applied.status === 'failed') {
    const failed = applied.files.find((file) => file.status === 'failed')!;
    throw new OperationalError(
      'apply-failed',
      `${failed.path}: ${failed.reason}: ${failed.detail ?? ''}`.trim(),
    );
  }
  return applied;
}
