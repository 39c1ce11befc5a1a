/**
 * The few errors the tool knows how to report. Each carries a stable `code` and a
 * one-line message; the CLI maps the class to an exit code in one place
 * (`exitCodeFor`). Anything that is not a `StwError` is a bug and is reported with
 * its stack.
 */
export abstract class StwError extends Error {
  abstract readonly exitCode: 1 | 2 | 130;
  readonly code: string;
  /** Optional structured facts that `--json` output carries alongside the message. */
  readonly details: Record<string, unknown> | undefined;

  constructor(code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

/** Invalid command-line usage: unknown command or flag, missing or malformed argument. Exit 2. */
export class UsageError extends StwError {
  readonly exitCode = 2 as const;
  /** A hint printed on the line after the message, e.g. "run 'stw tidy --help'". */
  readonly hint: string | undefined;
  constructor(message: string, hint?: string, code = 'usage') {
    super(code, message);
    this.hint = hint;
  }
}

/** The tool declines to act: unsafe, stale or unauthorized. Exit 1. */
export class RefusalError extends StwError {
  readonly exitCode = 1 as const;
}

/** A configuration file that is malformed or names an unknown key. Exit 1. */
export class ConfigError extends StwError {
  readonly exitCode = 1 as const;
}

/** An input file (report, proposals, plan) that fails its schema or cross-field rules. Exit 1. */
export class ValidationError extends StwError {
  readonly exitCode = 1 as const;
  readonly violations: readonly string[];
  constructor(code: string, message: string, violations: readonly string[] = []) {
    super(code, message, { violations });
    this.violations = violations;
  }
}

/** A native tool or the filesystem failed in a way the caller cannot recover from. Exit 1. */
export class OperationalError extends StwError {
  readonly exitCode = 1 as const;
}

/** The user interrupted (Ctrl-C at a prompt) before anything changed. Exit 130, as a shell reports SIGINT. */
export class InterruptedError extends StwError {
  readonly exitCode = 130 as const;
}

export function isStwError(error: unknown): error is StwError {
  return error instanceof StwError;
}

/** The single mapping from an outcome to a process exit code. */
export function exitCodeFor(error: unknown): 0 | 1 | 2 | 130 {
  if (error === undefined || error === null) return 0;
  if (isStwError(error)) return error.exitCode;
  return 1;
}

/**
 * Where a JSON text is malformed, without quoting it: V8's `SyntaxError` message carries a
 * snippet of the input (`Unexpected token 'A', "API_KEY=sk"... is not valid JSON`), and a
 * file named by mistake — or by a prompt-injected agent, which the plugin lets run
 * `check --proposals FILE` — may be a secret.
 */
export function jsonSyntaxDetail(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const position = /\bposition (\d+)/.exec(message)?.[1];
  if (position !== undefined) return `malformed at position ${position}`;
  if (/end of JSON input/i.test(message)) return 'it ends too early';
  return 'malformed';
}
