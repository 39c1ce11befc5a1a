/**
 * The backend registry: what each version-control backend is called and how it names
 * things (`BACKENDS`), and which one a command uses (`selectBackend`). The nearest
 * directory at or above PATH that holds `.jj/` or `.git` decides: `.jj/` there (colocated
 * with `.git` or not) means jj. An explicit `--backend` wins. There is never a fallback
 * from one backend to the other. Adding a backend: ARCHITECTURE.md, "Adding a backend".
 */
import { lstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type BackendName, recoveryBookmarkFor, recoveryRefFor } from '../types.js';

/** What the rest of the tool needs to know about a backend without loading it. */
export interface BackendInfo {
  name: BackendName;
  /** What a selectable ref is called: a Git branch, a jj bookmark. */
  refNoun: { one: string; many: string };
  /** What a base or explicit selector is called in the plan's human output. */
  selectorNoun: string;
  /** What a recovery pin is called. */
  pinNoun: string;
  /** What a task's checkout is called. */
  checkoutNoun: string;
  /** The recovery pin of one action of a plan. */
  recoveryName(planId: string, actionId: number): string;
  /** Whether a stored plan must carry the operation it was observed at (jj's `plan.jj`). */
  plansAtOperation: boolean;
}

export const BACKENDS: Readonly<Record<BackendName, BackendInfo>> = {
  git: {
    name: 'git',
    refNoun: { one: 'branch', many: 'branches' },
    selectorNoun: 'ref',
    pinNoun: 'ref',
    checkoutNoun: 'worktree',
    recoveryName: recoveryRefFor,
    plansAtOperation: false,
  },
  jj: {
    name: 'jj',
    refNoun: { one: 'bookmark', many: 'bookmarks' },
    selectorNoun: 'bookmark',
    pinNoun: 'bookmark',
    checkoutNoun: 'workspace',
    recoveryName: recoveryBookmarkFor,
    plansAtOperation: true,
  },
};

/** The registered backend names, for usage checks and record validation. */
export const BACKEND_NAMES = Object.keys(BACKENDS) as BackendName[];

export function isBackendName(value: unknown): value is BackendName {
  return typeof value === 'string' && Object.hasOwn(BACKENDS, value);
}

export function backendInfo(name: BackendName): BackendInfo {
  return BACKENDS[name];
}

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
