import { UsageError } from '../core/errors.js';
import type { CleanFaults } from '../hygiene/apply/clean.js';
import type { CommandContext } from './command.js';

/**
 * TEST-ONLY crash injection for `clean` and `sweep`, active only with STW_TEST_HOOKS=1
 * (never documented for users): STW_TEST_CRASH_AT=<step>[:<n>] kills this process with
 * SIGKILL at that step boundary — the nth time it is reached (default: the first) — with
 * no cleanup of any kind, as a real crash would.
 */
export const CLEAN_CRASH_STEPS = [
  'after-checkpoint',
  'before-rename',
  'after-write',
  'before-hold',
  'after-hold',
  'after-unstage',
  'before-commit',
  'after-commit',
] as const;
type CrashStep = (typeof CLEAN_CRASH_STEPS)[number];

export function crashFaultsFromEnv(env: NodeJS.ProcessEnv): CleanFaults | undefined {
  if (env['STW_TEST_HOOKS'] !== '1' || env['STW_TEST_CRASH_AT'] === undefined) return undefined;
  const [step, nth = '1'] = env['STW_TEST_CRASH_AT'].split(':');
  if (!CLEAN_CRASH_STEPS.includes(step as CrashStep) || !/^[1-9]\d*$/.test(nth))
    throw new UsageError(
      `STW_TEST_CRASH_AT must be <step>[:<n>] with step one of ${CLEAN_CRASH_STEPS.join(', ')}`,
    );
  let seen = 0;
  const at = (name: CrashStep) => () => {
    if (name !== step) return;
    seen += 1;
    if (seen === Number(nth)) process.kill(process.pid, 'SIGKILL');
  };
  return {
    afterCheckpoint: at('after-checkpoint'),
    beforeRename: at('before-rename'),
    afterWrite: at('after-write'),
    beforeHold: at('before-hold'),
    afterHold: at('after-hold'),
    afterUnstage: at('after-unstage'),
    beforeCommit: at('before-commit'),
    afterCommit: at('after-commit'),
  };
}

interface StepSelector<Step extends string> {
  step: Step;
  id: number | undefined;
}

function parseStepSelector<Step extends string>(
  name: string,
  value: string | undefined,
  steps: readonly Step[],
  idName: string,
): StepSelector<Step> | undefined {
  if (value === undefined || value === '') return undefined;
  const [step, id, ...rest] = value.split(':');
  const n = id === undefined ? undefined : Number(id);
  if (
    !(steps as readonly string[]).includes(step ?? '') ||
    rest.length > 0 ||
    (n !== undefined && !(Number.isSafeInteger(n) && n > 0))
  )
    throw new UsageError(`${name} must be <step>[:<${idName}>] with step one of ${steps.join(', ')}`);
  return { step: step as Step, id: n };
}

/**
 * TEST-ONLY fault injection for the journaled runs (tidy apply, retirement, task create),
 * active only with STW_TEST_HOOKS=1 (never documented for users):
 * STW_TEST_CRASH_AT=<step>[:<id>] kills this process with SIGKILL at that protocol
 * boundary — the honest simulation of a crash, with no cleanup of any kind.
 * STW_TEST_INTERRUPT_AT does the same with SIGTERM and waits until the CLI's handler has
 * aborted the run's signal, so that cancellation is observed deterministically.
 */
export function stepCheckpoint<Step extends string>(
  ctx: CommandContext,
  steps: readonly Step[],
  idName: string,
): ((step: Step, id: number) => Promise<void>) | undefined {
  if (ctx.env['STW_TEST_HOOKS'] !== '1') return undefined;
  const crash = parseStepSelector('STW_TEST_CRASH_AT', ctx.env['STW_TEST_CRASH_AT'], steps, idName);
  const interrupt = parseStepSelector(
    'STW_TEST_INTERRUPT_AT',
    ctx.env['STW_TEST_INTERRUPT_AT'],
    steps,
    idName,
  );
  if (crash === undefined && interrupt === undefined) return undefined;
  const matches = (selector: StepSelector<Step> | undefined, step: Step, id: number) =>
    selector !== undefined && selector.step === step && (selector.id === undefined || selector.id === id);
  return async (step, id) => {
    if (matches(crash, step, id)) process.kill(process.pid, 'SIGKILL');
    if (matches(interrupt, step, id) && !ctx.signal.aborted) {
      // Signal watchers do not keep the event loop alive: hold it open until delivery.
      const keepAlive = setInterval(() => {}, 60_000);
      const aborted = new Promise<void>((resolve) =>
        ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      process.kill(process.pid, 'SIGTERM');
      await aborted;
      clearInterval(keepAlive);
    }
  };
}
