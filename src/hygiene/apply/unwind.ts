import { lstat, mkdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Deadline } from '../../core/deadline.js';
import { writeFileAtomic } from '../../core/fs-atomic.js';
import { git, splitNul } from '../../core/git.js';
import { restoreIndex } from '../../core/git-index.js';
import { type RecordedEdit, removeCreatedDirs } from './applier.js';
import { expectOk, headOid, indexTree, readGit, userGit } from './git-steps.js';
import { moveFile } from './lifecycle.js';
import type { RunRecord } from './run-record.js';
import { releaseHold } from './steps/release.js';
import { sha256Hex } from './text-edits.js';
import { notWritablePaths } from './writable.js';

/**
 * Rollback, driven only by what the run recorded (docs/hygiene-clean.md, "Rollback"):
 * the files it wrote (each only while it still holds what was written), the checkpoint
 * it made (only while HEAD is still on it), and the index it saved (only while nothing
 * else has changed the index since). Only `settleRun` (settle.ts) calls it, for a run that
 * failed in-process and for one a crash left behind alike.
 */

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
