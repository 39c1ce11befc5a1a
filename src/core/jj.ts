import type { Deadline } from './deadline.js';
import { emptyRepoConfigHome } from './jj-config.js';
import { describeOutcome, type RunResult, run } from './run.js';

/**
 * The jj releases this build supports: at least `min`, below `below`. jj is pre-1.0 and
 * changes its templates and defaults between minor releases (string patterns became
 * globs by default in 0.37), so the range is the minor release the backend is tested
 * against by `npm run test:jj`.
 */
export const JJ_SUPPORTED_RANGE = Object.freeze({ min: '0.45.0', below: '0.46.0' });

/** `--config` overrides on every jj call: no pager, no colour, no editor. */
export const JJ_HARDENED_ARGS: readonly string[] = [
  '--no-pager',
  '--color=never',
  '--config=ui.paginate="never"',
  '--config=ui.editor="false"',
];

/**
 * The environment for a jj child. Inherited `JJ_*` variables are dropped, except the
 * identity a new operation records (JJ_USER, JJ_EMAIL); user configuration is replaced
 * by an empty file so settings in it cannot change what we parse. With `userConfig`
 * (the one command that snapshots the user's files, docs/tasks.md) the user's config
 * stays — JJ_CONFIG as inherited — so jj tracks exactly what the user's own jj would.
 */
export function hardenedJjEnv(base: NodeJS.ProcessEnv = process.env, userConfig = false): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) {
    if (key.startsWith('JJ_')) continue;
    if (key === 'PAGER' || key === 'EDITOR' || key === 'VISUAL') continue;
    env[key] = value;
  }
  for (const key of userConfig ? ['JJ_USER', 'JJ_EMAIL', 'JJ_CONFIG'] : ['JJ_USER', 'JJ_EMAIL']) {
    const value = base[key];
    if (value !== undefined) env[key] = value;
  }
  if (!userConfig) env['JJ_CONFIG'] = '/dev/null';
  env['LC_ALL'] = 'C';
  env['LANG'] = 'C';
  return env;
}

/** A `major.minor.patch` triple parsed from `jj --version`. */
export type JjVersion = readonly [number, number, number];

/** Parses `jj 0.45.1` (a build suffix such as `-abcdef` is allowed); null otherwise. */
export function parseJjVersion(output: string): JjVersion | null {
  const match = /^jj (\d+)\.(\d+)\.(\d+)(?:[-+][0-9A-Za-z.-]+)?\s*$/.exec(output.split('\n')[0] ?? '');
  if (match === null) return null;
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

function compare(a: JjVersion, b: JjVersion): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  return 0;
}

/** Whether `version` lies in JJ_SUPPORTED_RANGE. */
export function isSupportedJjVersion(version: JjVersion): boolean {
  const min = parseJjVersion(`jj ${JJ_SUPPORTED_RANGE.min}`) as JjVersion;
  const below = parseJjVersion(`jj ${JJ_SUPPORTED_RANGE.below}`) as JjVersion;
  return compare(version, min) >= 0 && compare(version, below) < 0;
}

export type JjProbe =
  | { kind: 'supported'; version: string }
  | { kind: 'not-found'; message: string }
  | { kind: 'unsupported'; message: string };

/** Runs `jj --version` and classifies it against the supported range. */
export async function probeJj(options: {
  deadline: Deadline;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal | undefined;
}): Promise<JjProbe> {
  // Without arguments of ours: jj loads the configs of the workspace it runs in before it
  // reads its arguments, so even `--version` gets the empty ones (jj-config.ts).
  const result: RunResult = await withEmptyRepoConfig(process.cwd(), hardenedJjEnv(options.env), (env) =>
    run('jj', ['--version'], {
      env,
      deadline: options.deadline,
      maxBytes: 4096,
      ...(options.signal ? { signal: options.signal } : {}),
    }),
  );
  if (result.kind === 'not-found') return { kind: 'not-found', message: 'jj is not installed (not on PATH)' };
  const range = `>=${JJ_SUPPORTED_RANGE.min} <${JJ_SUPPORTED_RANGE.below}`;
  if (result.kind !== 'exited' || result.code !== 0)
    return {
      kind: 'unsupported',
      message: `${describeOutcome(result, 'jj --version')}; supported: ${range}`,
    };
  const text = result.stdout.toString('utf8').trim();
  const version = parseJjVersion(text);
  if (version === null)
    return {
      kind: 'unsupported',
      message: `jj reported an unrecognised version ${JSON.stringify(text)}; supported: ${range}`,
    };
  if (!isSupportedJjVersion(version))
    return {
      kind: 'unsupported',
      message: `jj ${version.join('.')} is outside the supported range ${range}`,
    };
  return { kind: 'supported', version: version.join('.') };
}

export interface JjCallOptions {
  /** Where jj runs: it finds the workspace from here. */
  cwd: string;
  deadline: Deadline;
  maxBytes: number;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal | undefined;
  /**
   * Keep the user's jj config, the repository's and workspace's included (see
   * hardenedJjEnv); otherwise jj reads an empty one at every level (src/core/jj-config.ts).
   */
  userConfig?: boolean;
}

/**
 * Runs one jj command (argument array, never a shell) with the hardened arguments and
 * environment, under the caller's deadline and output bound. Unless `userConfig`, jj
 * reads an empty user config (JJ_CONFIG) and empty repository and workspace configs
 * (emptyRepoConfigHome), so no alias or setting can change what a revset or template
 * stw passes means.
 */
export async function jj(args: readonly string[], options: JjCallOptions): Promise<RunResult> {
  const call = (env: NodeJS.ProcessEnv) =>
    run('jj', [...JJ_HARDENED_ARGS, ...args], {
      cwd: options.cwd,
      env,
      deadline: options.deadline,
      maxBytes: options.maxBytes,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  if (options.userConfig === true) return call(hardenedJjEnv(options.env, true));
  return withEmptyRepoConfig(options.cwd, hardenedJjEnv(options.env), call);
}

/** Runs `body` with XDG_CONFIG_HOME at a private home holding empty configs for the workspace `cwd` is in. */
async function withEmptyRepoConfig<T>(
  cwd: string,
  env: NodeJS.ProcessEnv,
  body: (env: NodeJS.ProcessEnv) => Promise<T>,
): Promise<T> {
  const home = emptyRepoConfigHome(cwd);
  if (home === null) return body(env);
  try {
    return await body({ ...env, XDG_CONFIG_HOME: home.dir });
  } finally {
    home.remove();
  }
}

/**
 * A jj string literal for a revset or string pattern: `exact:"NAME"` needs the name
 * quoted, and any `"`, `\` or control character escaped, so that a name is never read
 * as a pattern, a revset or an option.
 */
export function jjStringLiteral(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (char === '"' || char === '\\') out += `\\${char}`;
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

/** The string pattern that matches exactly NAME (jj's patterns are globs by default). */
export function jjExact(name: string): string {
  return `exact:${jjStringLiteral(name)}`;
}
