/**
 * The backend registry: every version-control backend, one line each (`BACKENDS`), and
 * which one a command uses (`selectBackend`). The nearest directory at or above PATH
 * that holds a backend's marker decides (`.jj/` before `.git` in the same directory:
 * colocated or not, that is jj). An explicit `--backend` wins. There is never a fallback
 * from one backend to another. Adding a backend: ARCHITECTURE.md, "Adding a backend".
 */
import { lstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { BackendName } from '../types.js';
import type { Backend, BackendInfo } from './backend.js';
import { gitInfo } from './git/info.js';
import { jjInfo } from './jj/info.js';

export type { Backend, BackendInfo } from './backend.js';

export const BACKENDS: Readonly<Record<BackendName, BackendInfo>> = {
  git: gitInfo,
  jj: jjInfo,
};

/** The backend of a repository that shows no marker (and the one tidy always had). */
const DEFAULT_BACKEND: BackendName = 'git';

/** The registered backend names, for usage checks and record validation. */
export const BACKEND_NAMES = Object.keys(BACKENDS) as BackendName[];

export function isBackendName(value: unknown): value is BackendName {
  return typeof value === 'string' && Object.hasOwn(BACKENDS, value);
}

export function backendInfo(name: BackendName): BackendInfo {
  return BACKENDS[name];
}

/** The backend's code (observation, decisions, protocols), loaded when first used. */
export function loadBackend(name: BackendName): Promise<Backend> {
  return BACKENDS[name].load();
}

/** Markers in the order they are looked for within one directory. */
const MARKERS = Object.values(BACKENDS).sort((a, b) => a.marker.order - b.marker.order);

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
    for (const info of MARKERS) {
      const found = exists(join(dir, info.marker.name));
      if (found !== null && (found === 'dir' || !info.marker.directoryOnly)) return info.name;
    }
    const parent = dirname(dir);
    if (parent === dir) return DEFAULT_BACKEND;
    dir = parent;
  }
}
