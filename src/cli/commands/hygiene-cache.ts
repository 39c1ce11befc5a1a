import { UsageError } from '../../core/errors.js';
import { Output } from '../../core/output.js';
import { quote } from '../../core/quote.js';
import { clearScanCache } from '../../hygiene/scan/cache/index.js';
import { parseCommandArgs } from '../args.js';
import type { CommandContext } from '../command.js';

/** `stw hygiene cache clear`: removes the scan cache under the git dir and says what went. */
export async function run(ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    ctx.argv,
    'hygiene cache',
    { json: { type: 'boolean' } },
    1,
  );
  if (positionals[0] !== 'clear')
    throw new UsageError(
      positionals[0] === undefined ? 'missing action: clear' : `unknown action '${positionals[0]}'`,
      "run 'stw hygiene cache --help'",
    );
  const out = new Output(values.json === true, ctx.streams, ctx.env);
  const cleared = await clearScanCache(ctx.cwd, ctx.env);
  out.result(
    {
      status: 'ok',
      cache_dir: cleared.path ?? null,
      removed: { entries: cleared.entries, bytes: cleared.bytes },
    },
    () =>
      cleared.path === undefined
        ? 'Not in a git repository: there is no scan cache.'
        : `Removed ${cleared.entries} cache entr${cleared.entries === 1 ? 'y' : 'ies'} (${cleared.bytes} bytes) from ${quote(cleared.path)}.`,
  );
  return 0;
}
