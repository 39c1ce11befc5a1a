import type { ApplyResult, FileOutcome } from './applier.js';
import type { PlannedEntry } from './clean-plan.js';
import type { LinkRewrite } from './keep-references.js';
import type { InterruptedRunReport } from './recovery.js';

/** What `clean` says of each entry and of the run (docs/hygiene-clean.md; `--json`). */

export interface CleanEntryOutcome extends PlannedEntry {
  /** The final word: applied, unchanged (already in place), skipped, or the gate's decision. */
  outcome:
    | 'applied'
    | 'unchanged'
    | 'skipped'
    | 'needs-approval'
    | 'needs-model'
    | 'rejected'
    | 'would-apply';
}

export interface CleanResult {
  /**
   * `committed`: every approved entry applied, one commit. `partial`: a commit (or none, if
   * nothing could apply) with some approved entries skipped. `nothing`: no approved entry.
   * `removed`: only untracked files were deleted (approved lifecycle entries), so there
   * was nothing to commit. `dry-run`: nothing changed.
   */
  status: 'committed' | 'partial' | 'nothing' | 'removed' | 'dry-run';
  root: string;
  report_generated_at: string;
  entries: CleanEntryOutcome[];
  files: FileOutcome[];
  /** The checkpoint of the user's tracked changes, when the tree was dirty (made without hooks). */
  wip_commit?: string;
  /**
   * The private ref holding the user's index as it was, when it differed from both HEAD
   * and the worktree (a file staged, then edited again): the WIP commit has the worktree's
   * version, this ref the staged one.
   */
  staged_ref?: string;
  commit?: string;
  /** Whether the user's pre-commit and commit-msg hooks ran on the cleanup commit (`--no-verify`: false). */
  hooks_ran?: boolean;
  /** What went wrong after the commit was made (it stands): e.g. `last_clean` could not be stamped. */
  warnings?: string[];
  /** An earlier run that was killed before it finished, and what this run did about it. */
  interrupted_run?: InterruptedRunReport;
  /** Temp files an earlier, killed run left beside docs, removed by this run. */
  removed_temp_files?: string[];
  message?: string;
  /** The cleanup commit's committer time, stamped as `last_clean`. */
  last_clean?: string;
  /** Inbound links rewritten (or, in a dry run, to be rewritten) to follow a moved file. */
  link_rewrites?: LinkRewrite[];
  /** Entries (not files) by outcome; `needs_model`: generative entries no model could write. */
  counts: {
    applied: number;
    skipped: number;
    needs_approval: number;
    needs_model: number;
    rejected: number;
  };
}

export function countOutcomes(entries: readonly CleanEntryOutcome[]): CleanResult['counts'] {
  const count = (outcome: CleanEntryOutcome['outcome']) =>
    entries.filter((e) => e.outcome === outcome).length;
  return {
    applied: count('applied') + count('unchanged'),
    skipped: count('skipped'),
    needs_approval: count('needs-approval'),
    needs_model: count('needs-model'),
    rejected: count('rejected'),
  };
}

export const gateOutcome = (entry: PlannedEntry): CleanEntryOutcome['outcome'] =>
  entry.decision === 'approved' ? 'would-apply' : entry.decision;

/** The link rewrites whose entries ran. */
export const ranRewrites = (applied: ApplyResult, rewrites: readonly LinkRewrite[]): LinkRewrite[] => {
  const ran = new Set(applied.entries.filter((e) => e.status === 'applied').map((e) => e.id));
  return rewrites.filter((rewrite) => ran.has(rewrite.id));
};

/** Each planned entry's final word: the applier's outcome where it ran, else the gate's decision. */
export function mergeOutcomes(
  planned: readonly PlannedEntry[],
  applied: ApplyResult,
  gateOutcome: (entry: PlannedEntry) => CleanEntryOutcome['outcome'],
  appliedAs: 'applied' | 'would-apply',
): CleanEntryOutcome[] {
  const byId = new Map(applied.entries.map((entry) => [entry.id, entry]));
  const detailOf = new Map(applied.files.map((file) => [file.path, file.detail]));
  return planned.map((entry): CleanEntryOutcome => {
    const ran = byId.get(entry.id);
    if (ran === undefined) return { ...entry, outcome: gateOutcome(entry) };
    if (ran.status === 'applied') return { ...entry, outcome: appliedAs };
    if (ran.status === 'unchanged') return { ...entry, outcome: 'unchanged' };
    // The applier's words for why (a lifecycle unit's stale evidence, say), as the human output shows them.
    const detail = detailOf.get(entry.path);
    return {
      ...entry,
      decision: 'skipped',
      reason: ran.reason ?? ran.status,
      ...(detail !== undefined ? { detail } : {}),
      outcome: 'skipped',
    };
  });
}
