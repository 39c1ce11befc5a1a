/**
 * Applying a lifecycle `delete-path` (docs/lifecycle.md). The report is never trusted:
 * right before deleting, the unit is listed again (`git ls-files`), checked for changes
 * (`git status`), re-aged and re-tiered against the rule as configured now. Anything that
 * moved since check — a new file inside, an edit, a younger commit, a changed rule — skips
 * the entry with a reason; nothing is deleted on stale evidence.
 *
 * Tracked files go with `git rm`, staged into the one cleanup commit (history is the
 * archive). Untracked files have no history: they are moved into a hold folder inside the
 * git dir, so a failed run can put them back, and removed only once the commit exists.
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Deadline } from '../../core/deadline.js';
import { git, gitOk, splitNul } from '../../core/git.js';
import { describeOutcome, run } from '../../core/run.js';
import { servedPathFor, unitDigest } from '../scan/lifecycle.js';
import type { Entry, LifecycleRule, SafetyTier } from '../types.js';
import type { SkipReason } from './text-edits.js';

const MS_PER_DAY = 86_400_000;

/** The unit as it is right now. */
export interface UnitNow {
  kind: 'missing' | 'file' | 'directory' | 'other';
  tracked: { path: string; indexed: string }[];
  untracked: string[];
  dirty: boolean;
  /** Every listed file is tracked. */
  isTracked: boolean;
  digest: string;
  /** Newest commit time (seconds) of the unit's tracked files, if any. */
  lastCommit?: number;
}

/**
 * Reads the unit now. `baseHead` is the commit the run started from: a WIP checkpoint made
 * since must not make an edited unit look clean, so changes are measured against it.
 */
export async function observeUnit(
  root: string,
  path: string,
  deadline: Deadline,
  baseHead = 'HEAD',
): Promise<UnitNow> {
  let kind: UnitNow['kind'] = 'missing';
  try {
    const stats = await lstat(join(root, path));
    kind = stats.isDirectory() ? 'directory' : stats.isFile() ? 'file' : 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const options = { cwd: root, deadline, maxBytes: 64 * 1024 * 1024 };
  const spec = `:(literal)${path}`;
  const [staged, others, worktreeDiff, indexDiff, log] = await Promise.all([
    gitOk(['ls-files', '-z', '--stage', '--', spec], options),
    gitOk(['ls-files', '-z', '--others', '--exclude-standard', '--', spec], options),
    // Worktree and index against the run's starting commit.
    gitOk(['diff', '--name-only', '-z', '--no-renames', baseHead, '--', spec], options),
    gitOk(['diff', '--cached', '--name-only', '-z', '--no-renames', baseHead, '--', spec], options),
    git(['log', '-1', '--format=%ct', baseHead, '--', spec], options),
  ]);
  const byPath = new Map<string, string>();
  for (const record of splitNul(staged)) {
    const tab = record.indexOf('\t');
    const file = record.slice(tab + 1);
    const previous = byPath.get(file);
    byPath.set(file, previous === undefined ? record.slice(0, tab) : `${previous} ${record.slice(0, tab)}`);
  }
  const tracked = [...byPath].map(([file, indexed]) => ({ path: file, indexed }));
  const untracked = splitNul(others);
  const changed = splitNul(worktreeDiff).length > 0 || splitNul(indexDiff).length > 0;
  const listing = [...tracked, ...untracked.map((file) => ({ path: file }))].sort((a, b) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
  );
  const lastCommit =
    log.kind === 'exited' && log.code === 0 && log.stdout.toString().trim() !== ''
      ? Number(log.stdout.toString().trim())
      : undefined;
  return {
    kind,
    tracked,
    untracked,
    dirty: changed || (tracked.length > 0 && untracked.length > 0),
    isTracked: tracked.length > 0 && untracked.length === 0,
    digest: unitDigest(listing),
    ...(lastCommit !== undefined ? { lastCommit } : {}),
  };
}

/** The tier matrix, from facts read now: tracked and clean → auto; anything else → confirm. */
export function tierNow(now: UnitNow, rule: LifecycleRule): SafetyTier {
  if (rule.served_when !== undefined) return 'confirm';
  return now.isTracked && !now.dirty ? 'auto' : 'confirm';
}

export type UnitVerdict =
  | { ok: true; tier: SafetyTier; now: UnitNow }
  | { ok: false; reason: SkipReason; detail: string };

/**
 * Whether the entry may be applied now. `approved`: named by the user (a confirm approval);
 * `checkpointed`: the run saved uncommitted work first (clean's WIP checkpoint), so a
 * dirty tracked unit's edits stay recoverable.
 */
export function judgeUnit(
  entry: Entry,
  now: UnitNow,
  rule: LifecycleRule | undefined,
  nowMs: number,
  context: { approved: boolean; checkpointed: boolean },
): UnitVerdict {
  const facts = entry.lifecycle;
  const no = (reason: SkipReason, detail: string): UnitVerdict => ({ ok: false, reason, detail });
  if (facts === undefined) return no('invalid-entry', 'a delete-path entry carries no lifecycle facts');
  if (rule === undefined || rule.lifetime !== facts.lifetime || rule.lifetime === 'keep')
    return no(
      'rule-changed',
      `lifecycle rule ${JSON.stringify(facts.rule)} is no longer configured as it was at check`,
    );
  if (now.kind === 'missing') return no('file-missing', 'the path no longer exists');
  const wantKind = entry.exact_edit?.recursive === true ? 'directory' : 'file';
  if (now.kind !== wantKind) return no('not-a-regular-file', `the path is no longer a ${wantKind}`);
  if (facts.content_digest !== undefined && now.digest !== facts.content_digest)
    return no('changed-since-check', 'files were added, removed or re-staged inside it since check');
  if (rule.lifetime === 'temporary') {
    const ageDays =
      now.lastCommit !== undefined ? (nowMs - now.lastCommit * 1000) / MS_PER_DAY : (facts.age_days ?? 0);
    if (ageDays <= rule.max_age_days)
      return no(
        'younger-than-cutoff',
        `its last commit is ${ageDays.toFixed(2)} days old, not older than ${rule.max_age_days}`,
      );
  }
  const tier = tierNow(now, rule);
  if (tier === 'confirm' && !context.approved)
    return no('re-tiered', 'it changed since check (now dirty or untracked) and needs approval again');
  if (now.dirty && now.tracked.length > 0 && !context.checkpointed)
    return no('uncommitted-changes', 'it has uncommitted changes and this run keeps no checkpoint of them');
  return { ok: true, tier, now };
}

/** Untracked files moved aside until the commit exists, so a failed run can put them back. */
export interface HeldFiles {
  dir: string;
  files: string[];
}

/** A new hold folder inside the git dir (never where a scan or `git add` could see it). */
export function holdDirFor(gitDir: string): string {
  return join(gitDir, 'sourcesteward', 'hold', `${process.pid}-${randomBytes(4).toString('hex')}`);
}

export interface DeletedUnit {
  /** Tracked files removed with `git rm` (already staged). */
  removed: string[];
  held: HeldFiles;
}

/** Deletes the unit: `git rm` for tracked files, a move into `holdDir` for untracked ones. */
export async function deleteUnit(
  root: string,
  path: string,
  now: UnitNow,
  holdDir: string,
  deadline: Deadline,
): Promise<{ ok: true; deleted: DeletedUnit } | { ok: false; detail: string }> {
  const held: HeldFiles = { dir: holdDir, files: [] };
  if (now.tracked.length > 0) {
    // `-f`: a dirty unit gets here only approved and with its edits in the WIP checkpoint.
    const removed = await git(['rm', '-q', '-r', '-f', '--', `:(literal)${path}`], { cwd: root, deadline });
    if (removed.kind !== 'exited' || removed.code !== 0)
      return { ok: false, detail: describeOutcome(removed, 'git rm') };
  }
  for (const file of now.untracked) {
    const target = join(holdDir, file);
    await mkdir(dirname(target), { recursive: true });
    await rename(join(root, file), target);
    held.files.push(file);
  }
  await removeEmptyDirs(root, path);
  return { ok: true, deleted: { removed: now.tracked.map((file) => file.path), held } };
}

/** Removes the folders of `path` that are now empty, deepest first; never a folder with anything left in it. */
async function removeEmptyDirs(root: string, path: string): Promise<void> {
  const visit = async (rel: string): Promise<boolean> => {
    const absolute = join(root, rel);
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(absolute, { withFileTypes: true });
    } catch {
      return false;
    }
    let empty = true;
    for (const child of entries) {
      if (child.isDirectory() && !child.isSymbolicLink()) {
        if (!(await visit(`${rel}/${child.name}`))) empty = false;
      } else empty = false;
    }
    if (!empty) return false;
    await rmdir(absolute).catch(() => {});
    return true;
  };
  const stats = await lstat(join(root, path)).catch(() => undefined);
  if (stats?.isDirectory()) await visit(path);
}

/** Puts held files back where they were (a failed run's rollback). */
export async function restoreHeld(root: string, held: HeldFiles): Promise<string[]> {
  const problems: string[] = [];
  for (const file of held.files) {
    try {
      await mkdir(dirname(join(root, file)), { recursive: true });
      await rename(join(held.dir, file), join(root, file));
    } catch (error) {
      problems.push(`${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'} (kept in ${held.dir})`);
    }
  }
  if (problems.length === 0) await rm(held.dir, { recursive: true, force: true });
  return problems;
}

/** Deletes held files for good, once the cleanup commit exists. */
export async function releaseHeld(held: HeldFiles): Promise<void> {
  await rm(held.dir, { recursive: true, force: true });
}

/** What the applier needs to apply `delete-path` entries: the rules as configured now, and the run's context. */
export interface LifecycleApplyContext {
  rules: readonly LifecycleRule[];
  nowMs: number;
  /** Ids the user approved by name. */
  approved: ReadonlySet<string>;
  checkpointed: boolean;
  /** The git dir the hold folder goes in. */
  gitDir: string;
  /** The commit the run started from (before any WIP checkpoint). */
  baseHead: string;
  /** `lifecycle.vault_command`: where `extract: cross-repo` hands a unit before it is deleted. */
  vaultCommand?: readonly string[];
  /** Extra environment for the vault command (the user's, for their tools and PATH). */
  env?: NodeJS.ProcessEnv;
}

export type LifecycleTransaction =
  | { status: 'applied'; removed: string[]; held: HeldFiles }
  | { status: 'skipped'; reason: SkipReason; detail: string }
  | { status: 'failed'; reason: 'write-failed'; detail: string };

/** One `delete-path` entry, judged on facts read now and then deleted (or, in a dry run, only judged). */
export async function lifecycleTransaction(
  root: string,
  entry: Entry,
  context: LifecycleApplyContext,
  deadline: Deadline,
  dryRun: boolean,
): Promise<LifecycleTransaction> {
  try {
    const now = await observeUnit(root, entry.path, deadline, context.baseHead);
    const rule = context.rules.find((candidate) => candidate.name === entry.lifecycle?.rule);
    const verdict = judgeUnit(entry, now, rule, context.nowMs, {
      approved: context.approved.has(entry.id),
      checkpointed: context.checkpointed,
    });
    if (!verdict.ok) return { status: 'skipped', reason: verdict.reason, detail: verdict.detail };
    if (rule?.served_when_path !== undefined) {
      const served = servedPathFor(entry.path, rule.served_when_path);
      if (served === undefined || !(await exists(join(root, served))))
        return {
          status: 'skipped',
          reason: 'no-longer-served',
          detail: `${served ?? rule.served_when_path} does not exist now`,
        };
    }
    if (dryRun) return { status: 'applied', removed: [], held: { dir: '', files: [] } };
    // Extract first: if the durable content cannot be kept, nothing is deleted.
    const extracted = await extractUnit(root, entry, rule!, context, deadline);
    if (extracted !== undefined) return { status: 'skipped', reason: 'extract-failed', detail: extracted };
    const deleted = await deleteUnit(root, entry.path, now, holdDirFor(context.gitDir), deadline);
    if (!deleted.ok) return { status: 'failed', reason: 'write-failed', detail: deleted.detail };
    return { status: 'applied', removed: deleted.deleted.removed, held: deleted.deleted.held };
  } catch (error) {
    return { status: 'failed', reason: 'write-failed', detail: (error as Error).message };
  }
}

async function exists(absolute: string): Promise<boolean> {
  try {
    await lstat(absolute);
    return true;
  } catch {
    return false;
  }
}

const VAULT_TIMEOUT_MS = 120_000;

/**
 * Runs the rule's `extract` step; returns why it failed, or undefined when the unit may go.
 * `cross-repo` hands the unit's absolute path to `lifecycle.vault_command` (an argument
 * array, no shell); `repo` needs distilled text, which only a model or `--generated` gives.
 */
async function extractUnit(
  root: string,
  entry: Entry,
  rule: LifecycleRule,
  context: LifecycleApplyContext,
  deadline: Deadline,
): Promise<string | undefined> {
  if (rule.extract === undefined) return undefined;
  if (rule.extract === 'repo')
    return 'extract: repo distils the content into an ADR, CLAUDE.md or docs/ first, which needs a model or --generated text';
  const command = context.vaultCommand;
  if (command === undefined || command.length === 0)
    return 'extract: cross-repo needs lifecycle.vault_command in .dochygiene.yml';
  const result = await run(command[0]!, [...command.slice(1), join(root, entry.path)], {
    cwd: root,
    env: {
      ...(context.env ?? process.env),
      STW_LIFECYCLE_RULE: rule.name,
      STW_LIFECYCLE_PATH: entry.path,
    },
    deadline: deadline.capped(VAULT_TIMEOUT_MS),
  });
  if (result.kind === 'exited' && result.code === 0) return undefined;
  const said = 'stderr' in result ? result.stderr.toString('utf8').trim().split('\n')[0] : '';
  return `${describeOutcome(result, command[0]!)}${said ? `: ${said}` : ''}`;
}
