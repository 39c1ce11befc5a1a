import { rm, rmdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { RunRecord, RunRecorder } from '../run-record.js';

/**
 * The last step of clean: what lifecycle deletions held in the run's hold folder becomes
 * final once nothing may put it back any more (the commit exists, or the run removed only
 * untracked files). The `held-released` event is journaled first, so a crash from here on
 * never puts them back half-way. (The run lock itself is released by whoever took it.)
 */
export async function releaseHeldFiles(recorder: RunRecorder): Promise<void> {
  if (recorder.record.holdDir === undefined) return;
  recorder.note({ type: 'held-released' });
  await releaseHold(recorder.record);
}

/** Deletes the run's hold folder (its files are final, or all back), and `hold/` once empty. */
export async function releaseHold(record: RunRecord): Promise<void> {
  if (record.holdDir === undefined) return;
  await rm(record.holdDir, { recursive: true, force: true });
  await rmdir(dirname(record.holdDir)).catch(() => {});
}
