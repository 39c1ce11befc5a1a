/**
 * The retirement side of `stw tidy plan` and `stw tidy apply` (schema v2): option checks,
 * the library calls and the human rendering. Dispatched to from tidy-plan.ts (retirement
 * flags) and tidy-apply.ts (a stored plan with schema_version 2).
 */
import { isAbsolute } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { Output, type Style } from '../../core/output.js';
import { escapeText, quote } from '../../core/quote.js';
import { applyRetirement, RETIREMENT_STEPS, type RetirementApplyResult } from '../../tidy/retire/apply.js';
import { planRetirement } from '../../tidy/retire/plan.js';
import type { TidyPlanV2 } from '../../tidy/retire/types.js';
import type { TidyBounds } from '../../tidy/types.js';
import type { CommandContext } from '../command.js';
import { stepCheckpoint } from '../crash-points.js';
import type { RetirementFlags } from './tidy-retire-flags.js';

/** The human rendering of a v2 plan: the same facts as the JSON, opaque text quoted. */
export function renderRetirementPlan(plan: TidyPlanV2, style: Style): string {
  const out: string[] = [];
  const r = plan.retirement;
  if (plan.status !== 'complete' || r === undefined) {
    out.push(style.red(`tidy plan (retirement): ${plan.status}`));
    if (plan.refusal) out.push(`${plan.refusal.code}: ${escapeText(plan.refusal.message)}`);
    return out.join('\n');
  }
  const head = `tidy plan (retirement): complete — ${r.decision} task ${quote(r.task.task_id)}`;
  out.push(r.decision === 'retire' ? style.bold(style.green(head)) : style.bold(style.yellow(head)));
  out.push(`owner: ${quote(r.task.owner)} (created ${r.task.created_at}; record ${quote(r.task.record)})`);
  out.push(
    `source: ${quote(r.source.common_dir)} (dev ${r.source.common_dir_identity.dev} ino ${r.source.common_dir_identity.ino})`,
  );
  out.push(`base: ${quote(plan.base.selector)} at ${plan.base.oid}`);
  const integrated = `ancestor of base: ${r.integration.ancestor_of_base === null ? 'not established' : r.integration.ancestor_of_base ? 'yes' : 'no'} (${r.integration.method})`;
  if (r.jj !== undefined) {
    const wc = r.jj.working_copy;
    out.push(`jj operation: ${r.jj.operation_id}`);
    out.push(
      `workspace: ${quote(r.jj.workspace.recorded.name)}${r.jj.workspace.observed === null ? ' (not listed by jj)' : ''}`,
    );
    out.push(
      wc === null
        ? 'working-copy commit: not listed'
        : `working-copy commit: ${wc.commit_id} (change ${wc.change_id})${wc.empty ? ', empty' : ', not empty'}${wc.conflict ? ', conflicted' : ''}; parents ${wc.parents.join(', ') || 'none'}`,
    );
    out.push(`parent: ${r.integration.tip_oid ?? 'not one'} — ${integrated}`);
    out.push(`disk: ${escapeText(r.jj.disk_comparison)}`);
  } else
    out.push(`branch: ${quote(r.target.branch ?? '')} at ${r.target.tip_oid ?? 'absent'} — ${integrated}`);
  out.push(
    `destination: ${quote(r.target.destination)} (dev ${r.target.destination_identity.dev} ino ${r.target.destination_identity.ino})`,
  );
  const recorded = r.registration.recorded;
  out.push(
    'admin_dir' in recorded
      ? `registration: ${quote(recorded.admin_dir)}${r.registration.listed ? '' : ' (not listed by git)'}${r.registration.lock_owned ? ', locked by task create' : ''}`
      : `registration: ${quote(`${r.target.destination}/.jj`)} naming ${quote(recorded.repo_pointer)}`,
  );
  out.push(`manifest: ${r.manifest.entries.length} entries${r.manifest.complete ? '' : ' (incomplete)'}`);
  out.push('actions:');
  for (const action of r.actions)
    out.push(
      `  ${action.action}: ${action.decision}${action.reasons.length > 0 ? ` [${action.reasons.join(', ')}]` : ''}`,
    );
  if (r.blockers.length > 0) {
    out.push('blockers:');
    for (const blocker of r.blockers)
      out.push(
        `  ${blocker.code}${blocker.path === null ? '' : ` ${quote(blocker.path)}`}: ${escapeText(blocker.message)}`,
      );
  }
  if (r.effects.length > 0) {
    out.push('effects apply would perform (after --authorize):');
    for (const effect of r.effects)
      out.push(`  ${effect.effect_id}. ${effect.type}: ${escapeText(effect.description)}`);
  }
  out.push('recovery:');
  if (r.recovery.ref !== null) out.push(`  pin ${quote(r.recovery.ref)} at ${r.recovery.oid}`);
  for (const limit of r.recovery.limits) out.push(`  - ${limit}`);
  out.push('limits:');
  for (const limit of r.limits) out.push(`  - ${limit}`);
  out.push(
    `plan id: ${plan.plan_id} (apply with 'stw tidy apply --plan ${plan.plan_id} --state-dir DIR --authorize')`,
  );
  return out.join('\n');
}

/** `stw tidy plan --task …`: checks the retirement flags, plans, renders. */
export async function runRetirementPlan(
  ctx: CommandContext,
  flags: RetirementFlags,
  path: string,
  bounds: TidyBounds,
): Promise<number> {
  const hint = "run 'stw tidy plan --help'";
  if (flags.ref.length > 0)
    throw new UsageError('--ref cannot be combined with --task retirement flags', hint);
  for (const [name, value] of [
    ['--task', flags.task],
    ['--owner', flags.owner],
    ['--state-dir', flags.stateDir],
    ['--base', flags.base],
  ] as const)
    if (value === undefined) throw new UsageError(`retirement needs ${name}`, hint);
  if (!flags.removeRegistration) throw new UsageError('retirement needs --remove-registration', hint);
  if (flags.removeFiles !== undefined && !isAbsolute(flags.removeFiles))
    throw new UsageError('--remove-files must be an absolute path (the recorded destination)', hint);
  const result = await planRetirement({
    path,
    base: flags.base!,
    stateDir: flags.stateDir!,
    taskId: flags.task!,
    owner: flags.owner!,
    removeRegistration: true,
    removeFiles: flags.removeFiles,
    env: ctx.env,
    cwd: ctx.cwd,
    clock: ctx.clock,
    bounds,
    signal: ctx.signal,
  });
  const output = new Output(flags.json, ctx.streams, ctx.env);
  output.result(result.plan, (style) => renderRetirementPlan(result.plan, style));
  if (result.plan.refusal !== null)
    output.diag(
      `stw: tidy plan ${result.plan.status}: ${result.plan.refusal.code}: ${escapeText(result.plan.refusal.message)}`,
    );
  return result.exitCode;
}

/** The human rendering of a v2 apply result. */
export function renderRetirementApply(result: RetirementApplyResult, style: Style): string {
  const out: string[] = [];
  const headline = `tidy apply (retirement): ${result.status}`;
  out.push(
    result.status === 'complete' ? style.bold(style.green(headline)) : style.bold(style.red(headline)),
  );
  out.push(
    `plan: ${quote(result.plan_id)}${result.task === null ? '' : ` — task ${quote(result.task.task_id)} (owner ${quote(result.task.owner)})`}`,
  );
  if (result.repository !== null) out.push(`repository: ${quote(result.repository)}`);
  if (result.refusal !== null)
    out.push(`refused: ${result.refusal.code}: ${escapeText(result.refusal.message)}`);
  if (result.failure !== null)
    out.push(`failed: ${result.failure.code}: ${escapeText(result.failure.message)}`);
  if (result.interruption !== null)
    out.push(
      `interrupted: ${result.interruption.cause === 'signal' ? 'by a signal' : 'by the deadline'} before effect ${result.interruption.before_effect_id ?? '?'}`,
    );
  if (result.effects.length > 0) {
    out.push('effects:');
    for (const effect of result.effects) {
      const facts = [
        effect.verified ? 'verified' : '',
        effect.recovered ? 'resolved from an interrupted run' : '',
      ]
        .filter((fact) => fact !== '')
        .join(', ');
      out.push(
        `  ${effect.effect_id}. ${effect.type}: ${effect.outcome}${facts === '' ? '' : ` (${facts})`}`,
      );
      if (effect.reason !== null)
        out.push(`     ${effect.reason}${effect.message === null ? '' : `: ${escapeText(effect.message)}`}`);
      if (effect.removed !== null) out.push(`     removed ${effect.removed} entries`);
      for (const kept of effect.retained) out.push(`     kept ${quote(kept.path)}: ${escapeText(kept.why)}`);
    }
  }
  out.push(result.journal === null ? 'journal: none' : `journal: ${quote(result.journal)}`);
  if (result.recovery !== null) {
    const isRef = result.recovery.ref.startsWith('refs/');
    out.push(
      `recovery ${isRef ? 'ref' : 'bookmark'}: ${quote(result.recovery.ref)} at ${result.recovery.oid}${result.recovery.present ? '' : ' (not created)'}`,
    );
    // A forget-only jj retirement keeps the files, so jj can only add the workspace beside them.
    const beside = !isRef && !result.effects.some((effect) => effect.type === 'remove-files');
    out.push(
      `  restore the ${isRef ? 'branch' : 'workspace'}${beside ? ' (beside the kept files: jj adds a workspace only in a new directory)' : ''}: ${escapeText(result.recovery.restore_command)}`,
    );
  }
  out.push('limitations:');
  for (const limitation of result.limitations) out.push(`  - ${limitation}`);
  return out.join('\n');
}

/** `stw tidy apply` of a stored schema-v2 (retirement) plan. */
export async function runRetirementApply(
  ctx: CommandContext,
  options: { planId: string; stateDir: string; json: boolean; bounds: TidyBounds },
): Promise<number> {
  const checkpoint = stepCheckpoint(ctx, RETIREMENT_STEPS, 'effect_id');
  const output = new Output(options.json, ctx.streams, ctx.env);
  const result = await applyRetirement({
    planId: options.planId,
    stateDir: options.stateDir,
    authorize: true,
    clock: ctx.clock,
    signal: ctx.signal,
    bounds: options.bounds,
    env: ctx.env,
    onProgress: (event) => output.progress(`  ${event.effect_id}. ${event.type}: ${event.outcome}`),
    ...(checkpoint === undefined ? {} : { checkpoint }),
  });
  output.result(result, (style) => renderRetirementApply(result, style));
  if (result.status !== 'complete') {
    const problem = result.refusal ?? result.failure;
    const effect = result.effects.find(
      (e) => e.outcome === 'partial' || e.outcome === 'refused' || e.outcome === 'failed',
    );
    const line =
      (problem == null ? undefined : `${problem.code}: ${problem.message}`) ??
      (effect === undefined
        ? null
        : `${effect.type}: ${effect.reason ?? effect.outcome}: ${effect.message ?? ''}`);
    output.diag(`stw: tidy apply ${result.status}${line === null ? '' : `: ${escapeText(line)}`}`);
  }
  return result.status === 'complete' ? 0 : 1;
}
