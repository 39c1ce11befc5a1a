/**
 * Applying a lifecycle `delete-path` (docs/lifecycle.md). The report is never trusted:
 * right before deleting, the unit is listed again (`git ls-files`), checked for changes
 * (`git status`), re-aged and re-tiered against the rule as configured now. Anything that
 * moved since check — a new file inside, an edit, a younger commit, a changed rule — skips
 * the entry with a reason; nothing is deleted on stale evidence.
 *
 * The unit leaves as a `git rm`, staged into the one cleanup commit (history is the
 * archive). In `clean` every file it removes, tracked or untracked, goes through the run's
 * record: journaled, then moved into the run's hold folder in the git dir, so that the
 * run's rollback — or the next run, after a crash — puts the same bytes back; the hold
 * folder is emptied once the commit exists.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, lstat, mkdir, readdir, readFile, rename, rmdir, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Deadline } from '../../core/deadline.js';
import { git, gitOk, splitNul, userGitEnv } from '../../core/git.js';
import { describeOutcome, run } from '../../core/run.js';
import { unsafeUnitPathReason, withoutUnsafeNames } from '../scan/files.js';
import { newestMtime, servedEvidence, unitDigest } from '../scan/lifecycle.js';
import { RUN_DIR } from '../state/run-lock.js';
import { userConfigPath } from '../trust.js';
import type { Entry, LifecycleRule, SafetyTier } from '../types.js';
import type { RecordedEdit } from './applier.js';
import { type SkipReason, sha256Hex } from './text-edits.js';

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
  /** The newest mtime of its files when none is tracked: the age of an untracked unit, as the scan reads it. */
  mtimeMs?: number;
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
  // The scan's predicate: a name it left out is no member here either, and is never touched.
  const tracked = withoutUnsafeNames(
    [...byPath].map(([file, indexed]) => ({ path: file, indexed })),
    (file) => file.path,
    unsafeUnitPathReason,
  ).kept;
  const untracked = withoutUnsafeNames(splitNul(others), (file) => file, unsafeUnitPathReason).kept;
  const changed = splitNul(worktreeDiff).length > 0 || splitNul(indexDiff).length > 0;
  const members = membersNow({ tracked, untracked });
  const mtimeMs =
    tracked.length === 0 && untracked.length > 0
      ? newestMtime(untracked.map((file) => join(root, file)))
      : undefined;
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
    digest: await unitDigest(root, members, deadline),
    ...(lastCommit !== undefined ? { lastCommit } : {}),
    ...(mtimeMs !== undefined ? { mtimeMs } : {}),
  };
}

/** The unit's files as `unitDigest` takes them. */
function membersNow(now: Pick<UnitNow, 'tracked' | 'untracked'>): { path: string; tracked: boolean }[] {
  return [
    ...now.tracked.map((file) => ({ path: file.path, tracked: true })),
    ...now.untracked.map((file) => ({ path: file, tracked: false })),
  ];
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
  context: { approved: boolean; checkpointed: boolean; recorded: boolean },
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
  if (facts.content_digest === undefined)
    return no('changed-since-check', 'the entry carries no content digest from check to compare with');
  if (now.digest !== facts.content_digest)
    return no(
      'changed-since-check',
      'it changed since check: a file was edited, added, removed, (un)tracked or had its mode changed',
    );
  if (rule.lifetime === 'temporary') {
    // Re-aged now, as the scan ages it: the last commit, else the newest mtime of its
    // files (an untracked file touched since check is young again).
    const ageMs =
      now.lastCommit !== undefined ? nowMs - now.lastCommit * 1000 : nowMs - (now.mtimeMs ?? nowMs);
    const ageDays = ageMs / MS_PER_DAY;
    if (ageDays <= rule.max_age_days)
      return no(
        'younger-than-cutoff',
        `it is ${ageDays.toFixed(2)} days old now (${now.lastCommit !== undefined ? 'last commit' : 'mtime'}), not older than ${rule.max_age_days}`,
      );
  }
  const tier = tierNow(now, rule);
  if (tier === 'confirm' && !context.approved)
    return no('re-tiered', 'it changed since check (now dirty or untracked) and needs approval again');
  if (now.dirty && now.tracked.length > 0 && !context.checkpointed)
    return no('uncommitted-changes', 'it has uncommitted changes and this run keeps no checkpoint of them');
  if (now.untracked.length > 0 && !context.recorded)
    return no(
      'untracked',
      'it holds untracked files, which have no history, and this run keeps no record to put them back from; use clean',
    );
  return { ok: true, tier, now };
}

/**
 * Where a recorded run (clean) puts what it deletes until its commit exists: a folder of
 * its own inside the git dir, beside the run lock (never where a scan or `git add` looks,
 * and not the temp folder, which a run clears when it starts).
 */
export function holdDirFor(gitDir: string): string {
  return join(gitDir, RUN_DIR, 'hold', `${process.pid}-${randomBytes(4).toString('hex')}`);
}

/** Test-only failure injection at the lifecycle step boundaries (see `ApplyFaults`). */
export interface LifecycleFaults {
  /** Just before a file of the unit is moved into the hold folder. */
  beforeHold?: (path: string) => void | Promise<void>;
  /** Just after it was. */
  afterHold?: (path: string) => void | Promise<void>;
  /** After the unit's tracked files were removed from the index (`git rm --cached`). */
  afterUnstage?: (path: string) => void | Promise<void>;
}

/**
 * Deletes the unit. With a hold folder (a recorded run), every file — tracked or not — is
 * first told to `onEdit` (journaled) and then moved into the hold folder, and the tracked
 * ones leave the index with `git rm --cached`: the result is a `git rm`, and a rollback,
 * now or after a crash, moves the very same bytes back (docs/lifecycle.md, "Undo").
 * Without one (`apply`, which keeps no record), only a unit whose every file git already
 * holds unchanged in HEAD gets here, and it goes with a plain `git rm`.
 * Returns the tracked files removed (staged).
 */
async function deleteUnit(
  root: string,
  path: string,
  now: UnitNow,
  context: LifecycleApplyContext,
  hooks: LifecycleHooks,
  deadline: Deadline,
): Promise<string[]> {
  const tracked = now.tracked.map((file) => file.path);
  // Exactly the files listed, never the folder: a file the scan left out (a name no report
  // can carry) is neither deleted nor unstaged.
  const gitRm = async (args: string[]) => {
    const result = await git(['rm', '-q', ...args, '--pathspec-from-file=-', '--pathspec-file-nul'], {
      cwd: root,
      deadline,
      mode: 'user',
      extraEnv: { ...userGitEnv(context.env), GIT_LITERAL_PATHSPECS: '1' },
      input: `${tracked.join('\0')}\0`,
    });
    if (result.kind !== 'exited' || result.code !== 0)
      throw new Error(describeOutcome(result, `git rm ${args.join(' ')}`.trim()));
  };
  if (context.holdDir === undefined) {
    await gitRm([]);
    return tracked;
  }
  const files = [...tracked, ...now.untracked].sort();
  for (const file of files) {
    const absolute = join(root, file);
    const bytes = await readFile(absolute);
    const held = join(context.holdDir, file);
    await hooks.onEdit?.({ path: file, before_sha256: sha256Hex(bytes), removed: true, held });
    await hooks.faults?.beforeHold?.(file);
    await mkdir(dirname(held), { recursive: true, mode: 0o700 });
    await moveFile(absolute, held);
    await hooks.faults?.afterHold?.(file);
  }
  if (tracked.length > 0) {
    await gitRm(['--cached']);
    await hooks.faults?.afterUnstage?.(path);
  }
  await removeEmptyDirs(root, path);
  return tracked;
}

/**
 * `rename`, or — when the hold folder is on another filesystem than the worktree — a copy
 * (mode kept) and then the unlink, so that the bytes are always in at least one place.
 */
export async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await copyFile(from, to, constants.COPYFILE_EXCL);
    await unlink(from);
  }
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

/** What the applier needs to apply `delete-path` entries: the rules as configured now, and the run's context. */
export interface LifecycleApplyContext {
  rules: readonly LifecycleRule[];
  nowMs: number;
  /** Ids the user approved by name. */
  approved: ReadonlySet<string>;
  checkpointed: boolean;
  /**
   * The recorded run's hold folder (`holdDirFor`): deletions go through it and the run's
   * record. Absent (`apply`): no record, so only tracked units unchanged since HEAD are deleted.
   */
  holdDir?: string;
  /** The commit the run started from (before any WIP checkpoint). */
  baseHead: string;
  /** `lifecycle.vault_command`: where `extract: cross-repo` hands a unit before it is deleted. */
  vaultCommand?: readonly string[];
  /** Extra environment for the vault command and git (the user's, for their tools and PATH). */
  env?: NodeJS.ProcessEnv;
}

/** The applier's record hook and fault injection, passed through. */
export interface LifecycleHooks {
  onEdit?: (edit: RecordedEdit) => void | Promise<void>;
  faults?: LifecycleFaults;
}

export type LifecycleTransaction =
  | { status: 'applied'; removed: string[] }
  | { status: 'skipped'; reason: SkipReason; detail: string };

/**
 * One `delete-path` entry, judged on facts read now and then deleted (or, in a dry run,
 * only judged). An error while deleting is thrown: the applier makes it the file's
 * `failed` outcome and `clean` rolls back from its record.
 */
export async function lifecycleTransaction(
  root: string,
  entry: Entry,
  context: LifecycleApplyContext,
  hooks: LifecycleHooks,
  deadline: Deadline,
  dryRun: boolean,
): Promise<LifecycleTransaction> {
  const now = await observeUnit(root, entry.path, deadline, context.baseHead);
  const rule = context.rules.find((candidate) => candidate.name === entry.lifecycle?.rule);
  const verdict = judgeUnit(entry, now, rule, context.nowMs, {
    approved: context.approved.has(entry.id),
    checkpointed: context.checkpointed,
    recorded: context.holdDir !== undefined,
  });
  if (!verdict.ok) return { status: 'skipped', reason: verdict.reason, detail: verdict.detail };
  const irregular = await irregularMember(root, now);
  if (irregular !== undefined) return { status: 'skipped', reason: 'not-a-regular-file', detail: irregular };
  if (rule?.served_when_path !== undefined) {
    const served = servedEvidence(root, entry.path, rule.served_when_path);
    if (!served.served) return { status: 'skipped', reason: 'no-longer-served', detail: served.evidence };
  }
  if (dryRun) return { status: 'applied', removed: [] };
  // Extract first: if the durable content cannot be kept, nothing is deleted.
  const extracted = await extractUnit(root, entry, rule!, context, deadline);
  if (extracted !== undefined) return { status: 'skipped', reason: 'extract-failed', detail: extracted };
  // The extract step took its time: what is deleted must still be what it handed on.
  if (rule?.extract !== undefined && (await unitDigest(root, membersNow(now), deadline)) !== now.digest)
    return {
      status: 'skipped',
      reason: 'changed-since-check',
      detail: 'it changed while its extract step ran; nothing was deleted',
    };
  return { status: 'applied', removed: await deleteUnit(root, entry.path, now, context, hooks, deadline) };
}

/**
 * A member that is not a regular file (a symlink, a submodule): the unit is left alone,
 * since its bytes could not be held and put back as they were.
 */
async function irregularMember(root: string, now: UnitNow): Promise<string | undefined> {
  for (const file of now.tracked)
    if (!/^10(0644|0755) [0-9a-f]+ 0$/.test(file.indexed))
      return `${file.path} is not a regular file in the index`;
  for (const file of [...now.tracked.map((tracked) => tracked.path), ...now.untracked]) {
    const stats = await lstat(join(root, file)).catch(() => undefined);
    if (stats === undefined) return `${file} is missing from the worktree`;
    if (!stats.isFile()) return `${file} is not a regular file`;
  }
  return undefined;
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
    return `extract: cross-repo needs lifecycle.vault_command in your user config (${userConfigPath(context.env)})`;
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
