/**
 * `stw task create` on a jj repository: a jj workspace (docs/tasks.md, "Tasks on jj").
 * Observation at one pinned operation (as tidy plan does), the same destination and
 * store checks as for Git, the creation plan record, then `jj workspace add --name NAME
 * -r commit_id(BASE) --sparse-patterns full DEST` through the bounded runner, and a
 * read-back at the operation jj ends at: the workspace named NAME, rooted at DEST, whose
 * working-copy commit is empty with the base commit as its only parent. Returns what
 * happened; never prints.
 */
import { lstat, readFile, realpath } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { checkDirectoryChain } from '../../../../core/confined-fs.js';
import { RefusalError } from '../../../../core/errors.js';
import { jj } from '../../../../core/jj.js';
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
  type JjTaskCreatedFacts,
  type JjTaskCreationPlan,
  taskWorkspaceName,
} from '../../../../task/types.js';
import { loadOrCreatePlanKey, planKeyPath } from '../../../plan-key.js';
import { checkStateDir } from '../../../store.js';
import type { RepositoryBinding } from '../../../types.js';
import type { TaskCreateInputs } from '../../backend.js';
import {
  type JjCallContext,
  readCommitRoots,
  readCommitState,
  readCurrentOperation,
  readRepoDir,
  readRepositoryAtCurrentOperation,
  readWorkspaces,
  resolveJjBase,
} from '../observe.js';
import { requireSupportedJj } from '../plan.js';

/** The stored record's binding: the jj repository directory's identity and the start commit's roots. */
async function readTaskBinding(
  repoDir: string,
  op: string,
  commit: string,
  ctx: JjCallContext,
): Promise<RepositoryBinding> {
  const id = await identityOf(repoDir);
  return {
    metadata_dir: repoDir,
    device: id.dev,
    inode: id.ino,
    root_commits: await readCommitRoots(op, commit, ctx),
  };
}

/** Creates and records one task workspace. Refusals before creation are thrown to createTask's handler. */
export async function createJjTask(
  options: CreateTaskOptions,
  inputs: TaskCreateInputs,
): Promise<TaskCreateResult> {
  const { stateDir, observe, result } = inputs;
  const env = options.env ?? process.env;
  const path = resolve(options.cwd ?? process.cwd(), options.path);
  if (options.branch !== undefined)
    throw new RefusalError(
      'unsupported',
      '--branch names a Git branch; a task on jj is a workspace, whose working-copy commit starts on the base',
    );
  await requireSupportedJj(observe, env);
  const ctx: JjCallContext = { ...observe, cwd: path, env };
  const {
    operationId: op,
    workspaceRoot,
    gitDir,
    bookmarks,
    workspaces,
  } = await readRepositoryAtCurrentOperation(ctx);
  const repoDir = await readRepoDir(workspaceRoot);
  const base = resolveJjBase(bookmarks, options.base);
  const repoPaths = [path, workspaceRoot, repoDir, gitDir, ...workspaces.map((w) => w.root ?? '')];
  await checkStateDir(stateDir, repoPaths);
  await checkDestination(options.dest, [
    ...repoPaths.map((p) => ({ what: 'repository path', path: p })),
    { what: 'store', path: stateDir },
  ]);
  await checkTaskIdFree(stateDir, options.taskId);
  const name = taskWorkspaceName(options.taskId);
  if (workspaces.some((w) => w.name === name))
    throw new RefusalError('workspace-exists', `jj workspace ${JSON.stringify(name)} already exists`);
  const task: JjTaskCreationPlan = {
    task_id: options.taskId,
    owner: options.owner,
    created_at: inputs.now(),
    tool_version: toolVersion(),
    backend: 'jj',
    source: {
      path: await realpath(path),
      toplevel: workspaceRoot,
      git_dir: gitDir,
      common_dir: repoDir,
      common_dir_identity: await identityOf(repoDir),
      object_format: 'sha1',
    },
    base: { selector: options.base, ref: base.name, oid: base.commit },
    start_oid: base.commit,
    destination: options.dest,
    workspace: name,
  };
  result.task = task;
  const key = await loadOrCreatePlanKey(options.keyFile ?? planKeyPath(), stateDir);
  const binding = await readTaskBinding(repoDir, op, base.commit, ctx);
  result.record = await writeTaskRecord(stateDir, task, { key, binding });
  await runCreation(task, options, inputs, {
    add: async () => {
      // Like every jj command that writes, this snapshots the workspace PATH is in first
      // (recorded in the operation log, never discarded). `--ignore-working-copy` is not
      // an option: jj refuses it here only after it has made the workspace.
      const added = await jj(
        [
          'workspace',
          'add',
          '--name',
          task.workspace,
          '-r',
          `commit_id(${task.start_oid})`,
          '--sparse-patterns',
          'full',
          '--',
          task.destination,
        ],
        {
          cwd: path,
          env,
          deadline: observe.deadline,
          maxBytes: observe.bounds.maxOutputBytes,
          // The snapshot records the user's files: only their own settings
          // (snapshot.auto-track, max-new-file-size, …) decide what it tracks.
          userConfig: true,
        },
      );
      return added.kind === 'exited' && added.code === 0
        ? null
        : { code: 'workspace-add-failed', message: describeOutcome(added, 'jj workspace add') };
    },
    observe: () => observeCreatedWorkspace(task, ctx),
  });
  return result;
}

/** Reads back what `jj workspace add` made, at the operation it ended at, and checks it is exactly the planned task. */
async function observeCreatedWorkspace(
  task: JjTaskCreationPlan,
  ctx: JjCallContext,
): Promise<JjTaskCreatedFacts> {
  const op = await readCurrentOperation(ctx);
  const listed = (await readWorkspaces(op, ctx)).find((w) => w.name === task.workspace);
  if (listed === undefined) throw new Error(`jj does not list the workspace ${task.workspace}`);
  if (listed.root !== task.destination)
    throw new Error(`jj records the workspace at ${listed.root ?? 'no root'}`);
  if (listed.parents.length !== 1 || listed.parents[0] !== task.start_oid)
    throw new Error(
      `the working-copy commit's parents are ${listed.parents.join(', ')}, not ${task.start_oid}`,
    );
  const state = await readCommitState(op, listed.commit_id, ctx);
  if (state === null || !state.empty || state.conflict)
    throw new Error('the new working-copy commit is not an empty commit on the base');
  const chain = await checkDirectoryChain(task.destination);
  if (chain.problem !== null || chain.id === null)
    throw new Error(chain.problem ?? 'the destination is missing');
  const jjDir = join(task.destination, '.jj');
  const jjDirInfo = await lstat(jjDir);
  if (!jjDirInfo.isDirectory()) throw new Error(`${jjDir} is not a directory`);
  const pointer = await readFile(join(jjDir, 'repo'), 'utf8');
  if (pointer.length > ctx.bounds.maxTextBytes) throw new Error(`${jjDir}/repo is too long`);
  if ((await readRepoDir(task.destination)) !== task.source.common_dir)
    throw new Error(`${jjDir}/repo does not name the source repository`);
  return {
    destination_identity: chain.id,
    parent_identity: await identityOf(dirname(task.destination)),
    workspace: {
      name: listed.name,
      root: listed.root,
      commit_id: listed.commit_id,
      change_id: listed.change_id,
      parents: listed.parents,
    },
    registration: { jj_dir_identity: await identityOf(jjDir), repo_pointer: pointer },
    operation_id: op,
  };
}
