import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { jsonSyntaxDetail, UsageError } from '../../core/errors.js';
import { Output } from '../../core/output.js';
import { escapeText, quote } from '../../core/quote.js';
import { validateReport } from '../../hygiene/report/validate.js';
import { parseCommandArgs } from '../args.js';
import type { CommandContext } from '../command.js';

const HINT = "run 'stw hygiene validate --help'";

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** Exit 0 valid, 1 invalid, 2 when the file is missing, unreadable or not JSON. */
export async function run(ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    ctx.argv,
    'hygiene validate',
    { json: { type: 'boolean' } },
    1,
  );
  const file = positionals[0];
  if (file === undefined) throw new UsageError('missing FILE (the report to validate)', HINT);
  const out = new Output(values.json === true, ctx.streams, ctx.env);
  let text: string;
  try {
    text = await readFile(resolve(ctx.cwd, file), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UsageError(`no such file: ${quote(file)}`, HINT, 'no-such-file');
    throw new UsageError(`cannot read ${quote(file)}: ${code ?? 'error'}`, HINT, 'unreadable');
  }
  let report: unknown;
  try {
    report = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`not JSON: ${quote(file)}: ${jsonSyntaxDetail(error)}`, HINT, 'not-json');
  }
  // Anchors are checked against the files on disk when the report's project root exists.
  const root =
    typeof report === 'object' && report !== null
      ? (report as { scan?: { project_root?: unknown } }).scan?.project_root
      : undefined;
  const rootPath = typeof root === 'string' && root !== '' ? resolve(ctx.cwd, root) : undefined;
  const projectRoot = rootPath !== undefined && (await isDirectory(rootPath)) ? rootPath : undefined;
  const violations = validateReport(report, projectRoot === undefined ? {} : { projectRoot });
  const valid = violations.length === 0;
  const entries = (report as { entries?: unknown } | null)?.entries;
  out.result(
    {
      status: valid ? 'ok' : 'invalid',
      file,
      valid,
      violations,
      lines_checked_against: projectRoot ?? null,
    },
    (style) => {
      if (valid) {
        const count = Array.isArray(entries) ? entries.length : 0;
        return `${style.green('valid')}: ${quote(file)} (report schema 1.0, ${count} ${count === 1 ? 'entry' : 'entries'})`;
      }
      const head = `${style.red('invalid')}: ${quote(file)} — ${violations.length} ${
        violations.length === 1 ? 'violation' : 'violations'
      }`;
      return [head, ...violations.map((violation) => `  ${escapeText(violation)}`)].join('\n');
    },
  );
  return valid ? 0 : 1;
}
