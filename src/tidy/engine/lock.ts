import {
  closeSync,
  constants,
  fsyncSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { RefusalError } from '../../core/errors.js';
import { fsyncDir } from '../../core/fs-atomic.js';
import { isProcessAlive } from '../../core/liveness.js';
import { realJournalDir } from './journal.js';

/**
 * One apply at a time per plan: `journals/<plan_id>.lock`, created exclusively and holding
 * the owner's pid. A lock whose pid no longer exists was left by a killed run and is taken
 * over; a live one refuses. (A recycled pid can make a dead owner look alive: the refusal
 * then names the lock file to remove by hand.) Liveness is the hygiene run lock's
 * (`core/liveness.ts`).
 */
export class ApplyLock {
  private constructor(readonly path: string) {}

  static async acquire(stateDir: string, planId: string): Promise<ApplyLock> {
    const dir = await realJournalDir(stateDir);
    const path = join(dir, `${planId}.lock`);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
        try {
          writeSync(fd, `${process.pid}\n`);
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
        await fsyncDir(dir);
        return new ApplyLock(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const owner = readLockOwner(path);
      if (owner !== undefined && isProcessAlive(owner))
        throw new RefusalError(
          'apply-in-progress',
          `another apply of this plan is running (pid ${owner}); if it is not, remove ${path}`,
          { lock: path, pid: owner },
        );
      // The owner is gone (or the file is unreadable): take the stale lock over once.
      await unlink(path).catch(() => {});
    }
    throw new RefusalError('apply-in-progress', `could not take the apply lock ${path}`, { lock: path });
  }

  release(): void {
    try {
      const owner = readLockOwner(this.path);
      if (owner === process.pid) unlinkSync(this.path);
    } catch {
      // Already gone: nothing to release.
    }
  }
}

function readLockOwner(path: string): number | undefined {
  try {
    if (statSync(path).size > 64) return undefined;
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
