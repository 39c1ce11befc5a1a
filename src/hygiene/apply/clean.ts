import { lstat, readFile, realpath, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type Clock, formatInstant } from '../../core/clock.js';
import { Deadline } from '../../core/deadline.js';
import { OperationalError, RefusalError, ValidationError } from '../../core/errors.js';
import { discoverRepo, git, gitText, readIndexFlags, splitNul, userGitEnv } from '../../core/git.js';
import { describeOutcome, type RunResult } from '../../core/run.js';
import { loadConfig } from '../config.js';
import { resolveProjectRoot } from '../project.js';
import { validateReport } from '../report/validate.js';
import { STATE_DIR, StateStore } from '../state/store.js';
import type { EditKind, Entry, Report, SafetyTier } from '../types.js';
import {
  type ApplyFaults,
  type ApplyResult,
  applyReport,
  type FileOutcome,
  removeCreatedDirs,
} from './applier.js';
import type { PreparedRewrite } from './generative.js';
import { type LifecycleApplyContext, releaseHeld, restoreHeld } from './lifecycle.js';
import { sha256Hex } from './text-edits.js';

/**
 * `clean` (SPEC §2.10): plan (load, validate, gate — no side effects) and act (pre-flight,
 * WIP checkpoint, apply, precise staging, one commit, rollback on hard failure, stamp
 * `last_clean`) are separate functions.
 */

export const WIP_MESSAGE = 'wip: checkpoint before docs hygiene cleanup';

/** What the gate decided for an entry before anything changes. */
export type GateDecision =
  /** auto tier, or confirm tier approved: will be applied. */
  | 'approved'
  /** confirm tier without approval: left untouched. */
  | 'needs-approval'
  /** named in `--reject`. */
  | 'rejected'
  /** approved, but cannot be applied in this release or this tree. */
  | 'skipped';

export interface PlannedEntry {
  id: string;
  path: string;
  kind: EditKind | 'generative';
  category: string;
  op: string;
  tier: SafetyTier;
  /** Destructive and irreversible (delete-range): marked in every listing. */
  irreversible: boolean;
  raw_tokens: number;
  why?: string;
  decision: GateDecision;
  /**
   * Why a `skipped` entry is skipped: `untracked`, `hidden-from-status` (marked
   * assume-unchanged or skip-worktree, so git cannot see or checkpoint a local edit in it),
   * `no-model`, `lifecycle-not-supported`.
   */
  reason?: string;
}

export interface CleanPlan {
  root: string;
  report: Report;
  entries: PlannedEntry[];
  /** The ids `clean` will hand to the applier. */
  apply: string[];
}

export interface PlanCleanOptions {
  cwd: string;
  /** Confirm-tier ids the user approved. Unknown ids are refused. */
  approve?: readonly string[];
  /** Ids to leave alone, whatever their tier. Unknown ids are refused. */
  reject?: readonly string[];
  /**
   * Where generative entries' new text can come from: ids with `--generated` text, and
   * whether a model is configured. An entry with neither is skipped `no-model`.
   */
  generative?: { texts: ReadonlySet<string>; model: boolean };
  deadline?: Deadline;
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
export async function loadReportFor(root: string): Promise<Report> {
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
  if (!(await isSameRoot(report.scan.project_root, root)))
    throw new RefusalError(
      'foreign-report',
      `the report was made for ${JSON.stringify(report.scan.project_root)}, not this project; run 'stw hygiene check' here`,
      { report_root: report.scan.project_root, project_root: root },
    );
  return report;
}

/** Whether a report's `scan.project_root` names `root` (relative: against `root`; through symlinks). */
export async function isSameRoot(reportRoot: string, root: string): Promise<boolean> {
  const named = resolve(root, reportRoot);
  if (named === root) return true;
  try {
    return (await realpath(named)) === root;
  } catch {
    return false;
  }
}

interface IndexFlags {
  /** Paths (of those asked about) that git tracks in the index. */
  tracked: Set<string>;
  /**
   * Tracked paths git hides from `status`: assume-unchanged (lowercase tag in `ls-files -v`)
   * or skip-worktree (`S`). A local edit in one is invisible to the dirty check, so no
   * checkpoint would hold it and `git add` would not stage it: such files are never edited.
   */
  hidden: Set<string>;
}

async function indexFlags(root: string, paths: readonly string[], deadline: Deadline): Promise<IndexFlags> {
  const flags: IndexFlags = { tracked: new Set(), hidden: new Set() };
  for (const [path, { assumeUnchanged, skipWorktree }] of await readIndexFlags(root, paths, deadline)) {
    flags.tracked.add(path);
    if (assumeUnchanged || skipWorktree) flags.hidden.add(path);
  }
  return flags;
}

async function readGit(args: string[], root: string, deadline: Deadline, literal = true): Promise<string> {
  const result = await git(args, {
    cwd: root,
    deadline,
    maxBytes: 64 * 1024 * 1024,
    extraEnv: { GIT_LITERAL_PATHSPECS: literal ? '1' : '0' },
  });
  if (result.kind === 'exited' && result.code === 0) return result.stdout.toString('utf8');
  throw new OperationalError('git-failed', describeOutcome(result, `git ${args[0]}`));
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

/** A commit needs the user's identity: check it before any change (SPEC §1). */
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
  const report = await loadReportFor(root);
  refuseUnknownIds(report, approve, '--approve');
  refuseUnknownIds(report, reject, '--reject');
  const both = approve.filter((id) => reject.includes(id));
  if (both.length > 0)
    throw new RefusalError(
      'conflicting-decision',
      `${JSON.stringify(both[0])} is both approved and rejected`,
    );

  const paths = [...new Set(report.entries.map((entry) => entry.path))];
  const { tracked, hidden } = await indexFlags(root, paths, deadline);
  const approved = new Set(approve);
  const rejected = new Set(reject);
  const entries = report.entries.map((entry): PlannedEntry => {
    const kind = kindOf(entry);
    const planned: PlannedEntry = {
      id: entry.id,
      path: entry.path,
      kind,
      category: `${entry.category.class}/${entry.category.subtype}`,
      op: entry.op,
      tier: entry.safety_tier,
      irreversible: entry.is_destructive && !entry.is_reversible,
      raw_tokens: entry.token_estimate.raw_tokens,
      decision: 'approved',
    };
    if (entry.why !== undefined) planned.why = entry.why;
    if (rejected.has(entry.id)) planned.decision = 'rejected';
    else if (entry.safety_tier === 'confirm' && !approved.has(entry.id)) planned.decision = 'needs-approval';
    else if (kind === 'delete-path') {
      // A unit (file or folder) judged again on the facts at apply time (docs/lifecycle.md).
    } else if (!tracked.has(entry.path)) {
      planned.decision = 'skipped';
      planned.reason = 'untracked';
    } else if (hidden.has(entry.path)) {
      planned.decision = 'skipped';
      planned.reason = 'hidden-from-status';
    } else if (
      kind === 'generative' &&
      options.generative?.model !== true &&
      options.generative?.texts.has(entry.id) !== true
    ) {
      planned.decision = 'skipped';
      planned.reason = 'no-model';
    }
    return planned;
  });
  return { root, report, entries, apply: entries.filter((e) => e.decision === 'approved').map((e) => e.id) };
}

export interface CleanFaults extends ApplyFaults {
  /** Called after staging, just before the cleanup commit. */
  beforeCommit?: () => void | Promise<void>;
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
}

export interface CleanEntryOutcome extends PlannedEntry {
  /** The final word: applied, unchanged (already in place), skipped, or the gate's decision. */
  outcome: 'applied' | 'unchanged' | 'skipped' | 'needs-approval' | 'rejected' | 'would-apply';
}

export interface CleanResult {
  /**
   * `committed`: every approved entry applied, one commit. `partial`: a commit (or none, if
   * nothing could apply) with some approved entries skipped. `nothing`: no approved entry.
   * `dry-run`: nothing changed.
   */
  /** `removed`: only untracked files were deleted (approved lifecycle entries), so there was nothing to commit. */
  status: 'committed' | 'partial' | 'nothing' | 'removed' | 'dry-run';
  root: string;
  report_generated_at: string;
  entries: CleanEntryOutcome[];
  files: FileOutcome[];
  /** The checkpoint of the user's tracked changes, when the tree was dirty. */
  wip_commit?: string;
  commit?: string;
  message?: string;
  /** The cleanup commit's committer time, stamped as `last_clean`. */
  last_clean?: string;
  counts: { applied: number; skipped: number; needs_approval: number; rejected: number };
}

// Labels in the commit message, in SPEC order.
const AUTO_LABELS: [string, (entry: Entry) => boolean][] = [
  ['move-to-archive', (e) => kindOf(e) === 'move-to-archive'],
  ['replace-text', (e) => kindOf(e) === 'replace-text'],
  ['dedupe', (e) => kindOf(e) === 'dedupe'],
  ['freeze', (e) => kindOf(e) === 'insert-frontmatter'],
  ['delete', (e) => kindOf(e) === 'delete-path'],
];
const CONFIRMED_LABELS: [string, (entry: Entry) => boolean][] = [
  ['delete-range', (e) => kindOf(e) === 'delete-range'],
  ['distill', (e) => kindOf(e) === 'generative' && e.category.subtype === 'distill'],
  ['split', (e) => kindOf(e) === 'generative' && e.category.subtype === 'split'],
];

/** The cleanup commit message, exactly in the SPEC §2.10 shape (no trailers, no attribution). */
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
    rejected: count('rejected'),
  };
}

async function userGit(
  args: string[],
  root: string,
  env: NodeJS.ProcessEnv | undefined,
  deadline: Deadline,
  extra: NodeJS.ProcessEnv = {},
  input?: string,
): Promise<RunResult> {
  const options = {
    cwd: root,
    deadline,
    mode: 'user' as const,
    extraEnv: { ...userGitEnv(env), GIT_LITERAL_PATHSPECS: '1', ...extra },
    ...(input === undefined ? {} : { input }),
  };
  return git(args, options);
}

function expectOk(result: RunResult, what: string): string {
  if (result.kind === 'exited' && result.code === 0) return result.stdout.toString('utf8');
  const stderr = 'stderr' in result ? result.stderr.toString('utf8').trim().split('\n')[0] : '';
  throw new OperationalError('git-failed', `${describeOutcome(result, what)}${stderr ? `: ${stderr}` : ''}`);
}

/** Commit dates from the injected clock (STW_NOW), unless the caller's environment pins them. */
function commitDates(env: NodeJS.ProcessEnv | undefined, clock: Clock): NodeJS.ProcessEnv {
  const source = env ?? process.env;
  const now = formatInstant(clock.now());
  return {
    GIT_AUTHOR_DATE: source['GIT_AUTHOR_DATE'] ?? now,
    GIT_COMMITTER_DATE: source['GIT_COMMITTER_DATE'] ?? now,
  };
}

/** What the run changed before applying anything, so it can be undone exactly. */
interface Checkpoint {
  /** HEAD before the run. */
  head: string;
  /** The user's index before the run, as a tree (restored exactly on rollback). */
  indexTree: string;
  /** The WIP commit of the user's tracked changes, when the tree was dirty. */
  wip?: string;
  /** Index flags `read-tree` drops, put back after it: assume-unchanged and skip-worktree paths. */
  assumeUnchanged: string[];
  skipWorktree: string[];
}

// The tool's own state never enters a commit, even where a user has (wrongly) tracked it.
const OUTSIDE_STATE = [':(top)', `:(top,exclude)${STATE_DIR}`];

/**
 * Applies the approved entries and makes exactly one cleanup commit (SPEC §2.10 steps
 * 3–8). On a hard failure the baseline is restored (and a WIP checkpoint unwound, so the
 * user's dirty tree and index come back as they were) and an OperationalError is thrown.
 */
export async function clean(options: CleanOptions): Promise<CleanResult> {
  const deadline = options.deadline ?? Deadline.none();
  const plan = await recheckHidden(options.plan ?? (await planClean(options)), deadline);
  const { root, report } = plan;
  const byId = new Map(report.entries.map((entry) => [entry.id, entry]));
  const base = {
    root,
    report_generated_at: report.generated_at,
  };
  const gateOutcome = (entry: PlannedEntry): CleanEntryOutcome['outcome'] =>
    entry.decision === 'approved'
      ? 'would-apply'
      : entry.decision === 'skipped'
        ? 'skipped'
        : entry.decision === 'rejected'
          ? 'rejected'
          : 'needs-approval';

  if (plan.apply.length === 0) {
    const entries = plan.entries.map((entry) => ({ ...entry, outcome: gateOutcome(entry) }));
    const counts = countOutcomes(entries);
    const status = options.dryRun ? 'dry-run' : counts.skipped > 0 ? 'partial' : 'nothing';
    return { status, ...base, entries, files: [], counts };
  }
  const approvedGenerative = plan.apply
    .map((id) => byId.get(id)!)
    .filter((entry) => entry.op_type === 'generative');
  if (options.dryRun) {
    // Every guard runs (hash, conflicts, destinations); nothing is written or moved.
    const rewrites = await options.prepareRewrites?.(approvedGenerative, true);
    const simulated = await applyReport({
      root,
      report,
      only: plan.apply,
      deadline,
      env: options.env,
      dryRun: true,
      lifecycle: await lifecycleContext(root, options, false, 'HEAD', deadline),
      ...(rewrites !== undefined ? { rewrites } : {}),
    });
    const entries = mergeOutcomes(plan.entries, simulated, gateOutcome, 'would-apply');
    return { status: 'dry-run', ...base, entries, files: simulated.files, counts: countOutcomes(entries) };
  }

  // Pre-flight (step 3), all before the first change.
  const repo = await checkRepository(root, deadline);
  await checkIdentity(root, options.env, deadline);
  // Distil before the first change: a failed or cancelled model request leaves everything as it was.
  const rewrites = await options.prepareRewrites?.(approvedGenerative, false);
  const dates = commitDates(options.env, options.clock);
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
  let checkpoint: Checkpoint | undefined;
  if (dirty || stagedState) {
    const indexTree = expectOk(
      await userGit(['write-tree'], root, options.env, deadline),
      'git write-tree',
    ).trim();
    checkpoint = { head: repo.head, indexTree, ...(await hiddenFlags(root, deadline)) };
    try {
      if (stagedState)
        expectOk(await userGit(['reset', '-q', '--', STATE_DIR], root, options.env, deadline), 'git reset');
      if (dirty) {
        // Like `commit -a`, but never the tool's state.
        expectOk(
          await userGit(['add', '-u', '--', ...OUTSIDE_STATE], root, options.env, deadline, {
            GIT_LITERAL_PATHSPECS: '0',
          }),
          'git add -u',
        );
        expectOk(
          await userGit(
            ['commit', '-q', '--no-verify', '-m', WIP_MESSAGE],
            root,
            options.env,
            deadline,
            dates,
          ),
          'git commit (WIP checkpoint)',
        );
        checkpoint.wip = await headOid(root, deadline);
      }
    } catch (error) {
      await unwindCheckpoint(root, options.env, deadline, checkpoint).catch(() => {});
      throw error;
    }
  }
  const baseline = checkpoint?.wip ?? repo.head;

  let applied: ApplyResult | undefined;
  try {
    applied = await applyReport({
      root,
      report,
      only: plan.apply,
      deadline,
      env: options.env,
      lifecycle: await lifecycleContext(
        root,
        options,
        checkpoint?.wip !== undefined,
        checkpoint?.head ?? repo.head,
        deadline,
      ),
      ...(rewrites !== undefined ? { rewrites } : {}),
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
    if (applied.stage.length > 0)
      expectOk(await userGit(['add', '--', ...applied.stage], root, options.env, deadline), 'git add');
    await verifyIndex(root, deadline, [...applied.stage, ...applied.staged_by_move, ...applied.staged_by_rm]);

    const appliedIds = new Set(applied.entries.filter((e) => e.status === 'applied').map((e) => e.id));
    const entries = mergeOutcomes(plan.entries, applied, gateOutcome, 'applied');
    const counts = countOutcomes(entries);
    const files = applied.files;
    const changedFiles = files.filter((file) => file.status === 'applied').length;
    const stagedPaths = applied.stage.length + applied.staged_by_move.length + applied.staged_by_rm.length;

    if (changedFiles === 0 || stagedPaths === 0) {
      // Nothing to commit: leave no checkpoint behind either. Untracked files removed by an
      // approved lifecycle entry have no history to commit: they go now.
      if (checkpoint !== undefined) await unwindCheckpoint(root, options.env, deadline, checkpoint);
      for (const held of applied.held) await releaseHeld(held);
      const removedOnly = changedFiles > 0;
      const result: CleanResult = {
        status: counts.skipped > 0 ? 'partial' : removedOnly ? 'removed' : 'nothing',
        ...base,
        entries,
        files,
        counts,
      };
      return result;
    }

    const message = cleanupMessage(
      [...appliedIds].map((id) => byId.get(id)!),
      changedFiles,
      counts.skipped,
    );
    await options.faults?.beforeCommit?.();
    expectOk(
      await userGit(
        ['commit', '-q', '--no-verify', '--cleanup=whitespace', '-F', '-'],
        root,
        options.env,
        deadline,
        dates,
        message,
      ),
      'git commit',
    );
    const commit = await headOid(root, deadline);
    // The commit exists: untracked files a lifecycle deletion held go for good.
    for (const held of applied.held) await releaseHeld(held);
    const result: CleanResult = {
      status: counts.skipped > 0 ? 'partial' : 'committed',
      ...base,
      entries,
      files,
      commit,
      message,
      counts,
    };
    if (checkpoint?.wip !== undefined) result.wip_commit = checkpoint.wip;
    // Step 8: the stamp is the commit's own time, written only now that the commit exists.
    const seconds = Number((await readGit(['show', '-s', '--format=%ct', commit], root, deadline)).trim());
    result.last_clean = formatInstant(new Date(seconds * 1000));
    await new StateStore(root).stamp('last_clean', result.last_clean);
    return result;
  } catch (error) {
    const head = await headOid(root, deadline).catch(() => undefined);
    if (head !== baseline) throw error; // the commit exists: nothing to roll back
    const restored = await restoreBaseline(root, options.env, deadline, baseline, applied, checkpoint);
    const reason = (error as Error).message;
    throw new OperationalError(
      'clean-failed',
      restored.ok
        ? `cleanup failed and was rolled back; nothing changed (${reason})`
        : `cleanup failed (${reason}) and the rollback did not finish (${restored.problem}); your work is in commit ${baseline}`,
      {
        reason,
        rolled_back: restored.ok,
        baseline,
        ...(checkpoint?.wip ? { wip_commit: checkpoint.wip, original_head: checkpoint.head } : {}),
        ...(restored.ok ? {} : { left_alone: restored.left_alone }),
        files: applied?.files ?? [],
      },
    );
  }
}

/**
 * A plan made earlier (and shown at the gate) may be stale: a file marked assume-unchanged
 * or skip-worktree since is skipped now, before anything changes.
 */
async function recheckHidden(plan: CleanPlan, deadline: Deadline): Promise<CleanPlan> {
  const approved = plan.entries.filter((entry) => entry.decision === 'approved');
  const { hidden } = await indexFlags(plan.root, [...new Set(approved.map((e) => e.path))], deadline);
  if (hidden.size === 0) return plan;
  const entries = plan.entries.map(
    (entry): PlannedEntry =>
      entry.decision === 'approved' && hidden.has(entry.path)
        ? { ...entry, decision: 'skipped', reason: 'hidden-from-status' }
        : entry,
  );
  return { ...plan, entries, apply: entries.filter((e) => e.decision === 'approved').map((e) => e.id) };
}

/** What the applier needs for `delete-path` entries: the rules as configured now and this run's facts. */
async function lifecycleContext(
  root: string,
  options: CleanOptions,
  checkpointed: boolean,
  baseHead: string,
  deadline: Deadline,
): Promise<LifecycleApplyContext> {
  const layout = await discoverRepo(root, deadline);
  const { lifecycle } = await loadConfig(root);
  return {
    rules: lifecycle.rules,
    ...(lifecycle.vault_command ? { vaultCommand: lifecycle.vault_command } : {}),
    ...(options.env ? { env: options.env } : {}),
    nowMs: options.clock.now().getTime(),
    approved: new Set(options.approve ?? []),
    checkpointed,
    baseHead,
    gitDir: layout?.gitDir ?? join(root, '.git'),
  };
}

/** Each planned entry's final word: the applier's outcome where it ran, else the gate's decision. */
function mergeOutcomes(
  planned: readonly PlannedEntry[],
  applied: ApplyResult,
  gateOutcome: (entry: PlannedEntry) => CleanEntryOutcome['outcome'],
  appliedAs: 'applied' | 'would-apply',
): CleanEntryOutcome[] {
  const byId = new Map(applied.entries.map((entry) => [entry.id, entry]));
  return planned.map((entry): CleanEntryOutcome => {
    const ran = byId.get(entry.id);
    if (ran === undefined) return { ...entry, outcome: gateOutcome(entry) };
    if (ran.status === 'applied') return { ...entry, outcome: appliedAs };
    if (ran.status === 'unchanged') return { ...entry, outcome: 'unchanged' };
    return { ...entry, decision: 'skipped', reason: ran.reason ?? ran.status, outcome: 'skipped' };
  });
}

async function headOid(root: string, deadline: Deadline): Promise<string> {
  return (await gitText(['rev-parse', '--verify', 'HEAD^{commit}'], { cwd: root, deadline })).trim();
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

/** Puts HEAD back before the WIP checkpoint and the user's index back as it was; the worktree is untouched. */
async function unwindCheckpoint(
  root: string,
  env: NodeJS.ProcessEnv | undefined,
  deadline: Deadline,
  checkpoint: Checkpoint,
): Promise<void> {
  if (checkpoint.wip !== undefined && (await headOid(root, deadline)) !== checkpoint.head)
    expectOk(
      await userGit(['reset', '-q', '--soft', checkpoint.head], root, env, deadline),
      'git reset --soft',
    );
  expectOk(await userGit(['read-tree', checkpoint.indexTree], root, env, deadline), 'git read-tree');
  // `read-tree` makes fresh entries: without this, a skip-worktree file absent from a sparse
  // worktree would show as deleted (and `commit -a` would delete it).
  for (const [flag, paths] of [
    ['--assume-unchanged', checkpoint.assumeUnchanged],
    ['--skip-worktree', checkpoint.skipWorktree],
  ] as const) {
    if (paths.length > 0)
      expectOk(
        await userGit(
          ['update-index', flag, '-z', '--stdin'],
          root,
          env,
          deadline,
          {},
          `${paths.join('\0')}\0`,
        ),
        'git update-index',
      );
  }
}

/** Every index path marked assume-unchanged or skip-worktree (`ls-files -v` tags). */
async function hiddenFlags(
  root: string,
  deadline: Deadline,
): Promise<{ assumeUnchanged: string[]; skipWorktree: string[] }> {
  const flags = { assumeUnchanged: [] as string[], skipWorktree: [] as string[] };
  for (const [path, { assumeUnchanged, skipWorktree }] of await readIndexFlags(root, undefined, deadline)) {
    if (skipWorktree) flags.skipWorktree.push(path);
    if (assumeUnchanged) flags.assumeUnchanged.push(path);
  }
  return flags;
}

/** Whether the file at `path` holds exactly the bytes with this sha256 (false when absent or not a file). */
async function holds(root: string, path: string, sha256: string | undefined): Promise<boolean> {
  if (sha256 === undefined) return false;
  try {
    if (!(await lstat(join(root, path))).isFile()) return false;
    return sha256Hex(await readFile(join(root, path))) === sha256;
  } catch {
    return false;
  }
}

async function isAbsent(root: string, path: string): Promise<boolean> {
  try {
    await lstat(join(root, path));
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * The applied files that still hold exactly what the run left there (a written file: the
 * bytes it wrote; a removed file: still absent; a move: the destination unchanged and the
 * source still absent), and the paths of every other applied file — changed since the
 * run wrote them, by someone else, so a rollback must not overwrite them.
 */
async function sortByIntegrity(
  root: string,
  applied: ApplyResult,
  deadline: Deadline,
): Promise<{ intact: string[]; changed: string[] }> {
  const intact: string[] = [];
  const changed: string[] = [];
  for (const file of applied.files) {
    if (file.status !== 'applied') continue;
    if (file.moved_to !== undefined) {
      const ok = (await holds(root, file.moved_to, file.written_sha256)) && (await isAbsent(root, file.path));
      (ok ? intact : changed).push(file.path, file.moved_to);
    } else if (applied.stage.includes(file.path)) {
      const ok = file.removed
        ? await isAbsent(root, file.path)
        : await holds(root, file.path, file.written_sha256);
      (ok ? intact : changed).push(file.path);
    }
  }
  // Lifecycle `git rm`: each removed file must still be absent to be checked out again.
  for (const path of applied.staged_by_rm) ((await isAbsent(root, path)) ? intact : changed).push(path);
  // A file hidden from status (marked after the plan was checked) may have held a local
  // edit the baseline does not have: checking the baseline out over it could destroy that.
  const { hidden } = await indexFlags(root, intact, deadline);
  if (hidden.size > 0)
    return { intact: intact.filter((p) => !hidden.has(p)), changed: [...changed, ...hidden] };
  return { intact, changed };
}

type Restored = { ok: true } | { ok: false; problem: string; left_alone: string[] };

/**
 * Restores every path the run touched to the baseline (index and worktree), removes move
 * destinations and the folders made for them, then unwinds a WIP checkpoint. Only touched
 * paths are restored, so nothing else in the worktree (untracked files included) is touched;
 * and only those that still hold what the run wrote: a path changed since is left as it is
 * in the worktree (only its index entry goes back) and named, and the rollback is incomplete.
 */
async function restoreBaseline(
  root: string,
  env: NodeJS.ProcessEnv | undefined,
  deadline: Deadline,
  baseline: string,
  applied: ApplyResult | undefined,
  checkpoint: Checkpoint | undefined,
): Promise<Restored> {
  let leftAlone: string[] = [];
  try {
    if (applied !== undefined) {
      const { intact, changed } = await sortByIntegrity(root, applied, deadline);
      leftAlone = changed;
      // Paths staged by the run but not sorted above (none today) are restored as before.
      const sorted = new Set([...intact, ...changed]);
      const touched = [
        ...new Set([
          ...intact,
          ...[...applied.stage, ...applied.staged_by_move, ...applied.staged_by_rm].filter(
            (p) => !sorted.has(p),
          ),
        ]),
      ];
      if (changed.length > 0)
        // The index entry only: `reset` never writes the worktree.
        expectOk(
          await userGit(['reset', '-q', baseline, '--', ...changed], root, env, deadline),
          'git reset',
        );
      if (touched.length > 0) {
        const inBaseline = new Set(
          splitNul(
            await readGit(['ls-tree', '-z', '--name-only', baseline, '--', ...touched], root, deadline),
          ),
        );
        const known = touched.filter((path) => inBaseline.has(path));
        const created = touched.filter((path) => !inBaseline.has(path));
        if (created.length > 0) {
          expectOk(
            await userGit(
              ['rm', '-q', '--cached', '--ignore-unmatch', '--', ...created],
              root,
              env,
              deadline,
            ),
            'git rm --cached',
          );
          for (const path of created) await rm(join(root, path), { force: true });
        }
        if (known.length > 0)
          expectOk(
            await userGit(['checkout', baseline, '--', ...known], root, env, deadline),
            'git checkout',
          );
      }
      await removeCreatedDirs(root, applied.created_dirs);
      for (const held of applied.held) leftAlone.push(...(await restoreHeld(root, held)));
    }
    if (checkpoint !== undefined) await unwindCheckpoint(root, env, deadline, checkpoint);
    if (leftAlone.length > 0)
      return {
        ok: false,
        problem: `changed after the cleanup wrote ${leftAlone.length === 1 ? 'it' : 'them'}, so left as ${leftAlone.length === 1 ? 'it is' : 'they are'}: ${leftAlone.join(', ')}`,
        left_alone: leftAlone,
      };
    return { ok: true };
  } catch (error) {
    return { ok: false, problem: (error as Error).message, left_alone: leftAlone };
  }
}
