/**
 * The jj effects of `tidy apply` and the reads that establish what they did (docs/tidy.md,
 * "Apply on jj"). jj has no per-bookmark compare-and-swap: the guard is the operation
 * log. Each effect runs at the current operation, and afterwards the new operation's
 * parent must be the operation observed just before, and the bookmark delta between the
 * two must be exactly the planned one. Nothing here abandons a change, pushes, fetches or
 * runs `jj git` sync.
 */
import { jjExact } from '../../../core/jj.js';
import { settleAll } from '../../bounded.js';
import { shellQuote } from '../../engine/restore.js';
import { GIT_PSEUDO_REMOTE, type JjCallContext, jjOk, readBookmarks, readWorkspaces } from './observe.js';
import type { JjBookmarks, JjWorkspace } from './observe-parse.js';

/** A view's bookmarks and workspaces, keyed for comparison. */
export interface JjView {
  /** `name` → JSON of its targets, for local bookmarks. */
  local: Map<string, string>;
  /** `name@remote` → JSON of targets and tracking, for remote bookmarks (the git pseudo-remote included). */
  remote: Map<string, string>;
  /** `name` → JSON of root, working-copy commit and parents. */
  workspaces: Map<string, string>;
}

export function viewOf(bookmarks: JjBookmarks, workspaces: readonly JjWorkspace[]): JjView {
  return {
    local: new Map(bookmarks.local.map((b) => [b.name, JSON.stringify(b.targets)])),
    remote: new Map(
      bookmarks.remote.map((r) => [`${r.name}@${r.remote}`, JSON.stringify([r.targets, r.tracking_targets])]),
    ),
    workspaces: new Map(
      workspaces.map((w) => [w.name, JSON.stringify([w.root, w.commit_id, w.change_id, w.parents])]),
    ),
  };
}

/** Reads the view at one operation (two pinned calls). */
export async function readView(op: string, ctx: JjCallContext): Promise<JjView> {
  // Settled both: a failed read leaves no jj process behind.
  const [bookmarks, workspaces] = await settleAll([readBookmarks(op, ctx), readWorkspaces(op, ctx)]);
  return viewOf(bookmarks, workspaces);
}

/** The change one action may make: local bookmarks created (at a commit) and deleted. */
export interface AllowedDelta {
  created: { name: string; commit: string }[];
  deleted: string[];
}

function diffKeys(before: Map<string, string>, after: Map<string, string>): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((key) => before.get(key) !== after.get(key)).sort();
}

/**
 * Every difference between two views that the allowed delta does not explain, one line
 * each; empty when the delta is exactly the allowed one. In a colocated repository jj
 * mirrors local bookmarks as `NAME@git`: those entries may follow the allowed changes
 * (or stay as they were), nothing else.
 */
export function unexpectedChanges(before: JjView, after: JjView, allowed: AllowedDelta): string[] {
  const problems: string[] = [];
  const expectedLocal = new Map(before.local);
  for (const name of allowed.deleted) expectedLocal.delete(name);
  for (const { name, commit } of allowed.created) expectedLocal.set(name, JSON.stringify([commit]));
  for (const name of diffKeys(expectedLocal, after.local)) {
    const was = before.local.get(name);
    const now = after.local.get(name);
    problems.push(`bookmark ${JSON.stringify(name)}: ${was ?? 'absent'} → ${now ?? 'absent'}`);
  }
  for (const key of diffKeys(before.remote, after.remote)) {
    const at = key.lastIndexOf('@');
    const name = key.slice(0, at);
    const mirrored =
      key.slice(at + 1) === GIT_PSEUDO_REMOTE &&
      (allowed.deleted.includes(name) || allowed.created.some((c) => c.name === name));
    if (!mirrored)
      problems.push(
        `remote bookmark ${JSON.stringify(key)}: ${before.remote.get(key) ?? 'absent'} → ${after.remote.get(key) ?? 'absent'}`,
      );
  }
  for (const name of diffKeys(before.workspaces, after.workspaces))
    problems.push(`workspace ${JSON.stringify(name)} changed`);
  return problems;
}

/**
 * Creates the recovery bookmark at exactly `commit` (`commit_id(…)`, never a symbol jj
 * might resolve otherwise). `bookmark create` fails if the name exists: it never moves one.
 */
export function createRecoveryBookmark(name: string, commit: string, ctx: JjCallContext): Promise<string> {
  return jjOk(
    ['--ignore-working-copy', 'bookmark', 'create', '-r', `commit_id(${commit})`, '--', name],
    ctx,
    'jj bookmark create',
  );
}

/** Deletes exactly one local bookmark; its change and commit are left alone. */
export function deleteLocalBookmark(name: string, ctx: JjCallContext): Promise<string> {
  return jjOk(
    ['--ignore-working-copy', 'bookmark', 'delete', '--', jjExact(name)],
    ctx,
    'jj bookmark delete',
  );
}

/** The command that puts a deleted bookmark back where its recovery bookmark points. */
export function jjRestoreCommand(name: string, recovery: string): string {
  return `jj bookmark create ${shellQuote(name)} -r ${shellQuote(`bookmarks(${jjExact(recovery)})`)}`;
}

/** What the view shows for one action. */
export type JjActionState = 'committed' | 'pinned-only' | 'not-happened' | 'inconsistent';

export function classifyJjAction(
  view: JjView,
  action: { ref: string; old_oid: string; recovery_ref: string },
): JjActionState {
  const at = JSON.stringify([action.old_oid]);
  const target = view.local.get(action.ref);
  const pin = view.local.get(action.recovery_ref);
  // A deleted bookmark jj keeps for a remote lists as [null]; absent either way.
  const targetGone = target === undefined || target === JSON.stringify([null]);
  if (pin === at && targetGone) return 'committed';
  if (pin === at && target === at) return 'pinned-only';
  if (pin === undefined && target === at) return 'not-happened';
  return 'inconsistent';
}

export function describeJjAction(view: JjView, action: { ref: string; recovery_ref: string }): string {
  return `bookmark ${view.local.get(action.ref) ?? 'absent'}, recovery bookmark ${view.local.get(action.recovery_ref) ?? 'absent'}`;
}
