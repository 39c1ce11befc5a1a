import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Deadline } from '../../core/deadline.js';
import { UsageError, ValidationError } from '../../core/errors.js';
import { Output } from '../../core/output.js';
import { escapeText, quote } from '../../core/quote.js';
import { checkReportBelongs } from '../../hygiene/apply/clean.js';
import { applyGated } from '../../hygiene/apply/gate.js';
import { resolveProjectRoot } from '../../hygiene/project.js';
import { validateReport } from '../../hygiene/report/validate.js';
import type { Report } from '../../hygiene/types.js';
import { many, parseCommandArgs } from '../args.js';
import type { CommandContext } from '../command.js';
import { CONFIG_OPTION, configFileFlag } from '../signal-flags.js';
import { renderInterrupted } from './hygiene-clean.js';

/** `stw hygiene apply`: the patch applier behind the approval gate — edits the worktree, never commits. */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parseCommandArgs(
    ctx.argv,
    'hygiene apply',
    {
      report: { type: 'string' },
      only: { type: 'string', multiple: true },
      json: { type: 'boolean' },
      ...CONFIG_OPTION,
    },
    0,
  );
  const out = new Output(values.json === true, ctx.streams, ctx.env);
  if (values.report === undefined)
    throw new UsageError('missing --report FILE', "run 'stw hygiene apply --help'");
  const file = resolve(ctx.cwd, values.report);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read ${quote(values.report)}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${quote(values.report)} is not JSON`);
  }
  const violations = validateReport(value);
  if (violations.length > 0)
    throw new ValidationError(
      'invalid-report',
      `${quote(values.report)} is not a valid report: ${violations[0]}`,
      violations,
    );
  const report = value as Report;
  const root = await resolveProjectRoot(ctx.cwd);
  const { configFile } = configFileFlag(ctx.cwd, values.config);
  await checkReportBelongs(report, root, Deadline.none(), configFile);
  const only = values.only === undefined ? undefined : many(values.only);
  const result = await applyGated({
    root,
    report,
    ...(configFile !== undefined ? { configFile } : {}),
    env: ctx.env,
    clock: ctx.clock,
    ...(only ? { only } : {}),
  });
  out.result({ ...result, project_root: root }, (style) => {
    const lines = [`Applied to the worktree of ${quote(root)} (nothing committed):`];
    if (result.interrupted_run !== undefined) lines.unshift(renderInterrupted(result.interrupted_run));
    for (const f of result.files) {
      const label = f.status.padEnd(9);
      const colour =
        f.status === 'applied' ? style.green : f.status === 'unchanged' ? style.dim : style.yellow;
      const detail = f.reason ? ` (${f.reason}${f.detail ? `: ${escapeText(f.detail)}` : ''})` : '';
      const moved = f.moved_to ? ` → ${quote(f.moved_to)}` : '';
      lines.push(`  ${colour(label)} ${quote(f.path)}${moved}${detail}`);
    }
    for (const id of result.needs_approval) {
      const entry = report.entries.find((e) => e.id === id)!;
      lines.push(
        `  ${style.dim('held'.padEnd(9))} ${quote(entry.path)} (${quote(id)}: confirm tier; name it with --only to apply)`,
      );
    }
    for (const id of result.needs_model) {
      const entry = report.entries.find((e) => e.id === id)!;
      lines.push(
        `  ${style.dim('held'.padEnd(9))} ${quote(entry.path)} (${quote(id)}: generative; apply takes no distilled text: use stw hygiene clean)`,
      );
    }
    if (result.files.length === 0 && result.needs_approval.length === 0 && result.needs_model.length === 0)
      lines.push('  nothing to apply');
    if (result.stage.length > 0) lines.push(`to stage: ${result.stage.map(quote).join(' ')}`);
    if (result.staged_by_move.length > 0)
      lines.push(`staged by git mv: ${result.staged_by_move.map(quote).join(' ')}`);
    return lines.join('\n');
  });
  return result.status === 'applied' || result.status === 'nothing' ? 0 : 1;
}
