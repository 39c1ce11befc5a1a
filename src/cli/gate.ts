import { InterruptedError } from '../core/errors.js';
import { Output, type Style } from '../core/output.js';
import { escapeText, quote } from '../core/quote.js';
import {
  type CleanPlan,
  type PlanCleanOptions,
  type PlannedEntry,
  planClean,
} from '../hygiene/apply/clean.js';
import type { CommandContext } from './command.js';

/**
 * The clean/sweep gate on the command line (docs/hygiene-clean.md, step 2): the batch list on a
 * terminal, `--yes` to take its defaults unasked, the flags alone otherwise. The list is
 * written to stderr, so `stw hygiene clean | tee log` (or `--json`) still shows it.
 */

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** One line of the batch list: id · path · category · op · ≈tokens · why, irreversible ones marked. */
export function describeEntry(entry: PlannedEntry, style: Style): string {
  const mark = entry.irreversible ? style.red('IRREVERSIBLE ') : '';
  const tier = entry.tier === 'confirm' ? 'confirm' : 'auto';
  const why = entry.why ? ` — ${escapeText(entry.why)}` : '';
  // The edit as derived from exact_edit, never only the report's own words (`op`).
  return `${mark}[${tier}] ${escapeText(entry.id)} ${quote(entry.path)} · ${entry.category} · ${entry.kind}: ${escapeText(entry.edit)} · ≈${entry.raw_tokens} tokens${why}`;
}

/** The entries the gate offers: what would apply and what awaits approval (never what cannot run). */
export function offeredEntries(plan: CleanPlan): PlannedEntry[] {
  return plan.entries.filter((e) => e.decision === 'approved' || e.decision === 'needs-approval');
}

/** "N entries (a auto, c confirm) in F files", plus the generative entries no model can write. */
export function gateHeader(entries: readonly PlannedEntry[], needsModel: number): string {
  const auto = entries.filter((e) => e.tier === 'auto').length;
  const files = new Set(entries.map((e) => e.path)).size;
  const head = `${plural(entries.length, 'entry', 'entries')} (${auto} auto, ${entries.length - auto} confirm) in ${plural(files, 'file')}`;
  return needsModel > 0
    ? `${head}; ${plural(needsModel, 'more entry', 'more entries')} need${needsModel === 1 ? 's' : ''} a model and ${needsModel === 1 ? 'is' : 'are'} not offered`
    : head;
}

/** The user left the batch list with Esc or q: nothing is changed. */
export class GateCancelled extends Error {
  constructor() {
    super('cancelled at the gate; nothing changed');
    this.name = 'GateCancelled';
  }
}

/**
 * The batch list on a terminal: every offered entry, auto and reversible confirm entries
 * ticked, irreversible ones unticked. Enter accepts; Esc or q cancels (`GateCancelled`);
 * Ctrl-C exits 130 (`InterruptedError`). Returns the ids kept.
 */
export async function askGate(
  ctx: CommandContext,
  entries: PlannedEntry[],
  input?: NodeJS.ReadableStream,
  needsModel = 0,
): Promise<string[]> {
  const { default: checkbox } = await import('@inquirer/checkbox');
  const style = new Output(false, ctx.streams, ctx.env).errStyle;
  const stdin = (input ?? process.stdin) as NodeJS.ReadableStream;
  // The list goes to stderr so that stdout keeps only the result (one JSON document under --json).
  const answer = checkbox(
    {
      message: `Apply ${gateHeader(entries, needsModel)} as one commit? (space toggles, enter confirms, esc or q cancels)`,
      choices: entries.map((entry) => ({
        name: describeEntry(entry, style),
        value: entry.id,
        checked: entry.default_selected,
      })),
      pageSize: 20,
    },
    { output: ctx.streams.stderr, signal: ctx.signal, input: stdin },
  );
  let cancelled = false;
  // The prompt's readline emits keypress events on its input; Esc and q are not its keys.
  const onKey = (_text: string | undefined, key: { name?: string; ctrl?: boolean } | undefined) => {
    if (key?.ctrl !== true && (key?.name === 'escape' || key?.name === 'q')) {
      cancelled = true;
      answer.cancel();
    }
  };
  stdin.on('keypress', onKey);
  try {
    return await answer;
  } catch (error) {
    if (cancelled) throw new GateCancelled();
    const name = (error as Error).name;
    if (name === 'ExitPromptError' || name === 'AbortPromptError')
      throw new InterruptedError('interrupted', 'interrupted at the gate; nothing changed');
    throw error;
  } finally {
    stdin.removeListener('keypress', onKey);
  }
}

export type GatePrompt = (
  ctx: CommandContext,
  entries: PlannedEntry[],
  needsModel: number,
) => Promise<string[]>;

export interface GateFlags {
  dryRun: boolean;
  /** `--yes`: accept the list's defaults without showing it. */
  yes: boolean;
}

/**
 * The gate: a run off a terminal keeps the flags' decisions; `--yes` takes the defaults
 * (every ticked entry); on a terminal the batch list decides. The plan is remade with the
 * choices as approvals and rejections. A dry run decides as the same command without
 * `--dry-run` would — on a terminal, as if the list were accepted as it opens (Enter) —
 * so that it shows exactly what that command would apply.
 */
export async function gatePlan(
  ctx: CommandContext,
  plan: CleanPlan,
  options: PlanCleanOptions,
  flags: GateFlags,
  prompt: GatePrompt = (c, entries, needsModel) => askGate(c, entries, undefined, needsModel),
): Promise<CleanPlan> {
  if (!flags.yes && !ctx.isInteractive) return plan;
  // An entry named with --approve opens ticked, irreversible or not: the user already said so.
  const named = new Set(options.approve ?? []);
  const offered = offeredEntries(plan).map((e) => (named.has(e.id) ? { ...e, default_selected: true } : e));
  if (offered.length === 0) return plan;
  const needsModel = plan.entries.filter((e) => e.decision === 'needs-model').length;
  const kept =
    flags.yes || flags.dryRun
      ? offered.filter((e) => e.default_selected).map((e) => e.id)
      : await prompt(ctx, offered, needsModel);
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
  flags: GateFlags,
  prompt?: GatePrompt,
): Promise<CleanPlan> {
  return gatePlan(ctx, await planClean(options), options, flags, prompt);
}

/**
 * What a run that did not show the list (off a terminal, or `--yes`) is about to apply,
 * printed before it commits so that even an all-auto cleanup never lands unannounced.
 */
export function renderApplyList(plan: CleanPlan, style: Style): string {
  const applying = plan.entries.filter((e) => e.decision === 'approved');
  const needsModel = plan.entries.filter((e) => e.decision === 'needs-model').length;
  return [
    `Applying ${gateHeader(applying, needsModel)}:`,
    ...applying.map((entry) => `  ${describeEntry(entry, style)}`),
  ].join('\n');
}
