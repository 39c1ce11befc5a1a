/**
 * Retirement blockers on Git (pure): what git's view of the task worktree, its admin
 * dir, its reflog and the manifest show. For Git the registration and files effects are
 * coupled: any blocker retains both.
 */
import { join } from 'node:path';
import { sameId } from '../../../../core/confined-fs.js';
import type { LoadedGitTask } from '../../../../task/store.js';
import { Blockers, destinationBlockers, type RetirementSelection } from '../../../retire/decide.js';
import type { ManifestEntry } from '../../../retire/manifest.js';
import type { RetirementBlocker, RetirementBlockerCode } from '../../../retire/types.js';
import { REFLOG_ONLY_SHOWN, type RetirementObservation } from './observe.js';

/** Files git keeps in a linked worktree's admin dir that retirement may let `worktree remove` delete. */
export const ADMIN_ALLOWED: ReadonlySet<string> = new Set([
  'HEAD',
  'ORIG_HEAD',
  'COMMIT_EDITMSG',
  'commondir',
  'gitdir',
  'index',
  'locked',
  'logs/HEAD',
]);

/** Admin-dir files that mean an operation is in progress in the worktree. */
const OPERATION_FILES =
  /^(MERGE_HEAD|MERGE_MSG|MERGE_MODE|CHERRY_PICK_HEAD|REVERT_HEAD|BISECT_\w+|rebase-merge\/|rebase-apply\/|sequencer\/)/;

function statusBlocker(code: string): RetirementBlockerCode {
  if (code === '!!') return 'ignored';
  if (code === '??') return 'untracked';
  if (code.includes('U') || code === 'AA' || code === 'DD') return 'conflict';
  return 'dirty';
}

/** Blockers on the destination's content: git's status, HEAD's tree and the manifest compared. */
function contentBlockers(obs: RetirementObservation, destination: string, out: Blockers): void {
  const view = obs.view;
  const manifest = obs.manifest;
  if (view === null || manifest === null) return;
  const abs = (rel: string) => (rel === '.' ? destination : join(destination, rel));
  const reported: string[] = [];
  for (const entry of view.status) {
    const kind = statusBlocker(entry.code);
    reported.push(entry.path.replace(/\/$/, ''));
    out.add(
      kind,
      abs(entry.path.replace(/\/$/, '')),
      `git status ${JSON.stringify(entry.code)}: ${kind === 'ignored' ? 'an ignored file (git worktree remove would delete it silently)' : kind}`,
    );
  }
  const isReported = (path: string) => reported.some((r) => path === r || path.startsWith(`${r}/`));
  if (view.sparse) out.add('transformed', destination, 'sparse checkout is enabled');
  for (const [path, flags] of view.indexFlags)
    if (flags.skipWorktree || flags.assumeUnchanged)
      out.add(
        'transformed',
        abs(path),
        flags.skipWorktree ? 'skip-worktree bit set (sparse or by hand)' : 'assume-unchanged bit set',
      );
  // An incomplete manifest is reported by its own problems; comparing it would only add noise.
  if (!manifest.complete) return;
  const files = new Map<string, ManifestEntry>();
  const dirs = new Set<string>();
  for (const entry of manifest.entries)
    entry.type === 'file' ? files.set(entry.path, entry) : dirs.add(entry.path);
  const treeDirs = new Set<string>(['.']);
  for (const [path, entry] of view.tree) {
    for (let at = path.lastIndexOf('/'); at > 0; at = path.lastIndexOf('/', at - 1))
      treeDirs.add(path.slice(0, at));
    if (entry.type === 'commit') {
      out.add('unsupported-metadata', abs(path), 'a submodule (gitlink) in HEAD');
      continue;
    }
    if (entry.mode === '120000') continue; // a symbolic link: the walk reports it
    const file = files.get(path);
    if (isReported(path)) continue;
    if (file === undefined) out.add('dirty', abs(path), 'in HEAD but not a regular file on disk');
    else if ((entry.mode === '100755') !== ((Number.parseInt(file.mode, 8) & 0o100) !== 0))
      out.add('dirty', abs(path), `mode ${file.mode} on disk, ${entry.mode} in HEAD`);
    else if (file.blob_oid !== entry.oid)
      out.add(
        'transformed',
        abs(path),
        'content differs from the committed blob but git status does not show it (index flag, filter or line-ending conversion)',
      );
  }
  for (const path of files.keys())
    if (path !== '.git' && !view.tree.has(path) && !isReported(path))
      out.add('untracked', abs(path), 'a file not in HEAD');
  for (const path of dirs)
    if (!treeDirs.has(path) && !isReported(path)) out.add('untracked', abs(path), 'a directory not in HEAD');
}

function registrationBlockers(loaded: LoadedGitTask, obs: RetirementObservation, out: Blockers): void {
  const { task } = loaded;
  const recorded = loaded.journal.created!.registration;
  const observed = obs.registration;
  if (observed === null)
    out.add(
      'foreign-worktree',
      join(task.destination, '.git'),
      `the destination's .git cannot be read: ${obs.registrationProblem ?? 'missing'}`,
    );
  else if (
    observed.dotgit !== recorded.dotgit ||
    observed.admin_dir !== recorded.admin_dir ||
    observed.gitdir !== recorded.gitdir
  )
    out.add(
      'foreign-worktree',
      join(task.destination, '.git'),
      'the destination is registered differently from the one task create made',
    );
  else if (!sameId(observed.admin_dir_identity, recorded.admin_dir_identity))
    out.add(
      'foreign-worktree',
      recorded.admin_dir,
      'the admin dir was replaced since creation (device/inode differ)',
    );
  if (observed !== null && observed.lock !== null && observed.lock !== task.lock_reason)
    out.add('lock-not-owned', join(recorded.admin_dir, 'locked'), 'the worktree is locked by someone else');
  const listed = obs.listed;
  if (listed === undefined)
    out.add('registration-changed', task.destination, 'git does not list a worktree at the destination');
  else {
    if (listed.isMain) out.add('current-worktree', task.destination, 'the destination is the main worktree');
    if (listed.branch !== task.branch)
      out.add(
        'registration-changed',
        task.destination,
        `the worktree has ${listed.branch ?? 'a detached HEAD'} checked out, not ${task.branch}`,
      );
    else if (listed.head !== obs.branchOid)
      out.add('registration-changed', task.destination, 'the worktree HEAD differs from the branch tip');
    if (listed.prunable !== undefined)
      out.add('registration-changed', task.destination, 'git reports the worktree prunable');
  }
  if (obs.adminEntries === null)
    out.add('foreign-worktree', recorded.admin_dir, 'the admin dir is missing or unreadable');
  else
    for (const name of obs.adminEntries) {
      if (ADMIN_ALLOWED.has(name)) continue;
      if (OPERATION_FILES.test(name))
        out.add(
          'operation-in-progress',
          join(recorded.admin_dir, name),
          'an operation (merge, rebase, cherry-pick, bisect) is in progress',
        );
      else
        out.add(
          'unsupported-metadata',
          join(recorded.admin_dir, name),
          'worktree metadata git worktree remove would delete (per-worktree refs, config or state)',
        );
    }
}

/** Commits only the worktree's HEAD reflog keeps: `git worktree remove` would lose them. */
export function reflogBlockers(
  adminDir: string,
  obs: Pick<RetirementObservation, 'reflogOnly'>,
  out: Blockers,
): void {
  const reflog = join(adminDir, 'logs', 'HEAD');
  const { commits, problem } = obs.reflogOnly;
  if (problem !== null) out.add(problem.code, reflog, problem.message);
  if (commits.length > 0)
    out.add(
      'unreferenced-commit',
      reflog,
      `${commits.length === REFLOG_ONLY_SHOWN ? `at least ${commits.length} commits are` : commits.length === 1 ? '1 commit is' : `${commits.length} commits are`} reachable only from the task worktree's HEAD reflog, which git worktree remove deletes (newest first: ${commits.slice(0, 4).join(', ')}); keep them on a branch (git branch NAME ${commits[0]}) or drop them, then plan again`,
    );
}

/**
 * Every blocker for retiring the task with the destination present (plan time, and
 * apply before its first effects).
 */
export function retirementBlockers(
  loaded: LoadedGitTask,
  obs: RetirementObservation,
  selection: RetirementSelection,
  limit: number,
): RetirementBlocker[] {
  const out = new Blockers(limit);
  const { task } = loaded;
  const created = loaded.journal.created!;
  if (selection.removeFiles === null)
    out.add(
      'unsupported',
      null,
      'git cannot forget a present worktree registration while keeping its files; select --remove-files with the destination',
    );
  if (!obs.confinement)
    out.add(
      'unsupported',
      null,
      'confined directory handles (/proc/self/fd) are unavailable: files cannot be removed without following paths',
    );
  destinationBlockers(task.destination, created, obs, out);
  if (obs.destination.exists && obs.destination.problem === null) registrationBlockers(loaded, obs, out);
  const toplevel = obs.layout.toplevel;
  if (
    (toplevel !== undefined && toplevel === task.destination) ||
    obs.layout.path === task.destination ||
    obs.layout.path.startsWith(`${task.destination}/`)
  )
    out.add(
      'source-worktree',
      task.destination,
      'PATH is inside the task worktree: plan from the source repository',
    );
  if (obs.cwdInside)
    out.add('current-worktree', task.destination, 'the current directory is inside the task worktree');
  if (obs.branchOid === null) out.add('uncertain', null, `the task branch ${task.branch} does not exist`);
  else if (obs.ancestor.value === false)
    out.add(
      'not-integrated',
      null,
      `${task.branch} at ${obs.branchOid} is not an ancestor of the base ${obs.base.oid}`,
    );
  else if (obs.ancestor.value === null)
    out.add('uncertain', null, obs.ancestor.note ?? 'integration not established');
  reflogBlockers(created.registration.admin_dir, obs, out);
  for (const problem of obs.manifest?.problems ?? [])
    out.add(
      problem.code,
      problem.path === '.' ? task.destination : join(task.destination, problem.path),
      problem.message,
    );
  if (obs.viewProblem !== null)
    out.add(
      'uncertain',
      task.destination,
      `git's view of the worktree could not be read: ${obs.viewProblem}`,
    );
  contentBlockers(obs, task.destination, out);
  for (const process of obs.activity)
    out.add('activity', process.cwd, `process ${process.pid} has its working directory in the task worktree`);
  return out.list;
}
