/**
 * What a Git retirement plan (and apply's recheck) observes for one owned task: the
 * source repository and its identity, the base and the task branch's integration, the
 * destination's physical identity, its registration (the `.git` file, the admin dir, the
 * lock, git's worktree list), the full physical manifest, git's view of the worktree
 * (status including ignored files, HEAD tree, index flags, sparse checkout) and visible
 * activity. Read-only; bounded calls under one deadline.
 */
import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  checkDirectoryChain,
  idOf,
  isConfinementAvailable,
  isWithin,
  type PhysicalId,
} from '../../../../core/confined-fs.js';
import { type IndexFlags, parseIndexFlags, splitNul, type WorktreeRecord } from '../../../../core/git.js';
import type { LoadedGitTask } from '../../../../task/store.js';
import type { TaskRegistration } from '../../../../task/types.js';
import { settleAll } from '../../../bounded.js';
import { MAX_MANIFEST_FILE_BYTES, type ManifestWalk, walkManifest } from '../../../retire/manifest.js';
import { parseTree, type TreeEntry, visibleActivity } from '../../../retire/observe.js';
import { IncompleteObservationError, type ObserveContext } from '../../../types.js';
import { readRefOids } from '../effects.js';
import {
  discoverGitLayout,
  type GitCallContext,
  type GitLayout,
  observeGitOk,
  observeGitRaw,
  type ResolvedBase,
  readGitVersion,
  readWorktrees,
  resolveBase,
} from '../observe.js';
import { readGitRegistration } from '../task/create.js';

export interface StatusEntry {
  /** The two porcelain v1 status letters, e.g. "??", "!!", " M", "UU". */
  code: string;
  path: string;
}

/** git's view of the worktree, read only when the destination is the registered task worktree. */
export interface WorktreeView {
  status: StatusEntry[];
  /** HEAD's tree, recursively: path → mode/type/oid. */
  tree: Map<string, TreeEntry>;
  indexFlags: Map<string, IndexFlags>;
  sparse: boolean;
}

export interface RetirementObservation {
  layout: GitLayout;
  gitVersion: string | null;
  base: ResolvedBase;
  commonDirIdentity: PhysicalId | null;
  worktrees: WorktreeRecord[];
  /** git's entry for the destination path; undefined when git lists none. */
  listed: WorktreeRecord | undefined;
  branchOid: string | null;
  ancestor: { value: boolean | null; note: string | null };
  destination: { exists: boolean; identity: PhysicalId | null; problem: string | null };
  parentIdentity: PhysicalId | null;
  registration: TaskRegistration | null;
  registrationProblem: string | null;
  /** Relative names in the recorded admin dir (logs/HEAD style); null when it is absent or unreadable. */
  adminEntries: string[] | null;
  /** The recorded admin dir's identity now; null when it is absent. */
  adminIdentity: PhysicalId | null;
  /** Commits only the task worktree's HEAD reflog reaches (`git worktree remove` deletes it). */
  reflogOnly: ReflogOnly;
  manifest: ManifestWalk | null;
  view: WorktreeView | null;
  viewProblem: string | null;
  /** Processes whose working directory lies in the destination (pid, cwd). */
  activity: { pid: number; cwd: string }[];
  /** This process's working directory lies in the destination. */
  cwdInside: boolean;
  confinement: boolean;
}

function errnoOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

/** Porcelain v1 `-z` status: `XY path`, with the source path following renames and copies. */
export function parseStatus(output: Buffer): StatusEntry[] {
  const fields = splitNul(output);
  const entries: StatusEntry[] = [];
  for (let index = 0; index < fields.length; index += 1) {
    const field = fields[index]!;
    const code = field.slice(0, 2);
    entries.push({ code, path: field.slice(3) });
    if (code[0] === 'R' || code[0] === 'C') index += 1;
  }
  return entries;
}

async function readWorktreeView(destination: string, ctx: GitCallContext): Promise<WorktreeView> {
  const here: GitCallContext = { ...ctx, cwd: destination };
  const status = await observeGitRaw(
    ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignored=matching', '--no-renames'],
    here,
    'git status',
  );
  if (status.code !== 0) throw new Error(`git status exited ${status.code}`);
  const [tree, flags, sparse] = await settleAll([
    observeGitOk(['ls-tree', '-r', '-z', '--full-tree', 'HEAD'], here, 'git ls-tree'),
    observeGitOk(['ls-files', '-v', '-z'], here, 'git ls-files -v'),
    observeGitRaw(['config', '--type=bool', '--get', 'core.sparseCheckout'], here, 'git config'),
  ]);
  return {
    status: parseStatus(status.stdout),
    tree: parseTree(Buffer.from(tree, 'utf8')),
    indexFlags: parseIndexFlags(flags),
    sparse: sparse.code === 0 && sparse.stdout.toString('utf8').trim() === 'true',
  };
}

/** Every name in the admin dir, one level into subdirectories (logs/HEAD), sorted. */
async function readAdminEntries(adminDir: string, limit: number): Promise<string[] | null> {
  let names: string[];
  try {
    names = (await readdir(adminDir)).sort();
  } catch {
    return null;
  }
  const out: string[] = [];
  for (const name of names.slice(0, limit)) {
    const info = await lstat(join(adminDir, name)).catch(() => undefined);
    if (info?.isDirectory()) {
      const inner = await readdir(join(adminDir, name)).catch(() => ['?']);
      for (const child of inner.sort()) out.push(`${name}/${child}`);
      if (inner.length === 0) out.push(`${name}/`);
    } else out.push(info?.isSymbolicLink() ? `${name}@` : name);
  }
  return out;
}

/** What the task worktree's HEAD reflog alone keeps: up to REFLOG_ONLY_SHOWN commits, or why it is not known. */
export interface ReflogOnly {
  commits: string[];
  problem: { code: 'bound-exceeded' | 'uncertain'; message: string } | null;
}

/** How many reflog-only commits an observation names (the newest first). */
export const REFLOG_ONLY_SHOWN = 16;

/** The commit ids a reflog file names (old and new of every entry), or null when it does not exist. */
async function readReflogOids(path: string, maxBytes: number): Promise<Set<string> | 'too-large' | null> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new Error(`${path} is not a regular file`);
    if (info.size > maxBytes) return 'too-large';
    const buffer = Buffer.alloc(maxBytes + 1);
    const { bytesRead } = await handle.read(buffer, 0, maxBytes + 1, 0);
    if (bytesRead > maxBytes) return 'too-large';
    const oids = new Set<string>();
    for (const line of buffer.subarray(0, bytesRead).toString('utf8').split('\n'))
      for (const oid of line.split(' ', 2))
        if (/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(oid) && !/^0+$/.test(oid)) oids.add(oid);
    return oids;
  } finally {
    await handle.close();
  }
}

/**
 * The commits the task worktree's HEAD reflog (ADMIN/logs/HEAD) reaches that no ref and
 * not the task branch's own reflog (which survives the removal) reaches: a detached-HEAD
 * commit, or one reset away while detached. `git worktree remove` deletes that reflog,
 * so these would be lost. Bounded: the reflogs by bytes, the listing by count.
 */
export async function readReflogOnly(
  adminDir: string,
  commonDir: string,
  branch: string,
  ctx: GitCallContext,
): Promise<ReflogOnly> {
  const limit = ctx.bounds.maxRecordBytes;
  try {
    const head = await readReflogOids(join(adminDir, 'logs', 'HEAD'), limit);
    const kept = await readReflogOids(join(commonDir, 'logs', branch), limit);
    if (head === 'too-large' || kept === 'too-large')
      return {
        commits: [],
        problem: {
          code: 'bound-exceeded',
          message: `a reflog is larger than ${limit} bytes; its commits were not checked`,
        },
      };
    if (head === null || head.size === 0) return { commits: [], problem: null };
    if (head.size + (kept?.size ?? 0) > ctx.bounds.maxEntries)
      return {
        commits: [],
        problem: {
          code: 'bound-exceeded',
          message: `the reflogs name more than ${ctx.bounds.maxEntries} commits; they were not checked`,
        },
      };
    // Positive: every commit the HEAD reflog names; negative: every ref, every worktree's
    // HEAD (--all) and the task branch's reflog. Missing objects are already gone.
    const input = [...head, ...[...(kept ?? [])].map((oid) => `^${oid}`)].join('\n');
    const listed = await observeGitOk(
      ['rev-list', '--ignore-missing', `--max-count=${REFLOG_ONLY_SHOWN}`, '--stdin', '--not', '--all'],
      ctx,
      'git rev-list (HEAD reflog)',
      `${input}\n`,
    );
    return { commits: listed.split('\n').filter((line) => line !== ''), problem: null };
  } catch (error) {
    if (isStopping(error)) throw error;
    return {
      commits: [],
      problem: {
        code: 'uncertain',
        message: `the worktree's HEAD reflog could not be checked: ${(error as Error).message}`,
      },
    };
  }
}

/** A deadline or a signal: the observation stops, it is not a finding. */
function isStopping(error: unknown): boolean {
  return (
    error instanceof IncompleteObservationError && (error.code === 'deadline' || error.code === 'cancelled')
  );
}

async function ancestry(
  tip: string | null,
  base: ResolvedBase,
  layout: GitLayout,
  ctx: GitCallContext,
): Promise<RetirementObservation['ancestor']> {
  if (tip === null) return { value: null, note: 'the task branch does not exist' };
  if (tip === base.oid) return { value: true, note: null };
  if (layout.isShallow) return { value: null, note: 'shallow repository: ancestry cannot be proved' };
  const result = await observeGitRaw(
    ['merge-base', '--is-ancestor', tip, base.oid],
    ctx,
    'git merge-base --is-ancestor',
  );
  if (result.code === 0) return { value: true, note: null };
  if (result.code === 1) return { value: false, note: null };
  return { value: null, note: `git merge-base exited ${result.code}` };
}

/** Observes one task for retirement (plan) or its recheck (apply). */
export async function observeRetirement(
  loaded: LoadedGitTask,
  sourcePath: string,
  baseSelector: string,
  ctx: ObserveContext & { counter?: { calls: number } },
): Promise<RetirementObservation> {
  const task = loaded.task;
  const recorded = loaded.journal.created;
  const layout = await discoverGitLayout(sourcePath, ctx);
  const call: GitCallContext = { ...ctx, cwd: layout.path };
  const [gitVersion, base, worktrees] = await settleAll([
    readGitVersion(call),
    resolveBase(baseSelector, layout.objectFormat, call),
    readWorktrees(call),
  ]);
  const commonDirIdentity = await lstat(layout.commonDir, { bigint: true }).then(idOf, () => null);
  const branchOid =
    (
      await readRefOids([task.branch], {
        cwd: layout.path,
        deadline: ctx.deadline,
        maxBytes: ctx.bounds.maxOutputBytes,
      })
    ).get(task.branch) ?? null;
  const ancestor = await ancestry(branchOid, base, layout, call);
  const chain = await checkDirectoryChain(task.destination);
  const parent = await checkDirectoryChain(dirname(task.destination));
  const listed = worktrees.find((worktree) => worktree.path === task.destination);

  let registration: TaskRegistration | null = null;
  let registrationProblem: string | null = null;
  if (chain.exists && chain.problem === null) {
    try {
      registration = await readGitRegistration(task.destination, ctx.bounds.maxTextBytes + 16);
    } catch (error) {
      registrationProblem = errnoOf(error);
    }
  }
  const adminDir = recorded?.registration.admin_dir;
  const adminEntries =
    adminDir === undefined ? null : await readAdminEntries(adminDir, ctx.bounds.maxEntries);
  const adminIdentity =
    adminDir === undefined ? null : await lstat(adminDir, { bigint: true }).then(idOf, () => null);
  const reflogOnly =
    adminDir === undefined
      ? { commits: [], problem: null }
      : await readReflogOnly(adminDir, layout.commonDir, task.branch, call);
  const confinement = await isConfinementAvailable();
  const isStopped = () => ctx.deadline.isExpired || ctx.signal?.aborted === true;
  const manifest =
    chain.exists && chain.problem === null && confinement
      ? await walkManifest(
          task.destination,
          layout.objectFormat,
          { maxEntries: ctx.bounds.maxEntries, maxFileBytes: MAX_MANIFEST_FILE_BYTES },
          isStopped,
        )
      : null;

  // git runs inside the destination only when it is the recorded registration: a `.git`
  // file pointing elsewhere must not make us read (or trust) another repository.
  let view: WorktreeView | null = null;
  let viewProblem: string | null = null;
  const isRecordedRegistration =
    registration !== null &&
    recorded !== undefined &&
    registration.dotgit === recorded.registration.dotgit &&
    registration.admin_dir === recorded.registration.admin_dir;
  if (isRecordedRegistration) {
    try {
      view = await readWorktreeView(task.destination, call);
    } catch (error) {
      viewProblem = (error as Error).message;
    }
  }
  return {
    layout,
    gitVersion,
    base,
    commonDirIdentity,
    worktrees,
    listed,
    branchOid,
    ancestor,
    destination: { exists: chain.exists, identity: chain.id, problem: chain.problem },
    parentIdentity: parent.id,
    registration,
    registrationProblem,
    adminEntries,
    adminIdentity,
    reflogOnly,
    manifest,
    view,
    viewProblem,
    activity: chain.exists ? await visibleActivity(task.destination, 16) : [],
    cwdInside: isWithin(task.destination, process.cwd()),
    confinement,
  };
}
