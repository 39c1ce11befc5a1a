import { lstat, mkdir, readdir, readFile, rm, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Clock } from '../../core/clock.js';
import { formatInstant } from '../../core/clock.js';
import type { Deadline } from '../../core/deadline.js';
import { tempFileOwner, writeFileAtomic } from '../../core/fs-atomic.js';
import { discoverRepo, git, splitNul } from '../../core/git.js';
import { indexFilePath, restoreIndex, type SavedIndex } from '../../core/git-index.js';
import { type InterruptedRun, isProcessAlive, RunLock } from '../state/run-lock.js';
import { type RecordedEdit, removeCreatedDirs } from './applier.js';
import { type RunRecord, RunRecorder, WIP_MESSAGE } from './checkpoint.js';
import { expectOk, headOid, indexTree, readGit, userGit } from './git-steps.js';
import { moveFile } from './lifecycle.js';
import { sha256Hex } from './text-edits.js';
import { notWritablePaths } from './writable.js';

/**
 * Rollback, driven only by what the run recorded (docs/hygiene-clean.md, "Rollback"):
 * the files it wrote (each only while it still holds what was written), the checkpoint
 * it made (only while HEAD is still on it), and the index it saved (only while nothing
 * else has changed the index since). The same function undoes a failed run in-process
 * and an interrupted run the next time a run takes the lock.
 */

export const CLEANUP_SUBJECT_PREFIX = 'docs: hygiene cleanup (';

export type Restored =
  | { ok: true; restored: string[] }
  | { ok: false; problem: string; left_alone: string[]; restored: string[] };

/** Whether the file at `path` holds exactly the bytes with this sha256 (false when absent or not a file). */
async function holds(root: string, path: string, sha256: string | undefined): Promise<boolean> {
  return holdsAt(join(root, path), sha256);
}

async function holdsAt(absolute: string, sha256: string | undefined): Promise<boolean> {
  if (sha256 === undefined) return false;
  try {
    if (!(await lstat(absolute)).isFile()) return false;
    return sha256Hex(await readFile(absolute)) === sha256;
  } catch {
    return false;
  }
}

async function isAbsent(root: string, path: string): Promise<boolean> {
  try {
    await lstat(join(root, path));
    return false;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR';
  }
}

/**
 * Sorts the recorded edits: `intact` paths still hold what the run left there (restore
 * them), `changed` paths were changed since by someone else (leave them), and edits
 * that never happened (the file still holds its old bytes) need nothing.
 */
async function sortEdits(
  root: string,
  edits: readonly RecordedEdit[],
  deadline: Deadline,
): Promise<{ intact: string[]; changed: string[]; hidden: string[] }> {
  const intact: string[] = [];
  const changed: string[] = [];
  for (const edit of edits) {
    if (edit.moved_to !== undefined) {
      const moved =
        (await holds(root, edit.moved_to, edit.written_sha256)) && (await isAbsent(root, edit.path));
      const never =
        (await isAbsent(root, edit.moved_to)) && (await holds(root, edit.path, edit.before_sha256));
      if (moved) intact.push(edit.path, edit.moved_to);
      else if (!never) changed.push(edit.path, edit.moved_to);
    } else if (edit.removed) {
      if (await isAbsent(root, edit.path)) intact.push(edit.path);
      else if (!(await holds(root, edit.path, edit.before_sha256))) changed.push(edit.path);
    } else if (await holds(root, edit.path, edit.written_sha256)) intact.push(edit.path);
    else if (!(await holds(root, edit.path, edit.before_sha256))) changed.push(edit.path);
  }
  // A file hidden from status (marked after the plan was checked) may hold a local edit
  // the baseline does not have: checking the baseline out over it could destroy that.
  const blocked = await notWritablePaths(root, intact, deadline);
  const hidden = intact.filter((path) => blocked.get(path)?.reason === 'hidden-from-status');
  if (hidden.length === 0) return { intact, changed, hidden: [] };
  return { intact: intact.filter((p) => !hidden.includes(p)), changed, hidden };
}

/**
 * Hidden files the run edited in place, put back byte for byte where the baseline holds
 * exactly the bytes the run found (so nothing of the user's is lost): the tool's own edit
 * never stays. The rest are returned, left as the run wrote them.
 */
async function restoreHidden(
  root: string,
  deadline: Deadline,
  baseline: string,
  edits: readonly RecordedEdit[],
  hidden: readonly string[],
): Promise<string[]> {
  const left: string[] = [];
  for (const path of hidden) {
    const edit = edits.find((e) => e.path === path && e.moved_to === undefined && !e.removed);
    const blob = await git(['cat-file', 'blob', `${baseline}:${path}`], {
      cwd: root,
      deadline,
      maxBytes: 64 * 1024 * 1024,
    });
    const bytes = blob.kind === 'exited' && blob.code === 0 ? blob.stdout : undefined;
    if (edit === undefined || bytes === undefined || sha256Hex(bytes) !== edit.before_sha256) {
      left.push(path);
      continue;
    }
    const absolute = join(root, path);
    await writeFileAtomic(absolute, bytes, { mode: (await lstat(absolute)).mode & 0o7777 });
  }
  return left;
}

/**
 * Puts the intact paths back as they are in `baseline` (index and worktree); only the index
 * entry of a changed one. A path the run created (a move's destination) is removed; one it
 * edited in place that the baseline lacks (a file git did not track) is never removed: it
 * is returned, as what could not be put back.
 */
async function restorePaths(
  root: string,
  env: NodeJS.ProcessEnv | undefined,
  deadline: Deadline,
  baseline: string,
  intact: readonly string[],
  changed: readonly string[],
  createdByRun: ReadonlySet<string>,
): Promise<string[]> {
  if (changed.length > 0)
    // The index entry only: `reset` never writes the worktree.
    expectOk(await userGit(['reset', '-q', baseline, '--', ...changed], root, env, deadline), 'git reset');
  if (intact.length === 0) return [];
  const inBaseline = new Set(
    splitNul(await readGit(['ls-tree', '-z', '--name-only', baseline, '--', ...intact], root, deadline)),
  );
  const known = intact.filter((path) => inBaseline.has(path));
  const created = intact.filter((path) => !inBaseline.has(path) && createdByRun.has(path));
  const unknown = intact.filter((path) => !inBaseline.has(path) && !createdByRun.has(path));
  if (created.length > 0) {
    expectOk(
      await userGit(['rm', '-q', '--cached', '--ignore-unmatch', '--', ...created], root, env, deadline),
      'git rm --cached',
    );
    for (const path of created) await rm(join(root, path), { force: true });
  }
  if (known.length > 0)
    expectOk(await userGit(['checkout', baseline, '--', ...known], root, env, deadline), 'git checkout');
  return unknown;
}

/**
 * Moves the files a lifecycle deletion held back to where they were, byte for byte (the
 * very files, renamed back), and their index entries back as in `baseline`. A file whose
 * place is taken again, or whose held copy is not what was recorded, is left where it is
 * and named; the hold folder then stays, so nothing is lost.
 */
async function restoreHeld(
  root: string,
  env: NodeJS.ProcessEnv | undefined,
  deadline: Deadline,
  baseline: string,
  edits: readonly RecordedEdit[],
): Promise<{ restored: string[]; leftAlone: string[] }> {
  const restored: string[] = [];
  const leftAlone: string[] = [];
  for (const edit of edits) {
    const held = edit.held!;
    const isHeld = await holdsAt(held, edit.before_sha256);
    if (isHeld && (await isAbsent(root, edit.path))) {
      await mkdir(dirname(join(root, edit.path)), { recursive: true });
      await moveFile(held, join(root, edit.path));
      restored.push(edit.path);
    } else if (!isHeld && (await holds(root, edit.path, edit.before_sha256))) {
      // Never moved (the run stopped between recording and moving): nothing to undo.
    } else leftAlone.push(edit.path);
  }
  if (restored.length > 0) {
    const inBaseline = splitNul(
      await readGit(['ls-tree', '-z', '--name-only', baseline, '--', ...restored], root, deadline),
    );
    if (inBaseline.length > 0)
      // The index entry only (`reset` never writes the worktree): the bytes are back already.
      expectOk(
        await userGit(['reset', '-q', baseline, '--', ...inBaseline], root, env, deadline),
        'git reset',
      );
  }
  return { restored, leftAlone };
}

/** Deletes the run's hold folder (its files are final, or all back), and `hold/` once empty. */
export async function releaseHold(record: RunRecord): Promise<void> {
  if (record.holdDir === undefined) return;
  await rm(record.holdDir, { recursive: true, force: true });
  await rmdir(dirname(record.holdDir)).catch(() => {});
}

/**
 * Undoes the run in `record`. `indexTrusted`: the saved index may be put back once the
 * index is again what the checkpoint left (false when the record cannot tell).
 */
export async function rollBack(
  root: string,
  env: NodeJS.ProcessEnv | undefined,
  deadline: Deadline,
  record: RunRecord,
  indexTrusted = true,
): Promise<Restored> {
  const problems: string[] = [];
  let leftAlone: string[] = [];
  let restored: string[] = [];
  try {
    const baseline = record.wip ?? record.head;
    const heldEdits = record.edits.filter((edit) => edit.held !== undefined);
    const { intact, changed, hidden } = await sortEdits(
      root,
      record.edits.filter((edit) => edit.held === undefined),
      deadline,
    );
    const hiddenLeft = await restoreHidden(root, deadline, baseline, record.edits, hidden);
    if (hiddenLeft.length > 0)
      problems.push(
        `hidden from status since the cleanup wrote ${hiddenLeft.length === 1 ? 'it' : 'them'} (assume-unchanged or skip-worktree), and the checkpoint lacks the bytes from before, so left as written: ${hiddenLeft.join(', ')}`,
      );
    const createdByRun = new Set(record.edits.flatMap((edit) => (edit.moved_to ? [edit.moved_to] : [])));
    const notBack = await restorePaths(root, env, deadline, baseline, intact, changed, createdByRun);
    leftAlone = [...changed, ...notBack, ...hiddenLeft];
    restored = [
      ...intact.filter((path) => !notBack.includes(path)),
      ...hidden.filter((path) => !hiddenLeft.includes(path)),
    ];
    if (notBack.length > 0)
      problems.push(
        `not in the checkpoint (git did not track ${notBack.length === 1 ? 'it' : 'them'}), so the cleanup's edit could not be undone and was left: ${notBack.join(', ')}`,
      );
    // Held files come back unless they were declared final (a commit-less run of untracked deletions).
    const back = record.heldReleased
      ? { restored: [], leftAlone: [] }
      : await restoreHeld(root, env, deadline, baseline, heldEdits);
    restored = [...restored, ...back.restored];
    leftAlone = [...leftAlone, ...back.leftAlone];
    if (back.leftAlone.length > 0)
      problems.push(
        `deleted files whose place was taken again, so they were not put back: ${back.leftAlone.join(', ')} (kept in ${record.holdDir})`,
      );
    else await releaseHold(record);
    await removeCreatedDirs(
      root,
      record.edits.flatMap((edit) => edit.created_dirs ?? []),
    );
    if (changed.length > 0)
      problems.push(
        `changed after the cleanup wrote ${changed.length === 1 ? 'it' : 'them'}, so left as ${changed.length === 1 ? 'it is' : 'they are'}: ${changed.join(', ')}`,
      );

    const head = await headOid(root, deadline);
    let headBack = head === record.head;
    if (record.wip !== undefined && head === record.wip) {
      expectOk(
        await userGit(['reset', '-q', '--soft', record.head], root, env, deadline),
        'git reset --soft',
      );
      headBack = true;
    } else if (!headBack)
      problems.push(
        `HEAD moved to ${head} during the run (not by it), so it was left there${record.wip ? `; your tracked changes are in checkpoint ${record.wip}` : ''}`,
      );

    if (headBack) {
      const unchanged =
        record.checkpointTree === undefined
          ? indexTrusted
          : (await indexTree(root, env, deadline)) === record.checkpointTree;
      if (unchanged) await restoreIndex(record.index);
      else
        problems.push(
          `the index changed during the run (not by it), so it was left as it is${record.staged ? `; your staged changes from before the run are in ${record.staged.ref}` : ''}`,
        );
    }
    if (problems.length === 0 && record.staged !== undefined)
      // The index is back exactly, staged changes and all: the private copy is not needed.
      expectOk(
        await userGit(['update-ref', '-d', record.staged.ref, record.staged.commit], root, env, deadline),
        'git update-ref -d',
      );
  } catch (error) {
    problems.push((error as Error).message);
  }
  if (problems.length === 0) return { ok: true, restored };
  return { ok: false, problem: problems.join('; '), left_alone: leftAlone, restored };
}

/** What the next run found of an interrupted one, and what it did about it. */
export interface InterruptedRunReport {
  command?: string;
  pid?: number;
  started?: string;
  /**
   * `rolled-back`: undone, the repository is as it was before that run. `committed`: its
   * cleanup commit exists (only `last_clean` was not stamped). `left-alone`: it could not
   * be undone safely (`problem` says why); its checkpoint and refs are named for you.
   * `not-recorded`: it had recorded no change.
   */
  outcome: 'rolled-back' | 'committed' | 'left-alone' | 'not-recorded';
  original_head?: string;
  wip_commit?: string;
  staged_ref?: string;
  commit?: string;
  restored: string[];
  left_alone: string[];
  problem?: string;
}

async function subjectAndParent(
  root: string,
  rev: string,
  deadline: Deadline,
): Promise<{ subject: string; parent: string }> {
  const out = await readGit(['show', '-s', '--format=%P%x00%s', rev], root, deadline);
  const [parents = '', subject = ''] = out.replace(/\n$/, '').split('\0');
  return { subject, parent: parents.split(' ')[0] ?? '' };
}

/** Replays an interrupted run's journal and undoes it where that is safe (see `rollBack`). */
export async function recoverInterrupted(
  root: string,
  env: NodeJS.ProcessEnv | undefined,
  deadline: Deadline,
  interrupted: InterruptedRun,
): Promise<InterruptedRunReport> {
  const start = interrupted.events.find((event) => event.type === 'start');
  const report: InterruptedRunReport = { outcome: 'not-recorded', restored: [], left_alone: [] };
  const command = interrupted.owner?.command ?? start?.command;
  const pid = interrupted.owner?.pid ?? start?.pid;
  const started = interrupted.owner?.started ?? start?.at;
  if (command !== undefined) report.command = command;
  if (pid !== undefined) report.pid = pid;
  if (started !== undefined) report.started = started;
  if (start === undefined) return report;

  const wasSaved = interrupted.events.some((event) => event.type === 'index-saved');
  const bytes = wasSaved ? await readFile(interrupted.savedIndex).catch(() => undefined) : undefined;
  const index: SavedIndex = { path: await indexFilePath(root, deadline), bytes };
  const recorder = new RunRecorder(
    { head: start.head, branch: start.branch, index, edits: [], commitStarted: false },
    undefined,
  );
  for (const event of interrupted.events) recorder.note(event);
  const { record } = recorder;
  report.original_head = record.head;

  // A commit made just before the crash, before the journal heard of it, is recognised
  // by its parent and subject.
  const head = await headOid(root, deadline);
  if (record.wip === undefined && head !== record.head) {
    const top = await subjectAndParent(root, head, deadline);
    if (top.parent === record.head && top.subject === WIP_MESSAGE) record.wip = head;
  }
  const baseline = record.wip ?? record.head;
  if (record.commit === undefined && record.commitStarted && head !== baseline) {
    const top = await subjectAndParent(root, head, deadline);
    if (top.parent === baseline && top.subject.startsWith(CLEANUP_SUBJECT_PREFIX)) record.commit = head;
  }
  if (record.wip !== undefined) report.wip_commit = record.wip;
  if (record.staged !== undefined) report.staged_ref = record.staged.ref;
  if (record.commit !== undefined) {
    report.outcome = 'committed';
    report.commit = record.commit;
    // The cleanup commit stands, so what its lifecycle deletions held is final.
    await releaseHold(record);
    return report;
  }
  const restored = await rollBack(root, env, deadline, record, bytes !== undefined);
  report.restored = restored.restored;
  if (restored.ok) {
    report.outcome = 'rolled-back';
    delete report.staged_ref;
  } else {
    report.outcome = 'left-alone';
    report.left_alone = restored.left_alone;
    report.problem = restored.problem;
  }
  return report;
}

/**
 * Takes the repository's run lock (refusing `locked` while another run holds it) and
 * deals with an interrupted run first. Outside a repository there is nothing to lock.
 */
export async function acquireRunLock(
  root: string,
  command: string,
  clock: Clock,
  env: NodeJS.ProcessEnv | undefined,
  deadline: Deadline,
): Promise<{ lock: RunLock | undefined; interrupted?: InterruptedRunReport }> {
  const layout = await discoverRepo(root, deadline);
  if (layout === undefined || layout.gitDir === '') return { lock: undefined };
  const { lock, interrupted } = await RunLock.acquire(layout.gitDir, command, formatInstant(clock.now()));
  if (interrupted === undefined) return { lock };
  try {
    const report = await recoverInterrupted(root, env, deadline, interrupted);
    await lock.interruptedHandled();
    return { lock, interrupted: report };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/**
 * Temp files (`.NAME.tmp-PID-HEX`) that a killed run left beside the docs named in
 * `paths` — older releases wrote them there — whose process is gone. Returns those removed.
 */
export async function removeStaleTemps(root: string, paths: readonly string[]): Promise<string[]> {
  const byDir = new Map<string, Set<string>>();
  for (const path of paths) {
    const slash = path.lastIndexOf('/');
    const dir = slash === -1 ? '' : path.slice(0, slash);
    const names = byDir.get(dir) ?? new Set<string>();
    names.add(path.slice(slash + 1));
    byDir.set(dir, names);
  }
  const removed: string[] = [];
  for (const [dir, names] of byDir) {
    let listing: string[];
    try {
      listing = await readdir(join(root, dir));
    } catch {
      continue;
    }
    for (const name of listing) {
      const pid = tempFileOwner(name);
      if (pid === undefined || isProcessAlive(pid)) continue;
      if (![...names].some((doc) => name.startsWith(`.${doc}.tmp-`))) continue;
      const rel = dir === '' ? name : `${dir}/${name}`;
      await rm(join(root, rel), { force: true });
      removed.push(rel);
    }
  }
  return removed.sort();
}
