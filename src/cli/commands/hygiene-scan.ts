import { Output } from '../../core/output.js';
import { quote } from '../../core/quote.js';
import { loadConfig } from '../../hygiene/config.js';
import { collectFindings } from '../../hygiene/output/findings.js';
import { namedClasses } from '../../hygiene/output/gate.js';
import { shallowWarning } from '../../hygiene/output/shallow.js';
import { resolveProjectRoot } from '../../hygiene/project.js';
import { signalCounts } from '../../hygiene/report/signal-counts.js';
import { isPartialScan, scan } from '../../hygiene/scan/index.js';
import type { ScanArtifact } from '../../hygiene/types.js';
import { many, parseCommandArgs } from '../args.js';
import type { CommandContext } from '../command.js';
import {
  FINDINGS_OPTIONS,
  findingsJson,
  finishFindings,
  parseFindingsFlags,
  renderFindingLines,
  selectForFlags,
} from '../findings-output.js';
import { rootScopes } from '../scope.js';
import { renderUnused, renderWithheldLine, SIGNAL_OPTIONS, signalFlags } from '../signal-flags.js';

export function renderScanSummary(artifact: ScanArtifact): string {
  const lines: string[] = [];
  const bearing = Object.keys(artifact.signals);
  lines.push(
    `Scanned ${artifact.files_scanned} doc${artifact.files_scanned === 1 ? '' : 's'} in ${quote(artifact.project_root)}; ${bearing.length} with signals.`,
  );
  const counts = new Map<string, number>();
  for (const list of Object.values(artifact.signals))
    for (const signal of list) counts.set(signal.name, (counts.get(signal.name) ?? 0) + 1);
  if (counts.size > 0) {
    lines.push('Signals:');
    for (const [name, count] of [...counts].sort((a, b) => (a[0] < b[0] ? -1 : 1)))
      lines.push(`  ${name.padEnd(24)} ${count}`);
  }
  if (artifact.excluded.length > 0) {
    const byReason = new Map<string, string[]>();
    for (const e of artifact.excluded) byReason.set(e.reason, [...(byReason.get(e.reason) ?? []), e.path]);
    lines.push(`Excluded (${artifact.excluded.length}):`);
    for (const [reason, paths] of [...byReason].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const shown = paths.slice(0, 3).map(quote).join(', ');
      lines.push(`  ${reason.padEnd(24)} ${paths.length}  ${shown}${paths.length > 3 ? ', …' : ''}`);
    }
  }
  const unavailable = new Map<string, string[]>();
  for (const u of artifact.unavailable ?? [])
    unavailable.set(u.reason, [...(unavailable.get(u.reason) ?? []), u.signal]);
  for (const [reason, signals] of unavailable)
    lines.push(`Unavailable: ${signals.join(', ')} (${quote(reason)})`);
  const incomplete = artifact.history_incomplete ?? [];
  if (incomplete.length > 0) {
    const shown = incomplete
      .slice(0, 3)
      .map((h) => quote(h.path))
      .join(', ');
    lines.push(
      `History incomplete (objects missing from this clone): ${incomplete.length}  ${shown}${incomplete.length > 3 ? ', …' : ''}`,
    );
  }
  const unbuilt = new Map<string, string[]>();
  for (const u of artifact.unbuilt ?? [])
    unbuilt.set(`${u.site}: ${u.reason}`, [...(unbuilt.get(`${u.site}: ${u.reason}`) ?? []), u.path]);
  for (const [reason, paths] of unbuilt)
    lines.push(`Unbuilt, links not checked (${reason}): ${paths.map(quote).join(', ')}`);
  return lines.join('\n');
}

export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parseCommandArgs(ctx.argv, 'hygiene scan', {
    scope: { type: 'string', multiple: true },
    'no-cache': { type: 'boolean' },
    ...FINDINGS_OPTIONS,
    ...SIGNAL_OPTIONS,
  });
  const flags = parseFindingsFlags(values, ctx.cwd, false);
  const out = new Output(flags.format === 'json', ctx.streams, ctx.env);
  const shown = signalFlags(ctx.cwd, values);
  const root = await resolveProjectRoot(ctx.cwd);
  const config = await loadConfig(root, ctx.env, shown.configFile);
  const scopes = await rootScopes(ctx.cwd, many(values.scope));
  const artifact = await scan({
    root,
    config,
    scopes,
    signal: ctx.signal,
    nowMs: ctx.clock.now().getTime(),
    env: ctx.env,
    ...(values['no-cache'] === true ? { cache: false } : {}),
    onProgress: (message) => out.progress(`stw: ${message}`),
    ...(shown.showAllSignals === true ? { showAllSignals: true } : {}),
    ...namedClasses(flags.gate.failOn),
    ...(shown.reportUnusedSuppressions === true ? { reportUnusedSuppressions: true } : {}),
  });
  const partial = isPartialScan(artifact);
  const selected = await selectForFlags(
    root,
    collectFindings(artifact.project_root, artifact.signals),
    flags,
    undefined,
  );
  // --json keeps the artifact as it was; the CI flags add their fields only when given.
  const ci =
    flags.gate.failOn !== undefined ||
    flags.gate.maxFindings !== undefined ||
    flags.baseline !== undefined ||
    flags.changedSince !== undefined ||
    values.format !== undefined;
  // The signals themselves follow the summary, one `path:line:col  signal  detail` line each.
  const human = () =>
    [
      renderScanSummary(artifact),
      ...renderWithheldLine(signalCounts(artifact)),
      ...renderUnused(artifact.withheld?.unused_suppressions),
      ...renderFindingLines(selected),
    ].join('\n');
  const json = {
    status: partial ? 'partial' : 'complete',
    ...artifact,
    ...(ci ? findingsJson(selected) : {}),
  };
  if (flags.format === 'text' || flags.format === 'json') out.result(json, human);
  else out.diag(human());
  if (partial) out.diag('stw: the scan is incomplete: history could not be read (see "Unavailable")');
  if (artifact.history !== undefined) out.diag(`stw: warning: ${shallowWarning(artifact.history.depth)}`);
  return finishFindings(ctx, flags, selected, partial ? 1 : 0);
}
