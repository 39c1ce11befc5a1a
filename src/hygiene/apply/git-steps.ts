import { type Clock, formatInstant } from '../../core/clock.js';
import type { Deadline } from '../../core/deadline.js';
import { OperationalError } from '../../core/errors.js';
import { type GitMode, git, gitText, userGitEnv } from '../../core/git.js';
import { describeOutcome, type RunResult } from '../../core/run.js';

/** The git steps `clean` and its rollback take on the user's behalf (user config, literal paths). */

export async function userGit(
  args: string[],
  root: string,
  env: NodeJS.ProcessEnv | undefined,
  deadline: Deadline,
  extra: NodeJS.ProcessEnv = {},
  input?: string,
  mode: Extract<GitMode, 'user' | 'commit'> = 'user',
): Promise<RunResult> {
  return git(args, {
    cwd: root,
    deadline,
    mode,
    // Paths are always literal for our own steps; the commit takes none, and the user's
    // hooks it runs must see pathspecs as they would under a plain `git commit`.
    extraEnv: { ...userGitEnv(env), ...(mode === 'commit' ? {} : { GIT_LITERAL_PATHSPECS: '1' }), ...extra },
    ...(input === undefined ? {} : { input }),
  });
}

export function expectOk(result: RunResult, what: string): string {
  if (result.kind === 'exited' && result.code === 0) return result.stdout.toString('utf8');
  const stderr = 'stderr' in result ? result.stderr.toString('utf8').trim().split('\n')[0] : '';
  throw new OperationalError('git-failed', `${describeOutcome(result, what)}${stderr ? `: ${stderr}` : ''}`);
}

/** Everything a failed command printed (a hook's output, say), for the user to read. */
export function outputOf(result: RunResult): string {
  if (!('stderr' in result)) return '';
  return `${result.stdout.toString('utf8')}${result.stderr.toString('utf8')}`.trim();
}

export async function readGit(
  args: string[],
  root: string,
  deadline: Deadline,
  literal = true,
): Promise<string> {
  const result = await git(args, {
    cwd: root,
    deadline,
    maxBytes: 64 * 1024 * 1024,
    extraEnv: { GIT_LITERAL_PATHSPECS: literal ? '1' : '0' },
  });
  if (result.kind === 'exited' && result.code === 0) return result.stdout.toString('utf8');
  throw new OperationalError('git-failed', describeOutcome(result, `git ${args[0]}`));
}

export async function headOid(root: string, deadline: Deadline): Promise<string> {
  return (await gitText(['rev-parse', '--verify', 'HEAD^{commit}'], { cwd: root, deadline })).trim();
}

/** The tree the index would commit now (`write-tree`; intent-to-add entries have no content and are left out). */
export async function indexTree(
  root: string,
  env: NodeJS.ProcessEnv | undefined,
  deadline: Deadline,
): Promise<string> {
  return expectOk(await userGit(['write-tree'], root, env, deadline), 'git write-tree').trim();
}

/** Commit dates from the injected clock (STW_NOW), unless the caller's environment pins them. */
export function commitDates(env: NodeJS.ProcessEnv | undefined, clock: Clock): NodeJS.ProcessEnv {
  const source = env ?? process.env;
  const now = formatInstant(clock.now());
  return {
    GIT_AUTHOR_DATE: source['GIT_AUTHOR_DATE'] ?? now,
    GIT_COMMITTER_DATE: source['GIT_COMMITTER_DATE'] ?? now,
  };
}
