import { resolve } from 'node:path';
import { OperationalError } from '../../core/errors.js';
import { Output, type Style } from '../../core/output.js';
import { escapeText, quote } from '../../core/quote.js';
import {
  type CleanPlan,
  type CleanResult,
  clean,
  type PlanCleanOptions,
  type PlannedEntry,
  planClean,
} from '../../hygiene/apply/clean.js';
import { type GenerativeSources, openGenerativeSources } from '../../hygiene/apply/generative.js';
import type { InterruptedRunReport } from '../../hygiene/apply/recovery.js';
import { retryPolicyFromEnv } from '../../hygiene/classify/model/runner.js';
import { many, parseCommandArgs } from '../args.js';
import type { CommandContext } from '../command.js';
import { crashFaultsFromEnv } from '../crash-points.js';

const crashFaults = (env: NodeJS.ProcessEnv) => {
  const faults = crashFaultsFromEnv(env);
  return faults === undefined ? {} : { faults };
};

export const GATE_OPTIONS = {
  approve: { type: 'string', multiple: true },
  reject: { type: 'string', multiple: true },
  generated: { type: 'string' },
  classifier: { type: 'string' },
  model: { type: 'string' },
  'dry-run': { type: 'boolean' },
  'no-verify': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

/** `--generated`, `--classifier`, `--model`: where generative entries' text comes from. */
export function openSources(
  ctx: CommandContext,
  values: { generated?: string; classifier?: string; model?: string },
  out: Output,
): Promise<GenerativeSources> {
  return openGenerativeSources({
    cwd: ctx.cwd,
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

/** One line of the batch list: id · path · category · op · ≈tokens · why, irreversible ones marked. */
function describeEntry(entry: PlannedEntry, style: Style): string {
  const mark = entry.irreversible ? style.red('IRREVERSIBLE ') : '';
  const tier = entry.tier === 'confirm' ? 'confirm' : 'auto';
  const why = entry.why ? ` — ${escapeText(entry.why)}` : '';
  // The edit as derived from exact_edit, never only the report's own words (`op`).
  return `${mark}[${tier}] ${escapeText(entry.id)} ${quote(entry.path)} · ${entry.category} · ${entry.kind}: ${escapeText(entry.edit)} · ≈${entry.raw_tokens} tokens${why}`;
}

/**
 * The gate on a terminal: one batch list of every entry that would apply or needs
 * approval, all pre-selected, each one de-selectable. Returns the ids kept.
 */
export async function askGate(
  ctx: CommandContext,
  entries: PlannedEntry[],
  input?: NodeJS.ReadableStream,
): Promise<string[]> {
  const { default: checkbox } = await import('@inquirer/checkbox');
  const style = new Output(false, ctx.streams, ctx.env).errStyle;
  // The list goes to stderr so that stdout keeps only the result (one JSON document under --json).
  return checkbox(
    {
      message: 'Apply these docs hygiene fixes as one commit? (space toggles, enter confirms)',
      choices: entries.map((entry) => ({
        name: describeEntry(entry, style),
        value: entry.id,
        checked: true,
      })),
      pageSize: 20,
    },
    { output: ctx.streams.stderr, signal: ctx.signal, ...(input ? { input } : {}) },
  );
}

export type GatePrompt = (ctx: CommandContext, entries: PlannedEntry[]) => Promise<string[]>;

/**
 * The gate (docs/hygiene-clean.md, step 2): off a terminal the flags decide; on a terminal the batch
 * list does, and the plan is remade with the user's choices as approvals and rejections.
 */
export async function gatePlan(
  ctx: CommandContext,
  plan: CleanPlan,
  options: PlanCleanOptions,
  dryRun: boolean,
  prompt: GatePrompt = askGate,
): Promise<CleanPlan> {
  if (!ctx.isInteractive || dryRun) return plan;
  const offered = plan.entries.filter((e) => e.decision === 'approved' || e.decision === 'needs-approval');
  if (offered.length === 0) return plan;
  let kept: string[];
  try {
    kept = await prompt(ctx, offered);
  } catch (error) {
    throw new OperationalError('cancelled', `cancelled; nothing changed (${(error as Error).message})`);
  }
  const keep = new Set(kept);
  const approve = offered.filter((e) => keep.has(e.id) && e.tier === 'confirm').map((e) => e.id);
  const reject = offered.filter((e) => !keep.has(e.id)).map((e) => e.id);
  return planClean({
    ...options,
    approve: [...new Set([...(options.approve ?? []), ...approve])].filter((id) => !reject.includes(id)),
    reject: [...new Set([...(options.reject ?? []), ...reject])],
  });
}

/** `planClean`, then the gate. */
export async function gatedPlan(
  ctx: CommandContext,
  options: PlanCleanOptions,
  dryRun: boolean,
  prompt: GatePrompt = askGate,
): Promise<CleanPlan> {
  return gatePlan(ctx, await planClean(options), options, dryRun, prompt);
}

const OUTCOME_LABEL: Record<CleanResult['entries'][number]['outcome'], string> = {
  applied: 'applied',
  unchanged: 'unchanged',
  skipped: 'skipped',
  'needs-approval': 'needs approval',
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
  for (const entry of result.entries) {
    const label = OUTCOME_LABEL[entry.outcome].padEnd(14);
    const colour =
      entry.outcome === 'applied' ? style.green : entry.outcome === 'skipped' ? style.yellow : style.dim;
    // A rejected rewrite says why, so the distiller (a person or a skill) can try again.
    const detail =
      entry.reason === 'distill-rejected' || entry.reason === 'content-changed-since-distill'
        ? result.files.find((file) => file.entries.includes(entry.id))?.detail
        : undefined;
    const reason = entry.reason ? ` (${entry.reason}${detail ? `: ${escapeText(detail)}` : ''})` : '';
    lines.push(`  ${colour(label)} ${describeEntry(entry, style)}${reason}`);
  }
  const pending = result.entries.filter((e) => e.outcome === 'needs-approval');
  if (pending.length > 0)
    lines.push(
      `${pending.length} confirm-tier entr${pending.length === 1 ? 'y needs' : 'ies need'} approval: rerun with ${pending.map((e) => `--approve ${e.id}`).join(' ')}`,
    );
  if (result.counts.skipped > 0)
    lines.push(`${result.counts.skipped} skipped: re-run 'stw hygiene check' to re-analyse them.`);
  if (result.files.some((file) => file.moved_to !== undefined))
    lines.push(
      "Moved files may leave links pointing at their old place; the next 'stw hygiene check' finds them.",
    );
  if (result.last_clean !== undefined) lines.push(`last_clean: ${result.last_clean}`);
  for (const warning of result.warnings ?? []) lines.push(`warning: ${escapeText(warning)}`);
  if (result.removed_temp_files !== undefined)
    lines.push(
      `Removed temp files an interrupted run left: ${result.removed_temp_files.map(quote).join(' ')}`,
    );
  return lines.join('\n');
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

/** `stw hygiene clean`: gate, checkpoint, apply, one commit. */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parseCommandArgs(ctx.argv, 'hygiene clean', GATE_OPTIONS, 0);
  const out = new Output(values.json === true, ctx.streams, ctx.env);
  const dryRun = values['dry-run'] === true;
  const sources = await openSources(ctx, values, out);
  const options = {
    cwd: ctx.cwd,
    approve: many(values.approve),
    reject: many(values.reject),
    generative: sources.plan,
  };
  const planned = await planClean(options);
  sources.checkPlan(planned);
  const plan = await gatePlan(ctx, planned, options, dryRun);
  const result = await clean({
    ...options,
    plan,
    dryRun,
    noVerify: values['no-verify'] === true,
    clock: ctx.clock,
    env: ctx.env,
    signal: ctx.signal,
    prepareRewrites: (entries, isDryRun) => sources.prepare(entries, isDryRun),
    ...crashFaults(ctx.env),
  });
  const usage = sources.usage();
  out.result({ ...result, model: usage ?? null }, (style) =>
    [renderClean(result, style), renderDistillUsage(usage)].filter((line) => line !== undefined).join('\n'),
  );
  return cleanExitCode(result);
}
