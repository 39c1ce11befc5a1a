import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Deadline } from '../../../core/deadline.js';
import { RefusalError } from '../../../core/errors.js';
import { discoverRepo, git, userGitEnv } from '../../../core/git.js';
import { readGit } from '../git-steps.js';

/**
 * Step 4 of clean, pre-flight: everything that would stop the run is refused before the
 * first change (docs/hygiene-clean.md).
 */

export interface RepoState {
  gitDir: string;
  head: string;
  branch: string;
}

/** Refuses a tree git cannot safely commit in: not a repository, unborn, detached, or mid-operation. */
export async function checkRepository(root: string, deadline: Deadline): Promise<RepoState> {
  const layout = await discoverRepo(root, deadline);
  if (layout === undefined || layout.toplevel === undefined)
    throw new RefusalError('not-a-repository', 'clean needs a git work tree: the cleanup is a git commit');
  const head = await git(['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { cwd: root, deadline });
  if (head.kind !== 'exited' || head.code !== 0)
    throw new RefusalError('no-commits', 'the repository has no commit yet; commit something first');
  const branch = await git(['symbolic-ref', '-q', 'HEAD'], { cwd: root, deadline });
  if (branch.kind !== 'exited' || branch.code !== 0)
    throw new RefusalError('detached-head', 'HEAD is detached; check out a branch first');
  const operations: [string, string][] = [
    ['MERGE_HEAD', 'a merge'],
    ['rebase-merge', 'a rebase'],
    ['rebase-apply', 'a rebase or am'],
    ['CHERRY_PICK_HEAD', 'a cherry-pick'],
    ['REVERT_HEAD', 'a revert'],
    ['BISECT_LOG', 'a bisect'],
  ];
  for (const [marker, what] of operations) {
    if (await pathExists(join(layout.gitDir, marker)))
      throw new RefusalError(
        'operation-in-progress',
        `the repository is in the middle of ${what}; finish or abort it first`,
      );
  }
  // A conflicted index cannot be checkpointed (`write-tree` refuses it).
  if ((await readGit(['ls-files', '-u', '-z'], root, deadline)) !== '')
    throw new RefusalError('unmerged-paths', 'the index has unmerged paths; resolve them first');
  return {
    gitDir: layout.gitDir,
    head: head.stdout.toString('utf8').trim(),
    branch: branch.stdout.toString('utf8').trim(),
  };
}

async function pathExists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** A commit needs the user's identity: check it before any change (docs/hygiene-clean.md). */
export async function checkIdentity(
  root: string,
  env: NodeJS.ProcessEnv | undefined,
  deadline: Deadline,
): Promise<void> {
  for (const variable of ['GIT_AUTHOR_IDENT', 'GIT_COMMITTER_IDENT']) {
    const result = await git(['var', variable], {
      cwd: root,
      deadline,
      mode: 'user',
      extraEnv: userGitEnv(env),
    });
    if (result.kind !== 'exited' || result.code !== 0)
      throw new RefusalError(
        'missing-identity',
        'no git identity to commit with; set user.name and user.email (git config --global user.name …)',
      );
  }
}

/** Every pre-flight check of an applying run: the repository's state, then the identity to commit with. */
export async function preflight(
  root: string,
  env: NodeJS.ProcessEnv | undefined,
  deadline: Deadline,
): Promise<RepoState> {
  const repo = await checkRepository(root, deadline);
  await checkIdentity(root, env, deadline);
  return repo;
}
