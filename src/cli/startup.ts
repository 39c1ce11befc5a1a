/**
 * What `stw` does before it loads a command (bin.ts): the compile cache, and the young
 * generation's size for the commands that scan (docs/scanner-and-classifiers.md, "What a
 * check costs"). Both only where the running Node has the means; elsewhere nothing happens.
 */
import module from 'node:module';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** The semi-space size (MiB) a scanning command runs with: Node 20's default is 16, 24's is 32. */
export const SEMI_SPACE_MIB = 8;

/** The `stw hygiene` commands that scan the docs, whose peak memory the young generation raises. */
const SCANNING = new Set(['check', 'scan', 'sweep', 'context']);

/**
 * Turns on Node's compile cache (Node 22.1+): the modules' compiled code is kept under
 * `$XDG_CACHE_HOME/sourcesteward/compile-cache` (else `~/.cache/…`), this user's, so the
 * next run does not compile them again. `NODE_DISABLE_COMPILE_CACHE=1` turns it off, as
 * Node documents; a cache that cannot be written is simply not used.
 */
export function enableCompileCache(env: NodeJS.ProcessEnv = process.env): void {
  const enable = (module as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache;
  if (enable === undefined) return;
  const xdg = env['XDG_CACHE_HOME'];
  const base =
    xdg !== undefined && xdg !== '' && isAbsolute(xdg)
      ? xdg
      : join(env['HOME'] !== undefined && env['HOME'] !== '' ? env['HOME'] : homedir(), '.cache');
  try {
    enable(join(base, 'sourcesteward', 'compile-cache'));
  } catch {
    // Not writable, or refused: the run compiles as it would without it.
  }
}

/**
 * The arguments to run this process again with a smaller young generation, or undefined
 * when it should run as it is: a command that scans, on a Node whose default semi-space is
 * larger than `SEMI_SPACE_MIB` (22 and later) and that can replace its own process
 * (`process.execve`, Node 22.15+ and 23.11+, not on Windows), unless the size is set already
 * (a flag of this process or `NODE_OPTIONS`). V8 fixes the size when the process starts, so
 * a flag set later changes nothing. Node 24 grows the young generation to 32 MiB
 * semi-spaces: a check of kubernetes/community peaked at ≈ 330 MiB there against ≈ 205 MiB
 * with 8 (≈ 190 and ≈ 165 MiB on Node 20), at the same CPU time.
 */
export function reexecArgs(
  argv: readonly string[],
  execArgv: readonly string[] = process.execArgv,
  env: NodeJS.ProcessEnv = process.env,
  nodeMajor = Number(process.versions.node.split('.')[0]),
): string[] | undefined {
  if (nodeMajor < 22 || argv[0] !== 'hygiene' || !SCANNING.has(argv[1] ?? '')) return undefined;
  if (argv.some((arg) => arg === '--help' || arg === '-h')) return undefined;
  const set = (flags: string) => /--max-semi-space-size\b|--max_semi_space_size\b/.test(flags);
  if (execArgv.some(set) || set(env['NODE_OPTIONS'] ?? '')) return undefined;
  return [`--max-semi-space-size=${SEMI_SPACE_MIB}`, ...execArgv];
}

/** Replaces this process with itself run with `reexecArgs` when they apply; returns when they do not. */
export function reexecForScan(argv: readonly string[]): void {
  const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never })
    .execve;
  if (execve === undefined || process.platform === 'win32') return;
  const flags = reexecArgs(argv);
  if (flags === undefined) return;
  try {
    execve(process.execPath, [process.execPath, ...flags, process.argv[1]!, ...argv], process.env);
  } catch {
    // The process could not be replaced: it runs on with V8's default size.
  }
}
