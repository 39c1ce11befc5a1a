import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

/**
 * Runs a full garbage collection now. For the moment a stage lets go of most of what it
 * held, just before the next one allocates a lot: V8 collects its old generation only once
 * it reaches a limit set by the last collection, so without this the next stage's
 * allocations land on top of the garbage and raise the peak RSS (measured on `check`: the
 * scan's documents released before the tokenizer loads; docs/scanner-and-classifiers.md).
 * The `gc` function is taken once from a fresh context while `--expose-gc` is set, and the
 * flag is cleared again, so nothing else in the process sees a global `gc`.
 */
export function collectGarbageNow(): void {
  if (collect === undefined) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (exposed !== undefined) collect = exposed;
    else {
      setFlagsFromString('--expose-gc');
      try {
        collect = runInNewContext('gc') as () => void;
      } finally {
        setFlagsFromString('--no-expose-gc');
      }
    }
  }
  collect();
}
