/**
 * Patch-ids for the equivalence evidence (docs/tidy.md, "Equivalence evidence"), shared by
 * the batched route (equivalence-batch.ts) and the per-branch route (equivalence.ts):
 * one `diff-tree --stdin -p` of the branch changes and of the base commits, piped to one
 * `patch-id --verbatim`. `--verbatim` keeps whitespace: git's default patch-id strips it,
 * and a change of indentation (Python, YAML, a Makefile's tabs), of line endings or of the
 * final newline is a real change. No object is written. Also the changed-path sets both
 * routes compare first: a squash changes exactly the branch's paths, and patch-id alone
 * can give one id to patches of different files.
 */
import { isFullOid } from '../../../core/git.js';
import { describeOutcome } from '../../../core/run.js';
import { IncompleteObservationError, type ObjectFormat } from '../../types.js';
import { type GitCallContext, observeGitOk, observeGitRaw } from './observe.js';

/** Patch text is only piped from diff-tree to patch-id, never parsed: a larger cap. */
const MAX_PATCH_TEXT_BYTES = 16 * 1024 * 1024;
/** The listings of changed paths and of the base's entries grow with the branches checked. */
export const MAX_PATH_LISTING_BYTES = 16 * 1024 * 1024;

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
    if (!isFullOid(id, objectFormat) || !isFullOid(name, objectFormat)) throw malformed(label);
    ids.set(name, id);
  }
  return ids;
}

function malformed(label: string): IncompleteObservationError {
  return new IncompleteObservationError('malformed-output', `${label}: unexpected output`);
}

/** One raw diff record: a changed path, its status, and its old mode and blob. */
export interface RawChange {
  path: string;
  status: string;
  oldMode: string;
  oldOid: string;
}

/**
 * Raw changes (`diff-tree --stdin -r -z`) by the commit heading each: a `tip mergeBase`
 * line diffs the tip against its merge base, a line of one commit diffs it against its
 * parent (`--root`: a root commit against nothing).
 */
export async function rawChanges(
  lines: readonly string[],
  label: string,
  request: { objectFormat: ObjectFormat },
  ctx: GitCallContext,
): Promise<Map<string, RawChange[]>> {
  const result = await observeGitOk(
    ['diff-tree', '--stdin', '-r', '-z', '--root', '--no-renames', '--no-ext-diff'],
    { ...ctx, bounds: { ...ctx.bounds, maxOutputBytes: MAX_PATH_LISTING_BYTES } },
    label,
    lines.map((line) => `${line}\n`).join(''),
  );
  const fields = result.split('\0');
  if (fields[fields.length - 1] === '') fields.pop();
  const changes = new Map<string, RawChange[]>();
  let heading: RawChange[] | null = null;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    if (!field.startsWith(':')) {
      if (!isFullOid(field, request.objectFormat) || changes.has(field)) throw malformed(label);
      heading = [];
      changes.set(field, heading);
      continue;
    }
    const [oldMode = '', , oldOid = '', , status = ''] = field.slice(1).split(' ');
    const path = fields[++i];
    if (heading === null || path === undefined || !/^[0-7]{6}$/.test(oldMode) || !/^[ADMT]$/.test(status))
      throw malformed(label);
    heading.push({ path, status, oldMode, oldOid });
  }
  return changes;
}

/** The set of paths a change touches, as one comparable key. */
export function pathsKey(changes: readonly RawChange[]): string {
  return [...new Set(changes.map((change) => change.path))].sort().join('\0');
}
