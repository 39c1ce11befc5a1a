import { lstat, mkdir, readFile, rm } from 'node:fs/promises';
import { Deadline } from '../../core/deadline.js';
import { writeFileAtomic } from '../../core/fs-atomic.js';
import { type CheckResult, runCheck } from '../check.js';
import type { RetryPolicy } from '../classify/model/runner.js';
import { resolveProjectRoot } from '../project.js';
import { StateStore } from '../state/store.js';
import { type CleanOptions, type CleanPlan, type CleanResult, clean, planClean } from './clean.js';
import { acquireRunLock } from './recovery.js';

/**
 * `sweep` (docs/hygiene-clean.md): `check`, then `clean` with the same gate — still
 * exactly one commit (check writes only inside the ignored `.dochygiene/`) — under one
 * hold of the repository's run lock, so no other run slips in between.
 */

export interface SweepOptions extends Omit<CleanOptions, 'plan'> {
  /** Root-relative globs or paths narrowing the check's scan. */
  scopes?: string[];
  /** `stale`, `bloat` or a subtype. */
  category?: string;
  /**
   * The gate between check and clean (the CLI's terminal batch list): given the plan made
   * from the fresh report, returns the plan to act on. Default: the flags decide.
   */
  gate?: (plan: CleanPlan) => Promise<CleanPlan>;
  onProgress?: (message: string) => void;
  /** The check's classifier (`--classifier`, `--model`) and what it is told before sending. */
  classifier?: string;
  model?: string;
  modelRetry?: RetryPolicy;
  onNotice?: (message: string) => void;
  /** `--signals all` for the check: the hidden classes are shown (and may get entries). */
  showAllSignals?: boolean;
}

export interface SweepResult {
  check: Pick<CheckResult, 'reportJsonPath' | 'reportMdPath' | 'partial' | 'summary' | 'model'> & {
    gitignoreLine?: string;
  };
  clean: CleanResult;
}

interface SavedState {
  dirExisted: boolean;
  files: [string, Buffer | undefined][];
}

async function saveState(store: StateStore): Promise<SavedState> {
  const files: [string, Buffer | undefined][] = [];
  let dirExisted = true;
  for (const path of [store.statePath, store.reportJsonPath, store.reportMdPath]) {
    try {
      files.push([path, await readFile(path)]);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      files.push([path, undefined]);
    }
  }
  try {
    await lstat(store.dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    dirExisted = false;
  }
  return { dirExisted, files };
}

/** Puts the tool's state back byte for byte: a dry run leaves no trace, not even a report. */
async function restoreState(store: StateStore, saved: SavedState): Promise<void> {
  if (!saved.dirExisted) {
    await rm(store.dir, { recursive: true, force: true });
    return;
  }
  await mkdir(store.dir, { recursive: true });
  for (const [path, bytes] of saved.files) {
    if (bytes === undefined) await rm(path, { force: true });
    else await writeFileAtomic(path, bytes);
  }
}

/** Runs `check` then `clean`. Under `dryRun` the check's report and stamp are undone afterwards. */
export async function sweep(options: SweepOptions): Promise<SweepResult> {
  const root = await resolveProjectRoot(options.cwd);
  const store = new StateStore(root);
  // Before a dry run saves (and later rewrites) the state files through it.
  await store.assertSafe();
  const saved = options.dryRun ? await saveState(store) : undefined;
  const held =
    options.lock ??
    (options.dryRun
      ? undefined
      : await acquireRunLock(root, 'sweep', options.clock, options.env, options.deadline ?? Deadline.none()));
  try {
    const checked = await runCheck({
      cwd: options.cwd,
      clock: options.clock,
      ...(options.scopes !== undefined ? { scopes: options.scopes } : {}),
      ...(options.category !== undefined ? { category: options.category } : {}),
      ...(options.deadline !== undefined ? { deadline: options.deadline } : {}),
      ...(options.onProgress !== undefined ? { onProgress: options.onProgress } : {}),
      ...(options.classifier !== undefined ? { classifier: options.classifier } : {}),
      ...(options.model !== undefined ? { model: options.model } : {}),
      ...(options.modelRetry !== undefined ? { modelRetry: options.modelRetry } : {}),
      ...(options.onNotice !== undefined ? { onNotice: options.onNotice } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      ...(options.env !== undefined ? { env: options.env } : {}),
      ...(options.configFile !== undefined ? { configFile: options.configFile } : {}),
      ...(options.showAllSignals === true ? { showAllSignals: true } : {}),
    });
    let plan = await planClean(options);
    if (options.gate !== undefined) plan = await options.gate(plan);
    const cleaned = await clean({ ...options, plan, ...(held === undefined ? {} : { lock: held }) });
    const check: SweepResult['check'] = {
      reportJsonPath: checked.reportJsonPath,
      reportMdPath: checked.reportMdPath,
      partial: checked.partial,
      summary: checked.summary,
    };
    if (checked.gitignoreLine !== undefined) check.gitignoreLine = checked.gitignoreLine;
    if (checked.model !== undefined) check.model = checked.model;
    return { check, clean: cleaned };
  } finally {
    if (saved !== undefined) await restoreState(store, saved);
    if (options.lock === undefined) await held?.lock?.release();
  }
}
