import { Output, type Style } from '../../core/output.js';
import { quote } from '../../core/quote.js';
import { listRecoveryPins, type PinsListing } from '../../tidy/review.js';
import { parseCommandArgs } from '../args.js';
import type { CommandContext } from '../command.js';

function age(seconds: number | null): string {
  if (seconds === null) return 'age unknown';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86_400)} days ago`;
}

/** The human rendering: the same facts as the JSON; restore commands are printable ASCII. */
export function renderPins(listing: PinsListing, style: Style): string {
  const out = [
    style.bold(`tidy pins: ${listing.pins.length} recovery ref(s) in ${quote(listing.repository)}`),
  ];
  for (const pin of listing.pins) {
    const what = pin.branch === null ? 'branch unknown' : `branch ${quote(pin.branch)}`;
    const plan = pin.plan_id === null ? 'not named by a plan' : `plan ${pin.plan_id} action ${pin.action_id}`;
    out.push(`  ${quote(pin.recovery_ref)} at ${pin.oid}`);
    out.push(`    ${what}, ${plan}, pinned ${pin.pinned_at ?? '(time unknown)'} (${age(pin.age_seconds)})`);
    if (pin.restore_command !== null) out.push(`    ${pin.restore_command}`);
  }
  if (listing.pins.some((pin) => pin.branch === null))
    out.push(
      listing.state_dir === null
        ? 'a pin without a branch has no note in its reflog (made by an older version): give --state-dir DIR'
        : 'a pin without a branch is not in a plan stored in the state directory',
    );
  out.push('nothing was removed; review a pin before deleting it (git update-ref -d REF OID)');
  return out.join('\n');
}

export async function run(ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    ctx.argv,
    'tidy pins',
    { 'state-dir': { type: 'string' }, json: { type: 'boolean' } },
    1,
  );
  const listing = await listRecoveryPins({
    path: positionals[0] ?? '.',
    stateDir: values['state-dir'],
    cwd: ctx.cwd,
    clock: ctx.clock,
  });
  const output = new Output(values.json === true, ctx.streams, ctx.env);
  output.result(listing, (style) => renderPins(listing, style));
  return 0;
}
