/**
 * The paths a run looked at on disk beyond git's listing (docs/scanner-and-classifiers.md,
 * "The check's result"): a link to an ignored file, a move destination, a file a site config
 * names. `check`'s result cache keeps what each was, so that a run whose every input is as it
 * was can reuse the result; a run that records none of this is unaffected. Every recording
 * open when a path is noted gets it (a superset is only ever more cautious), with what the
 * recording's `observe` saw there when it was first noted.
 */
import { isAbsolute, join } from 'node:path';

interface Recording {
  observe: (absolute: string) => string;
  noted: Map<string, string>;
}

const open = new Set<Recording>();

/** Starts recording; `stop` ends it and returns each absolute path noted, with what `observe` saw then. */
export function recordProbes(observe: (absolute: string) => string): { stop: () => Map<string, string> } {
  const recording: Recording = { observe, noted: new Map() };
  open.add(recording);
  return {
    stop: () => {
      open.delete(recording);
      return recording.noted;
    },
  };
}

/** Notes that `path` (absolute, or relative to `root`) is being looked at. */
export function noteProbe(path: string, root?: string): void {
  if (open.size === 0) return;
  const absolute = root === undefined || isAbsolute(path) ? path : join(root, path);
  for (const { observe, noted } of open) if (!noted.has(absolute)) noted.set(absolute, observe(absolute));
}
