/**
 * `stw hygiene check` answered from its result cache (docs/scanner-and-classifiers.md, "The
 * check's result"), before the command table, the scanner or a second process start
 * (bin.ts): when every input of the last stored run of the same invocation still holds, its
 * report pair is written again and its output printed, at this run's instant. Anything
 * else — a miss, a surprise, an error — returns undefined and the full check runs.
 */
import { appendFileSync } from 'node:fs';
import { clockFromEnv } from '../core/clock.js';
import { replayCheck } from '../hygiene/check-cache/index.js';

/** The exit code of a replayed check, or undefined when the full check must run. */
export async function replay(argv: readonly string[]): Promise<number | undefined> {
  const rest = argv.slice(2);
  if (rest.some((arg) => arg === '--help' || arg === '-h' || arg === '--no-cache')) return undefined;
  try {
    const replayed = await replayCheck(
      {
        argv: rest,
        cwd: process.cwd(),
        env: process.env,
        stdoutIsTTY: process.stdout.isTTY === true,
        stderrIsTTY: process.stderr.isTTY === true,
      },
      clockFromEnv(process.env),
    );
    if (replayed === undefined) return undefined;
    // Tests tell a replayed run from a full one by this line (only with STW_TEST_HOOKS=1).
    const log = process.env['STW_TEST_HOOKS'] === '1' ? process.env['STW_TEST_REPLAY_LOG'] : undefined;
    if (log !== undefined && log !== '') appendFileSync(log, 'replayed\n');
    if (replayed.stderr !== '') process.stderr.write(replayed.stderr);
    process.stdout.write(replayed.stdout);
    return replayed.exitCode;
  } catch {
    // A malformed STW_NOW, an unreadable file: the full check says what is wrong.
    return undefined;
  }
}
