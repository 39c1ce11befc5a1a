/**
 * Retirement decisions for a jj task workspace (pure; docs/tasks.md, "Tasks on jj"). The
 * working-copy commit is eligible only when it is empty with one integrated parent, its
 * stored tree is identical to that parent's, and the disk matches that tree entry for
 * entry (the manifest against the stored tree: every file, its executable bit and its
 * content; nothing more on disk than jj's own `.jj` metadata). Anything else retains.
 */
import { join } from 'node:path';
import { sameId } from '../../../../core/confined-fs.js';
import type { LoadedJjTask } from '../../../../task/store.js';
import { Blockers, destinationBlockers, type RetirementSelection } from '../../../retire/decide.js';
import type { ManifestEntry } from '../../../retire/manifest.js';
import type { RetirementBlocker } from '../../../retire/types.js';
import type { JjRetirementObservation } from './observe.js';

/** What jj keeps in a secondary workspace's `.jj`: the repository pointer and the working-copy state. */
export const JJ_WORKSPACE_METADATA: ReadonlySet<string> = new Set([
  '.jj',
  '.jj/repo',
  '.jj/working_copy',
  '.jj/working_copy/checkout',
  '.jj/working_copy/tree_state',
  '.jj/working_copy/type',
]);

function isJjMetadata(path: string): boolean {
  return path === '.jj' || path.startsWith('.jj/');
}

/** The disk against the working-copy commit's stored tree: a full comparison, both ways. */
function diskBlockers(obs: JjRetirementObservation, destination: string, out: Blockers): void {
  const manifest = obs.manifest;
  const tree = obs.tree;
  // Without a full manifest the disk is not compared, and an unread disk never retires,
  // even when the files are kept (a forget-only plan): the recovery bookmark would not
  // hold what jj has not snapshotted.
  if (manifest === null || !manifest.complete) {
    out.add(
      'uncertain',
      destination,
      manifest === null
        ? `the disk was not compared with the working-copy commit: no manifest was taken${obs.confinement ? '' : ' (confined directory handles are unavailable)'}`
        : 'the disk was not compared with the working-copy commit in full: the manifest is incomplete',
    );
    return;
  }
  if (tree === null) return; // reported with the working-copy commit (not listed, or unreadable trees)
  const abs = (rel: string) => join(destination, rel);
  const files = new Map<string, ManifestEntry>();
  const dirs = new Set<string>();
  for (const entry of manifest.entries) {
    if (isJjMetadata(entry.path)) {
      if (!JJ_WORKSPACE_METADATA.has(entry.path))
        out.add(
          'unsupported-metadata',
          abs(entry.path),
          'workspace metadata jj does not write in a new workspace',
        );
      continue;
    }
    entry.type === 'file' ? files.set(entry.path, entry) : dirs.add(entry.path);
  }
  const treeDirs = new Set<string>(['.']);
  for (const [path, entry] of tree) {
    for (let at = path.lastIndexOf('/'); at > 0; at = path.lastIndexOf('/', at - 1))
      treeDirs.add(path.slice(0, at));
    if (entry.type === 'commit') {
      out.add('unsupported-metadata', abs(path), 'a submodule (gitlink) in the working-copy commit');
      continue;
    }
    // A symbolic link in the stored tree retains whatever is on disk now (docs/tasks.md): a
    // regular file written over it is work jj has not snapshotted, so it is never removed.
    if (entry.mode === '120000') {
      out.add('symlink', abs(path), 'a symbolic link in the working-copy commit (symlinks retain)');
      continue;
    }
    const file = files.get(path);
    if (file === undefined)
      out.add('dirty', abs(path), 'in the working-copy commit but not a regular file on disk');
    else if ((entry.mode === '100755') !== ((Number.parseInt(file.mode, 8) & 0o100) !== 0))
      out.add('dirty', abs(path), `mode ${file.mode} on disk, ${entry.mode} in the working-copy commit`);
    else if (file.blob_oid !== entry.oid)
      out.add(
        'dirty',
        abs(path),
        'content differs from the working-copy commit (a change jj has not snapshotted)',
      );
  }
  for (const path of files.keys())
    if (!tree.has(path))
      out.add('untracked', abs(path), 'a file not in the working-copy commit (new, or ignored)');
  for (const path of dirs)
    if (!treeDirs.has(path)) out.add('untracked', abs(path), 'a directory not in the working-copy commit');
}

/** The working-copy commit itself: listed, one integrated parent, empty, not conflicted, identical trees. */
function workingCopyBlockers(loaded: LoadedJjTask, obs: JjRetirementObservation, out: Blockers): void {
  const { task } = loaded;
  const listed = obs.listed;
  if (listed === undefined) {
    out.add('registration-changed', task.destination, `jj does not list the workspace ${task.workspace}`);
    return;
  }
  if (listed.root !== task.destination)
    out.add(
      'registration-changed',
      task.destination,
      `jj records the workspace at ${listed.root ?? 'no root'}`,
    );
  const wc = obs.workingCopy;
  if (wc === null) {
    out.add('uncertain', null, `jj does not list the working-copy commit ${listed.commit_id}`);
    return;
  }
  if (wc.conflict) out.add('conflict', task.destination, 'the working-copy commit has conflicts');
  if (wc.parents.length !== 1)
    out.add(
      'unsupported',
      null,
      `the working-copy commit has ${wc.parents.length} parents; only one integrated parent is eligible`,
    );
  else if (obs.parentIntegrated === false)
    out.add(
      'not-integrated',
      null,
      `the working-copy commit's parent ${wc.parents[0]} is not in ::${obs.base.name}`,
    );
  else if (obs.parentIntegrated === null)
    out.add('uncertain', null, 'integration of the parent not established');
  if (!wc.empty)
    out.add(
      'dirty',
      task.destination,
      `the working-copy commit ${wc.commit_id} (change ${wc.change_id}) records changes`,
    );
  if (obs.treeProblem !== null)
    out.add('uncertain', task.destination, `the stored trees could not be read: ${obs.treeProblem}`);
  else if (obs.trees !== null && obs.trees.commit !== obs.trees.parent)
    out.add('dirty', task.destination, "the working-copy commit's stored tree differs from its parent's");
}

/** The workspace on disk is the one task create made: `.jj` by identity, and naming the source repository. */
function registrationBlockers(loaded: LoadedJjTask, obs: JjRetirementObservation, out: Blockers): void {
  const recorded = loaded.journal.created!.registration;
  const jjDir = join(loaded.task.destination, '.jj');
  if (obs.registration === null)
    out.add(
      'foreign-worktree',
      jjDir,
      `the workspace metadata cannot be read: ${obs.registrationProblem ?? 'missing'}`,
    );
  else if (
    !sameId(obs.registration.jj_dir_identity, recorded.jj_dir_identity) ||
    obs.registration.repo_pointer !== recorded.repo_pointer ||
    obs.registrationRepoDir !== loaded.task.source.common_dir
  )
    out.add('foreign-worktree', jjDir, 'the workspace metadata is not the one task create made');
}

/** Every blocker for retiring the jj task. */
export function jjRetirementBlockers(
  loaded: LoadedJjTask,
  obs: JjRetirementObservation,
  selection: RetirementSelection,
  limit: number,
): RetirementBlocker[] {
  const out = new Blockers(limit);
  const { task } = loaded;
  if (selection.removeFiles !== null && !obs.confinement)
    out.add(
      'unsupported',
      null,
      'confined directory handles (/proc/self/fd) are unavailable: files cannot be removed without following paths',
    );
  destinationBlockers(task.destination, loaded.journal.created!, obs, out);
  if (obs.destination.exists && obs.destination.problem === null) registrationBlockers(loaded, obs, out);
  workingCopyBlockers(loaded, obs, out);
  if (obs.workspaceRoot === task.destination)
    out.add(
      'source-worktree',
      task.destination,
      'PATH is inside the task workspace: plan from the source workspace',
    );
  if (obs.cwdInside)
    out.add('current-worktree', task.destination, 'the current directory is inside the task workspace');
  for (const problem of obs.manifest?.problems ?? [])
    out.add(
      problem.code,
      problem.path === '.' ? task.destination : join(task.destination, problem.path),
      problem.message,
    );
  diskBlockers(obs, task.destination, out);
  for (const process of obs.activity)
    out.add(
      'activity',
      process.cwd,
      `process ${process.pid} has its working directory in the task workspace`,
    );
  return out.list;
}
