import { Output } from '../../core/output.js';
import { quote } from '../../core/quote.js';
import { sweep } from '../../hygiene/apply/sweep.js';
import { retryPolicyFromEnv } from '../../hygiene/classify/model/runner.js';
import { many, parseCommandArgs } from '../args.js';
import type { CommandContext } from '../command.js';
import { GateCancelled, gatePlan } from '../gate.js';
import { rootScopes } from '../scope.js';
import { configFileFlag, showAllFlag } from '../signal-flags.js';
import { renderModelUsage, unfixedClause } from './hygiene-check.js';
import {
  announcer,
  cleanExitCode,
  GATE_OPTIONS,
  gateFlags,
  openSources,
  renderCancelled,
  renderClean,
  renderDistillUsage,
  withAnnouncer,
} from './hygiene-clean.js';

/** `stw hygiene sweep`: check, then clean behind the same gate; one commit. */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parseCommandArgs(
    ctx.argv,
    'hygiene sweep',
    {
      ...GATE_OPTIONS,
      scope: { type: 'string', multiple: true },
      category: { type: 'string' },
      signals: { type: 'string' },
    },
    0,
  );
  const out = new Output(values.json === true, ctx.streams, ctx.env);
  const flags = gateFlags(values);
  const dryRun = flags.dryRun;
  const sources = await openSources(ctx, values, out);
  const options = {
    cwd: ctx.cwd,
    approve: many(values.approve),
    reject: many(values.reject),
    generative: sources.plan,
    ...configFileFlag(ctx.cwd, values.config),
  };
  const scopes = await rootScopes(ctx.cwd, many(values.scope));
  let result: Awaited<ReturnType<typeof sweep>>;
  try {
    result = await sweep({
      ...options,
      ...(scopes.length > 0 ? { scopes } : {}),
      ...(values.category !== undefined ? { category: values.category } : {}),
      ...(values.classifier !== undefined ? { classifier: values.classifier } : {}),
      ...(values.model !== undefined ? { model: values.model } : {}),
      modelRetry: retryPolicyFromEnv(ctx.env),
      onNotice: (message) => out.diag(`stw: ${message}`),
      dryRun,
      ...(showAllFlag(values.signals) ? { showAllSignals: true } : {}),
      noVerify: values['no-verify'] === true,
      clock: ctx.clock,
      env: ctx.env,
      signal: ctx.signal,
      gate: (plan) => {
        sources.checkPlan(plan);
        return gatePlan(ctx, plan, options, flags);
      },
      ...withAnnouncer(announcer(ctx, out, flags)),
      prepareRewrites: (entries, isDryRun) => sources.prepare(entries, isDryRun),
      onProgress: (message) => out.progress(message),
    });
  } catch (error) {
    // The check's report stays; only the cleanup was declined.
    if (error instanceof GateCancelled) return renderCancelled(out, ctx.cwd);
    throw error;
  }
  const usage = sources.usage();
  const { check, clean } = result;
  const json = {
    ...clean,
    check: {
      report_json_path: check.reportJsonPath,
      report_md_path: check.reportMdPath,
      partial: check.partial,
      summary: check.summary,
      model: check.model ?? null,
      ...(check.gitignoreLine !== undefined ? { gitignore_line: check.gitignoreLine } : {}),
      ...(dryRun ? { report_kept: false } : {}),
    },
    model: usage ?? null,
  };
  out.result(json, (style) => {
    const s = check.summary;
    const lines = [
      `Checked: ${s.candidates} entr${s.candidates === 1 ? 'y' : 'ies'} in ${s.files_with_entries} file${s.files_with_entries === 1 ? '' : 's'} (auto ${s.auto}, confirm ${s.confirm})${unfixedClause(s)}; ${s.cleared} file${s.cleared === 1 ? '' : 's'} cleared${check.partial ? ' — history unavailable, some signals missing' : ''}`,
    ];
    const classified = renderModelUsage(check);
    if (classified !== undefined) lines.push(classified);
    if (!dryRun) lines.push(`Report: ${quote(check.reportJsonPath)}, ${quote(check.reportMdPath)}`);
    if (check.gitignoreLine !== undefined)
      lines.push(
        `note: .dochygiene/ is not ignored by git; add this line to .gitignore: ${check.gitignoreLine}`,
      );
    lines.push(renderClean(clean, style));
    const distilled = renderDistillUsage(usage);
    if (distilled !== undefined) lines.push(distilled);
    return lines.join('\n');
  });
  return check.partial ? 1 : cleanExitCode(clean);
}
