/**
 * What a jj retirement plan observes for one owned task workspace (docs/tasks.md, "Tasks
 * on jj"). jj's stored state is read at one pinned operation with `--ignore-working-copy`
 * (the user's workspaces are never snapshotted behind their back); the disk is compared
 * for real instead: the full physical manifest of the destination against the
 * working-copy commit's stored tree, read from the backing Git repository (`git ls-tree`
 * of that commit: modes and blob ids). Read-only; bounded calls under one deadline.
 */
import { lstat, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  checkDirectoryChain,
  idOf,
  isConfinementAvailable,
  isWithin,
  type PhysicalId,
} from '../../../../core/confined-fs.js';
import type { LoadedJjTask } from '../../../../task/store.js';
import type { JjTaskRegistration } from '../../../../task/types.js';
import { observeGitOk } from '../../../git-call.js';
import { MAX_MANIFEST_FILE_BYTES, type ManifestWalk, walkManifest } from '../../../retire/manifest.js';
import { parseTree, type TreeEntry, visibleActivity } from '../../../retire/observe.js';
import {
  isAncestorOfBookmark,
  type JjCallContext,
  type JjCommitState,
  readCommitState,
  readRepoDir,
  readRepositoryAtCurrentOperation,
  resolveJjBase,
} from '../observe.js';
import type { JjWorkspace } from '../observe-parse.js';

export interface JjRetirementObservation {
  operationId: string;
  /** PATH's workspace root, the jj repository directory and the backing Git repository. */
  workspaceRoot: string;
  repoDir: string;
  gitDir: string;
  repoDirIdentity: PhysicalId | null;
  base: { name: string; commit: string };
  workspaces: JjWorkspace[];
  /** jj's entry for the task workspace; undefined when jj does not list it. */
  listed: JjWorkspace | undefined;
  /** The listed working-copy commit's state; null when not listed. */
  workingCopy: JjCommitState | null;
  /** The one parent is in `::BASE`; null when not established (not listed, several parents). */
  parentIntegrated: boolean | null;
  /** Stored tree ids of the working-copy commit and of its one parent (backing Git repository). */
  trees: { commit: string; parent: string } | null;
  /** The working-copy commit's stored tree, path → mode/type/blob id. */
  tree: Map<string, TreeEntry> | null;
  treeProblem: string | null;
  destination: { exists: boolean; identity: PhysicalId | null; problem: string | null };
  parentIdentity: PhysicalId | null;
  /** `<destination>/.jj` as on disk now; null when it cannot be read. */
  registration: JjTaskRegistration | null;
  registrationProblem: string | null;
  /** The repository directory `<destination>/.jj/repo` names, through symlinks. */
  registrationRepoDir: string | null;
  manifest: ManifestWalk | null;
  activity: { pid: number; cwd: string }[];
  cwdInside: boolean;
  confinement: boolean;
}

async function readRegistration(
  destination: string,
  limit: number,
): Promise<{ registration: JjTaskRegistration; repoDir: string }> {
  const jjDir = join(destination, '.jj');
  const info = await lstat(jjDir, { bigint: true });
  if (!info.isDirectory()) throw new Error(`${jjDir} is not a directory`);
  const pointer = join(jjDir, 'repo');
  const pointerInfo = await lstat(pointer);
  if (!pointerInfo.isFile() || pointerInfo.size > limit) throw new Error(`${pointer} is not a small file`);
  return {
    registration: { jj_dir_identity: idOf(info), repo_pointer: await readFile(pointer, 'utf8') },
    repoDir: await readRepoDir(destination),
  };
}

/** The stored trees of the working-copy commit and its parent, and the commit's whole tree (git's view of jj's store). */
async function readStoredTrees(
  gitDir: string,
  commit: string,
  parent: string,
  ctx: JjCallContext,
): Promise<{ trees: { commit: string; parent: string }; tree: Map<string, TreeEntry> }> {
  const call = { deadline: ctx.deadline, bounds: ctx.bounds, signal: ctx.signal, cwd: gitDir };
  const ids = (
    await observeGitOk(['rev-parse', `${commit}^{tree}`, `${parent}^{tree}`], call, 'git rev-parse (trees)')
  )
    .trim()
    .split('\n');
  if (ids.length !== 2 || !ids.every((id) => /^[0-9a-f]{40}$/.test(id)))
    throw new Error('git rev-parse: unexpected tree ids');
  const listing = await observeGitOk(['ls-tree', '-r', '-z', '--full-tree', commit], call, 'git ls-tree');
  return {
    trees: { commit: ids[0]!, parent: ids[1]! },
    tree: parseTree(Buffer.from(listing, 'utf8')),
  };
}

/** Observes one jj task for retirement. */
export async function observeJjRetirement(
  loaded: LoadedJjTask,
  sourcePath: string,
  baseSelector: string,
  ctx: JjCallContext,
): Promise<JjRetirementObservation> {
  const task = loaded.task;
  const call: JjCallContext = { ...ctx, cwd: sourcePath };
  const { operationId, workspaceRoot, gitDir, bookmarks, workspaces } =
    await readRepositoryAtCurrentOperation(call);
  const repoDir = await readRepoDir(workspaceRoot);
  const base = resolveJjBase(bookmarks, baseSelector);
  const listed = workspaces.find((w) => w.name === task.workspace);
  const workingCopy =
    listed === undefined ? null : await readCommitState(operationId, listed.commit_id, call);
  const parent = workingCopy?.parents.length === 1 ? workingCopy.parents[0]! : null;
  const parentIntegrated =
    parent === null ? null : await isAncestorOfBookmark(operationId, parent, base.name, call);
  let trees: JjRetirementObservation['trees'] = null;
  let tree: JjRetirementObservation['tree'] = null;
  let treeProblem: string | null = null;
  if (workingCopy !== null && parent !== null)
    try {
      ({ trees, tree } = await readStoredTrees(gitDir, workingCopy.commit_id, parent, call));
    } catch (error) {
      treeProblem = (error as Error).message;
    }
  const chain = await checkDirectoryChain(task.destination);
  const parentChain = await checkDirectoryChain(dirname(task.destination));
  let registration: JjTaskRegistration | null = null;
  let registrationRepoDir: string | null = null;
  let registrationProblem: string | null = null;
  if (chain.exists && chain.problem === null)
    try {
      ({ registration, repoDir: registrationRepoDir } = await readRegistration(
        task.destination,
        ctx.bounds.maxTextBytes,
      ));
    } catch (error) {
      registrationProblem = (error as Error).message;
    }
  const confinement = await isConfinementAvailable();
  const isStopped = () => ctx.deadline.isExpired || ctx.signal?.aborted === true;
  const manifest =
    chain.exists && chain.problem === null && confinement
      ? await walkManifest(
          task.destination,
          'sha1',
          { maxEntries: ctx.bounds.maxEntries, maxFileBytes: MAX_MANIFEST_FILE_BYTES },
          isStopped,
        )
      : null;
  return {
    operationId,
    workspaceRoot,
    repoDir,
    gitDir,
    repoDirIdentity: await lstat(repoDir, { bigint: true }).then(idOf, () => null),
    base,
    workspaces,
    listed,
    workingCopy,
    parentIntegrated,
    trees,
    tree,
    treeProblem,
    destination: { exists: chain.exists, identity: chain.id, problem: chain.problem },
    parentIdentity: parentChain.id,
    registration,
    registrationProblem,
    registrationRepoDir,
    manifest,
    activity: chain.exists ? await visibleActivity(task.destination, 16) : [],
    cwdInside: isWithin(task.destination, process.cwd()),
    confinement,
  };
}
