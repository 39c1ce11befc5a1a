import { lstat, readFile, realpath } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { type Clock, formatInstant } from '../../core/clock.js';
import { Deadline } from '../../core/deadline.js';
import { OperationalError, RefusalError, ValidationError } from '../../core/errors.js';
import { discoverRepo, git, splitNul, userGitEnv } from '../../core/git.js';
import { describeOutcome } from '../../core/run.js';
import { loadConfig } from '../config.js';
import { resolveProjectRoot } from '../project.js';
import { validateReport } from '../report/validate.js';
import type { RunLock } from '../state/run-lock.js';
import { STATE_DIR, StateStore } from '../state/store.js';
import type { EditKind, Entry, Report, SafetyTier } from '../types.js';
import { type ApplyFaults, type ApplyResult, applyReport, type FileOutcome } from './applier.js';
import {
  makeCheckpoint,
  OUTSIDE_STATE,
  type RunRecord,
  type RunRecorder,
  startRun,
  WIP_MESSAGE,
} from './checkpoint.js';
import { describeEdit } from './describe-edit.js';
import type { PreparedRewrite } from './generative.js';
import { commitDates, expectOk, headOid, outputOf, readGit, userGit } from './git-steps.js';
import {
  type GuardedPlan,
  guardCleanPlan,
  keepRewritesResolving,
  type LinkRewrite,
} from './keep-references.js';
import { holdDirFor, type LifecycleApplyContext } from './lifecycle.js';
import {
  acquireRunLock,
  type InterruptedRunReport,
  releaseHold,
  removeStaleTemps,
  rollBack,
} from './recovery.js';
import { entriesOutsideScan } from './report-scope.js';
import { notWritablePaths } from './writable.js';

/**
 * `clean` (docs/hygiene-clean.md): plan (load, validate, gate — no side effects) and act
 * (lock, pre-flight, WIP checkpoint, apply, precise staging, one commit, rollback on hard
 * failure, stamp `last_clean`) are separate functions.
 */

export { WIP_MESSAGE };

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

const kindOf = (entry: Entry): EditKind | 'generative' =>
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

interface RepoState {
  gitDir: string;
  head: string;
  branch: string;
}

/** Refuses a tree git cannot safely commit in: not a repository, unborn, detached, or mid-operation. */
async function checkRepository(root: string, deadline: Deadline): Promise<RepoState> {
  const layout = await discoverRepo(root, deadline);
  if (layout === undefined || layout.toplevel === undefined)
    throw new RefusalError('not-a-repository', 'clean needs a git work tree: the cleanup is a git commit');
  const head = await git(['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { cwd: root, deadline });
  if (head.kind !== 'exited' || head.code !== 0)
    throw new RefusalError('no-commits', 'the repository has no commit yet; commit something first');
  const branch = await git(['symbolic-ref', '-q', 'HEAD'], { cwd: root, deadline });
  if (branch.kind !== 'exited' || branch.code !== 0)
    throw new RefusalError('detached-head', 'HEAD is detached; check out a branch first');
  const operations: [string, string][] = [
    ['MERGE_HEAD', 'a merge'],
    ['rebase-merge', 'a rebase'],
    ['rebase-apply', 'a rebase or am'],
    ['CHERRY_PICK_HEAD', 'a cherry-pick'],
    ['REVERT_HEAD', 'a revert'],
    ['BISECT_LOG', 'a bisect'],
  ];
  for (const [marker, what] of operations) {
    if (await pathExists(join(layout.gitDir, marker)))
      throw new RefusalError(
        'operation-in-progress',
        `the repository is in the middle of ${what}; finish or abort it first`,
      );
  }
  // A conflicted index cannot be checkpointed (`write-tree` refuses it).
  if ((await readGit(['ls-files', '-u', '-z'], root, deadline)) !== '')
    throw new RefusalError('unmerged-paths', 'the index has unmerged paths; resolve them first');
  return {
    gitDir: layout.gitDir,
    head: head.stdout.toString('utf8').trim(),
    branch: branch.stdout.toString('utf8').trim(),
  };
}

async function pathExists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** A commit needs the user's identity: check it before any change (docs/hygiene-clean.md). */
async function checkIdentity(
  root: string,
  env: NodeJS.ProcessEnv | undefined,
  deadline: Deadline,
): Promise<void> {
  for (const variable of ['GIT_AUTHOR_IDENT', 'GIT_COMMITTER_IDENT']) {
    const result = await git(['var', variable], {
      cwd: root,
      deadline,
      mode: 'user',
      extraEnv: userGitEnv(env),
    });
    if (result.kind !== 'exited' || result.code !== 0)
      throw new RefusalError(
        'missing-identity',
        'no git identity to commit with; set user.name and user.email (git config --global user.name …)',
      );
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

export interface CleanFaults extends ApplyFaults {
  /** Called once the checkpoint is made (or found unnecessary), before the first file. */
  afterCheckpoint?: () => void | Promise<void>;
  /** Called after staging, just before the cleanup commit. */
  beforeCommit?: () => void | Promise<void>;
  /** Called once the cleanup commit exists, before `last_clean` is stamped. */
  afterCommit?: () => void | Promise<void>;
}

export interface CleanOptions extends PlanCleanOptions {
  clock: Clock;
  /** Plan only: report what would happen; change nothing, not even state. */
  dryRun?: boolean;
  /** The environment whose git identity and user config the commits use; default: this process's. */
  env?: NodeJS.ProcessEnv;
  /** A plan already made (and shown to the user) by `planClean` with the same options. */
  plan?: CleanPlan;
  /** Interrupt (SIGINT): checked between files; an interrupted run is rolled back. */
  signal?: AbortSignal;
  /**
   * Distils and checks the approved generative entries (`apply/generative.ts`), before any
   * change; under `dryRun` it must not call a model. Without it, generative entries are skipped.
   */
  prepareRewrites?: (entries: Entry[], dryRun: boolean) => Promise<ReadonlyMap<string, PreparedRewrite>>;
  /** Test-only failure injection. */
  faults?: CleanFaults;
  /** Called once the pre-flight checks passed, before the first change (e.g. to list what will apply). */
  onBeforeChanges?: (plan: CleanPlan) => void;
  /** Skip the user's pre-commit and commit-msg hooks on the cleanup commit, as `git commit --no-verify` does. */
  noVerify?: boolean;
  /** The repository's run lock, already held by the caller (`sweep`); default: `clean` takes it. */
  lock?: HeldLock;
}

/** A run lock taken with `acquireRunLock`, with what it found of an interrupted run. */
export interface HeldLock {
  lock: RunLock | undefined;
  interrupted?: InterruptedRunReport;
}

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

// Labels in the commit message, in the order docs/hygiene-clean.md gives them: each line
// names every kind that can be in its tier, so its parts add up to its count. A move and a
// dedupe are always confirm (a move breaks links from outside; the canonical copy is a
// judgment); a link fix, a freeze or a delete is confirm when its evidence is judged.
const MOVE: [string, (entry: Entry) => boolean] = ['move-to-archive', (e) => kindOf(e) === 'move-to-archive'];
const REPLACE: [string, (entry: Entry) => boolean] = ['replace-text', (e) => kindOf(e) === 'replace-text'];
const FREEZE: [string, (entry: Entry) => boolean] = ['freeze', (e) => kindOf(e) === 'insert-frontmatter'];
const DELETE: [string, (entry: Entry) => boolean] = ['delete', (e) => kindOf(e) === 'delete-path'];
const AUTO_LABELS: [string, (entry: Entry) => boolean][] = [REPLACE, FREEZE, DELETE];
const CONFIRMED_LABELS: [string, (entry: Entry) => boolean][] = [
  MOVE,
  REPLACE,
  FREEZE,
  DELETE,
  ['delete-range', (e) => kindOf(e) === 'delete-range'],
  ['dedupe', (e) => kindOf(e) === 'dedupe'],
  ['distill', (e) => kindOf(e) === 'generative' && e.category.subtype === 'distill'],
  ['split', (e) => kindOf(e) === 'generative' && e.category.subtype === 'split'],
];

/** The cleanup commit message, exactly in the docs/hygiene-clean.md shape (no trailers, no attribution). */
export function cleanupMessage(applied: readonly Entry[], files: number, skipped: number): string {
  const line = (title: string, labels: [string, (entry: Entry) => boolean][], tier: SafetyTier) => {
    const ofTier = applied.filter((entry) => entry.safety_tier === tier);
    const parts = labels.map(([label, test]) => `${label} ×${ofTier.filter(test).length}`);
    return `${title}: ${ofTier.length} (${parts.join(', ')})`;
  };
  const n = applied.length;
  return [
    `docs: hygiene cleanup (${n} edit${n === 1 ? '' : 's'} across ${files} file${files === 1 ? '' : 's'})`,
    '',
    line('Auto', AUTO_LABELS, 'auto'),
    line('Confirmed', CONFIRMED_LABELS, 'confirm'),
    ...lifecycleLine(applied),
    `Skipped (re-analysis recommended): ${skipped}`,
    '',
  ].join('\n');
}

/** `Lifecycle: 3 deleted (runs ×2, scratch ×1)`, rules in first-seen order; nothing when none ran. */
function lifecycleLine(applied: readonly Entry[]): string[] {
  const byRule = new Map<string, number>();
  for (const entry of applied)
    if (entry.lifecycle !== undefined && kindOf(entry) === 'delete-path')
      byRule.set(entry.lifecycle.rule, (byRule.get(entry.lifecycle.rule) ?? 0) + 1);
  if (byRule.size === 0) return [];
  const total = [...byRule.values()].reduce((sum, n) => sum + n, 0);
  return [`Lifecycle: ${total} deleted (${[...byRule].map(([rule, n]) => `${rule} ×${n}`).join(', ')})`];
}

function countOutcomes(entries: readonly CleanEntryOutcome[]): CleanResult['counts'] {
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

/**
 * Applies the approved entries and makes exactly one cleanup commit (docs/hygiene-clean.md,
 * steps 3–8), holding the repository's run lock throughout. On a hard failure the run is
 * rolled back from its own record (every file it wrote, the checkpoint, the index) and an
 * OperationalError is thrown.
 */
export async function clean(options: CleanOptions): Promise<CleanResult> {
  const deadline = options.deadline ?? Deadline.none();
  const planned = options.plan ?? (await planClean(options));
  if (options.dryRun)
    return dryRunClean(await guarded(await recheckWritable(planned, deadline), deadline), options, deadline);
  const own =
    options.lock === undefined
      ? await acquireRunLock(planned.root, 'clean', options.clock, options.env, deadline)
      : undefined;
  const held = options.lock ?? own!;
  try {
    // A recovered run changed the tree the plan was made from (a moved file is back, say):
    // plan again, with the same decisions.
    const current =
      held.interrupted !== undefined && held.interrupted.restored.length > 0
        ? await planClean({
            cwd: planned.root,
            ...planned.decisions,
            ...(options.generative ? { generative: options.generative } : {}),
            ...(planned.configFile !== undefined ? { configFile: planned.configFile } : {}),
            deadline,
          })
        : planned;
    const plan = await guarded(await recheckWritable(current, deadline), deadline);
    const removed = await removeStaleTemps(plan.plan.root, [
      ...new Set(plan.report.entries.map((e) => e.path)),
    ]);
    const result = await cleanLocked(plan, options, deadline, held.lock);
    if (held.interrupted !== undefined) result.interrupted_run = held.interrupted;
    if (removed.length > 0) result.removed_temp_files = removed;
    return result;
  } finally {
    await own?.lock?.release();
  }
}

/**
 * The reference invariant (keep-references.ts): approved entries that would break a
 * reference that resolves now are skipped, and a move takes its inbound links with it (extra
 * entries in the report handed to the applier).
 */
async function guarded(plan: CleanPlan, deadline: Deadline): Promise<GuardedPlan> {
  if (plan.apply.length === 0) return { plan, report: plan.report, apply: plan.apply, rewrites: [] };
  return guardCleanPlan(plan, deadline);
}

const gateOutcome = (entry: PlannedEntry): CleanEntryOutcome['outcome'] =>
  entry.decision === 'approved' ? 'would-apply' : entry.decision;

/** The ids of `applied` that are the plan's own entries (a link rewrite belongs to its move). */
const ownApplied = (applied: ApplyResult, plan: CleanPlan): string[] => {
  const own = new Set(plan.report.entries.map((entry) => entry.id));
  return applied.entries.filter((e) => e.status === 'applied' && own.has(e.id)).map((e) => e.id);
};

/** Each link rewrite's id → the move it follows: the applier applies it only after that move. */
const followedMoves = (guard: GuardedPlan): Map<string, string> =>
  new Map(guard.rewrites.map((rewrite) => [rewrite.id, rewrite.for_entry]));

/** The link rewrites whose entries ran. */
const ranRewrites = (applied: ApplyResult, rewrites: readonly LinkRewrite[]): LinkRewrite[] => {
  const ran = new Set(applied.entries.filter((e) => e.status === 'applied').map((e) => e.id));
  return rewrites.filter((rewrite) => ran.has(rewrite.id));
};

/** Distils the approved generative entries (`dryRun`: no model call) and holds each to the reference invariant. */
async function preparedRewrites(
  guard: GuardedPlan,
  options: CleanOptions,
  dryRun: boolean,
): Promise<ReadonlyMap<string, PreparedRewrite> | undefined> {
  const rewrites = await options.prepareRewrites?.(approvedGenerative(guard.plan), dryRun);
  if (rewrites === undefined || guard.world === undefined) return rewrites;
  return keepRewritesResolving(guard.world, guard.plan.report, rewrites);
}

/** The approved generative entries of a plan, in plan order. */
function approvedGenerative(plan: CleanPlan): Entry[] {
  const byId = new Map(plan.report.entries.map((entry) => [entry.id, entry]));
  return plan.apply.map((id) => byId.get(id)!).filter((entry) => entry.op_type === 'generative');
}

async function dryRunClean(
  guard: GuardedPlan,
  options: CleanOptions,
  deadline: Deadline,
): Promise<CleanResult> {
  const { plan } = guard;
  const base = { root: plan.root, report_generated_at: plan.report.generated_at };
  if (plan.apply.length === 0) {
    const entries = plan.entries.map((entry) => ({ ...entry, outcome: gateOutcome(entry) }));
    return { status: 'dry-run', ...base, entries, files: [], counts: countOutcomes(entries) };
  }
  // Every guard runs (hash, conflicts, destinations); nothing is written or moved.
  const rewrites = await preparedRewrites(guard, options, true);
  const simulated = await applyReport({
    root: plan.root,
    report: guard.report,
    only: guard.apply,
    deadline,
    env: options.env,
    dryRun: true,
    // Judged as the real run judges: it records (so untracked units may go) and checkpoints
    // uncommitted work (so an approved dirty unit may go); nothing moves here.
    lifecycle: await lifecycleContext(plan, options, {
      checkpointed: Object.values(await pendingChanges(plan.root, deadline)).some(Boolean),
      baseHead: 'HEAD',
      holdDir: '',
    }),
    ...(rewrites !== undefined ? { rewrites } : {}),
    follows: followedMoves(guard),
  });
  const entries = mergeOutcomes(plan.entries, simulated, gateOutcome, 'would-apply');
  return {
    status: 'dry-run',
    ...base,
    entries,
    files: simulated.files,
    counts: countOutcomes(entries),
    link_rewrites: guard.rewrites,
  };
}

/** Whether tracked work (outside `.dochygiene/`) or tracked tool state in the index needs a checkpoint. */
async function pendingChanges(
  root: string,
  deadline: Deadline,
): Promise<{ dirty: boolean; stagedState: boolean }> {
  const dirty =
    (await readGit(
      // A submodule with only modified or untracked content inside is not a change this
      // repository can commit (`add -u` stages nothing for it): it is not dirty here.
      [
        'status',
        '--porcelain=v1',
        '-z',
        '--untracked-files=no',
        '--ignore-submodules=dirty',
        '--',
        ...OUTSIDE_STATE,
      ],
      root,
      deadline,
      false,
    )) !== '';
  const stagedState =
    (await readGit(['diff', '--cached', '--name-only', '-z', '--', STATE_DIR], root, deadline)) !== '';
  return { dirty, stagedState };
}

/** Step 6, stage: what the edits changed, tracked paths only, then the index checked. */
async function stageApplied(
  applied: ApplyResult,
  root: string,
  env: NodeJS.ProcessEnv | undefined,
  deadline: Deadline,
): Promise<void> {
  // `-u`: only paths git already tracks are staged; a file that is not (however it got
  // here) stays out of the commit, and the index check below refuses the run.
  if (applied.stage.length > 0)
    expectOk(await userGit(['add', '-u', '--', ...applied.stage], root, env, deadline), 'git add -u');
  await verifyIndex(root, deadline, [...applied.stage, ...applied.staged_by_move, ...applied.staged_by_rm]);
}

/** Step 8, stamp: last_clean is the commit's own time, written only once the commit exists; a failure only warns. */
async function stampLastClean(
  result: CleanResult,
  commit: string,
  root: string,
  deadline: Deadline,
  options: CleanOptions,
  warnings: string[],
): Promise<void> {
  try {
    await options.faults?.afterCommit?.();
    const seconds = Number((await readGit(['show', '-s', '--format=%ct', commit], root, deadline)).trim());
    result.last_clean = formatInstant(new Date(seconds * 1000));
    await new StateStore(root).stamp('last_clean', result.last_clean);
  } catch (error) {
    delete result.last_clean;
    warnings.push(`the commit was made, but last_clean could not be stamped: ${(error as Error).message}`);
  }
}

async function cleanLocked(
  guard: GuardedPlan,
  options: CleanOptions,
  deadline: Deadline,
  lock: RunLock | undefined,
): Promise<CleanResult> {
  const { plan } = guard;
  const { root, report } = plan;
  const { env } = options;
  const byId = new Map(report.entries.map((entry) => [entry.id, entry]));
  const base = { root, report_generated_at: report.generated_at };
  if (plan.apply.length === 0) {
    const entries = plan.entries.map((entry) => ({ ...entry, outcome: gateOutcome(entry) }));
    const counts = countOutcomes(entries);
    return { status: counts.skipped > 0 ? 'partial' : 'nothing', ...base, entries, files: [], counts };
  }

  // Pre-flight (step 3), all before the first change.
  const repo = await checkRepository(root, deadline);
  await checkIdentity(root, env, deadline);
  // Distil before the first change: a failed or cancelled model request leaves everything as it was.
  const rewrites = await preparedRewrites(guard, options, false);
  options.onBeforeChanges?.(plan);
  const dates = commitDates(env, options.clock);
  const pending = await pendingChanges(root, deadline);
  const recorder = await startRun(root, repo, deadline, lock, formatInstant(options.clock.now()));
  const { record } = recorder;
  const deletes = plan.apply.some((id) => kindOf(byId.get(id)!) === 'delete-path');
  // Journaled before its first use, so that the next run finds what a crash left held.
  if (deletes) recorder.note({ type: 'hold', dir: holdDirFor(repo.gitDir) });

  let applied: ApplyResult | undefined;
  let commit: string;
  let message: string;
  let entries: CleanEntryOutcome[];
  let counts: CleanResult['counts'];
  const warnings: string[] = [];
  try {
    if (pending.dirty || pending.stagedState)
      await makeCheckpoint(recorder, root, env, deadline, dates, pending);
    await options.faults?.afterCheckpoint?.();
    applied = await applyReport({
      root,
      report: guard.report,
      only: guard.apply,
      deadline,
      env,
      onEdit: (edit) => recorder.note({ type: 'edit', ...edit }),
      ...(lock === undefined ? {} : { tempDir: lock.tempDir }),
      ...(deletes
        ? {
            lifecycle: await lifecycleContext(plan, options, {
              checkpointed: record.wip !== undefined,
              baseHead: record.head,
              holdDir: record.holdDir!,
            }),
          }
        : {}),
      ...(rewrites !== undefined ? { rewrites } : {}),
      follows: followedMoves(guard),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.faults ? { faults: options.faults } : {}),
    });
    if (applied.status === 'failed') {
      const failed = applied.files.find((file) => file.status === 'failed')!;
      throw new OperationalError(
        'apply-failed',
        `${failed.path}: ${failed.reason}: ${failed.detail ?? ''}`.trim(),
      );
    }
    await stageApplied(applied, root, env, deadline);

    entries = mergeOutcomes(plan.entries, applied, gateOutcome, 'applied');
    counts = countOutcomes(entries);
    const changedFiles = applied.files.filter((file) => file.status === 'applied').length;
    if (changedFiles === 0) {
      // Nothing to commit: leave no checkpoint behind either.
      const unwound = await rollBack(root, env, deadline, record);
      if (!unwound.ok) warnings.push(`the checkpoint could not be unwound: ${unwound.problem}`);
      const result: CleanResult = {
        status: counts.skipped > 0 ? 'partial' : 'nothing',
        ...base,
        entries,
        files: applied.files,
        counts,
      };
      if (!unwound.ok && record.wip !== undefined) result.wip_commit = record.wip;
      if (warnings.length > 0) result.warnings = warnings;
      return result;
    }
    const staged = applied.stage.length + applied.staged_by_move.length + applied.staged_by_rm.length;
    if (staged === 0)
      return await untrackedOnly(recorder, root, env, deadline, base, entries, counts, applied);

    // A lifecycle unit (a folder, say) counts as the files its `git rm` put in the commit.
    const units = new Set(applied.entries.filter((e) => e.kind === 'delete-path').map((e) => e.path));
    const committedFiles =
      applied.files.filter((file) => file.status === 'applied' && !units.has(file.path)).length +
      applied.staged_by_rm.length;
    message = cleanupMessage(
      ownApplied(applied, plan).map((id) => byId.get(id)!),
      committedFiles,
      counts.skipped,
    );
    await options.faults?.beforeCommit?.();
    commit = await commitCleanup(recorder, root, env, deadline, dates, message, options.noVerify === true);
  } catch (error) {
    throw await rolledBackError(error, root, env, deadline, record, applied);
  }

  // The commit exists and stands: what fails from here on is a warning, never a rollback.
  const result: CleanResult = {
    status: counts.skipped > 0 ? 'partial' : 'committed',
    ...base,
    entries,
    files: applied.files,
    commit,
    message,
    hooks_ran: options.noVerify !== true,
    counts,
    link_rewrites: ranRewrites(applied, guard.rewrites),
  };
  if (record.wip !== undefined) result.wip_commit = record.wip;
  if (record.staged !== undefined) result.staged_ref = record.staged.ref;
  await stampLastClean(result, commit, root, deadline, options, warnings);
  try {
    // The commit exists: what lifecycle deletions held is final (a crash before this is
    // finished by the next run, which finds the commit).
    if (record.holdDir !== undefined) {
      recorder.note({ type: 'held-released' });
      await releaseHold(record);
    }
  } catch (error) {
    warnings.push(
      `the commit was made, but the deleted files held in ${record.holdDir} could not be removed: ${(error as Error).message}`,
    );
  }
  if (warnings.length > 0) result.warnings = warnings;
  return result;
}

/**
 * Approved lifecycle deletions of untracked files alone: they have no history, so there is
 * nothing to commit. They are declared final (journaled first, so a crash from here on
 * never puts them back half-way), and the checkpoint is unwound as for an empty run.
 */
async function untrackedOnly(
  recorder: RunRecorder,
  root: string,
  env: NodeJS.ProcessEnv | undefined,
  deadline: Deadline,
  base: { root: string; report_generated_at: string },
  entries: CleanEntryOutcome[],
  counts: CleanResult['counts'],
  applied: ApplyResult,
): Promise<CleanResult> {
  const { record } = recorder;
  recorder.note({ type: 'held-released' });
  await releaseHold(record);
  const unwound = await rollBack(root, env, deadline, record);
  const result: CleanResult = {
    status: counts.skipped > 0 ? 'partial' : 'removed',
    ...base,
    entries,
    files: applied.files,
    counts,
  };
  if (!unwound.ok) {
    result.warnings = [`the checkpoint could not be unwound: ${unwound.problem}`];
    if (record.wip !== undefined) result.wip_commit = record.wip;
  }
  return result;
}

/** What the applier needs for `delete-path` entries: the rules as configured now and this run's facts. */
async function lifecycleContext(
  plan: CleanPlan,
  options: CleanOptions,
  run: { checkpointed: boolean; baseHead: string; holdDir: string },
): Promise<LifecycleApplyContext> {
  const { lifecycle } = await loadConfig(plan.root, options.env, plan.configFile);
  return {
    rules: lifecycle.rules,
    ...(lifecycle.vault_command ? { vaultCommand: lifecycle.vault_command } : {}),
    ...(options.env ? { env: options.env } : {}),
    nowMs: options.clock.now().getTime(),
    approved: new Set(plan.decisions.approve),
    ...run,
  };
}

/**
 * The cleanup commit, made as `git commit` makes it: the user's identity, signing and
 * hooks (`noVerify`: without pre-commit and commit-msg). A refusal carries everything the
 * command printed (a hook's output) as `tool_output`.
 */
async function commitCleanup(
  recorder: RunRecorder,
  root: string,
  env: NodeJS.ProcessEnv | undefined,
  deadline: Deadline,
  dates: NodeJS.ProcessEnv,
  message: string,
  noVerify: boolean,
): Promise<string> {
  recorder.note({ type: 'commit-started' });
  const result = await userGit(
    ['commit', '-q', ...(noVerify ? ['--no-verify'] : []), '--cleanup=whitespace', '-F', '-'],
    root,
    env,
    deadline,
    dates,
    message,
    'commit',
  );
  if (result.kind !== 'exited' || result.code !== 0) {
    const output = outputOf(result);
    throw new OperationalError('commit-failed', describeOutcome(result, 'git commit'), {
      ...(output === '' ? {} : { tool_output: output }),
    });
  }
  const commit = await headOid(root, deadline);
  recorder.note({ type: 'committed', commit });
  return commit;
}

/** Rolls the run back from its record and describes the failure (and how far the rollback got). */
async function rolledBackError(
  error: unknown,
  root: string,
  env: NodeJS.ProcessEnv | undefined,
  deadline: Deadline,
  record: RunRecord,
  applied: ApplyResult | undefined,
): Promise<OperationalError> {
  const restored = await rollBack(root, env, deadline, record);
  const reason = (error as Error).message;
  const output = (error as { details?: Record<string, unknown> }).details?.['tool_output'];
  const baseline = record.wip ?? record.head;
  return new OperationalError(
    'clean-failed',
    restored.ok
      ? `cleanup failed and was rolled back; nothing changed (${reason})`
      : `cleanup failed (${reason}) and the rollback did not finish (${restored.problem}); your work is in commit ${baseline}`,
    {
      reason,
      rolled_back: restored.ok,
      baseline,
      ...(typeof output === 'string' ? { tool_output: output } : {}),
      ...(record.wip ? { wip_commit: record.wip, original_head: record.head } : {}),
      ...(!restored.ok && record.staged ? { staged_ref: record.staged.ref } : {}),
      ...(restored.ok ? {} : { left_alone: restored.left_alone }),
      files: applied?.files ?? [],
    },
  );
}

/**
 * A plan made earlier (and shown at the gate) may be stale: a file untracked, or marked
 * assume-unchanged or skip-worktree since, is skipped now, before anything changes. (A
 * lifecycle unit is judged on its own facts at apply time.)
 */
async function recheckWritable(plan: CleanPlan, deadline: Deadline): Promise<CleanPlan> {
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

/** Each planned entry's final word: the applier's outcome where it ran, else the gate's decision. */
function mergeOutcomes(
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
