/**
 * The one bounded git call of tidy's observations: hardened, under the output bound and
 * the shared deadline, counted. Shared by the Git backend and by every backend whose
 * store is a Git repository (jj reads its backing store's trees with it).
 */
import { git } from '../core/git.js';
import { describeOutcome, type RunResult } from '../core/run.js';
import { IncompleteObservationError, incompleteCall, type ObserveContext } from './types.js';

export interface GitCallContext extends ObserveContext {
  cwd: string;
  /** Incremented per git process (for the bounded-calls test and the benchmark). */
  counter?: { calls: number };
  /** Extra environment from src/core/git.ts (e.g. `scratchObjectEnv`); none for plain observation. */
  extraEnv?: NodeJS.ProcessEnv;
}

/** Runs one hardened git call under the output bound and the shared deadline. */
export async function observeGitRaw(
  args: readonly string[],
  ctx: GitCallContext,
  label: string,
  input?: string | Buffer,
): Promise<RunResult & { kind: 'exited' }> {
  if (ctx.counter) ctx.counter.calls += 1;
  const result = await git(args, {
    cwd: ctx.cwd,
    deadline: ctx.deadline,
    maxBytes: ctx.bounds.maxOutputBytes,
    signal: ctx.signal,
    ...(input === undefined ? {} : { input }),
    ...(ctx.extraEnv === undefined ? {} : { extraEnv: ctx.extraEnv }),
  });
  if (result.kind === 'exited') return result;
  throw incompleteCall(result, label, 'git');
}

/** Like observeGitRaw, but a non-zero exit is a failure too. */
export async function observeGitOk(
  args: readonly string[],
  ctx: GitCallContext,
  label: string,
  input?: string | Buffer,
): Promise<string> {
  const result = await observeGitRaw(args, ctx, label, input);
  if (result.code !== 0) throw new IncompleteObservationError('git-failed', describeOutcome(result, label));
  return result.stdout.toString('utf8');
}
