import { UsageError } from '../../core/errors.js';
import { Output, type Style } from '../../core/output.js';
import { escapeText, quote } from '../../core/quote.js';
import { createTask, type TaskCreateResult } from '../../task/create.js';
import { TASK_CREATE_STEPS } from '../../task/run.js';
import { BACKEND_NAMES, backendInfo, isBackendName } from '../../tidy/backends/registry.js';
import { boundsFromEnv, DEFAULT_APPLY_BOUNDS } from '../../tidy/types.js';
import { parseCommandArgs } from '../args.js';
import type { CommandContext } from '../command.js';
import { stepCheckpoint } from '../crash-points.js';

export function renderTaskCreate(result: TaskCreateResult, style: Style): string {
  const out: string[] = [];
  const task = result.task;
  out.push(
    result.status === 'complete'
      ? style.bold(style.green(`task create: complete — ${quote(task?.task_id ?? '')}`))
      : style.bold(style.red(`task create: ${result.status}`)),
  );
  const problem = result.refusal ?? result.failure;
  if (problem !== null) out.push(`${problem.code}: ${escapeText(problem.message)}`);
  if (task !== null) {
    out.push(`owner: ${quote(task.owner)}`);
    out.push(`source: ${quote(task.source.path)} (common dir ${quote(task.source.common_dir)})`);
    out.push(`base: ${quote(task.base.selector)} at ${task.base.oid}`);
    out.push(backendInfo(task.backend).describeCreatedTask(task));
    out.push(`destination: ${quote(task.destination)}`);
  }
  if (result.created !== null) {
    const c = result.created;
    out.push(`  identity: dev ${c.destination_identity.dev} ino ${c.destination_identity.ino}`);
    if ('workspace' in c) {
      out.push(
        `  working-copy commit: ${c.workspace.commit_id} (change ${c.workspace.change_id}), parent ${c.workspace.parents.join(', ')}`,
      );
      out.push(`  operation: ${c.operation_id}`);
    } else
      out.push(
        `  registration: ${quote(c.registration.admin_dir)} (locked: ${quote(c.registration.lock ?? '')})`,
      );
  }
  if (result.record !== null) out.push(`record: ${quote(result.record)}`);
  if (result.journal !== null) out.push(`journal: ${quote(result.journal)}`);
  return out.join('\n');
}

export async function run(ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    ctx.argv,
    'task create',
    {
      base: { type: 'string' },
      task: { type: 'string' },
      owner: { type: 'string' },
      dest: { type: 'string' },
      'state-dir': { type: 'string' },
      branch: { type: 'string' },
      backend: { type: 'string' },
      json: { type: 'boolean' },
    },
    1,
  );
  const hint = "run 'stw task create --help'";
  for (const flag of ['base', 'task', 'owner', 'dest', 'state-dir'] as const)
    if (values[flag] === undefined) throw new UsageError(`--${flag} is required`, hint);
  const backend = values.backend;
  if (!(backend === undefined || isBackendName(backend)))
    throw new UsageError(`--backend must be ${BACKEND_NAMES.join(' or ')}, not ${quote(backend)}`, hint);
  let bounds: ReturnType<typeof boundsFromEnv>;
  try {
    bounds = boundsFromEnv(ctx.env, DEFAULT_APPLY_BOUNDS);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const checkpoint = stepCheckpoint(ctx, TASK_CREATE_STEPS, 'id');
  const result = await createTask({
    path: positionals[0] ?? '.',
    base: values.base!,
    taskId: values.task!,
    owner: values.owner!,
    dest: values.dest!,
    stateDir: values['state-dir']!,
    branch: values.branch,
    backend,
    env: ctx.env,
    cwd: ctx.cwd,
    clock: ctx.clock,
    bounds,
    signal: ctx.signal,
    ...(checkpoint === undefined ? {} : { checkpoint }),
  });
  const output = new Output(values.json === true, ctx.streams, ctx.env);
  output.result(result, (style) => renderTaskCreate(result, style));
  const problem = result.refusal ?? result.failure;
  if (problem !== null) output.diag(`stw: task create ${result.status}: ${escapeText(problem.message)}`);
  return result.status === 'complete' ? 0 : 1;
}
