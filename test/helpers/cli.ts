import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testEnv } from './git-repo.js';
import { CLI_PATH } from './paths.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
  /** Run as this user (tests run as root, where file modes do not stop writes). */
  uid?: number;
  /** Another build's `bin.js` (default: this one's). */
  bin?: string;
}

const nodeForUser = new Map<number, string>();

/**
 * A node binary `uid` may run: this one, or a copy in a temp folder anyone may read when this
 * one lives where that user cannot reach it (CI's Node 22 and 24 sit under root's cache).
 */
function nodeFor(uid: number): string {
  let node = nodeForUser.get(uid);
  if (node !== undefined) return node;
  node = process.execPath;
  if (spawnSync(node, ['-e', '0'], { uid, gid: uid, stdio: 'ignore' }).status !== 0) {
    const dir = mkdtempSync(join(tmpdir(), 'stw-test-node-'));
    chmodSync(dir, 0o755);
    node = join(dir, 'node');
    copyFileSync(process.execPath, node);
    chmodSync(node, 0o755);
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  nodeForUser.set(uid, node);
  return node;
}

/** Spawns the built `stw` with a minimal environment and NO_COLOR=1. */
export function runCli(args: string[], options: CliOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const node = options.uid === undefined ? process.execPath : nodeFor(options.uid);
    const child = spawn(node, [options.bin ?? CLI_PATH, ...args], {
      cwd: options.cwd,
      env: testEnv(options.env),
      ...(options.uid !== undefined ? { uid: options.uid, gid: options.uid } : {}),
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    if (options.input !== undefined) child.stdin?.end(options.input);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs the CLI with --json and parses stdout, failing loudly if stdout is not pure JSON. */
export async function runCliJson<T = Record<string, unknown>>(
  args: string[],
  options: CliOptions,
): Promise<CliResult & { json: T }> {
  const result = await runCli([...args, '--json'], options);
  let json: T;
  try {
    json = JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.code}):\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
  return { ...result, json };
}
