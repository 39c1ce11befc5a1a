import { join } from 'node:path';
import { Deadline } from '../../core/deadline.js';
import { discoverRepo, readIndexFlags } from '../../core/git.js';
import { loadConfig } from '../config.js';
import type { Entry } from '../types.js';
import {
  type ApplyOptions,
  type ApplyResult,
  applyReport,
  type EntryOutcome,
  type FileOutcome,
  isSafeRelativePath,
  selectEntries,
} from './applier.js';
import { releaseHeld } from './lifecycle.js';
import type { SkipReason } from './text-edits.js';

/**
 * The gate for `stw hygiene apply` (SPEC §2.10: nothing relaxes it). Without `only`, auto
 * entries apply and confirm entries are held for approval; naming an entry in `only` is
 * the approval. Either way, entries on files git does not track — or tracks but hides from
 * `git status` (assume-unchanged, skip-worktree) — are skipped, as `clean` skips them: the
 * applier makes no checkpoint, so only a file whose history git can show may be edited.
 */

export interface GatedApplyResult extends ApplyResult {
  /** Confirm-tier ids that were not named with `only`: left untouched (not a failure). */
  needs_approval: string[];
}

const kindOf = (entry: Entry) =>
  entry.op_type === 'generative' ? 'generative' : (entry.exact_edit?.kind ?? 'generative');

/** Gates the report's entries as described above, then applies what passed with `applyReport`. */
export async function applyGated(options: ApplyOptions & { nowMs?: number }): Promise<GatedApplyResult> {
  const deadline = options.deadline ?? Deadline.none();
  const selected = selectEntries(options.report, options.only);
  const named = options.only !== undefined;
  const needsApproval = named ? [] : selected.filter((entry) => entry.safety_tier !== 'auto');
  const approved = named ? selected : selected.filter((entry) => entry.safety_tier === 'auto');

  // Unsafe paths are never handed to git; the applier skips them (unsafe-path).
  // A lifecycle unit is judged on its own facts at apply time (docs/lifecycle.md), not by index flags.
  const paths = [
    ...new Set(approved.filter((entry) => kindOf(entry) !== 'delete-path').map((entry) => entry.path)),
  ].filter(isSafeRelativePath);
  const flags = await readIndexFlags(options.root, paths, deadline);
  const held = new Map<string, { reason: SkipReason; detail: string }>();
  for (const path of paths) {
    const flag = flags.get(path);
    const hidden = flag?.skipWorktree
      ? 'skip-worktree'
      : flag?.assumeUnchanged
        ? 'assume-unchanged'
        : undefined;
    if (flag === undefined)
      held.set(path, {
        reason: 'untracked',
        detail: 'the file is not tracked by git; an edit could not be undone',
      });
    else if (hidden !== undefined)
      held.set(path, {
        reason: 'hidden-from-status',
        detail: `git hides changes to the file (${hidden}); an edit could destroy local changes you cannot see`,
      });
  }

  const toApply = approved.filter((entry) => !held.has(entry.path)).map((entry) => entry.id);
  const layout = await discoverRepo(options.root, deadline);
  const result = await applyReport({
    ...options,
    only: toApply,
    lifecycle: {
      ...(await lifecycleRulesOf(options.root)),
      ...(options.env ? { env: options.env } : {}),
      nowMs: options.nowMs ?? Date.now(),
      approved: new Set(named ? toApply : []),
      // `apply` keeps no checkpoint: a unit with uncommitted changes is refused.
      checkpointed: false,
      baseHead: 'HEAD',
      gitDir: layout?.gitDir ?? join(options.root, '.git'),
    },
  });
  // Nothing is committed here, so nothing could restore them: approved untracked deletions are final.
  for (const held of result.held) await releaseHeld(held);

  const files: FileOutcome[] = [...result.files];
  const entries: EntryOutcome[] = [...result.entries];
  for (const [path, { reason, detail }] of held) {
    const onPath = approved.filter((entry) => entry.path === path);
    files.push({ path, status: 'skipped', entries: onPath.map((entry) => entry.id), reason, detail });
    for (const entry of onPath)
      entries.push({ id: entry.id, path, kind: kindOf(entry), status: 'skipped', reason });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const order = new Map(options.report.entries.map((entry, index) => [entry.id, index]));
  entries.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  const status =
    result.status === 'failed'
      ? 'failed'
      : files.some((file) => file.status === 'skipped')
        ? 'partial'
        : files.length === 0
          ? 'nothing'
          : 'applied';
  return { ...result, status, files, entries, needs_approval: needsApproval.map((entry) => entry.id) };
}

async function lifecycleRulesOf(root: string) {
  const { lifecycle } = await loadConfig(root);
  return {
    rules: lifecycle.rules,
    ...(lifecycle.vault_command ? { vaultCommand: lifecycle.vault_command } : {}),
  };
}
