/**
 * Retirement apply (schema v2, docs/tasks.md): executes the reviewed effects of one
 * stored retirement plan in order — pin the branch's commit, remove the verified files,
 * remove the lock task create wrote, remove the registration — each preceded by a full
 * recheck (ownership, integration, registration, the manifest or its removal) and a
 * durable journal intent, and followed by an inspection that decides what happened.
 * Interrupted or uncertain removals are `partial` and need manual review: no rollback,
 * no blind retry. Returns exactly what happened; never prints.
 */
import { existsSync } from 'node:fs';
import { type Clock, formatInstant, systemClock } from '../../core/clock.js';
import { checkDirectoryChain } from '../../core/confined-fs.js';
import { Deadline } from '../../core/deadline.js';
import { isStwError, RefusalError, type StwError } from '../../core/errors.js';
import { toolVersion } from '../../core/package.js';
import { loadBackend } from '../backends/registry.js';
import { journalPath } from '../engine/journal.js';
import { ApplyLock } from '../engine/lock.js';
import { loadPlanKey, planKeyPath } from '../plan-key.js';
import { checkStateDirPrivate } from '../store.js';
import {
  DEFAULT_APPLY_BOUNDS,
  IncompleteObservationError,
  type NativeInspection,
  type RetirementBackend,
  type TidyBounds,
} from '../types.js';
import type { EffectJournalState } from './journal.js';
import {
  manifestDifference,
  type RemovalReport,
  type RetainedEntry,
  sameManifest,
  walkManifest,
} from './manifest.js';
import { RetirementRun } from './run.js';
import { readRetirementRecord } from './store.js';
import type { RetirementEffect, RetirementEffectType, RetirementRecord, TidyPlanV2 } from './types.js';

export type RetirementApplyStatus = 'complete' | 'refused' | 'partial' | 'failed' | 'cancelled';
export type RetirementEffectOutcome =
  | 'done'
  | 'already-done'
  | 'partial'
  | 'refused'
  | 'failed'
  | 'not-attempted';

export interface RetirementEffectResult {
  effect_id: number;
  type: RetirementEffectType;
  outcome: RetirementEffectOutcome;
  reason: string | null;
  message: string | null;
  verified: boolean;
  recovered: boolean;
  /** remove-files: entries removed in this run; null for other effects. */
  removed: number | null;
  /** remove-files: entries kept (unexpected, changed, or not reached). */
  retained: RetainedEntry[];
}

export interface RetirementApplyResult {
  schema_version: 2;
  status: RetirementApplyStatus;
  plan_id: string;
  started_at: string;
  tool_version: string;
  /** `branch` is null for a jj task. */
  task: { task_id: string; owner: string; destination: string; branch: string | null } | null;
  repository: string | null;
  journal: string | null;
  effects: RetirementEffectResult[];
  /** The branch pin; `present` says whether it exists after this run. */
  recovery: { ref: string; oid: string; present: boolean; restore_command: string } | null;
  limitations: string[];
  interruption: { cause: 'deadline' | 'signal'; before_effect_id: number | null } | null;
  refusal: { code: string; message: string; details?: Record<string, unknown> } | null;
  failure: { code: string; message: string } | null;
}

/** Protocol boundaries where the test-only checkpoint runs (crash injection). */
export type RetirementStep =
  | 'after-intent'
  | 'after-effect'
  | 'after-outcome'
  | 'after-verified'
  | 'after-entry';
export const RETIREMENT_STEPS: readonly RetirementStep[] = [
  'after-intent',
  'after-effect',
  'after-outcome',
  'after-verified',
  'after-entry',
];

export interface RetirementApplyOptions {
  planId: string;
  stateDir: string;
  authorize: boolean;
  /** The plan key that authenticates the plan and the task record; defaults to `planKeyPath()`. */
  keyFile?: string | undefined;
  clock?: Clock;
  signal?: AbortSignal;
  bounds?: TidyBounds;
  backend?: RetirementBackend;
  /** The environment jj runs with (jj plans; hardened by src/core/jj.ts). */
  env?: NodeJS.ProcessEnv;
  onProgress?: (event: {
    effect_id: number;
    type: RetirementEffectType;
    outcome: RetirementEffectOutcome;
  }) => void;
  /** TEST-ONLY: called at each protocol boundary (`after-entry`: after each removed file). */
  checkpoint?: (step: RetirementStep, effectId: number) => void | Promise<void>;
}

export const RETIREMENT_APPLY_LIMITATIONS: readonly string[] = [
  "the recovery ref keeps the task branch's commit; untracked and ignored content is not backed up",
  'there is no automatic rollback: removed files and the registration are not restored',
  'an interrupted or uncertain removal is partial and needs manual review; it is never retried blindly',
  'the task branch stays; delete it with an ordinary tidy plan --ref once it is integrated',
  'recovery refs stay after success; review them before removing any',
  'checks are samples, not a lock on the filesystem: each entry is verified just before removal, but ABA races cannot all be ruled out',
];

function emptyResult(planId: string, startedAt: string): RetirementApplyResult {
  return {
    schema_version: 2,
    status: 'refused',
    plan_id: planId.length <= 128 ? planId : `${planId.slice(0, 128)}…`,
    started_at: startedAt,
    tool_version: toolVersion(),
    task: null,
    repository: null,
    journal: null,
    effects: [],
    recovery: null,
    limitations: [...RETIREMENT_APPLY_LIMITATIONS],
    interruption: null,
    refusal: null,
    failure: null,
  };
}

function refuse(result: RetirementApplyResult, error: StwError): RetirementApplyResult {
  result.status = 'refused';
  result.refusal = {
    code: error.code,
    message: error.message,
    ...(error.details ? { details: error.details } : {}),
  };
  return result;
}

/** A plan checked for its backend: its record, the protocol that applies it, and how to restore. */
export interface PreparedRetirement {
  record: RetirementRecord;
  protocol: RetirementProtocol;
  restoreCommand: string;
  /** What this backend's apply cannot promise (the result's limitations). */
  limitations: readonly string[];
}

/** Applies one stored retirement plan. Refusals and stale proofs come back in the result; only bugs throw. */
export async function applyRetirement(options: RetirementApplyOptions): Promise<RetirementApplyResult> {
  const clock = options.clock ?? systemClock;
  const now = () => formatInstant(clock.now());
  const result = emptyResult(options.planId, now());
  if (!options.authorize)
    return refuse(
      result,
      new RefusalError(
        'authorization-required',
        'tidy apply changes the repository only with --authorize; review the stored plan first',
      ),
    );
  const bounds = options.bounds ?? { ...DEFAULT_APPLY_BOUNDS };
  const deadline = Deadline.after(bounds.deadlineMs);
  let plan: TidyPlanV2;
  let prepared: PreparedRetirement;
  let key: Buffer;
  try {
    await checkStateDirPrivate(options.stateDir);
    key = await loadPlanKey(options.keyFile ?? planKeyPath(), options.stateDir);
    const stored = await readRetirementRecord(options.stateDir, options.planId, bounds.maxRecordBytes, key);
    plan = stored.plan;
    const storedRecord = plan.retirement!;
    result.task = {
      task_id: storedRecord.task.task_id,
      owner: storedRecord.task.owner,
      destination: storedRecord.target.destination,
      branch: storedRecord.target.branch,
    };
    result.repository = plan.repository?.path ?? null;
    if (storedRecord.decision !== 'retire') {
      const first = storedRecord.blockers[0];
      throw new RefusalError(
        'plan-retains',
        `plan ${plan.plan_id} retains task ${storedRecord.task.task_id}${first === undefined ? '' : `: ${first.code}${first.path === null ? '' : ` ${first.path}`}: ${first.message}`}`,
        { blockers: storedRecord.blockers },
      );
    }
    const backend = await loadBackend(plan.backend.name);
    prepared = await backend.prepareRetirement({
      plan,
      binding: stored.binding,
      key,
      options,
      bounds,
      deadline,
    });
  } catch (error) {
    if (isStwError(error)) return refuse(result, error);
    if ((error as NodeJS.ErrnoException).code !== undefined)
      return refuse(result, new RefusalError('state-dir-unreadable', (error as Error).message));
    throw error;
  }
  const { record } = prepared;
  result.limitations = [...prepared.limitations];
  const pin = record.effects[0]!;
  result.recovery = {
    ref: pin.recovery_ref!,
    oid: pin.oid!,
    present: false,
    restore_command: prepared.restoreCommand,
  };
  result.effects = record.effects.map((effect) => ({
    effect_id: effect.effect_id,
    type: effect.type,
    outcome: 'not-attempted',
    reason: null,
    message: null,
    verified: false,
    recovered: false,
    removed: effect.type === 'remove-files' ? 0 : null,
    retained: [],
  }));
  let lock: ApplyLock;
  try {
    lock = await ApplyLock.acquire(options.stateDir, plan.plan_id);
  } catch (error) {
    if (isStwError(error)) return refuse(result, error);
    throw error;
  }
  const path = journalPath(options.stateDir, plan.plan_id);
  const run = new RetirementRun(
    {
      planId: plan.plan_id,
      stateDir: options.stateDir,
      journalPath: path,
      deadline,
      signal: options.signal,
      now,
      checkpoint: options.checkpoint,
    },
    record,
    result,
    options.onProgress,
  );
  try {
    await run.execute(prepared);
  } finally {
    lock.release();
  }
  result.journal = existsSync(path) ? path : null;
  return result;
}

export type Recheck =
  | { ok: true }
  | { ok: false; code: string; message: string }
  | { ok: 'interrupted'; cause: 'deadline' | 'signal' };

/**
 * A recheck that threw, as its result: a deadline or a signal interrupts; any other known
 * error refuses with its code (a refusal's own, else `evidence-incomplete`). A bug rethrows.
 */
export function recheckError(error: unknown): Recheck {
  if (
    error instanceof IncompleteObservationError &&
    (error.code === 'cancelled' || error.code === 'deadline')
  )
    return { ok: 'interrupted', cause: error.code === 'cancelled' ? 'signal' : 'deadline' };
  if (isStwError(error))
    return {
      ok: false,
      code: error instanceof RefusalError ? error.code : 'evidence-incomplete',
      message: error.message,
    };
  throw error;
}

/** Files: gone from the recorded parent (done), all there exactly as planned (not-done), or anything else. */
export async function inspectFilesRemoval(record: RetirementRecord): Promise<NativeInspection> {
  const target = record.target;
  const chain = await checkDirectoryChain(target.destination);
  if (chain.problem !== null) return { state: 'inconsistent', detail: chain.problem };
  if (!chain.exists) return { state: 'done', detail: `${target.destination} is gone` };
  const walk = await walkManifest(target.destination, record.source.object_format, {
    maxEntries: record.manifest.max_entries,
    maxFileBytes: record.manifest.max_file_bytes,
  });
  if (walk.complete && walk.problems.length === 0 && sameManifest(record.manifest.entries, walk.entries))
    return { state: 'not-done', detail: 'every manifest entry is present and unchanged' };
  const difference =
    manifestDifference(record.manifest.entries, walk.entries) ?? walk.problems[0]?.message ?? 'changed';
  return { state: 'inconsistent', detail: `the destination differs from the manifest: ${difference}` };
}

/** What one backend's retirement does and checks, for the generic run. */
export interface RetirementProtocol {
  /** What the world shows for one effect now: done, not done, or anything else. */
  inspect(effect: RetirementEffect): Promise<NativeInspection>;
  /** Everything the effect's proof rests on, again, just before it. */
  recheck(effect: RetirementEffect): Promise<Recheck>;
  /** The native effect itself (or the confined removal); the caller inspects afterwards. */
  perform(
    effect: RetirementEffect,
    hooks: { isStopped: () => boolean; afterEntry: () => Promise<void> },
  ): Promise<{ note: string | null; removal?: RemovalReport }>;
  /**
   * After an effect found done (just performed, or interrupted and resolved): what else
   * changed with it, one line, or null when it is exactly the planned change (jj's
   * operation guard; Git's transactions need none).
   */
  guard?(effect: RetirementEffect): Promise<string | null>;
  /**
   * Fields the `verified` record carries (jj: the operation the guard verified), or, when
   * something changed since the guard looked, that change: the effect is then partial and
   * never retried.
   */
  verifiedFields?(
    effect: RetirementEffect,
  ): Promise<{ fields: Record<string, string> } | { unexpected: string }>;
  /** The journal as read at the start of a run (jj: the operation last verified). */
  resume?(states: Map<number, EffectJournalState>): void;
  isPinPresent(): Promise<boolean>;
}
