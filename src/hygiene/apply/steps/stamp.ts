import { formatInstant } from '../../../core/clock.js';
import type { Deadline } from '../../../core/deadline.js';
import { StateStore } from '../../state/store.js';
import type { CleanOptions, CleanResult } from '../clean.js';
import { readGit } from '../git-steps.js';

/**
 * Step 9 of clean, stamp: `last_clean` is the commit's own committer time, written only once
 * the commit exists; a failure only warns (the commit stands).
 */
export async function stampLastClean(
  result: CleanResult,
  commit: string,
  root: string,
  deadline: Deadline,
  options: CleanOptions,
  warnings: string[],
): Promise<void> {
  try {
    await options.faults?.afterCommit?.();
    const seconds = Number((await readGit(['show', '-s', '--format=%ct', commit], root, deadline)).trim());
    result.last_clean = formatInstant(new Date(seconds * 1000));
    await new StateStore(root).stamp('last_clean', result.last_clean);
  } catch (error) {
    delete result.last_clean;
    warnings.push(`the commit was made, but last_clean could not be stamped: ${(error as Error).message}`);
  }
}
