import type { Deadline } from '../../core/deadline.js';
import { type IndexFlags, readIndexFlags } from '../../core/git.js';

/**
 * The one rule for what the tool may write (docs/hygiene-clean.md, "Tracked files only"):
 * a file git tracks and shows in `status`. An untracked file has no history to restore it
 * from and is never the tool's to commit; a file marked assume-unchanged or skip-worktree
 * may hold a local edit no checkpoint sees, and `git add` will not stage it. Edits, link
 * rewrites, moves and staging all ask this, and nothing else.
 */
export interface NotWritable {
  reason: 'untracked' | 'hidden-from-status';
  detail: string;
  /** How git hides a `hidden-from-status` file. */
  hidden?: 'assume-unchanged' | 'skip-worktree';
}

/** Why a path with these index flags (undefined: not in the index) may not be written, or undefined. */
export function notWritable(flag: IndexFlags | undefined): NotWritable | undefined {
  if (flag === undefined)
    return { reason: 'untracked', detail: 'the file is not tracked by git; an edit could not be undone' };
  const hidden = flag.skipWorktree ? 'skip-worktree' : flag.assumeUnchanged ? 'assume-unchanged' : undefined;
  if (hidden === undefined) return undefined;
  return {
    reason: 'hidden-from-status',
    detail: `git hides changes to the file (${hidden}); an edit could destroy local changes you cannot see`,
    hidden,
  };
}

/** The same said of a doc holding a reference a move would break: "which is not tracked by git, …". */
export function whyNotEdited(blocked: NotWritable): string {
  return blocked.reason === 'untracked'
    ? 'which is not tracked by git, so the cleanup does not edit it'
    : `which git hides from status (${blocked.hidden}), so the cleanup does not edit it`;
}

/** Of `paths`, those the tool may not write, with why. One `git ls-files -v` call. */
export async function notWritablePaths(
  root: string,
  paths: readonly string[],
  deadline: Deadline,
): Promise<Map<string, NotWritable>> {
  const flags = await readIndexFlags(root, paths, deadline);
  const out = new Map<string, NotWritable>();
  for (const path of paths) {
    const blocked = notWritable(flags.get(path));
    if (blocked !== undefined) out.set(path, blocked);
  }
  return out;
}

/**
 * Every tracked path's verdict, read once: a lookup that says why a path may not be written
 * (an untracked one: it is absent from the index), for checks over many docs at once.
 */
export async function writableLookup(
  root: string,
  deadline: Deadline,
): Promise<(path: string) => NotWritable | undefined> {
  const flags = await readIndexFlags(root, undefined, deadline);
  return (path) => notWritable(flags.get(path));
}
