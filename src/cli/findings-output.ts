/**
 * The CI side of `check` and `scan` (docs/ci.md): `--format`, the gate, `--baseline`,
 * `--changed-since`, `--sarif FILE`. Parses the flags, narrows the library's findings and
 * writes them in the chosen format; the gate's verdict becomes exit code 3.
 */
import { realpath, writeFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { UsageError } from '../core/errors.js';
import { renderJson } from '../core/output.js';
import { toolVersion } from '../core/package.js';
import { escapeText, quote } from '../core/quote.js';
import { readBaseline } from '../hygiene/output/baseline.js';
import { renderGithub } from '../hygiene/output/github.js';
import {
  type Finding,
  findingLocation,
  GATE_EXIT_CODE,
  groupFindings,
  parseFailOn,
  parseMaxFindings,
  readChangedLines,
  type SelectedFindings,
  selectFindings,
} from '../hygiene/output/index.js';
import { renderSarif } from '../hygiene/output/sarif.js';
import type { Entry } from '../hygiene/types.js';
import type { CommandContext } from './command.js';

export const FORMATS = ['text', 'json', 'sarif', 'github'] as const;
export type Format = (typeof FORMATS)[number];

/** The flags `check` and `scan` share, for `parseCommandArgs`. */
export const FINDINGS_OPTIONS = {
  format: { type: 'string' },
  json: { type: 'boolean' },
  'fail-on': { type: 'string' },
  'max-findings': { type: 'string' },
  'changed-since': { type: 'string' },
  baseline: { type: 'string' },
  sarif: { type: 'string' },
} as const;

interface FindingsValues {
  format?: string;
  json?: boolean;
  'fail-on'?: string;
  'max-findings'?: string;
  'changed-since'?: string;
  baseline?: string;
  sarif?: string;
}

export interface FindingsFlags {
  format: Format;
  gate: { failOn?: ReturnType<typeof parseFailOn>; maxFindings?: number };
  changedSince?: string;
  /** Absolute. */
  baseline?: string;
  /** Absolute: where `--sarif` writes a SARIF copy besides the chosen format. */
  sarifFile?: string;
}

/** Checks the shared flags before anything runs: a bad value is a usage error (exit 2). */
export function parseFindingsFlags(values: FindingsValues, cwd: string, hasEntries: boolean): FindingsFlags {
  const format = values.format ?? (values.json === true ? 'json' : 'text');
  if (!(FORMATS as readonly string[]).includes(format))
    throw new UsageError(`unknown --format ${quote(format)}`, `use one of ${FORMATS.join(', ')}`);
  if (values.json === true && format !== 'json')
    throw new UsageError(`--json is --format json; it cannot be combined with --format ${format}`);
  const failOn = values['fail-on'];
  const max = values['max-findings'];
  return {
    format: format as Format,
    gate: {
      ...(failOn !== undefined ? { failOn: parseFailOn(failOn, hasEntries) } : {}),
      ...(max !== undefined ? { maxFindings: parseMaxFindings(max) } : {}),
    },
    ...(values['changed-since'] !== undefined ? { changedSince: values['changed-since'] } : {}),
    ...(values.baseline !== undefined ? { baseline: resolve(cwd, values.baseline) } : {}),
    ...(values.sarif !== undefined ? { sarifFile: resolve(cwd, values.sarif) } : {}),
  };
}

/** `check PATH…`: each path made root-relative (as pre-commit passes them, relative to cwd). */
export async function rootPaths(root: string, cwd: string, paths: readonly string[]): Promise<Set<string>> {
  const realCwd = await realpath(cwd);
  const out = new Set<string>();
  for (const path of paths) {
    const inside = relative(root, isAbsolute(path) ? path : resolve(realCwd, path));
    if (inside === '' || inside.startsWith('..') || isAbsolute(inside))
      throw new UsageError(`path ${quote(path)} is not a file inside the project root ${quote(root)}`);
    out.add(inside.split(sep).join('/'));
  }
  return out;
}

/** Reads the baseline and the changed lines the flags name, and narrows the findings. */
export async function selectForFlags(
  root: string,
  all: readonly Finding[],
  flags: FindingsFlags,
  paths: ReadonlySet<string> | undefined,
): Promise<SelectedFindings> {
  return selectFindings(
    all,
    {
      ...(paths !== undefined ? { paths } : {}),
      ...(flags.changedSince !== undefined
        ? { changed: await readChangedLines(root, flags.changedSince) }
        : {}),
      ...(flags.baseline !== undefined ? { baseline: await readBaseline(flags.baseline) } : {}),
    },
    flags.gate,
  );
}

/** How many finding lines the text format prints before summarising the rest. */
const LISTED_FINDINGS = 50;

/** One finding as a text line: `  path:line:col  rule  message  [entry, tier]`. */
function findingLine(finding: Finding): string {
  const entry = finding.entry === undefined ? '' : `  [${finding.entry.id}, ${finding.entry.safety_tier}]`;
  return `  ${quote(findingLocation(finding))}  ${finding.rule}  ${escapeText(finding.message)}${entry}`;
}

/** The text format's finding lines (`path:line:col  rule  message`) and the gate's verdict. */
export function renderFindingLines(selected: SelectedFindings): string[] {
  const lines: string[] = [];
  const { findings } = selected;
  if (findings.length > 0) lines.push('Findings:');
  for (const finding of findings.slice(0, LISTED_FINDINGS)) lines.push(findingLine(finding));
  if (findings.length > LISTED_FINDINGS)
    lines.push(`  … and ${findings.length - LISTED_FINDINGS} more (--format json lists all)`);
  return [...lines, ...verdictLines(selected)];
}

/** The baseline's and the gate's lines under the findings. */
function verdictLines(selected: SelectedFindings): string[] {
  const lines: string[] = [];
  if (selected.baselined > 0) lines.push(`${selected.baselined} findings are in the baseline and not shown.`);
  const verdict = gateLine(selected);
  if (verdict !== undefined) lines.push(verdict);
  return lines;
}

/** How many findings each group of `check`'s text shows before pointing at the rest. */
export const LISTED_PER_GROUP = 10;

/**
 * `check`'s findings grouped by what to do (`groupFindings`): fix, review, look at; each
 * group's first `LISTED_PER_GROUP` lines, then how many more and where they are (`rest`:
 * the saved report.md, or `--format json` when none was saved).
 */
export function renderFindingGroups(
  selected: SelectedFindings,
  entries: readonly Entry[],
  rest: string,
): string[] {
  const groups = groupFindings(selected.findings, entries);
  const sections: [string, string, Finding[]][] = [
    ['Fix', 'stw hygiene clean applies them', groups.fix],
    ['Review', 'a rewrite to read before it is applied', groups.review],
    ['Look at', 'signals with no proposed fix', groups.look],
  ];
  const lines: string[] = [];
  for (const [title, hint, list] of sections) {
    if (list.length === 0) continue;
    lines.push(`${title} — ${list.length} (${hint}):`);
    for (const finding of list.slice(0, LISTED_PER_GROUP)) lines.push(findingLine(finding));
    if (list.length > LISTED_PER_GROUP) lines.push(`  … ${list.length - LISTED_PER_GROUP} more in ${rest}`);
  }
  return [...lines, ...verdictLines(selected)];
}

function gateLine(selected: SelectedFindings): string | undefined {
  const gate = selected.gate;
  if (gate === undefined) return undefined;
  const what = `${gate.counted} finding${gate.counted === 1 ? '' : 's'} (--fail-on ${gate.fail_on}), at most ${gate.max_findings} allowed`;
  return gate.failed ? `Gate failed: ${what}.` : `Gate passed: ${what}.`;
}

/** The `--format json` fields the CI flags add to a command's result. */
export function findingsJson(selected: SelectedFindings): Record<string, unknown> {
  return { findings: selected.findings, baselined: selected.baselined, gate: selected.gate ?? null };
}

/**
 * Writes the sarif and github formats (the text and json formats are the command's own,
 * with `renderFindingLines`/`findingsJson` added) and the `--sarif` copy; returns the exit code: 3 when the gate failed, else `code`.
 */
export async function finishFindings(
  ctx: CommandContext,
  flags: FindingsFlags,
  selected: SelectedFindings,
  code: number,
): Promise<number> {
  const sarif = () =>
    renderJson(renderSarif(selected.findings, { toolVersion: toolVersion(), isCounted: selected.isCounted }));
  if (flags.format === 'sarif') ctx.streams.stdout.write(sarif());
  if (flags.format === 'github') {
    ctx.streams.stdout.write(renderGithub(selected.findings, selected.isCounted));
    if (selected.gate?.failed === true)
      ctx.streams.stdout.write(`::error title=stw gate::${gateLine(selected)}\n`);
  }
  if (flags.sarifFile !== undefined) await writeFile(flags.sarifFile, sarif());
  return selected.gate?.failed === true ? GATE_EXIT_CODE : code;
}
