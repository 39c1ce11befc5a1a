import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { formatInstant } from '../../core/clock.js';
import { jsonSyntaxDetail, UsageError, ValidationError } from '../../core/errors.js';
import { writeFileAtomic } from '../../core/fs-atomic.js';
import { Output } from '../../core/output.js';
import { quote } from '../../core/quote.js';
import { readProposalsFile, summarizeReport } from '../../hygiene/check.js';
import { loadConfig } from '../../hygiene/config.js';
import { finalizeReport } from '../../hygiene/report/finalize.js';
import { proveLinkFixesIn, type UnprovedFix } from '../../hygiene/report/prove.js';
import { validateReport } from '../../hygiene/report/validate.js';
import type { ScanArtifact } from '../../hygiene/types.js';
import { parseCommandArgs } from '../args.js';
import type { CommandContext } from '../command.js';
import { CONFIG_OPTION, configFileFlag } from '../signal-flags.js';

const isStringArray = (value: unknown) =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** Reads a scan artifact (`stw hygiene scan --json` output); only the fields finalize uses are checked. */
async function readScanArtifact(path: string, cwd: string): Promise<ScanArtifact> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read scan file ${quote(path)} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`,
    );
  }
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new ValidationError('invalid-scan', `scan file is not JSON: ${jsonSyntaxDetail(error)}`);
  }
  const problems: string[] = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    problems.push('(root): must be an object');
  else {
    if (typeof value['project_root'] !== 'string') problems.push('project_root: must be a string');
    if (!isStringArray(value['shortlist'])) problems.push('shortlist: must be an array of strings');
    if (!isStringArray(value['scope_globs'])) problems.push('scope_globs: must be an array of strings');
    if (!isStringArray(value['excluded_dirs'])) problems.push('excluded_dirs: must be an array of strings');
    if (!Number.isInteger(value['files_scanned'])) problems.push('files_scanned: must be an integer');
    const signals = value['signals'];
    if (typeof signals !== 'object' || signals === null || Array.isArray(signals))
      problems.push('signals: must be an object');
    if (value['agent_context'] !== undefined && !isStringArray(value['agent_context'])) {
      problems.push('agent_context: must be an array of strings');
    }
  }
  if (problems.length > 0) {
    throw new ValidationError('invalid-scan', `invalid scan file ${quote(path)}: ${problems[0]}`, problems);
  }
  const artifact = value as unknown as ScanArtifact;
  return { ...artifact, project_root: resolve(cwd, artifact.project_root) };
}

const describeUnproved = (item: UnprovedFix) =>
  `dropped an unproved link fix in ${quote(item.path)}: ${item.reason}`;

export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parseCommandArgs(ctx.argv, 'hygiene finalize', {
    scan: { type: 'string' },
    proposals: { type: 'string' },
    out: { type: 'string' },
    json: { type: 'boolean' },
    ...CONFIG_OPTION,
  });
  const output = new Output(values.json === true, ctx.streams, ctx.env);
  if (values.scan === undefined)
    throw new UsageError('missing --scan FILE', "run 'stw hygiene finalize --help'");
  if (values.proposals === undefined) {
    throw new UsageError('missing --proposals FILE', "run 'stw hygiene finalize --help'");
  }
  // Both inputs are parsed, and every proposal checked, before anything is read or hashed.
  const proposals = await readProposalsFile(resolve(ctx.cwd, values.proposals));
  const artifact = await readScanArtifact(resolve(ctx.cwd, values.scan), ctx.cwd);
  // Every link fix is proved (applied in memory, re-resolved) before it can be an entry.
  const { configFile } = configFileFlag(ctx.cwd, values.config);
  const proved = await proveLinkFixesIn(artifact.project_root, proposals, undefined, configFile);
  for (const item of proved.unproved) output.diag(`stw: ${describeUnproved(item)}`);
  const report = await finalizeReport({
    artifact,
    proposals: proved.proposals,
    generatedAt: formatInstant(ctx.clock.now()),
    clock: ctx.clock,
    // A move may go to the project's archive.dir as well as to a folder named like an archive.
    archiveDir: (await loadConfig(artifact.project_root, ctx.env, configFile)).archive.dir,
  });
  const violations = validateReport(report);
  if (violations.length > 0) {
    throw new ValidationError(
      'invalid-report',
      `the assembled report is invalid: ${violations[0]}`,
      violations,
    );
  }
  const json = `${JSON.stringify(report, null, 2)}\n`;
  const summary = summarizeReport(report);
  if (values.out === undefined) {
    if (values.json === true)
      output.result({ status: 'complete', out: null, summary, unproved: proved.unproved, report }, () => '');
    else ctx.streams.stdout.write(json);
    return 0;
  }
  const outPath = resolve(ctx.cwd, values.out);
  await writeFileAtomic(outPath, json);
  output.result(
    { status: 'complete', out: outPath, summary, unproved: proved.unproved },
    () =>
      `Wrote a report with ${summary.candidates} entr${summary.candidates === 1 ? 'y' : 'ies'} (${summary.auto} auto, ${summary.confirm} need confirmation; ≈${summary.tokens_saved_per_session} tokens saved per agent session) to ${quote(outPath)}.`,
  );
  return 0;
}
