import { UsageError } from '../core/errors.js';
import type { CleanFaults } from '../hygiene/apply/clean.js';

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
