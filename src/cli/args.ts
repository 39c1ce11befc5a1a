import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from '../core/errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface ParsedArgs<T extends Options> {
  values: ReturnType<typeof parseArgs<{ options: T; strict: true; allowPositionals: true }>>['values'];
  positionals: string[];
}

/**
 * Strict option parsing for one command. Unknown flags, missing values and surplus
 * positionals are usage errors (exit 2) that name the command's help.
 */
export function parseCommandArgs<T extends Options>(
  argv: string[],
  command: string,
  options: T,
  maxPositionals = 0,
): ParsedArgs<T> {
  const hint = `run 'stw ${command} --help'`;
  let parsed: ParsedArgs<T>;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: true }) as ParsedArgs<T>;
  } catch (error) {
    const message = (error as Error).message.replace(/\. To specify a positional argument.*$/s, '');
    throw new UsageError(message.charAt(0).toLowerCase() + message.slice(1), hint);
  }
  if (parsed.positionals.length > maxPositionals) {
    throw new UsageError(`unexpected argument '${parsed.positionals[maxPositionals]}'`, hint);
  }
  return parsed;
}

/** A repeatable string option's values, in the order given. */
export function many(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}
