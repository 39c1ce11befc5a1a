import { formatInstant } from '../../core/clock.js';
import { Output } from '../../core/output.js';
import { quote } from '../../core/quote.js';
import { resolveProjectRoot } from '../../hygiene/project.js';
import { GITIGNORE_LINE, STATE_DIR, StateStore } from '../../hygiene/state/store.js';
import type { HygieneState } from '../../hygiene/types.js';
import { parseCommandArgs } from '../args.js';
import type { CommandContext } from '../command.js';

const DAY_MS = 24 * 60 * 60 * 1000;

function ago(instant: string, now: Date): string {
  const days = Math.floor((now.getTime() - Date.parse(instant)) / DAY_MS);
  if (days < 0) return 'in the future';
  if (days === 0) return 'less than a day ago';
  return days === 1 ? '1 day ago' : `${days} days ago`;
}

/** Read-only: the three timestamps, whether a report exists, whether git ignores the state dir. */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parseCommandArgs(ctx.argv, 'hygiene status', { json: { type: 'boolean' } }, 0);
  const out = new Output(values.json === true, ctx.streams, ctx.env);
  const now = ctx.clock.now();
  const root = await resolveProjectRoot(ctx.cwd);
  const store = new StateStore(root);
  const state = await store.read();
  const hasReport = await store.hasReport();
  const ignored = await store.isIgnoredByGit();
  const result = {
    status: 'ok',
    now: formatInstant(now),
    project_root: root,
    state,
    report: {
      exists: hasReport,
      json_path: hasReport ? store.reportJsonPath : null,
      md_path: hasReport ? store.reportMdPath : null,
    },
    state_dir_ignored: ignored ?? null,
    ...(ignored === false ? { gitignore_line: GITIGNORE_LINE } : {}),
  };
  out.result(result, (style) => {
    const rows: [string, keyof HygieneState][] = [
      ['last check', 'last_check'],
      ['last clean', 'last_clean'],
      ['last reminded', 'last_reminded'],
    ];
    const lines = [`Docs hygiene status for ${quote(root)}`];
    for (const [label, field] of rows) {
      const value = state[field];
      lines.push(
        `  ${label.padEnd(15)}${value === null ? style.dim('never') : `${value} (${ago(value, now)})`}`,
      );
    }
    lines.push(
      `  ${'report'.padEnd(15)}${
        hasReport
          ? `${quote(store.reportJsonPath)}, ${quote(store.reportMdPath)}`
          : style.dim("none (run 'stw hygiene check')")
      }`,
    );
    if (ignored === false)
      lines.push(`note: ${STATE_DIR}/ is not ignored by git; add this line to .gitignore: ${GITIGNORE_LINE}`);
    return lines.join('\n');
  });
  return 0;
}
