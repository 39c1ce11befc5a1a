import { resolve } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { Output, type Style } from '../../core/output.js';
import { escapeText, quote } from '../../core/quote.js';
import { applyTidyPlan, TIDY_APPLY_STEPS, type TidyApplyResult } from '../../tidy/apply.js';
import { storedPlanSchemaVersion } from '../../tidy/retire/store.js';
import { boundsFromEnv, DEFAULT_APPLY_BOUNDS, type TidyBounds } from '../../tidy/types.js';
import { parseCommandArgs } from '../args.js';
import type { CommandContext } from '../command.js';
import { stepCheckpoint } from '../crash-points.js';
import { runRetirementApply } from './tidy-retire.js';

const OUTCOME_WIDTH = 'not-attempted'.length;

/** The human rendering: the same facts as the JSON, every ref, path and message quoted. */
export function renderApply(result: TidyApplyResult, style: Style): string {
  const out: string[] = [];
  const count = (outcome: string) => result.actions.filter((a) => a.outcome === outcome).length;
  const summary = `${count('deleted')} deleted, ${count('already-done')} already done, ${count('refused')} refused, ${count('failed')} failed, ${count('not-attempted')} not attempted`;
  const headline = `tidy apply: ${result.status} — ${summary}`;
  out.push(
    result.status === 'complete' ? style.bold(style.green(headline)) : style.bold(style.red(headline)),
  );
  out.push(`plan: ${quote(result.plan_id)}`);
  if (result.repository !== null) out.push(`repository: ${quote(result.repository)}`);
  if (result.interruption !== null)
    out.push(
      `interrupted: ${result.interruption.cause === 'signal' ? 'by a signal' : 'by the deadline'}${result.interruption.before_action_id === null ? '' : ` before action ${result.interruption.before_action_id}`}`,
    );
  if (result.actions.length > 0) {
    out.push('actions:');
    for (const action of result.actions) {
      const color =
        action.outcome === 'deleted' || action.outcome === 'already-done'
          ? style.green
          : action.outcome === 'not-attempted'
            ? style.dim
            : style.red;
      const facts: string[] = [];
      if (action.verified) facts.push('verified');
      if (action.recovered) facts.push('resolved from an interrupted run');
      out.push(
        `  ${action.action_id}. ${color(action.outcome.padEnd(OUTCOME_WIDTH))}  ${quote(action.ref)} at ${action.old_oid}${facts.length > 0 ? ` (${facts.join(', ')})` : ''}`,
      );
      if (action.reason !== null)
        out.push(`     ${action.reason}${action.message === null ? '' : `: ${escapeText(action.message)}`}`);
    }
  } else if (result.refusal === null) out.push('actions: none (the plan deletes nothing)');
  out.push(result.journal === null ? 'journal: none' : `journal: ${quote(result.journal)}`);
  if (result.recovery.length > 0) {
    out.push('recovery refs (restore a branch with the command below it):');
    for (const entry of result.recovery) {
      out.push(`  ${quote(entry.ref)} → ${quote(entry.recovery_ref)} at ${entry.oid}`);
      out.push(`    ${escapeText(entry.restore_command)}`);
    }
  }
  // What recovery does not cover matters once something was deleted.
  if (result.recovery.length > 0) {
    out.push('limitations:');
    for (const limitation of result.limitations) out.push(`  - ${limitation}`);
  }
  return out.join('\n');
}

export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parseCommandArgs(ctx.argv, 'tidy apply', {
    plan: { type: 'string' },
    'state-dir': { type: 'string' },
    authorize: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  const hint = "run 'stw tidy apply --help'";
  if (values.plan === undefined) throw new UsageError('--plan is required (the id of a stored plan)', hint);
  if (values['state-dir'] === undefined)
    throw new UsageError('--state-dir is required (the directory the plan is stored in)', hint);
  let bounds: TidyBounds;
  try {
    bounds = boundsFromEnv(ctx.env, DEFAULT_APPLY_BOUNDS);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const stateDir = resolve(ctx.cwd, values['state-dir']);
  // A stored retirement plan (schema v2) has its own protocol (docs/tasks.md).
  if (
    values.authorize === true &&
    (await storedPlanSchemaVersion(stateDir, values.plan, bounds.maxRecordBytes)) === 2
  )
    return runRetirementApply(ctx, { planId: values.plan, stateDir, json: values.json === true, bounds });
  const checkpoint = stepCheckpoint(ctx, TIDY_APPLY_STEPS, 'action_id');
  const output = new Output(values.json === true, ctx.streams, ctx.env);
  const result = await applyTidyPlan({
    planId: values.plan,
    stateDir,
    authorize: values.authorize === true,
    clock: ctx.clock,
    signal: ctx.signal,
    bounds,
    env: ctx.env,
    onProgress: (event) => output.progress(`  ${event.action_id}. ${event.outcome} ${quote(event.ref)}`),
    ...(checkpoint === undefined ? {} : { checkpoint }),
  });
  // A refusal before any action is its one line: there is nothing else to show.
  if (values.json === true || result.actions.length > 0 || result.refusal === null)
    output.result(result, (style) => renderApply(result, style));
  if (result.status !== 'complete') {
    const problem = result.refusal ?? result.failure;
    output.diag(
      `stw: tidy apply ${result.status}${problem === null ? '' : `: ${problem.code}: ${escapeText(problem.message)}`}`,
    );
  }
  return result.status === 'complete' ? 0 : 1;
}
