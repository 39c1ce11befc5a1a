import type { Clock } from '../core/clock.js';
import type { Streams } from '../core/output.js';

/** What a command module receives: everything it may touch of the outside world. */
export interface CommandContext {
  /** Arguments after the command name. */
  argv: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  streams: Streams;
  /** True when stdin and stderr are terminals: prompts (drawn on stderr) are allowed only then. */
  isInteractive: boolean;
  /** The clock every "now" reading goes through (`STW_NOW` pins it). */
  clock: Clock;
  /** Aborted on SIGINT/SIGTERM; long commands stop before their next action. */
  signal: AbortSignal;
  /** Standard input, for commands that read a list from `-` (e.g. `--refs-from -`). */
  stdin?: NodeJS.ReadableStream;
}

export interface CommandModule {
  /** Runs the command and returns its exit code (0, 1 or 2). Known failures may throw StwError. */
  run(ctx: CommandContext): Promise<number>;
}

export interface CommandSpec {
  name: string;
  /** One line for the group's command list. */
  summary: string;
  /** The full `--help` text; kept here so that help never loads the command's module. */
  help: string;
  /**
   * A hook (e.g. the SessionStart reminder) must never fail before it runs: main defers a
   * malformed `STW_NOW` to the command's first clock reading, where the command handles it.
   */
  isHook?: boolean;
  /** Loads the implementation lazily, only when the command runs. */
  load(): Promise<CommandModule>;
}

export interface GroupSpec {
  name: string;
  summary: string;
  /** Text shown under the group's usage line in `stw GROUP --help`. */
  description: string;
  commands: readonly CommandSpec[];
}
