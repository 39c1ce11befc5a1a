import { readFile, realpath } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { Deadline } from '../../core/deadline.js';
import { RefusalError, ValidationError } from '../../core/errors.js';
import { resolveProjectRoot } from '../project.js';
import { validateReport } from '../report/validate.js';
import { StateStore } from '../state/store.js';
import type { EditKind, Entry, Report, SafetyTier } from '../types.js';
import { describeEdit } from './describe-edit.js';
import { entriesOutsideScan } from './report-scope.js';
import { checkRepository } from './steps/preflight.js';
import { notWritablePaths } from './writable.js';

/**
 * Steps 1 and 2 of clean (docs/hygiene-clean.md): load the report and refuse it unless it is
 * valid and this project's, then gate every entry — with no side effects.
 */

/** What the gate decided for an entry before anything changes. */
export type GateDecision =
  /** auto tier, or confirm tier approved: will be applied. */
  | 'approved'
  /** confirm tier without approval: left untouched. */
  | 'needs-approval'
  /** named in `--reject`. */
  | 'rejected'
  /** approved, but cannot be applied in this release or this tree. */
  | 'skipped'
  /**
   * A generative rewrite with no model to write it (none is configured and no generated
   * text was given): never offered, counted apart, and not a failure of the run.
   */
  | 'needs-model';

export interface PlannedEntry {
  id: string;
  path: string;
  kind: EditKind | 'generative';
  category: string;
  op: string;
  /** What the edit really does, derived from `exact_edit` (never the report's own words). */
  edit: string;
  tier: SafetyTier;
  /** Destructive and irreversible (delete-range): marked in every listing. */
  irreversible: boolean;
  raw_tokens: number;
  why?: string;
  decision: GateDecision;
  /** What a `skipped` entry's reason refers to (e.g. the reference it would break). */
  detail?: string;
  /**
   * Ticked when the batch list opens (and what `--yes` accepts): auto and reversible
   * confirm entries are; irreversible ones (delete-range, whole-file deletes) are not.
   */
  default_selected: boolean;
  /**
   * Why a `skipped` entry is skipped: `untracked`, `hidden-from-status` (marked
   * assume-unchanged or skip-worktree, so git cannot see or checkpoint a local edit in it),
   * `would-break-reference` (applying it would break a reference that resolves now;
   * `detail` names it). A lifecycle `delete-path` is judged at apply time on the unit's
   * facts then.
   */
  reason?: string;
}

export interface CleanPlan {
  root: string;
  report: Report;
  entries: PlannedEntry[];
  /** The ids `clean` will hand to the applier. */
  apply: string[];
  /** The approvals and rejections the plan was made with (to make it again, e.g. after a recovery). */
  decisions: { approve: string[]; reject: string[] };
  /** `--config FILE`: the repository config read instead of `.dochygiene.yml` (docs/trust.md: trusted as the repository's). */
  configFile?: string;
}

export interface PlanCleanOptions {
  cwd: string;
  /** Confirm-tier ids the user approved. Unknown ids are refused. */
  approve?: readonly string[];
  /** Ids to leave alone, whatever their tier. Unknown ids are refused. */
  reject?: readonly string[];
  /**
   * Where generative entries' new text can come from: ids with `--generated` text, and
   * whether a model is configured. An entry with neither is `needs-model`.
   */
  generative?: { texts: ReadonlySet<string>; model: boolean };
  deadline?: Deadline;
  /** `--config FILE`: the repository config read instead of `.dochygiene.yml` (docs/trust.md: trusted as the repository's). */
  configFile?: string;
}

export const kindOf = (entry: Entry): EditKind | 'generative' =>
  entry.op_type === 'generative' ? 'generative' : (entry.exact_edit?.kind ?? 'generative');

function refuseUnknownIds(report: Report, ids: readonly string[], flag: string): void {
  const known = new Set(report.entries.map((entry) => entry.id));
  const unknown = [...new Set(ids.filter((id) => !known.has(id)))];
  if (unknown.length > 0)
    throw new RefusalError(
      'unknown-entry-id',
      `${flag} ${unknown.map((id) => JSON.stringify(id)).join(', ')}: no such entry in the report`,
      { unknown },
    );
}

/** Loads `.dochygiene/report.json` and refuses it unless it is valid and was made for `root`. */
export async function loadReportFor(root: string, configFile?: string): Promise<Report> {
  const store = new StateStore(root);
  if (!(await store.hasReport()))
    throw new RefusalError('no-report', "no report: run 'stw hygiene check' first", {
      file: store.reportJsonPath,
    });
  const value = await store.readReport();
  const violations = validateReport(value);
  if (violations.length > 0)
    throw new ValidationError(
      'invalid-report',
      `.dochygiene/report.json is not a valid report (${violations.length} violation${violations.length === 1 ? '' : 's'}; first: ${violations[0]})`,
      violations,
    );
  const report = value as Report;
  await checkReportBelongs(report, root, Deadline.none(), configFile);
  return report;
}

/**
 * Refuses a report not made by this project's scan: its `scan.project_root` must name
 * this root (an absolute path), and every entry must be on a file the configured scan
 * would include (docs/report-schema.md, "Which reports are accepted").
 */
export async function checkReportBelongs(
  report: Report,
  root: string,
  deadline: Deadline,
  configFile?: string,
): Promise<void> {
  if (!(await isSameRoot(report.scan.project_root, root)))
    throw new RefusalError(
      'foreign-report',
      `the report was made for ${JSON.stringify(report.scan.project_root)}, not this project; run 'stw hygiene check' here`,
      { report_root: report.scan.project_root, project_root: root },
    );
  const outside = await entriesOutsideScan(root, report, deadline, configFile);
  if (outside.length > 0)
    throw new RefusalError(
      'entry-outside-scan',
      `entry ${JSON.stringify(outside[0]!.id)} is on ${JSON.stringify(outside[0]!.path)}, which the scan would not read (${outside[0]!.why}); run 'stw hygiene check' here`,
      { outside },
    );
}

/** Whether a report's `scan.project_root` is `root`: an absolute path, compared through symlinks. */
export async function isSameRoot(reportRoot: string, root: string): Promise<boolean> {
  // A relative root (".") would name whichever project reads the report.
  if (!isAbsolute(reportRoot)) return false;
  const named = resolve(reportRoot);
  if (named === root) return true;
  try {
    return (await realpath(named)) === root;
  } catch {
    return false;
  }
}

/**
 * The line count of each file a delete-range entry edits, as the listing says whether it
 * deletes the file (every line) or some lines. A file that cannot be read has none; the
 * applier checks the file's content before any edit either way.
 */
async function lineCountsOfDeletions(root: string, entries: readonly Entry[]): Promise<Map<string, number>> {
  const paths = new Set(entries.filter((e) => e.exact_edit?.kind === 'delete-range').map((e) => e.path));
  const out = new Map<string, number>();
  for (const path of paths) {
    try {
      const text = await readFile(join(root, path), 'utf8');
      out.set(path, text === '' ? 0 : text.replace(/\r?\n$/, '').split('\n').length);
    } catch {
      // Unreadable or gone: described without the count; the applier reports the file.
    }
  }
  return out;
}

/**
 * Loads and validates the report, checks it belongs here, and gates every entry — with
 * no side effects. Unknown `approve`/`reject` ids, a foreign or invalid report and an
 * unsafe repository state are refused here, before anything changes.
 */
export async function planClean(options: PlanCleanOptions): Promise<CleanPlan> {
  const deadline = options.deadline ?? Deadline.none();
  const root = await resolveProjectRoot(options.cwd);
  const approve = options.approve ?? [];
  const reject = options.reject ?? [];
  await checkRepository(root, deadline);
  const report = await loadReportFor(root, options.configFile);
  refuseUnknownIds(report, approve, '--approve');
  refuseUnknownIds(report, reject, '--reject');
  const both = approve.filter((id) => reject.includes(id));
  if (both.length > 0)
    throw new RefusalError(
      'conflicting-decision',
      `${JSON.stringify(both[0])} is both approved and rejected`,
    );

  const paths = [...new Set(report.entries.map((entry) => entry.path))];
  const blocked = await notWritablePaths(root, paths, deadline);
  const approved = new Set(approve);
  const rejected = new Set(reject);
  const fileLines = await lineCountsOfDeletions(root, report.entries);
  const entries = report.entries.map((entry): PlannedEntry => {
    const kind = kindOf(entry);
    const planned: PlannedEntry = {
      id: entry.id,
      path: entry.path,
      kind,
      category: `${entry.category.class}/${entry.category.subtype}`,
      op: entry.op,
      edit: describeEdit(entry, fileLines.get(entry.path)),
      tier: entry.safety_tier,
      irreversible: entry.is_destructive && !entry.is_reversible,
      raw_tokens: entry.token_estimate.raw_tokens,
      decision: 'approved',
      default_selected: entry.safety_tier === 'auto' || !(entry.is_destructive && !entry.is_reversible),
    };
    if (entry.why !== undefined) planned.why = entry.why;
    if (rejected.has(entry.id)) planned.decision = 'rejected';
    // A generative entry with no model configured and no `--generated` text for it cannot
    // run: it is not offered, and counted apart.
    else if (
      kind === 'generative' &&
      options.generative?.model !== true &&
      options.generative?.texts.has(entry.id) !== true
    ) {
      planned.decision = 'needs-model';
      planned.default_selected = false;
    } else if (entry.safety_tier === 'confirm' && !approved.has(entry.id))
      planned.decision = 'needs-approval';
    else if (kind === 'delete-path') {
      // A unit (file or folder) judged again on the facts at apply time (docs/lifecycle.md).
    } else if (blocked.has(entry.path)) {
      planned.decision = 'skipped';
      planned.reason = blocked.get(entry.path)!.reason;
    }
    return planned;
  });
  return {
    root,
    report,
    entries,
    apply: entries.filter((e) => e.decision === 'approved').map((e) => e.id),
    decisions: { approve: [...approve], reject: [...reject] },
    ...(options.configFile !== undefined ? { configFile: options.configFile } : {}),
  };
}

/**
 * A plan made earlier (and shown at the gate) may be stale: a file untracked, or marked
 * assume-unchanged or skip-worktree since, is skipped now, before anything changes. (A
 * lifecycle unit is judged on its own facts at apply time.)
 */
export async function recheckWritable(plan: CleanPlan, deadline: Deadline): Promise<CleanPlan> {
  const approved = plan.entries.filter(
    (entry) => entry.decision === 'approved' && entry.kind !== 'delete-path',
  );
  const blocked = await notWritablePaths(plan.root, [...new Set(approved.map((e) => e.path))], deadline);
  if (blocked.size === 0) return plan;
  const entries = plan.entries.map(
    (entry): PlannedEntry =>
      entry.decision === 'approved' && entry.kind !== 'delete-path' && blocked.has(entry.path)
        ? { ...entry, decision: 'skipped', reason: blocked.get(entry.path)!.reason }
        : entry,
  );
  return { ...plan, entries, apply: entries.filter((e) => e.decision === 'approved').map((e) => e.id) };
}
