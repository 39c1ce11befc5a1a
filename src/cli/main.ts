#!/usr/bin/env node
import { type Clock, clockFromEnv } from '../core/clock.js';
import { isStwError, type StwError, UsageError } from '../core/errors.js';
import { renderJson, type Streams } from '../core/output.js';
import { toolVersion } from '../core/package.js';
import { escapeText, quote } from '../core/quote.js';
import type { CommandContext, GroupSpec } from './command.js';
import { hygieneGroup } from './groups/hygiene.js';
import { taskGroup } from './groups/task.js';
import { tidyGroup } from './groups/tidy.js';
import { groupHelp, rootHelp } from './help.js';

export const GROUPS: readonly GroupSpec[] = [hygieneGroup, tidyGroup, taskGroup];

/** The env clock, with a malformed `STW_NOW` thrown at the first reading instead of now. */
function deferredClockFromEnv(env: NodeJS.ProcessEnv): Clock {
  try {
    return clockFromEnv(env);
  } catch (error) {
    return {
      now: () => {
        throw error;
      },
    };
  }
}

const isHelpFlag = (arg: string) => arg === '--help' || arg === '-h';

function statusFor(error: StwError): string {
  if (error.exitCode === 2) return 'usage-error';
  if (error.exitCode === 130) return 'interrupted';
  return error.name === 'RefusalError' ? 'refused' : 'failed';
}

/**
 * Dispatches argv to a command and returns the exit code. Known errors become one
 * line on stderr (and a JSON document on stdout under `--json`); anything else is a
 * bug and is reported with its stack.
 */
export async function main(
  argv: string[],
  streams: Streams,
  env: NodeJS.ProcessEnv,
  signal: AbortSignal,
): Promise<number> {
  const wantsJson = argv.includes('--json');
  try {
    const [first, second, ...rest] = argv;
    if (first === undefined || isHelpFlag(first)) {
      streams.stdout.write(`${rootHelp(GROUPS, toolVersion())}\n`);
      return 0;
    }
    if (first === '--version' || first === '-V') {
      streams.stdout.write(`${toolVersion()}\n`);
      return 0;
    }
    const group = GROUPS.find((candidate) => candidate.name === first);
    if (group === undefined) {
      if (first.startsWith('-')) throw new UsageError(`unknown option ${quote(first)}`, "run 'stw --help'");
      throw new UsageError(`unknown command ${quote(first)}`, "run 'stw --help' for the list of commands");
    }
    if (second === undefined || isHelpFlag(second)) {
      streams.stdout.write(`${groupHelp(group)}\n`);
      return 0;
    }
    const command = group.commands.find((candidate) => candidate.name === second);
    if (command === undefined) {
      const what = second.startsWith('-') ? 'option' : 'command';
      throw new UsageError(
        `unknown ${what} ${quote(second)} for 'stw ${group.name}'`,
        `run 'stw ${group.name} --help'`,
      );
    }
    if (rest.some(isHelpFlag)) {
      streams.stdout.write(`${command.help}\n`);
      return 0;
    }
    const ctx: CommandContext = {
      argv: rest,
      cwd: process.cwd(),
      env,
      streams,
      // Prompts are drawn on stderr, so a piped stdout (`| tee log`) still gets one.
      isInteractive: process.stdin.isTTY === true && streams.stderr.isTTY === true,
      clock: command.isHook ? deferredClockFromEnv(env) : clockFromEnv(env),
      signal,
      stdin: process.stdin,
    };
    const module = await command.load();
    return await module.run(ctx);
  } catch (error) {
    if (isStwError(error)) {
      streams.stderr.write(`stw: ${error.message}\n`);
      // What a native command printed when it refused (a commit hook's output), quoted line by line.
      const output = error.details?.['tool_output'];
      if (typeof output === 'string' && output !== '')
        streams.stderr.write(
          `${output
            .split('\n')
            .map((line) => `  | ${escapeText(line)}`)
            .join('\n')}\n`,
        );
      if (error instanceof UsageError && error.hint) streams.stderr.write(`hint: ${error.hint}\n`);
      if (wantsJson) {
        const body: Record<string, unknown> = { code: error.code, message: error.message };
        if (error.details !== undefined) body['details'] = error.details;
        streams.stdout.write(renderJson({ status: statusFor(error), error: body }));
      }
      return error.exitCode;
    }
    const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
    streams.stderr.write(
      `stw: unexpected error — this is a bug; please report it with the command you ran.\n${stack}\n`,
    );
    return 1;
  }
}

// The one place the process exits.
const controller = new AbortController();
let interrupts = 0;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    interrupts += 1;
    controller.abort(sig);
    if (interrupts > 1) process.exit(130);
  });
}
const code = await main(
  process.argv.slice(2),
  { stdout: process.stdout, stderr: process.stderr },
  process.env,
  controller.signal,
);
process.exitCode = code;
// Flush pending output before exiting, then exit even if a stray handle remains.
process.stdout.write('', () => process.exit(code));
