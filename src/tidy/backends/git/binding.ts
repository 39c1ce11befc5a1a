/**
 * A Git repository's identity for binding stored plans (docs/tidy.md, "Stored plans"):
 * the common git dir's real path, its device and inode, and the root commits of the
 * base's history. A repository recloned or replaced at the same path has a new inode; a
 * different repository has different roots.
 */
import type { BigIntStats } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { isFullOid } from '../../../core/git.js';
import { IncompleteObservationError, type RepositoryBinding } from '../../types.js';
import { type GitCallContext, observeGitOk } from './observe.js';

export async function readGitBinding(
  commonDir: string,
  baseOid: string,
  ctx: GitCallContext,
): Promise<RepositoryBinding> {
  let real: string;
  let info: BigIntStats;
  try {
    real = await realpath(commonDir);
    info = await stat(real, { bigint: true });
  } catch (error) {
    throw new IncompleteObservationError(
      'git-failed',
      `the git dir ${JSON.stringify(commonDir)} could not be read: ${(error as Error).message}`,
    );
  }
  const text = await observeGitOk(
    ['rev-list', '--max-parents=0', baseOid, '--'],
    ctx,
    'git rev-list --max-parents=0',
  );
  const roots = text.split('\n').filter((line) => line !== '');
  if (roots.length === 0 || !roots.every((oid) => isFullOid(oid)))
    throw new IncompleteObservationError(
      'malformed-output',
      'git rev-list --max-parents=0: unexpected output (root commits)',
    );
  return {
    metadata_dir: real,
    device: info.dev.toString(),
    inode: info.ino.toString(),
    root_commits: [...new Set(roots)].sort(),
  };
}
