import { resolve } from 'node:path';
import { Output, type Style } from '../../core/output.js';
import { escapeText, quote } from '../../core/quote.js';
import { type CleanPlan, type CleanResult, clean, planClean } from '../../hygiene/apply/clean.js';
import { type GenerativeSources, openGenerativeSources } from '../../hygiene/apply/generative.js';
import type { InterruptedRunReport } from '../../hygiene/apply/recovery.js';
import { retryPolicyFromEnv } from '../../hygiene/classify/model/runner.js';
import { many, parseCommandArgs } from '../args.js';
import type { CommandContext } from '../command.js';
import { crashFaultsFromEnv } from '../crash-points.js';
import { describeEntry, GateCancelled, type GateFlags, gatePlan, renderApplyList } from '../gate.js';
import { CONFIG_OPTION, configFileFlag } from '../signal-flags.js';

const crashFaults = (env: NodeJS.ProcessEnv) => {
  const faults = crashFaultsFromEnv(env);
  return faults === undefined ? {} : { faults };
};

export const GATE_OPTIONS = {
  approve: { type: 'string', multiple: true },
  reject: { type: 'string', multiple: true },
  yes: { type: 'boolean' },
  generated: { type: 'string' },
  classifier: { type: 'string' },
  model: { type: 'string' },
  'dry-run': { type: 'boolean' },
  'no-verify': { type: 'boolean' },
  json: { type: 'boolean' },
  ...CONFIG_OPTION,
} as const;

/** `--generated`, `--classifier`, `--model`: where generative entries' text comes from. */
export function openSources(
  ctx: CommandContext,
  values: { generated?: string; classifier?: string; model?: string; config?: string },
  out: Output,
): Promise<GenerativeSources> {
  return openGenerativeSources({
    cwd: ctx.cwd,
    ...configFileFlag(ctx.cwd, values.config),
    ...(values.generated !== undefined ? { generatedFile: resolve(ctx.cwd, values.generated) } : {}),
    ...(values.classifier !== undefined ? { classifier: values.classifier } : {}),
    ...(values.model !== undefined ? { model: values.model } : {}),
    env: ctx.env,
    signal: ctx.signal,
    retry: retryPolicyFromEnv(ctx.env),
    onNotice: (message) => out.diag(`stw: ${message}`),
  });
}

/** The distiller's usage, as clean and sweep print it. */
export function renderDistillUsage(usage: ReturnType<GenerativeSources['usage']>): string | undefined {
  if (usage === undefined) return undefined;
  const retries = usage.retries > 0 ? `, ${usage.retries} ${usage.retries === 1 ? 'retry' : 'retries'}` : '';
  return `Model: ${usage.provider} ${quote(usage.model)}: ${usage.requests} request${usage.requests === 1 ? '' : 's'}, ${usage.input_tokens} input + ${usage.output_tokens} output tokens${retries}.`;
}

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
        : result.status === 'removed'
          ? 'No commit: only untracked files were removed (they had no history to commit).'
          : 'No commit: nothing was applied.';
  if (result.interrupted_run !== undefined) lines.push(renderInterrupted(result.interrupted_run));
  lines.push(head);
  if (result.wip_commit !== undefined)
    lines.push(
      `Your uncommitted tracked changes were checkpointed first in ${result.wip_commit.slice(0, 12)} (a safety snapshot: no commit hooks ran on it).`,
    );
  if (result.staged_ref !== undefined)
    lines.push(
      `Your staged changes (the index before the checkpoint) are kept in ${quote(result.staged_ref)}.`,
    );
  if (result.commit !== undefined && result.hooks_ran === false)
    lines.push('Your pre-commit and commit-msg hooks were skipped (--no-verify).');
  // Entries awaiting approval are listed apart, a page at most (below).
  for (const entry of result.entries.filter((e) => e.outcome !== 'needs-approval')) {
    const label = OUTCOME_LABEL[entry.outcome].padEnd(14);
    const colour =
      entry.outcome === 'applied' ? style.green : entry.outcome === 'skipped' ? style.yellow : style.dim;
    // A rejected rewrite says why, so the distiller (a person or a skill) can try again; a
    // skipped entry names what it would have broken.
    const detail =
      entry.detail ??
      (entry.reason === 'distill-rejected' || entry.reason === 'content-changed-since-distill'
        ? result.files.find((file) => file.entries.includes(entry.id))?.detail
        : undefined);
    const reason = entry.reason ? ` (${entry.reason}${detail ? `: ${escapeText(detail)}` : ''})` : '';
    lines.push(`  ${colour(label)} ${describeEntry(entry, style)}${reason}`);
  }
  lines.push(
    ...renderPending(
      result.entries.filter((e) => e.outcome === 'needs-approval'),
      style,
    ),
  );
  if (result.counts.skipped > 0)
    lines.push(`${result.counts.skipped} skipped: re-run 'stw hygiene check' to re-analyse them.`);
  if (result.counts.needs_model > 0)
    lines.push(
      `${result.counts.needs_model} generative entr${result.counts.needs_model === 1 ? 'y needs' : 'ies need'} a model to write the new text (no model is configured and no --generated text names ${result.counts.needs_model === 1 ? 'it' : 'them'}), so ${result.counts.needs_model === 1 ? 'it was' : 'they were'} not offered.`,
    );
  for (const r of result.link_rewrites ?? [])
    lines.push(
      `  ${style.dim('link moved'.padEnd(14))} ${quote(r.path)} line ${r.line}: ${quote(r.from)} → ${quote(r.to)} (with ${escapeText(r.for_entry)})`,
    );
  if (result.last_clean !== undefined) lines.push(`last_clean: ${result.last_clean}`);
  for (const warning of result.warnings ?? []) lines.push(`warning: ${escapeText(warning)}`);
  if (result.removed_temp_files !== undefined)
    lines.push(
      `Removed temp files an interrupted run left: ${result.removed_temp_files.map(quote).join(' ')}`,
    );
  return lines.join('\n');
}

/** How many entries awaiting approval the text lists: one screen. */
export const PENDING_PAGE = 20;

/**
 * The confirm entries awaiting approval: one per line, its id (for `--approve ID`) and what it
 * does, at most `PENDING_PAGE` of them, then how many more and where they all are;
 * and how to approve the reversible ones at once (`--yes` takes the batch list's defaults).
 */
export function renderPending(pending: readonly CleanResult['entries'][number][], style: Style): string[] {
  if (pending.length === 0) return [];
  const lines = [
    `${pending.length} confirm-tier entr${pending.length === 1 ? 'y needs' : 'ies need'} approval; rerun with --approve ID for each (repeatable):`,
  ];
  for (const entry of pending.slice(0, PENDING_PAGE)) lines.push(`  ${describeEntry(entry, style)}`);
  if (pending.length > PENDING_PAGE)
    lines.push(
      `  … ${pending.length - PENDING_PAGE} more: stw hygiene clean --dry-run --json lists every one (outcome "needs-approval"), and .dochygiene/report.md describes them.`,
    );
  const reversible = pending.filter((e) => e.default_selected).length;
  if (reversible > 0)
    lines.push(
      reversible === pending.length
        ? `--yes approves ${reversible === 1 ? 'it' : `all ${reversible}`} at once (the batch list's defaults).`
        : `--yes approves the ${reversible} reversible ones at once (the batch list's defaults); an IRREVERSIBLE one only by its own --approve ID.`,
    );
  return lines;
}

/** What the run found of an earlier, interrupted one (a killed `clean`, `sweep` or `apply`). */
export function renderInterrupted(run: InterruptedRunReport): string {
  const who = `An earlier stw ${run.command ?? 'run'}${run.pid !== undefined ? ` (pid ${run.pid}` : ' ('}${run.started !== undefined ? `, started ${run.started})` : ')'} was interrupted`;
  const checkpoint =
    run.wip_commit !== undefined ? ` after its checkpoint ${run.wip_commit.slice(0, 12)}` : '';
  switch (run.outcome) {
    case 'rolled-back':
      return `${who}${checkpoint}; it was rolled back${run.original_head ? ` (HEAD is at ${run.original_head.slice(0, 12)} again)` : ''}${run.restored.length > 0 ? `, restoring ${run.restored.map(quote).join(' ')}` : ''}.`;
    case 'committed':
      return `${who} after its cleanup commit ${run.commit?.slice(0, 12) ?? ''}; the commit stands (last_clean was not stamped).`;
    case 'left-alone':
      return `${who}${checkpoint} and was left as it is: ${escapeText(run.problem ?? '')}${run.wip_commit ? `; your tracked changes are in ${run.wip_commit}` : ''}${run.staged_ref ? `, your staged changes in ${quote(run.staged_ref)}` : ''}.`;
    case 'not-recorded':
      return `${who} before it recorded any change.`;
  }
}

export const cleanExitCode = (result: CleanResult) =>
  result.status === 'partial' || result.warnings !== undefined ? 1 : 0;

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
  const sources = await openSources(ctx, values, out);
  const options = {
    cwd: ctx.cwd,
    approve: many(values.approve),
    reject: many(values.reject),
    generative: sources.plan,
    ...configFileFlag(ctx.cwd, values.config),
  };
  const planned = await planClean(options);
  sources.checkPlan(planned);
  let plan: CleanPlan;
  try {
    plan = await gatePlan(ctx, planned, options, flags);
  } catch (error) {
    if (error instanceof GateCancelled) return renderCancelled(out, ctx.cwd);
    throw error;
  }
  const result = await clean({
    ...options,
    plan,
    dryRun: flags.dryRun,
    noVerify: values['no-verify'] === true,
    clock: ctx.clock,
    env: ctx.env,
    signal: ctx.signal,
    ...withAnnouncer(announcer(ctx, out, flags)),
    prepareRewrites: (entries, isDryRun) => sources.prepare(entries, isDryRun),
    ...crashFaults(ctx.env),
  });
  const usage = sources.usage();
  out.result({ ...result, model: usage ?? null }, (style) =>
    [renderClean(result, style), renderDistillUsage(usage)].filter((line) => line !== undefined).join('\n'),
  );
  return cleanExitCode(result);
}
