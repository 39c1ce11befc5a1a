import type { Deadline } from '../../../core/deadline.js';
import { OperationalError } from '../../../core/errors.js';
import { splitNul } from '../../../core/git.js';
import type { ApplyResult } from '../applier.js';
import { expectOk, readGit, userGit } from '../git-steps.js';

/** Step 7 of clean, stage: what the edits changed, tracked paths only, then the index checked. */
export async function stageApplied(
  applied: ApplyResult,
  root: string,
  env: NodeJS.ProcessEnv | undefined,
  deadline: Deadline,
): Promise<void> {
  // `-u`: only paths git already tracks are staged; a file that is not (however it got
  // here) stays out of the commit, and the index check below refuses the run.
  if (applied.stage.length > 0)
    expectOk(await userGit(['add', '-u', '--', ...applied.stage], root, env, deadline), 'git add -u');
  await verifyIndex(root, deadline, stagedPaths(applied));
}

/** Every path the run put in the index: its edits, its moves (`git mv`) and its lifecycle deletions (`git rm`). */
export const stagedPaths = (applied: ApplyResult): string[] => [
  ...applied.stage,
  ...applied.staged_by_move,
  ...applied.staged_by_rm,
];

/** The index must hold exactly the touched paths, and never anything under `.dochygiene/`. */
async function verifyIndex(root: string, deadline: Deadline, expected: readonly string[]): Promise<void> {
  const staged = splitNul(
    await readGit(['diff', '--cached', '--name-only', '--no-renames', '-z'], root, deadline),
  );
  const want = new Set(expected);
  const extra = staged.filter((path) => !want.has(path));
  const missing = [...want].filter((path) => !staged.includes(path));
  if (extra.length > 0 || missing.length > 0 || staged.some((path) => path.startsWith('.dochygiene/')))
    throw new OperationalError(
      'unexpected-index',
      `the index does not hold exactly the cleaned paths (extra: ${extra.join(', ') || 'none'}; missing: ${missing.join(', ') || 'none'})`,
    );
}
