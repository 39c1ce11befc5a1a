import type { Writable } from 'node:stream';

export interface Streams {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
}

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

const ANSI = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;
const PLAIN = (text: string) => text;

/** Colour only on a TTY, never with NO_COLOR set (any value) or TERM=dumb. */
export function isColorEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  if (env['TERM'] === 'dumb') return false;
  if (env['FORCE_COLOR'] !== undefined && env['FORCE_COLOR'] !== '0') return true;
  return stream.isTTY === true;
}

export function createStyle(enabled: boolean): Style {
  if (!enabled) return { bold: PLAIN, dim: PLAIN, red: PLAIN, green: PLAIN, yellow: PLAIN, cyan: PLAIN };
  return {
    bold: ANSI(1, 22),
    dim: ANSI(2, 22),
    red: ANSI(31, 39),
    green: ANSI(32, 39),
    yellow: ANSI(33, 39),
    cyan: ANSI(36, 39),
  };
}

/**
 * Where a command's output goes. In `--json` mode stdout carries exactly one JSON
 * document and nothing else; diagnostics and progress always go to stderr, and
 * progress only when stderr is a terminal.
 */
export class Output {
  readonly style: Style;
  readonly errStyle: Style;

  constructor(
    readonly json: boolean,
    readonly streams: Streams,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.style = createStyle(!json && isColorEnabled(streams.stdout, env));
    this.errStyle = createStyle(isColorEnabled(streams.stderr, env));
  }

  /** Writes the command's result: the JSON document, or the human rendering. */
  result(value: unknown, human: (style: Style) => string): void {
    if (this.json) this.streams.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    else {
      const text = human(this.style);
      if (text !== '') this.streams.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    }
  }

  /** A diagnostic line on stderr (warnings, hints). Never on stdout. */
  diag(line: string): void {
    this.streams.stderr.write(`${line}\n`);
  }

  /** Transient progress on stderr, only when stderr is a terminal. */
  progress(line: string): void {
    if (this.streams.stderr.isTTY === true) this.streams.stderr.write(`${line}\n`);
  }
}

/** Renders a JSON document with a trailing newline, as every `--json` output is written. */
export function renderJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
