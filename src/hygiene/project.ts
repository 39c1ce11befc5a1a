import { realpath } from 'node:fs/promises';
import { Deadline } from '../core/deadline.js';
import { discoverRepo } from '../core/git.js';

/** The git toplevel around `cwd` (realpath'd), or undefined outside a work tree. */
export async function findRepoRoot(
  cwd: string,
  deadline: Deadline = Deadline.none(),
): Promise<string | undefined> {
  const repo = await discoverRepo(cwd, deadline);
  return repo?.toplevel === undefined ? undefined : realpath(repo.toplevel);
}

/**
 * The project root (docs/scanner-and-classifiers.md): the git toplevel around `cwd`, else `cwd` itself
 * (outside a repository, or in a bare one). Always a realpath, so state paths and report
 * paths compare equal however the caller reached the directory.
 */
export async function resolveProjectRoot(cwd: string): Promise<string> {
  return (await findRepoRoot(cwd)) ?? realpath(cwd);
}
