/**
 * `--changed-since REF` (docs/ci.md): the lines of each file changed between the merge base
 * of REF and HEAD and the working tree, as a pull request's diff shows them. Two git calls:
 * the changed paths (`-z`, exact names), then their zero-context diff, whose `diff --git`
 * sections come in the same order, so no quoted name in a header is ever parsed.
 */
import { Deadline } from '../../core/deadline.js';
import { RefusalError, UsageError } from '../../core/errors.js';
import { git, gitOk, splitNul } from '../../core/git.js';
import { quote } from '../../core/quote.js';
import type { Finding } from './findings.js';

/** Path → the new-side line numbers changed in it. */
export type ChangedLines = ReadonlyMap<string, ReadonlySet<number>>;

const DIFF = [
  '-c',
  'diff.noprefix=false',
  'diff',
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--no-renames',
];

async function mergeBase(root: string, ref: string, deadline: Deadline): Promise<string> {
  if (ref.startsWith('-')) throw new UsageError(`--changed-since ${quote(ref)} is not a revision`);
  const shallow = (await gitOk(['rev-parse', '--is-shallow-repository'], { cwd: root, deadline }))
    .toString('utf8')
    .trim();
  const hint = shallow === 'true' ? ' (this clone is shallow: fetch the base too, e.g. fetch-depth: 0)' : '';
  const verified = await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], {
    cwd: root,
    deadline,
  });
  if (verified.kind !== 'exited' || verified.code !== 0)
    throw new RefusalError(
      'unknown-ref',
      `--changed-since ${quote(ref)} is not a commit in this repository${hint}`,
    );
  const oid = verified.stdout.toString('utf8').trim();
  const base = await git(['merge-base', oid, 'HEAD'], { cwd: root, deadline });
  if (base.kind !== 'exited' || base.code !== 0)
    throw new RefusalError(
      'no-merge-base',
      `--changed-since ${quote(ref)} has no common ancestor with HEAD${hint}`,
    );
  return base.stdout.toString('utf8').trim();
}

/** The changed lines since REF's merge base with HEAD (working tree included). */
export async function readChangedLines(
  root: string,
  ref: string,
  deadline: Deadline = Deadline.none(),
): Promise<ChangedLines> {
  const base = await mergeBase(root, ref, deadline);
  const options = { cwd: root, deadline, maxBytes: 256 * 1024 * 1024 };
  const paths = splitNul(await gitOk([...DIFF, '--name-only', '-z', base, '--'], options));
  const changed = new Map<string, Set<number>>();
  if (paths.length === 0) return changed;
  const patch = (await gitOk([...DIFF, '--unified=0', base, '--'], options)).toString('utf8');
  let index = -1;
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) {
      index += 1;
      const path = paths[index];
      if (path !== undefined) changed.set(path, new Set());
      continue;
    }
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
    const path = paths[index];
    if (hunk === null || path === undefined) continue;
    const start = Number(hunk[1]);
    const count = hunk[2] === undefined ? 1 : Number(hunk[2]);
    const lines = changed.get(path)!;
    for (let n = start; n < start + count; n += 1) lines.add(n);
  }
  return changed;
}

/** A finding on a changed line; one on the whole file, when the file changed at all. */
export function isChanged(finding: Finding, changed: ChangedLines): boolean {
  const lines = changed.get(finding.path);
  if (lines === undefined) return false;
  return finding.line === undefined || lines.has(finding.line);
}
