import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../core/clock.js';
import { formatInstant } from '../../core/clock.js';
import type { Deadline } from '../../core/deadline.js';
import { tempFileOwner } from '../../core/fs-atomic.js';
import { discoverRepo } from '../../core/git.js';
import { indexFilePath } from '../../core/git-index.js';
import { type InterruptedRun, isProcessAlive, RunLock } from '../state/run-lock.js';
import { recordFromJournal } from './run-record.js';
import { settleRun } from './settle.js';

/**
 * What the next run does about one a crash left behind (docs/hygiene-clean.md, "Lock and
 * journal"): it takes the lock over, folds the journal into the run's record and settles it
 * with the very verdict an in-process failure gets (`settle.ts`).
 */

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

/** Replays an interrupted run's journal and settles it (`settleRun`: committed, rolled back, or left alone). */
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

  const wasSaved = interrupted.events.some((event) => event.type === 'index-saved');
  const bytes = wasSaved ? await readFile(interrupted.savedIndex).catch(() => undefined) : undefined;
  const record = recordFromJournal(interrupted.events, { path: await indexFilePath(root, deadline), bytes });
  if (record === undefined) return report;
  report.original_head = record.head;
  const verdict = await settleRun(root, env, deadline, record, bytes !== undefined);
  if (record.wip !== undefined) report.wip_commit = record.wip;
  // The staged ref is named while it is still needed (a rollback that finished deletes it).
  if (record.staged !== undefined && verdict.outcome !== 'rolled-back') report.staged_ref = record.staged.ref;
  report.outcome = verdict.outcome;
  report.restored = verdict.restored;
  if (verdict.outcome === 'committed') report.commit = verdict.commit;
  if (verdict.outcome === 'left-alone') {
    report.left_alone = verdict.left_alone;
    report.problem = verdict.problem;
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
