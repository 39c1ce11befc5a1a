/**
 * `stw task create`: a linked worktree for a new task branch, recorded in the private
 * store so that retirement can later prove SourceSteward made it. Order: checks → the
 * creation plan (exclusive record) → journal `intent` → `git worktree add --lock` → the
 * post-creation observation → journal `created` (registration and physical identities)
 * → journal `completed`. Returns what happened; never prints.
 */

import { lstat, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { type Clock, formatInstant, systemClock } from '../core/clock.js';
import { checkDirectoryChain, DirHandle, idOf, type PhysicalId } from '../core/confined-fs.js';
import { Deadline } from '../core/deadline.js';
import { isStwError, RefusalError, type StwError } from '../core/errors.js';
import { git } from '../core/git.js';
import { toolVersion } from '../core/package.js';
import { describeOutcome } from '../core/run.js';
import { readGitBinding } from '../tidy/backends/git/binding.js';
import {
  discoverGitLayout,
  type GitCallContext,
  isValidFullRefName,
  observeGitOk,
  readGitVersion,
  readWorktrees,
  resolveBase,
} from '../tidy/backends/git/observe.js';
import { backendInfo, selectBackend } from '../tidy/backends/registry.js';
import { checkTextBound } from '../tidy/bounded.js';
import { loadOrCreatePlanKey, planKeyPath } from '../tidy/plan-key.js';
import { checkStateDir, checkStateDirPrivate } from '../tidy/store.js';
import { type BackendName, DEFAULT_APPLY_BOUNDS, type TidyBounds } from '../tidy/types.js';
import { openTaskJournal, taskJournalPath, taskRecordPath, writeTaskRecord } from './store.js';
import {
  type AnyTaskCreatedFacts,
  checkId,
  defaultTaskBranch,
  type GitTaskCreationPlan,
  lockReasonFor,
  type TaskCreatedFacts,
  type TaskCreationPlan,
  type TaskRegistration,
} from './types.js';

export interface CreateTaskOptions {
  /** PATH: the source repository (main worktree, linked worktree or subdirectory). */
  path: string;
  base: string;
  taskId: string;
  owner: string;
  /** `--dest`: an absolute path that does not exist yet, in an existing real directory. */
  dest: string;
  stateDir: string;
  /** `--branch`: a short branch name; default `stw/task/<task_id>` (Git only). */
  branch?: string | undefined;
  /** `--backend`: overrides the choice made from `.jj/` / `.git` at or above PATH. */
  backend?: BackendName | undefined;
  /** The environment jj runs with (hardened by src/core/jj.ts); defaults to this process's. */
  env?: NodeJS.ProcessEnv;
  /** The key that authenticates the record (the plan key); defaults to `planKeyPath()`, created on first use. */
  keyFile?: string | undefined;
  cwd?: string;
  clock?: Clock;
  bounds?: TidyBounds;
  signal?: AbortSignal;
}

export type TaskCreateStatus = 'complete' | 'refused' | 'failed';

export interface TaskCreateResult {
  schema_version: 1;
  status: TaskCreateStatus;
  task: TaskCreationPlan | null;
  /** What creation observed once the worktree or workspace existed; null when it did not get that far. */
  created: AnyTaskCreatedFacts | null;
  record: string | null;
  journal: string | null;
  refusal: { code: string; message: string } | null;
  failure: { code: string; message: string } | null;
}

export function isWithin(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

async function canonical(path: string): Promise<string> {
  return realpath(path).catch(() => resolve(path));
}

/** The destination checks: absolute, canonical, absent, in a real directory, outside repository and store. */
export async function checkDestination(
  dest: string,
  avoid: readonly { what: string; path: string }[],
): Promise<void> {
  if (!isAbsolute(dest))
    throw new RefusalError(
      'destination-not-absolute',
      `--dest ${JSON.stringify(dest)} is not an absolute path`,
    );
  if (resolve(dest) !== dest || dest === sep)
    throw new RefusalError(
      'destination-not-canonical',
      `--dest ${JSON.stringify(dest)} is not canonical (no "..", ".", repeated or trailing "/")`,
    );
  try {
    const info = await lstat(dest);
    throw new RefusalError(
      info.isSymbolicLink() ? 'destination-symlink' : 'destination-exists',
      info.isSymbolicLink()
        ? `--dest ${JSON.stringify(dest)} is a symbolic link`
        : `--dest ${JSON.stringify(dest)} already exists`,
    );
  } catch (error) {
    if (isStwError(error)) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const chain = await checkDirectoryChain(dirname(dest));
  if (chain.problem !== null || !chain.exists)
    throw new RefusalError(
      chain.problem?.includes('symbolic link') ? 'destination-symlink' : 'destination-parent-missing',
      chain.problem === null
        ? `the parent of --dest ${JSON.stringify(dest)} does not exist`
        : `--dest ${JSON.stringify(dest)} is not reached through real directories: ${chain.problem}`,
    );
  for (const { what, path } of avoid) {
    if (path === '') continue;
    const real = await canonical(path);
    if (isWithin(real, dest) || isWithin(dest, real))
      throw new RefusalError(
        what === 'store' ? 'destination-inside-store' : 'destination-inside-repository',
        `--dest ${JSON.stringify(dest)} overlaps the ${what} ${JSON.stringify(real)}`,
      );
  }
}

async function branchExists(ref: string, ctx: GitCallContext): Promise<boolean> {
  const text = await observeGitOk(
    ['for-each-ref', '--format=%(refname)', '--', ref],
    ctx,
    'git for-each-ref',
  );
  return text.split('\n').includes(ref);
}

export async function identityOf(path: string): Promise<PhysicalId> {
  return idOf(await lstat(path, { bigint: true }));
}

async function readSmall(dir: DirHandle, name: string, limit: number): Promise<string> {
  const handle = await dir.openFile(name);
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > limit) throw new Error(`${name} is not a small regular file`);
    return (await handle.readFile('utf8')).replace(/\n$/, '');
  } finally {
    await handle.close();
  }
}

/** The registration as it is on disk now: the destination's `.git` file and its admin dir. */
export async function readGitRegistration(destination: string, limit: number): Promise<TaskRegistration> {
  const dest = await DirHandle.openPath(destination);
  try {
    const dotgit = await readSmall(dest, '.git', limit);
    const match = /^gitdir: (.+)$/.exec(dotgit);
    if (match === null) throw new Error(`${destination}/.git does not name a git dir`);
    const adminDir = match[1]!;
    const admin = await DirHandle.openPath(adminDir);
    try {
      let lock: string | null = null;
      try {
        lock = await readSmall(admin, 'locked', limit);
      } catch (error) {
        if (errnoOf(error) !== 'ENOENT') throw error;
      }
      return {
        admin_dir: adminDir,
        admin_dir_identity: admin.id,
        gitdir: await readSmall(admin, 'gitdir', limit),
        dotgit,
        lock,
      };
    } finally {
      await admin.close();
    }
  } finally {
    await dest.close();
  }
}

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

export function emptyResult(): TaskCreateResult {
  return {
    schema_version: 1,
    status: 'refused',
    task: null,
    created: null,
    record: null,
    journal: null,
    refusal: null,
    failure: null,
  };
}

export function problem(error: StwError): { code: string; message: string } {
  return { code: error.code, message: error.message };
}

/** Creates and records one task worktree. Known failures come back as a result, never thrown. */
export async function createTask(options: CreateTaskOptions): Promise<TaskCreateResult> {
  const bounds = options.bounds ?? { ...DEFAULT_APPLY_BOUNDS };
  const deadline = Deadline.after(bounds.deadlineMs);
  const clock = options.clock ?? systemClock;
  const now = () => formatInstant(clock.now());
  const cwd = options.cwd ?? process.cwd();
  const result = emptyResult();
  let task: GitTaskCreationPlan;
  let ctx: GitCallContext;
  try {
    for (const [label, text] of [
      ['PATH', options.path],
      ['--base', options.base],
      ['--dest', options.dest],
      ['--state-dir', options.stateDir],
      ['--branch', options.branch ?? ''],
    ] as const)
      checkTextBound(label, text, bounds.maxTextBytes);
    checkId('--task', options.taskId);
    checkId('--owner', options.owner);
    const stateDir = resolve(cwd, options.stateDir);
    await checkStateDirPrivate(stateDir);
    const observe = { deadline, bounds, signal: options.signal };
    // A jj repository's tasks are jj workspaces: a Git worktree made behind jj's back
    // would be one jj does not know (docs/tasks.md).
    if (options.backend === 'git' && selectBackend(resolve(cwd, options.path), undefined) === 'jj')
      throw new RefusalError(
        'unsupported',
        'task create --backend git refuses a jj repository: jj would not know the Git worktree; omit --backend to make a jj workspace',
      );
    if (selectBackend(resolve(cwd, options.path), options.backend) === 'jj') {
      const { createJjTask } = await import('./create-jj.js');
      return await createJjTask(options, { stateDir, observe, now, result });
    }
    const layout = await discoverGitLayout(resolve(cwd, options.path), observe);
    if (layout.isBare || layout.toplevel === undefined)
      throw new RefusalError('bare-repository', 'task create needs a repository with a work tree');
    ctx = { ...observe, cwd: layout.path };
    await readGitVersion(ctx);
    const base = await resolveBase(options.base, layout.objectFormat, ctx);
    const worktrees = await readWorktrees(ctx);
    const repoPaths = [layout.toplevel, layout.gitDir, layout.commonDir, ...worktrees.map((w) => w.path)];
    await checkStateDir(stateDir, repoPaths);
    await checkDestination(options.dest, [
      ...repoPaths.map((path) => ({ what: 'repository path', path })),
      { what: 'store', path: stateDir },
    ]);
    const branch =
      options.branch === undefined ? defaultTaskBranch(options.taskId) : `refs/heads/${options.branch}`;
    if (options.branch !== undefined && (options.branch.startsWith('refs/') || !isValidFullRefName(branch)))
      throw new RefusalError(
        'invalid-branch',
        `--branch ${JSON.stringify(options.branch)} is not a valid short branch name`,
      );
    if (
      await lstat(taskRecordPath(stateDir, options.taskId)).then(
        () => true,
        () => false,
      )
    )
      throw new RefusalError(
        'task-exists',
        `task ${options.taskId} is already recorded in ${JSON.stringify(stateDir)}`,
      );
    if (await branchExists(branch, ctx))
      throw new RefusalError('branch-exists', `branch ${branch} already exists`);
    task = {
      task_id: options.taskId,
      owner: options.owner,
      created_at: now(),
      tool_version: toolVersion(),
      backend: 'git',
      source: {
        path: layout.path,
        toplevel: layout.toplevel,
        git_dir: layout.gitDir,
        common_dir: layout.commonDir,
        common_dir_identity: await identityOf(layout.commonDir),
        object_format: layout.objectFormat,
      },
      base: { selector: base.selector, ref: base.ref, oid: base.oid },
      branch,
      start_oid: base.oid,
      destination: options.dest,
      lock_reason: lockReasonFor(options.taskId, options.owner),
    };
    result.task = task;
    const key = await loadOrCreatePlanKey(options.keyFile ?? planKeyPath(), stateDir);
    const binding = await readGitBinding(layout.commonDir, base.oid, ctx);
    result.record = await writeTaskRecord(stateDir, task, { key, binding });
    result.journal = taskJournalPath(stateDir, task.task_id);
  } catch (error) {
    if (isStwError(error)) {
      result.status = error instanceof RefusalError ? 'refused' : 'failed';
      if (result.status === 'refused') result.refusal = problem(error);
      else result.failure = problem(error);
      return result;
    }
    throw error;
  }
  await runCreation(task, result, resolve(cwd, options.stateDir), now, {
    add: async () => {
      const added = await git(
        [
          'worktree',
          'add',
          '--quiet',
          '--lock',
          '--reason',
          task.lock_reason,
          '-b',
          task.branch.slice('refs/heads/'.length),
          task.destination,
          task.start_oid,
        ],
        { cwd: task.source.path, deadline: ctx.deadline, maxBytes: bounds.maxOutputBytes },
      );
      return added.kind === 'exited' && added.code === 0
        ? null
        : { code: 'worktree-add-failed', message: describeOutcome(added, 'git worktree add') };
    },
    observe: () => observeCreated(task, ctx, bounds),
  });
  return result;
}

/** The native creation of one task and the read-back that proves what it made. */
export interface CreationSteps<F extends AnyTaskCreatedFacts> {
  /** Runs the native command; null on success, else the failure to journal. */
  add: () => Promise<{ code: string; message: string } | null>;
  /** Reads back what the command made; throws when it is not exactly the planned task. */
  observe: () => Promise<F>;
}

/** Journal `intent` → native creation → observation → journal `created` and `completed`. Every outcome is journaled. */
export async function runCreation<F extends AnyTaskCreatedFacts>(
  task: TaskCreationPlan,
  result: TaskCreateResult,
  stateDir: string,
  now: () => string,
  steps: CreationSteps<F>,
): Promise<void> {
  const journal = await openTaskJournal(stateDir, task.task_id);
  const fail = (code: string, message: string) => {
    journal.append({ type: 'failed', task_id: task.task_id, at: now(), reason: code, message });
    result.status = 'failed';
    result.failure = { code, message };
  };
  try {
    journal.append({ type: 'intent', task_id: task.task_id, at: now() });
    const failed = await steps.add();
    if (failed !== null) {
      fail(failed.code, failed.message);
      return;
    }
    let facts: F;
    try {
      facts = await steps.observe();
    } catch (error) {
      fail(
        'post-creation-check-failed',
        `the new ${backendInfo(task.backend).checkoutNoun} does not look as created: ${(error as Error).message}`,
      );
      return;
    }
    journal.append({ type: 'created', task_id: task.task_id, at: now(), ...facts });
    journal.append({ type: 'completed', task_id: task.task_id, at: now() });
    result.created = facts;
    result.status = 'complete';
  } finally {
    journal.close();
  }
}

/** Reads back what `git worktree add` made and checks it is exactly the planned task. */
async function observeCreated(
  task: GitTaskCreationPlan,
  ctx: GitCallContext,
  bounds: TidyBounds,
): Promise<TaskCreatedFacts> {
  const chain = await checkDirectoryChain(task.destination);
  if (chain.problem !== null || chain.id === null)
    throw new Error(chain.problem ?? 'the destination is missing');
  const registration = await readGitRegistration(task.destination, bounds.maxTextBytes + 16);
  if (registration.gitdir !== `${task.destination}/.git`)
    throw new Error(`${registration.admin_dir}/gitdir names ${registration.gitdir}`);
  if (registration.lock !== task.lock_reason) throw new Error('the worktree lock is not the one requested');
  const listed = (await readWorktrees(ctx)).find((worktree) => worktree.path === task.destination);
  if (listed === undefined) throw new Error('git does not list the new worktree');
  if (listed.branch !== task.branch || listed.head !== task.start_oid)
    throw new Error(`the new worktree is at ${listed.branch ?? 'a detached HEAD'} ${listed.head ?? ''}`);
  if (listed.locked !== task.lock_reason) throw new Error('git does not report the worktree locked');
  return {
    destination_identity: chain.id,
    parent_identity: await identityOf(dirname(task.destination)),
    registration,
    head: listed.head,
  };
}
