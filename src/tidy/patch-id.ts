/**
 * Patch-ids for the equivalence evidence (docs/tidy.md, "Equivalence evidence"), shared by
 * the batched route (equivalence-batch.ts) and the per-branch route (equivalence-git.ts):
 * one `diff-tree --stdin -p` of the branch changes and of the base commits, piped to one
 * `patch-id --verbatim`. `--verbatim` keeps whitespace: git's default patch-id strips it,
 * and a change of indentation (Python, YAML, a Makefile's tabs), of line endings or of the
 * final newline is a real change. No object is written.
 */
import { isFullOid } from '../core/git.js';
import { describeOutcome } from '../core/run.js';
import { type GitCallContext, observeGitOk, observeGitRaw } from './observe-git.js';
import { IncompleteObservationError, type ObjectFormat } from './types.js';

/** Patch text is only piped from diff-tree to patch-id, never parsed: a larger cap. */
const MAX_PATCH_TEXT_BYTES = 16 * 1024 * 1024;

/** `git version` text such as "2.39.5" is at least major.minor. */
export function gitAtLeast(version: string | null, major: number, minor: number): boolean {
  const match = /^(\d+)\.(\d+)/.exec(version ?? '');
  if (match === null) return false;
  const [have, haveMinor] = [Number(match[1]), Number(match[2])];
  return have > major || (have === major && haveMinor >= minor);
}

/**
 * Why this git cannot give whitespace-exact patch-ids (`patch-id --verbatim` is git 2.39),
 * or null when it can.
 */
export function whyNoVerbatimPatchId(version: string | null): string | null {
  if (gitAtLeast(version, 2, 39)) return null;
  return version === null
    ? 'the git version is unknown, and patch-id --verbatim needs git 2.39'
    : `git ${version} has no patch-id --verbatim`;
}

/** A branch's cumulative change: its tip diffed against its merge base, named by the tip. */
export interface BranchChange {
  tip: string;
  mergeBase: string;
}

/**
 * The patch-ids of the branch changes (by tip) and of the commits (each against its first
 * parent; by commit). A change whose diff is empty has no entry. Needs git 2.39 or later
 * (`whyNoVerbatimPatchId`); throws IncompleteObservationError when git cannot answer.
 */
export async function patchIds(
  changes: readonly BranchChange[],
  commits: readonly string[],
  { objectFormat }: { objectFormat: ObjectFormat },
  ctx: GitCallContext,
): Promise<Map<string, string>> {
  const input = [
    ...changes.map((change) => `${change.tip} ${change.mergeBase}\n`),
    ...commits.map((commit) => `${commit}\n`),
  ].join('');
  // `<tip> <merge base>` diffs the tip against the merge base as if it were its only parent.
  // The patch text goes to patch-id as bytes: decoded as UTF-8, two patches that differ only
  // in bytes that are not UTF-8 (a Latin-1 `é` against an `è`) would become one text.
  const diffLabel = 'git diff-tree --stdin -p (patches)';
  const patches = await observeGitRaw(
    [
      'diff-tree',
      '--stdin',
      '-p',
      '-U3',
      '--full-index',
      '--root',
      '--no-renames',
      '--no-ext-diff',
      '--no-textconv',
      '--no-color',
      '--src-prefix=a/',
      '--dst-prefix=b/',
    ],
    { ...ctx, bounds: { ...ctx.bounds, maxOutputBytes: MAX_PATCH_TEXT_BYTES } },
    diffLabel,
    input,
  );
  if (patches.code !== 0)
    throw new IncompleteObservationError('git-failed', describeOutcome(patches, diffLabel));
  const label = 'git patch-id --verbatim';
  const ids = new Map<string, string>();
  for (const line of (await observeGitOk(['patch-id', '--verbatim'], ctx, label, patches.stdout)).split(
    '\n',
  )) {
    if (line === '') continue;
    const [id = '', name = ''] = line.split(' ');
    if (!isFullOid(id, objectFormat) || !isFullOid(name, objectFormat))
      throw new IncompleteObservationError('malformed-output', `${label}: unexpected output`);
    ids.set(name, id);
  }
  return ids;
}
