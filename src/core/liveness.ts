/**
 * Whether a lock's owner still runs: the one liveness check behind every lock file the tool
 * takes (the hygiene run lock, `src/hygiene/state/run-lock.ts`, and the tidy apply lock,
 * `src/tidy/engine/lock.ts`).
 */

/** Whether a process with this id runs on this machine (EPERM: it does, as another user). */
export function isProcessAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
