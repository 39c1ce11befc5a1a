/**
 * `planTidy`: observe → decide → (optionally) store. Planning changes nothing in the
 * repository; without a state directory it writes nothing anywhere. Known failures
 * come back as a plan with `status` refused or incomplete, never as a thrown error.
 */
import { resolve } from 'node:path';
import { type Clock, formatInstant, systemClock } from '../core/clock.js';
import { Deadline } from '../core/deadline.js';
import { isStwError, RefusalError } from '../core/errors.js';
import { toolVersion } from '../core/package.js';
import { loadBackend, selectBackend } from './backends/registry.js';
import { checkTextBound } from './bounded.js';
import {
  type BackendName,
  DEFAULT_PLAN_BOUNDS,
  GIT_PLAN_LIMITS,
  IncompleteObservationError,
  type PlanStatus,
  type TidyBounds,
  type TidyPlanV1,
} from './types.js';

export interface PlanOptions {
  /** PATH: the main worktree, a linked worktree or a subdirectory (relative to `cwd`). */
  path: string;
  /** `--base`: a full ref name or a full object id. */
  base: string;
  /** `--ref` values (full `refs/heads/…` names); undefined or empty selects every local branch. */
  refs?: readonly string[] | undefined;
  /** `--state-dir`: store the plan there (must already exist, mode 0700, outside the repository). */
  stateDir?: string | undefined;
  /**
   * `--equivalence-checks`: squash/rebase evidence for at most this many not-integrated
   * branches (default DEFAULT_EQUIVALENCE_CHECKS; 0 checks none).
   */
  equivalenceChecks?: number | undefined;
  /** `--backend`: overrides the choice made from `.jj/` / `.git` at or above PATH. */
  backend?: BackendName | undefined;
  /** The environment native tools inherit (hardened per tool); defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** The plan key that authenticates stored plans; defaults to `planKeyPath()` (created on first use). */
  keyFile?: string | undefined;
  /** Base for relative paths; defaults to process.cwd(). */
  cwd?: string;
  clock?: Clock;
  bounds?: TidyBounds;
  signal?: AbortSignal;
  /** Test seam: runs between the observation's first and second read. */
  betweenReads?: () => void | Promise<void>;
  /** Test seam: runs after the decisions, before the equivalence evidence. */
  beforeEvidence?: () => void;
}

export interface PlanResult {
  plan: TidyPlanV1;
  /** 0 for a complete plan (even one that retains everything), 1 otherwise. */
  exitCode: 0 | 1;
  /** The stored record's path, or null when nothing was stored. */
  recordPath: string | null;
  /** Native (git or jj) processes the observation ran (bounded, independent of the branch count). */
  gitCalls: number;
}

function encodedBytes(plan: TidyPlanV1): number {
  return Buffer.byteLength(`${JSON.stringify(plan, null, 2)}\n`, 'utf8');
}

export function checkRecordSize(plan: TidyPlanV1, bounds: TidyBounds): void {
  const size = encodedBytes(plan);
  if (size > bounds.maxRecordBytes)
    throw new RefusalError(
      'bound-exceeded',
      `the plan is ${size} bytes; the bound is ${bounds.maxRecordBytes} bytes`,
    );
}

/**
 * The plan store for `--state-dir`, its directory checked private. The store (and
 * node:crypto behind it) loads only when a plan is stored, as the jj backend loads only for
 * a jj repository: a plan that is only printed starts that much sooner.
 */
async function openStore(stateDir: string | undefined) {
  if (stateDir === undefined) return undefined;
  const store = await import('./store.js');
  await store.checkStateDirPrivate(stateDir);
  return { dir: stateDir, store };
}

/** Plans tidy for a Git or jj repository. */
export async function planTidy(options: PlanOptions): Promise<PlanResult> {
  const bounds = options.bounds ?? { ...DEFAULT_PLAN_BOUNDS };
  const deadline = Deadline.after(bounds.deadlineMs);
  const clock = options.clock ?? systemClock;
  const cwd = options.cwd ?? process.cwd();
  const explicit = options.refs !== undefined && options.refs.length > 0 ? [...options.refs] : undefined;
  const counter = { calls: 0 };

  const plan: TidyPlanV1 = {
    schema_version: 1,
    status: 'refused',
    plan_id: '',
    created_at: formatInstant(clock.now()),
    tool_version: toolVersion(),
    backend: { name: 'git', version: null },
    repository: null,
    base: { selector: options.base, ref: null, oid: null },
    selection: { mode: explicit ? 'explicit' : 'all-local-branches', refs: explicit ?? [] },
    worktrees: [],
    targets: [],
    effects: [],
    limits: [...GIT_PLAN_LIMITS],
    refusal: null,
  };
  let recordPath: string | null = null;

  const fail = (status: PlanStatus, code: string, message: string, details?: Record<string, unknown>) => {
    plan.status = status;
    plan.refusal = { code, message };
    if (typeof details?.['hint'] === 'string') plan.refusal.hint = details['hint'];
    plan.plan_id = '';
    plan.targets = [];
    plan.effects = [];
  };

  try {
    // Text bounds first, before anything touches the filesystem or git.
    checkTextBound('PATH', options.path, bounds.maxTextBytes);
    checkTextBound('--base', options.base, bounds.maxTextBytes);
    for (const ref of explicit ?? []) checkTextBound('--ref', ref, bounds.maxTextBytes);
    if (options.stateDir !== undefined) checkTextBound('--state-dir', options.stateDir, bounds.maxTextBytes);
    const stateDir = options.stateDir === undefined ? undefined : resolve(cwd, options.stateDir);
    await openStore(stateDir);

    const path = resolve(cwd, options.path);
    const backend = await loadBackend(selectBackend(path, options.backend));
    plan.backend.name = backend.info.name;
    recordPath = await backend.planTidy(plan, {
      options,
      path,
      explicit,
      stateDir,
      deadline,
      bounds,
      counter,
      checkRecordSize: (planned) => checkRecordSize(planned, bounds),
    });
    return { plan, exitCode: plan.status === 'complete' ? 0 : 1, recordPath, gitCalls: counter.calls };
  } catch (error) {
    recordPath = null;
    if (error instanceof RefusalError) fail('refused', error.code, error.message, error.details);
    else if (error instanceof IncompleteObservationError) fail('incomplete', error.code, error.message);
    else if (isStwError(error)) fail('incomplete', error.code, error.message);
    else if (
      (error as NodeJS.ErrnoException).code !== undefined &&
      typeof (error as Error).message === 'string'
    )
      // A filesystem failure while storing: nothing (or nothing complete) was stored.
      fail('incomplete', 'store-failed', `the plan could not be stored: ${(error as Error).message}`);
    else throw error;
  }
  return { plan, exitCode: plan.status === 'complete' ? 0 : 1, recordPath, gitCalls: counter.calls };
}
