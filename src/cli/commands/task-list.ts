import { resolve } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { Output, type Style } from '../../core/output.js';
import { escapeText, quote } from '../../core/quote.js';
import { listTasks, type TaskListResult } from '../../task/list.js';
import { backendInfo } from '../../tidy/backends/registry.js';
import { boundsFromEnv } from '../../tidy/types.js';
import { parseCommandArgs } from '../args.js';
import type { CommandContext } from '../command.js';

export function renderTaskList(result: TaskListResult, style: Style): string {
  const out: string[] = [];
  if (result.refusal !== null) {
    out.push(style.bold(style.red('task list: refused')));
    out.push(`${result.refusal.code}: ${escapeText(result.refusal.message)}`);
    return out.join('\n');
  }
  out.push(style.bold(`task list: ${result.tasks.length} task(s) in ${quote(result.state_dir)}`));
  for (const entry of result.tasks) {
    out.push(`  ${quote(entry.task_id)}`);
    if (entry.record_problem !== null) {
      out.push(`    record: ${entry.record_problem.code}: ${escapeText(entry.record_problem.message)}`);
      continue;
    }
    const task = entry.task!;
    const backend = backendInfo(task.backend);
    out.push(`    owner ${quote(task.owner)}, ${backend.describeTask(task)}`);
    out.push(`    destination ${quote(task.destination)}: ${entry.now.destination}`);
    out.push(
      `    creation: ${entry.creation.complete ? 'complete' : `incomplete (${escapeText(entry.creation.problem ?? '')})`}`,
    );
    const wt = entry.now.worktree;
    out.push(
      `    registration: ${entry.now.registration}${wt === null ? '' : ` (${wt.branch === null ? 'detached' : quote(wt.branch)} at ${wt.head ?? 'unknown'}${wt.locked === null ? ', unlocked' : ', locked'})`}`,
    );
    out.push(`    ${backend.describeTaskNow(entry.now)}`);
    if (entry.now.problem !== null) out.push(`    not observed: ${escapeText(entry.now.problem)}`);
  }
  return out.join('\n');
}

export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parseCommandArgs(ctx.argv, 'task list', {
    'state-dir': { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values['state-dir'] === undefined)
    throw new UsageError('--state-dir is required', "run 'stw task list --help'");
  let bounds: ReturnType<typeof boundsFromEnv>;
  try {
    bounds = boundsFromEnv(ctx.env);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const result = await listTasks({
    stateDir: resolve(ctx.cwd, values['state-dir']),
    bounds,
    signal: ctx.signal,
    env: ctx.env,
  });
  const output = new Output(values.json === true, ctx.streams, ctx.env);
  output.result(result, (style) => renderTaskList(result, style));
  if (result.refusal !== null) output.diag(`stw: task list refused: ${escapeText(result.refusal.message)}`);
  return result.status === 'complete' ? 0 : 1;
}
