/**
 * Which backend a tidy command uses. The nearest directory at or above PATH that holds
 * `.jj/` or `.git` decides: `.jj/` there (colocated with `.git` or not) means jj. An
 * explicit `--backend` wins. There is never a fallback from one backend to the other.
 */
import { lstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { BackendName } from './types.js';

function exists(path: string): 'dir' | 'other' | null {
  try {
    return lstatSync(path).isDirectory() ? 'dir' : 'other';
  } catch {
    return null;
  }
}

/** The backend for `path` (absolute), or `override` when given. */
export function selectBackend(path: string, override: BackendName | undefined): BackendName {
  if (override !== undefined) return override;
  let dir = path;
  for (;;) {
    if (exists(join(dir, '.jj')) === 'dir') return 'jj';
    if (exists(join(dir, '.git')) !== null) return 'git';
    const parent = dirname(dir);
    if (parent === dir) return 'git';
    dir = parent;
  }
}
