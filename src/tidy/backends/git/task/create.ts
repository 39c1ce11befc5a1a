/**
 * `stw task create` on Git: a linked worktree for a new task branch. Checks → the
 * creation plan (exclusive record) → journal `intent` → `git worktree add --lock` → the
 * post-creation observation → journal `created` → `completed` (`runCreation`).
 */
import { dirname, resolve } from 'node:path';
import { checkDirectoryChain, DirHandle } from '../../../../core/confined-fs.js';
import { RefusalError } from '../../../../core/errors.js';
import { git } from '../../../../core/git.js';
import { toolVersion } from '../../../../core/package.js';
import { describeOutcome } from '../../../../core/run.js';
import {
  type CreateTaskOptions,
  checkDestination,
  identityOf,
  type TaskCreateResult,
} from '../../../../task/create.js';
import { runCreation } from '../../../../task/run.js';
import { checkTaskIdFree, writeTaskRecord } from '../../../../task/store.js';
import {
  defaultTaskBranch,
  type GitTaskCreationPlan,
  lockReasonFor,
  type TaskCreatedFacts,
  type TaskRegistration,
} from '../../../../task/types.js';
import { loadOrCreatePlanKey, planKeyPath } from '../../../plan-key.js';
import { checkStateDir } from '../../../store.js';
import type { TidyBounds } from '../../../types.js';
import type { TaskCreateInputs } from '../../backend.js';
import { readGitBinding } from '../binding.js';
import {
  discoverGitLayout,
  type GitCallContext,
  isValidFullRefName,
  observeGitOk,
  readGitVersion,
  readWorktrees,
  resolveBase,
} from '../observe.js';

async function branchExists(ref: string, ctx: GitCallContext): Promise<boolean> {
  const text = await observeGitOk(
    ['for-each-ref', '--format=%(refname)', '--', ref],
    ctx,
    'git for-each-ref',
  );
  return text.split('\n').includes(ref);
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

/** Creates and records one task worktree (`git worktree add --lock`). Refusals before creation are thrown. */
export async function createGitTask(
  options: CreateTaskOptions,
  inputs: TaskCreateInputs,
): Promise<TaskCreateResult> {
  const { stateDir, observe, now, result } = inputs;
  const layout = await discoverGitLayout(resolve(options.cwd ?? process.cwd(), options.path), observe);
  if (layout.isBare || layout.toplevel === undefined)
    throw new RefusalError('bare-repository', 'task create needs a repository with a work tree');
  const ctx: GitCallContext = { ...observe, cwd: layout.path };
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
  await checkTaskIdFree(stateDir, options.taskId);
  if (await branchExists(branch, ctx))
    throw new RefusalError('branch-exists', `branch ${branch} already exists`);
  const task: GitTaskCreationPlan = {
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
  await runCreation(task, options, inputs, {
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
        { cwd: task.source.path, deadline: ctx.deadline, maxBytes: observe.bounds.maxOutputBytes },
      );
      return added.kind === 'exited' && added.code === 0
        ? null
        : { code: 'worktree-add-failed', message: describeOutcome(added, 'git worktree add') };
    },
    observe: () => observeCreated(task, ctx, observe.bounds),
  });
  return result;
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
