import { resolve } from 'node:path';
import { Output, type Streams } from '../../core/output.js';
import { quote } from '../../core/quote.js';
import { type CheckResult, runCheck } from '../../hygiene/check.js';
import { type CheckInvocation, startRecording } from '../../hygiene/check-cache/index.js';
import { retryPolicyFromEnv } from '../../hygiene/classify/model/runner.js';
import { collectFindings } from '../../hygiene/output/findings.js';
import { namedClasses } from '../../hygiene/output/gate.js';
import { shallowWarning } from '../../hygiene/output/shallow.js';
import { resolveProjectRoot } from '../../hygiene/project.js';
import { withheldClause } from '../../hygiene/report/signal-counts.js';
import { many, parseCommandArgs } from '../args.js';
import type { CommandContext } from '../command.js';
import {
  FINDINGS_OPTIONS,
  findingsJson,
  finishFindings,
  parseFindingsFlags,
  renderFindingGroups,
  rootPaths,
  selectForFlags,
} from '../findings-output.js';
import { rootScopes } from '../scope.js';
import { configFileFlag, renderUnused, SIGNAL_OPTIONS, signalFlags } from '../signal-flags.js';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "; N signals with no proposed fix in M files", when there are any. */
export function unfixedClause(summary: CheckResult['summary']): string {
  const unfixed =
    summary.signals_without_entry > 0
      ? `; ${plural(summary.signals_without_entry, 'signal')} with no proposed fix in ${plural(summary.files_with_unfixed_signals, 'file')}`
      : '';
  const unverifiable =
    summary.unverifiable_references > 0
      ? `; ${plural(summary.unverifiable_references, 'link')} no site model could check`
      : '';
  const withheld = withheldClause(summary.signal_counts);
  return unfixed + unverifiable + (withheld === '' ? '' : `; ${withheld}`);
}

/** The human summary; the scope line appears only when the user narrowed the check. */
export function renderCheckSummary(result: CheckResult, narrowed: boolean): string {
  const { report, summary } = result;
  const lines = [
    `Checked ${plural(report.scan.files_scanned, 'doc')}: ${plural(summary.candidates, 'entry', 'entries')} in ${plural(summary.files_with_entries, 'file')} (${summary.auto} auto, ${summary.confirm} need confirmation)${unfixedClause(summary)}; ${plural(summary.cleared, 'file')} cleared (no signal).`,
  ];
  if (summary.agents.length > 0) {
    lines.push('Agent context at start-up (≈ tokens; saved per session if all are applied):');
    const width = Math.max(...summary.agents.map((a) => a.name.length));
    for (const a of summary.agents)
      lines.push(
        `  ${a.name.padEnd(width)}  ≈${a.startup_tokens} in ${plural(a.startup_files, 'file')}; ≈${a.tokens_saved_per_session} saved`,
      );
  }
  if (narrowed) {
    const scope = report.scan.scope_globs.map(quote).join(', ');
    lines.push(`Scope: ${scope}; category: ${report.scan.category_filter ?? 'all'}.`);
  }
  const model = renderModelUsage(result);
  if (model !== undefined) lines.push(model);
  if (result.saved)
    lines.push(`Report: ${quote(result.reportMdPath)}`, `        ${quote(result.reportJsonPath)}`);
  if (result.gitignoreLine !== undefined) {
    lines.push('.dochygiene/ is not ignored by git; add this line to .gitignore (stw never edits it):');
    lines.push(`  ${result.gitignoreLine}`);
  }
  return lines.join('\n');
}

/** One line of model usage (and one per dropped proposal), from the providers' usage fields. */
export function renderModelUsage(result: Pick<CheckResult, 'model'>): string | undefined {
  const m = result.model;
  if (m === undefined) return undefined;
  const extra = [
    m.retries > 0 ? plural(m.retries, 'retry', 'retries') : '',
    m.reasks > 0 ? `${plural(m.reasks, 'file')} re-asked` : '',
    m.escalations > 0 ? `${plural(m.escalations, 'file')} escalated to ${m.escalate_model}` : '',
    m.cache_read_input_tokens > 0 ? `${m.cache_read_input_tokens} input tokens from the prompt cache` : '',
  ].filter((part) => part !== '');
  const lines = [
    `Model: ${m.provider} ${quote(m.model)}: ${plural(m.requests, 'request')}, ${m.input_tokens} input + ${m.output_tokens} output tokens${extra.length > 0 ? `; ${extra.join(', ')}` : ''}; ${plural(m.dropped, 'proposal')} dropped.`,
  ];
  for (const item of m.dropped_proposals)
    lines.push(
      `  dropped: ${quote(item.path)}: ${quote(item.violations[0] ?? '')}${item.violations.length > 1 ? ` (and ${item.violations.length - 1} more)` : ''}`,
    );
  return lines.join('\n');
}

export async function run(ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseCheckArgs(ctx.argv);
  const flags = parseFindingsFlags(values, ctx.cwd, true);
  // What this run prints is captured for the result cache; progress is not part of the result.
  const captured = captureStreams(ctx.streams);
  const out = new Output(flags.format === 'json', captured.streams, ctx.env);
  const progress = new Output(flags.format === 'json', ctx.streams, ctx.env);
  const scopes = await rootScopes(ctx.cwd, many(values.scope));
  const root = await resolveProjectRoot(ctx.cwd);
  const paths = positionals.length > 0 ? await rootPaths(root, ctx.cwd, positionals) : undefined;
  const recording = isReplayable(values) ? await startRecording(invocationOf(ctx, values)) : undefined;
  try {
    const code = await runAndRender(
      { ...ctx, streams: captured.streams },
      { values, flags, out, progress, scopes, root, paths, templates: recording !== undefined },
    );
    const { result } = code;
    if (
      recording !== undefined &&
      result.classifier === 'rules' &&
      !result.partial &&
      result.warnings === undefined &&
      result.gitignoreLine === undefined &&
      (result.saved ? result.templates !== undefined : values['no-write'] === true)
    )
      // Keeping the result is never the check's failure: the next run is a full one.
      await recording
        .finish({
          exitCode: code.exitCode,
          stdout: captured.stdout(),
          stderr: captured.stderr(),
          instant: result.report.generated_at,
          stdoutIsJson: flags.format === 'json',
          report: result.saved ? result.templates : undefined,
        })
        .catch(() => {});
    return code.exitCode;
  } finally {
    recording?.abandon();
  }
}

type CheckValues = ReturnType<typeof parseCheckArgs>['values'];

/** The flags whose result is a function of the run's inputs: no other file read, none written, no model. */
function isReplayable(values: CheckValues): boolean {
  return (
    values.proposals === undefined &&
    values.classifier === undefined &&
    values.model === undefined &&
    values['no-cache'] !== true &&
    values.baseline === undefined &&
    values['changed-since'] === undefined &&
    values.sarif === undefined
  );
}

function invocationOf(ctx: CommandContext, values: CheckValues): CheckInvocation {
  return {
    argv: ctx.argv,
    cwd: ctx.cwd,
    env: ctx.env,
    stdoutIsTTY: ctx.streams.stdout.isTTY === true,
    stderrIsTTY: ctx.streams.stderr.isTTY === true,
    ...configFileFlag(ctx.cwd, values.config),
  };
}

/** Streams that pass every write on and keep a copy. */
function captureStreams(streams: Streams): { streams: Streams; stdout: () => string; stderr: () => string } {
  const tee = (stream: Streams['stdout']) => {
    const chunks: string[] = [];
    const copy = {
      isTTY: stream.isTTY,
      write: (chunk: string | Uint8Array, ...rest: unknown[]) => {
        chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
        return (stream.write as (...args: unknown[]) => boolean)(chunk, ...rest);
      },
    } as unknown as Streams['stdout'];
    return { copy, text: () => chunks.join('') };
  };
  const stdout = tee(streams.stdout);
  const stderr = tee(streams.stderr);
  return { streams: { stdout: stdout.copy, stderr: stderr.copy }, stdout: stdout.text, stderr: stderr.text };
}

function parseCheckArgs(argv: string[]) {
  return parseCommandArgs(
    argv,
    'hygiene check',
    {
      scope: { type: 'string', multiple: true },
      category: { type: 'string' },
      proposals: { type: 'string' },
      classifier: { type: 'string' },
      model: { type: 'string' },
      'no-write': { type: 'boolean' },
      'no-cache': { type: 'boolean' },
      ...FINDINGS_OPTIONS,
      ...SIGNAL_OPTIONS,
    },
    Number.POSITIVE_INFINITY,
  );
}

interface RunParts {
  values: CheckValues;
  flags: ReturnType<typeof parseFindingsFlags>;
  out: Output;
  progress: Output;
  scopes: string[];
  root: string;
  paths: Set<string> | undefined;
  templates: boolean;
}

/** The check itself and its output; the exit code and the library's result. */
async function runAndRender(
  ctx: CommandContext,
  { values, flags, out, progress, scopes, root, paths, templates }: RunParts,
): Promise<{ exitCode: number; result: CheckResult }> {
  const result = await runCheck({
    cwd: ctx.cwd,
    ...(scopes.length > 0 ? { scopes } : {}),
    ...(values.category !== undefined ? { category: values.category } : {}),
    ...(values.proposals !== undefined ? { proposalsFile: resolve(ctx.cwd, values.proposals) } : {}),
    ...(values.classifier !== undefined ? { classifier: values.classifier } : {}),
    ...(values.model !== undefined ? { model: values.model } : {}),
    ...(values['no-write'] === true ? { write: false } : {}),
    ...signalFlags(ctx.cwd, values),
    ...namedClasses(flags.gate.failOn),
    ...(values['no-cache'] === true ? { cache: false } : {}),
    env: ctx.env,
    modelRetry: retryPolicyFromEnv(ctx.env),
    onNotice: (message) => out.diag(`stw: ${message}`),
    clock: ctx.clock,
    signal: ctx.signal,
    onProgress: (message) => progress.progress(`stw: ${message}`),
    ...(templates ? { templates: true } : {}),
  });
  const { report } = result;
  const findings = collectFindings(report.scan.project_root, result.signals, report.entries);
  const selected = await selectForFlags(root, findings, flags, paths);
  const human = () =>
    [
      renderCheckSummary(result, scopes.length > 0 || values.category !== undefined),
      ...renderUnused(result.unusedSuppressions),
      ...renderFindingGroups(selected, report.entries, result.saved ? 'report.md' : 'the --json output'),
    ].join('\n');
  const json = {
    status: result.partial ? 'partial' : 'complete',
    generated_at: report.generated_at,
    project_root: report.scan.project_root,
    scope_globs: report.scan.scope_globs,
    category_filter: report.scan.category_filter,
    classifier: result.classifier,
    files_scanned: report.scan.files_scanned,
    history: result.history ?? null,
    summary: result.summary,
    saved: result.saved,
    report_json: result.saved ? result.reportJsonPath : null,
    report_md: result.saved ? result.reportMdPath : null,
    gitignore_line: result.gitignoreLine ?? null,
    model: result.model ?? null,
    warnings: result.warnings ?? [],
    ...(result.unusedSuppressions !== undefined ? { unused_suppressions: result.unusedSuppressions } : {}),
    ...findingsJson(selected),
  };
  if (flags.format === 'text' || flags.format === 'json') out.result(json, human);
  else out.diag(human());
  if (result.notSaved !== undefined) out.diag(`stw: ${result.notSaved}`);
  if (result.history !== undefined) out.diag(`stw: warning: ${shallowWarning(result.history.depth)}`);
  if (result.partial) {
    out.diag('stw: the scan is incomplete: history could not be read, so history-based signals are missing');
  }
  for (const warning of result.warnings ?? []) out.diag(`stw: warning: ${warning}`);
  const exitCode = await finishFindings(
    ctx,
    flags,
    selected,
    result.partial || result.warnings !== undefined ? 1 : 0,
  );
  return { exitCode, result };
}
