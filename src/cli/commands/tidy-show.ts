import { UsageError } from '../../core/errors.js';
import { Output } from '../../core/output.js';
import { showTidyPlan } from '../../tidy/review.js';
import { parseCommandArgs } from '../args.js';
import type { CommandContext } from '../command.js';
import { renderPlan } from './tidy-plan.js';

export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parseCommandArgs(ctx.argv, 'tidy show', {
    plan: { type: 'string' },
    'state-dir': { type: 'string' },
    json: { type: 'boolean' },
  });
  const hint = "run 'stw tidy show --help'";
  if (values.plan === undefined) throw new UsageError('--plan is required (the id of a stored plan)', hint);
  const stateDir = values['state-dir'];
  if (stateDir === undefined)
    throw new UsageError('--state-dir is required (the directory the plan is stored in)', hint);
  const plan = await showTidyPlan({ planId: values.plan, stateDir, cwd: ctx.cwd });
  const output = new Output(values.json === true, ctx.streams, ctx.env);
  output.result(plan, (style) => renderPlan(plan, style, stateDir));
  return 0;
}
