// The real Claude Code CLI for the plugin tests: a pinned `@anthropic-ai/claude-code`,
// installed once per user into ${XDG_CACHE_HOME:-$HOME/.cache}/sourcesteward/ (not a
// dependency of this package, so every clone and CI run on the machine reuses it), and
// run with HOME in a temp dir against a local Messages-API stub, never the network.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { testGitConfig } from '../helpers/git-repo.js';
import { REPO_ROOT } from '../helpers/paths.js';

/** The Claude Code release these tests (and the README's facts) were verified against. */
export const CLAUDE_CODE_VERSION = '2.1.332';

export function claudeCodeDir(env: NodeJS.ProcessEnv = process.env): string {
  const cache = env['XDG_CACHE_HOME'] || join(env['HOME'] || homedir(), '.cache');
  return join(cache, 'sourcesteward', `claude-code-${CLAUDE_CODE_VERSION}`);
}

function reportsPinnedVersion(bin: string): boolean {
  const result = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 60_000 });
  return result.status === 0 && result.stdout.startsWith(`${CLAUDE_CODE_VERSION} `);
}

/**
 * The `claude` binary of the pinned version, installing it first if the cache lacks it.
 * Idempotent: an install goes to a scratch directory that is renamed into place only once
 * it answers `--version`, so an interrupted install is never mistaken for a good one.
 */
export function ensureClaudeCode(): string {
  const dir = claudeCodeDir();
  const bin = join(dir, 'node_modules', '.bin', 'claude');
  if (existsSync(bin) && reportsPinnedVersion(bin)) return bin;
  const scratch = `${dir}.partial-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  execFileSync(
    'npm',
    [
      'install',
      '--prefix',
      scratch,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`,
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (!reportsPinnedVersion(join(scratch, 'node_modules', '.bin', 'claude')))
    throw new Error(`claude-code ${CLAUDE_CODE_VERSION} installed into ${scratch} but does not run`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dirname(dir), { recursive: true });
  renameSync(scratch, dir);
  return bin;
}

/** A directory holding an `stw` that runs this checkout's build with this node. */
export function stwBinDir(parent: string): string {
  const dir = join(parent, 'bin');
  mkdirSync(dir, { recursive: true });
  const script = join(dir, 'stw');
  const cli = join(REPO_ROOT, 'dist', 'src', 'cli', 'bin.js');
  writeFileSync(script, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(cli)} "$@"\n`);
  chmodSync(script, 0o755);
  return dir;
}

export interface ClaudeResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface ClaudeRun {
  cwd: string;
  /** PATH for the session (and so for its hooks and Bash tool). */
  path: string;
  /** The stub's base URL (ANTHROPIC_BASE_URL); omit for commands that never call a model. */
  baseUrl?: string;
  extraEnv?: NodeJS.ProcessEnv;
}

/**
 * Runs `claude` with HOME in `home` and nothing from the caller's environment: no real
 * credentials, no auto-update, telemetry or other non-essential traffic, and the API at the
 * stub. A run that has not finished in two minutes is killed and fails the test.
 */
export function runClaude(bin: string, home: string, args: string[], run: ClaudeRun): Promise<ClaudeResult> {
  const env: NodeJS.ProcessEnv = {
    PATH: run.path,
    HOME: home,
    TZ: 'UTC',
    LC_ALL: 'C',
    NO_COLOR: '1',
    GIT_CONFIG_GLOBAL: testGitConfig(),
    GIT_CONFIG_NOSYSTEM: '1',
    ANTHROPIC_API_KEY: 'sk-ant-test-stub',
    ANTHROPIC_BASE_URL: run.baseUrl ?? 'http://127.0.0.1:9',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ...run.extraEnv,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd: run.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The JSON lines of `--output-format stream-json --verbose`. */
export function streamEvents(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
