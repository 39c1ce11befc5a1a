import { Output, type Style } from '../../core/output.js';
import { escapeText, quote } from '../../core/quote.js';
import { type CleanPlan, type CleanResult, clean, planClean } from '../../hygiene/apply/clean.js';
import { many, parseCommandArgs } from '../args.js';
import type { CommandContext } from '../command.js';
import { describeEntry, GateCancelled, type GateFlags, gatePlan, renderApplyList } from '../gate.js';

export const GATE_OPTIONS = {
  approve: { type: 'string', multiple: true },
  reject: { type: 'string', multiple: true },
  yes: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

const OUTCOME_LABEL: Record<CleanResult['entries'][number]['outcome'], string> = {
  applied: 'applied',
  unchanged: 'unchanged',
  skipped: 'skipped',
  'needs-approval': 'needs approval',
  'needs-model': 'needs a model',
  rejected: 'rejected',
  'would-apply': 'would apply',
};

export function renderClean(result: CleanResult, style: Style): string {
  const lines: string[] = [];
  const head =
    result.status === 'dry-run'
      ? 'Dry run: nothing was changed.'
      : result.commit !== undefined
        ? `Committed ${result.commit.slice(0, 12)} ${quote(result.message?.split('\n')[0] ?? '')}`
        : 'No commit: nothing was applied.';
  lines.push(head);
  if (result.wip_commit !== undefined)
    lines.push(
      `Your uncommitted tracked changes were checkpointed first in ${result.wip_commit.slice(0, 12)}.`,
    );
  for (const entry of result.entries) {
    const label = OUTCOME_LABEL[entry.outcome].padEnd(14);
    const colour =
      entry.outcome === 'applied' ? style.green : entry.outcome === 'skipped' ? style.yellow : style.dim;
    const reason = entry.reason
      ? ` (${entry.reason}${entry.detail !== undefined ? `: ${escapeText(entry.detail)}` : ''})`
      : '';
    lines.push(`  ${colour(label)} ${describeEntry(entry, style)}${reason}`);
  }
  const pending = result.entries.filter((e) => e.outcome === 'needs-approval');
  if (pending.length > 0)
    lines.push(
      `${pending.length} confirm-tier entr${pending.length === 1 ? 'y needs' : 'ies need'} approval: rerun with ${pending.map((e) => `--approve ${e.id}`).join(' ')}`,
    );
  if (result.counts.skipped > 0)
    lines.push(`${result.counts.skipped} skipped: re-run 'stw hygiene check' to re-analyse them.`);
  if (result.counts.needs_model > 0)
    lines.push(
      `${result.counts.needs_model} generative entr${result.counts.needs_model === 1 ? 'y needs' : 'ies need'} a model to write the new text; none is available in this release, so ${result.counts.needs_model === 1 ? 'it was' : 'they were'} not offered.`,
    );
  for (const r of result.link_rewrites ?? [])
    lines.push(
      `  ${style.dim('link moved'.padEnd(14))} ${quote(r.path)} line ${r.line}: ${quote(r.from)} → ${quote(r.to)} (with ${escapeText(r.for_entry)})`,
    );
  if (result.last_clean !== undefined) lines.push(`last_clean: ${result.last_clean}`);
  return lines.join('\n');
}

export const cleanExitCode = (result: CleanResult) => (result.status === 'partial' ? 1 : 0);

export function gateFlags(values: { yes?: boolean; 'dry-run'?: boolean }): GateFlags {
  return { dryRun: values['dry-run'] === true, yes: values.yes === true };
}

/**
 * Prints what is about to be applied, when the batch list was not shown (off a terminal,
 * or `--yes`): even an all-auto cleanup is announced before it commits.
 */
export function announcer(
  ctx: CommandContext,
  out: Output,
  flags: GateFlags,
): ((plan: CleanPlan) => void) | undefined {
  if (flags.dryRun || (ctx.isInteractive && !flags.yes)) return undefined;
  return (plan) => out.diag(renderApplyList(plan, out.errStyle));
}

export const withAnnouncer = (announce: ((plan: CleanPlan) => void) | undefined) =>
  announce === undefined ? {} : { onBeforeChanges: announce };

/** What --json and the terminal get when the user cancels at the gate. */
export function renderCancelled(out: Output, root: string): number {
  out.result({ status: 'cancelled', root }, () => 'Cancelled at the gate: nothing was changed.');
  return 0;
}

/** `stw hygiene clean`: gate, checkpoint, apply, one commit. */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parseCommandArgs(ctx.argv, 'hygiene clean', GATE_OPTIONS, 0);
  const out = new Output(values.json === true, ctx.streams, ctx.env);
  const flags = gateFlags(values);
  const options = { cwd: ctx.cwd, approve: many(values.approve), reject: many(values.reject) };
  let plan: CleanPlan;
  try {
    plan = await gatePlan(ctx, await planClean(options), options, flags);
  } catch (error) {
    if (error instanceof GateCancelled) return renderCancelled(out, ctx.cwd);
    throw error;
  }
  const result = await clean({
    ...options,
    plan,
    dryRun: flags.dryRun,
    clock: ctx.clock,
    env: ctx.env,
    signal: ctx.signal,
    ...withAnnouncer(announcer(ctx, out, flags)),
  });
  out.result(result, (style) => renderClean(result, style));
  return cleanExitCode(result);
}
