import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Deadline } from './deadline.js';

/** Default output cap: the tidy observation bound (docs/tidy.md, "Bounds"). */
export const DEFAULT_MAX_BYTES = 64 * 1024;

export interface RunOptions {
  cwd?: string;
  /** The complete environment of the child; defaults to this process's. */
  env?: NodeJS.ProcessEnv;
  /** The caller's remaining budget. Defaults to no deadline. */
  deadline?: Deadline;
  /** Cap on each of stdout and stderr, in bytes. Past it the child is killed. */
  maxBytes?: number;
  /** Bytes for stdin. Without it stdin is closed. */
  input?: string | Buffer;
  /** Cancellation (SIGINT/SIGTERM handling in the CLI): kills the child. */
  signal?: AbortSignal;
  /**
   * Streaming mode: stdout chunks go here instead of being buffered, so memory stays
   * bounded on long outputs. The cap still applies to the total.
   */
  onStdout?: (chunk: Buffer) => void;
}

interface Captured {
  stdout: Buffer;
  stderr: Buffer;
  durationMs: number;
}

/**
 * The typed outcome of one native call. Only `exited` carries complete output;
 * `truncated` output must never be parsed as if it were whole.
 */
export type RunResult =
  | ({ kind: 'exited'; code: number } & Captured)
  | ({ kind: 'signaled'; signal: NodeJS.Signals } & Captured)
  | ({ kind: 'timed-out' } & Captured)
  | ({ kind: 'truncated'; stream: 'stdout' | 'stderr'; limit: number } & Captured)
  | ({ kind: 'cancelled' } & Captured)
  | { kind: 'not-found'; command: string; message: string }
  | { kind: 'spawn-failed'; command: string; message: string };

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    // The child leads its own process group (detached), so this reaches grandchildren too.
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Runs `command` with an argument array (never a shell string) and returns a typed
 * result. The child gets its own process group so that a timeout, truncation or
 * cancellation kills everything it started, leaving no orphan behind.
 */
export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const deadline = options.deadline ?? Deadline.none();
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const started = performance.now();
  const empty = (): Captured => ({
    stdout: Buffer.alloc(0),
    stderr: Buffer.alloc(0),
    durationMs: performance.now() - started,
  });

  if (deadline.isExpired) return Promise.resolve({ kind: 'timed-out', ...empty() });
  if (options.signal?.aborted) return Promise.resolve({ kind: 'cancelled', ...empty() });

  return new Promise<RunResult>((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(command, [...args], {
        cwd: options.cwd,
        env: options.env ?? process.env,
        stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        detached: true,
        windowsHide: true,
      });
    } catch (error) {
      resolve({ kind: 'spawn-failed', command, message: (error as Error).message });
      return;
    }

    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let stop:
      | { kind: 'timed-out' }
      | { kind: 'cancelled' }
      | { kind: 'truncated'; stream: 'stdout' | 'stderr' }
      | undefined;
    let settled = false;

    const finishStop = (reason: NonNullable<typeof stop>) => {
      if (stop === undefined) stop = reason;
      killGroup(child.pid);
    };

    const remaining = deadline.remainingMs();
    const timer = Number.isFinite(remaining)
      ? setTimeout(() => finishStop({ kind: 'timed-out' }), remaining)
      : undefined;
    const onAbort = () => finishStop({ kind: 'cancelled' });
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const take = (stream: 'stdout' | 'stderr', chunk: Buffer) => {
      if (stop !== undefined) return;
      const used = stream === 'stdout' ? outBytes : errBytes;
      const room = maxBytes - used;
      const kept = chunk.length > room ? chunk.subarray(0, Math.max(0, room)) : chunk;
      if (stream === 'stdout') {
        outBytes += kept.length;
        if (options.onStdout) {
          if (kept.length > 0) options.onStdout(kept);
        } else out.push(kept);
      } else {
        errBytes += kept.length;
        err.push(kept);
      }
      if (chunk.length > room) finishStop({ kind: 'truncated', stream });
    };
    child.stdout?.on('data', (chunk: Buffer) => take('stdout', chunk));
    child.stderr?.on('data', (chunk: Buffer) => take('stderr', chunk));

    if (options.input !== undefined && child.stdin) {
      child.stdin.on('error', () => {
        // EPIPE when the child exits without reading all input; the exit status tells the story.
      });
      child.stdin.end(options.input);
    }

    const cleanup = () => {
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };

    child.on('error', (error: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      cleanup();
      let cwdExists = true;
      if (options.cwd !== undefined) {
        try {
          cwdExists = statSync(options.cwd).isDirectory();
        } catch {
          cwdExists = false;
        }
      }
      if (error.code === 'ENOENT' && cwdExists)
        resolve({ kind: 'not-found', command, message: error.message });
      else resolve({ kind: 'spawn-failed', command, message: error.message });
    });

    // A background grandchild can hold the pipes open after the child exits; once the
    // child is gone, kill its group so 'close' is not held hostage.
    child.on('exit', () => killGroup(child.pid));

    child.on('close', (code, signal) => {
      if (settled) return;
      settled = true;
      cleanup();
      const captured: Captured = {
        stdout: Buffer.concat(out),
        stderr: Buffer.concat(err),
        durationMs: performance.now() - started,
      };
      if (stop?.kind === 'truncated')
        resolve({ ...captured, kind: 'truncated', stream: stop.stream, limit: maxBytes });
      else if (stop !== undefined) resolve({ ...captured, kind: stop.kind });
      else if (code !== null) resolve({ ...captured, kind: 'exited', code });
      else resolve({ ...captured, kind: 'signaled', signal: signal ?? 'SIGKILL' });
    });
  });
}

/** One line describing a non-success outcome, for error messages. */
export function describeOutcome(result: RunResult, label: string): string {
  switch (result.kind) {
    case 'exited': {
      // The line that says what went wrong: git's fatal/error line, else the first that is not a hint.
      const lines = result.stderr
        .toString('utf8')
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '');
      const detail =
        lines.find((line) => /^(fatal|error):/.test(line)) ??
        lines.find((line) => !line.startsWith('hint:')) ??
        '';
      return `${label} exited ${result.code}${detail ? `: ${detail}` : ''}`;
    }
    case 'signaled':
      return `${label} was killed by ${result.signal}`;
    case 'timed-out':
      return `${label} timed out`;
    case 'truncated':
      return `${label} produced more than ${result.limit} bytes on ${result.stream}; output treated as incomplete`;
    case 'cancelled':
      return `${label} was cancelled`;
    case 'not-found':
      return `${label}: command not found (${result.command})`;
    case 'spawn-failed':
      return `${label} could not start: ${result.message}`;
  }
}
