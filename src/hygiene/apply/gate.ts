import { type Clock, systemClock } from '../../core/clock.js';
import { Deadline } from '../../core/deadline.js';
import { git, splitNul } from '../../core/git.js';
import { loadConfig } from '../config.js';
import { readDocWorld } from '../references.js';
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
import { keepReferencesResolving, type LinkRewrite, writableFor } from './keep-references.js';
import { acquireRunLock, type InterruptedRunReport } from './recovery.js';
import type { SkipReason } from './text-edits.js';
import { notWritablePaths } from './writable.js';

/**
 * The gate for `stw hygiene apply` (docs/hygiene-clean.md: nothing relaxes it). Without
 * `only`, auto entries apply and confirm entries are held for approval; naming an entry
 * in `only` is the approval. Generative entries are held apart as needing a model: apply
 * takes no distilled text (`clean` does). Either way, entries on files git does not track
 * — or tracks but hides from `git status` (assume-unchanged, skip-worktree) — are skipped,
 * as `clean` skips them, and so are files whose worktree differs from HEAD
 * (`uncommitted-changes`): the applier makes no checkpoint, so only a file whose every
 * byte git already holds in a commit may be edited. The run holds the repository's run
 * lock, as `clean` does.
 * A lifecycle `delete-path` is judged on its unit's facts now (docs/lifecycle.md): with
 * no checkpoint and no record here, only a unit git holds unchanged in HEAD is deleted.
 */

export interface GatedApplyOptions extends ApplyOptions {
  /** For the lock's start time; default: the system clock. */
  clock?: Clock;
  /** `--config FILE`: the repository config read instead of `.dochygiene.yml` (docs/trust.md: trusted as the repository's). */
  configFile?: string;
}

export interface GatedApplyResult extends ApplyResult {
  /** Confirm-tier ids that were not named with `only`: left untouched (not a failure). */
  needs_approval: string[];
  /**
   * Generative ids: apply takes no model or distilled text to write them, so they are
   * never applied here, named or not (`clean` applies them). Counted apart; not a failure.
   */
  needs_model: string[];
  /** Inbound links rewritten to follow a moved file. */
  link_rewrites: LinkRewrite[];
  /** An earlier run that was killed before it finished, and what this run did about it. */
  interrupted_run?: InterruptedRunReport;
}

/** Of `paths`, those whose worktree or index differs from HEAD (all of them before the first commit). */
async function differFromHead(
  root: string,
  paths: readonly string[],
  deadline: Deadline,
): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  const result = await git(['diff', '--name-only', '--no-renames', '-z', 'HEAD', '--', ...paths], {
    cwd: root,
    deadline,
    maxBytes: 64 * 1024 * 1024,
    extraEnv: { GIT_LITERAL_PATHSPECS: '1' },
  });
  if (result.kind !== 'exited' || result.code !== 0) return new Set(paths);
  return new Set(splitNul(result.stdout));
}

const kindOf = (entry: Entry) =>
  entry.op_type === 'generative' ? 'generative' : (entry.exact_edit?.kind ?? 'generative');

/** Gates the report's entries as described above, then applies what passed with `applyReport`. */
export async function applyGated(options: GatedApplyOptions): Promise<GatedApplyResult> {
  const deadline = options.deadline ?? Deadline.none();
  const held = await acquireRunLock(
    options.root,
    'apply',
    options.clock ?? systemClock,
    options.env,
    deadline,
  );
  try {
    const result = await applyHeld(
      {
        ...options,
        ...(held.lock === undefined ? {} : { tempDir: held.lock.tempDir }),
      },
      (options.clock ?? systemClock).now().getTime(),
    );
    if (held.interrupted !== undefined) result.interrupted_run = held.interrupted;
    return result;
  } finally {
    await held.lock?.release();
  }
}

async function applyHeld(options: GatedApplyOptions, nowMs: number): Promise<GatedApplyResult> {
  const deadline = options.deadline ?? Deadline.none();
  const all = selectEntries(options.report, options.only);
  const needsModel = all.filter((entry) => kindOf(entry) === 'generative');
  const selected = all.filter((entry) => kindOf(entry) !== 'generative');
  const named = options.only !== undefined;
  const needsApproval = named ? [] : selected.filter((entry) => entry.safety_tier !== 'auto');
  const approved = named ? selected : selected.filter((entry) => entry.safety_tier === 'auto');

  // Unsafe paths are never handed to git; the applier skips them (unsafe-path). A lifecycle
  // unit (a folder, say) is judged by the applier on its own facts, not by these checks.
  const paths = [
    ...new Set(approved.filter((entry) => kindOf(entry) !== 'delete-path').map((entry) => entry.path)),
  ].filter(isSafeRelativePath);
  const blocked = await notWritablePaths(options.root, paths, deadline);
  const uncommitted = await differFromHead(
    options.root,
    paths.filter((path) => !blocked.has(path)),
    deadline,
  );
  const held = new Map<string, { reason: SkipReason; detail: string }>();
  for (const path of paths) {
    const notHere = blocked.get(path);
    if (notHere !== undefined) held.set(path, { reason: notHere.reason, detail: notHere.detail });
    else if (uncommitted.has(path))
      held.set(path, {
        reason: 'uncommitted-changes',
        detail:
          'the file differs from HEAD and apply makes no checkpoint; commit your changes first, or use stw hygiene clean',
      });
  }

  const toApply = approved.filter((entry) => !held.has(entry.path)).map((entry) => entry.id);
  // The reference invariant, as clean runs it: nothing that would break a resolving reference,
  // and a move's inbound links move with it.
  const config = await loadConfig(options.root, options.env, options.configFile);
  const world = await readDocWorld(options.root, config, deadline);
  const kept = keepReferencesResolving(
    world,
    options.report,
    toApply,
    await writableFor(options.root, options.report, toApply, deadline),
  );
  for (const entry of approved) {
    const detail = kept.would_break.get(entry.id);
    if (detail !== undefined && !held.has(entry.path))
      held.set(entry.path, { reason: 'would-break-reference', detail });
  }
  const result = await applyReport({
    ...options,
    report: kept.report,
    only: kept.apply.filter((id) => !kept.would_break.has(id)),
    lifecycle: {
      rules: config.lifecycle.rules,
      ...(config.lifecycle.vault_command ? { vaultCommand: config.lifecycle.vault_command } : {}),
      ...(options.env ? { env: options.env } : {}),
      nowMs,
      approved: new Set(named ? toApply : []),
      // No checkpoint and no record: a unit with uncommitted changes or untracked files is refused.
      checkpointed: false,
      baseHead: 'HEAD',
    },
  });

  const files: FileOutcome[] = [...result.files];
  const entries: EntryOutcome[] = [...result.entries];
  for (const [path, { reason, detail }] of held) {
    const onPath = approved.filter((entry) => entry.path === path);
    files.push({ path, status: 'skipped', entries: onPath.map((entry) => entry.id), reason, detail });
    for (const entry of onPath)
      entries.push({ id: entry.id, path, kind: kindOf(entry), status: 'skipped', reason });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const order = new Map(kept.report.entries.map((entry, index) => [entry.id, index]));
  entries.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  const status =
    result.status === 'failed'
      ? 'failed'
      : files.some((file) => file.status === 'skipped')
        ? 'partial'
        : files.length === 0
          ? 'nothing'
          : 'applied';
  return {
    ...result,
    status,
    files,
    entries,
    needs_approval: needsApproval.map((entry) => entry.id),
    needs_model: needsModel.map((entry) => entry.id),
    link_rewrites: kept.rewrites,
  };
}
