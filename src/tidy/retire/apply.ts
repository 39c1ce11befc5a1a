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
import { isStwError, OperationalError, RefusalError, StwError } from '../../core/errors.js';
import type { Journal } from '../../core/fs-atomic.js';
import { toolVersion } from '../../core/package.js';
import { loadBackend } from '../backends/registry.js';
import { journalPath, openJournal, settleTornTail } from '../engine/journal.js';
import { type StopCause, stopCause } from '../engine/ledger.js';
import { JOURNAL_MAX_BYTES } from '../engine/limits.js';
import { ApplyLock } from '../engine/lock.js';
import { runSteps } from '../engine/run.js';
import { loadPlanKey, planKeyPath } from '../plan-key.js';
import { checkStateDirPrivate } from '../store.js';
import {
  DEFAULT_APPLY_BOUNDS,
  IncompleteObservationError,
  type NativeInspection,
  type RetirementBackend,
  type TidyBounds,
} from '../types.js';
import { type EffectJournalState, loadRetirementJournal, type RetirementJournalRecord } from './journal.js';
import {
  manifestDifference,
  type RemovalReport,
  type RetainedEntry,
  sameManifest,
  walkManifest,
} from './manifest.js';
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
  const { record, protocol } = prepared;
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
  const run = new RetirementRun(plan, record, result, options, deadline, now, protocol);
  const path = journalPath(options.stateDir, plan.plan_id);
  try {
    await run.execute(path);
  } finally {
    run.journal?.close();
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

/**
 * The generic retirement protocol: journal, interruption handling, inspection-decided
 * outcomes and verification, for any backend's protocol (`Backend.prepareRetirement`).
 */
class RetirementRun {
  journal: Journal | undefined;
  private states = new Map<number, EffectJournalState>();

  constructor(
    private readonly plan: TidyPlanV2,
    private readonly record: RetirementRecord,
    private readonly result: RetirementApplyResult,
    private readonly options: RetirementApplyOptions,
    private readonly deadline: Deadline,
    private readonly now: () => string,
    private readonly protocol: RetirementProtocol,
  ) {}

  private inspect(effect: RetirementEffect): Promise<NativeInspection> {
    return this.protocol.inspect(effect);
  }

  private recheck(effect: RetirementEffect): Promise<Recheck> {
    return this.protocol.recheck(effect);
  }

  private async append(record: RetirementJournalRecord): Promise<void> {
    this.journal ??= await openJournal(this.options.stateDir, this.plan.plan_id);
    this.journal.append(record);
  }

  private async checkpoint(step: RetirementStep, effectId: number): Promise<void> {
    await this.options.checkpoint?.(step, effectId);
  }

  private settle(index: number, fields: Partial<RetirementEffectResult>): void {
    const effect = this.result.effects[index]!;
    Object.assign(effect, fields);
    this.options.onProgress?.({ effect_id: effect.effect_id, type: effect.type, outcome: effect.outcome });
  }

  private stopped(): StopCause | undefined {
    return stopCause(this.deadline, this.options.signal);
  }

  async execute(path: string): Promise<void> {
    try {
      const loaded = await loadRetirementJournal(path, this.record.effects, JOURNAL_MAX_BYTES);
      this.states = loaded.states;
      this.protocol.resume?.(loaded.states);
      await settleTornTail(path, loaded.tornTail, this.now(), (record) => this.append(record));
    } catch (error) {
      if (!isStwError(error)) throw error;
      this.result.refusal = { code: error.code, message: error.message };
      this.markRemaining(0, 'plan-refused', error.message);
      await this.finish();
      return;
    }
    const effects = this.record.effects;
    await runSteps({
      count: effects.length,
      stopCause: () => this.stopped(),
      stoppedBefore: (cause, index) => {
        this.result.interruption = { cause, before_effect_id: effects[index]!.effect_id };
        this.markRemaining(
          index,
          cause === 'signal' ? 'cancelled' : 'deadline',
          cause === 'signal'
            ? 'stopped by a signal before this effect'
            : 'the deadline passed before this effect',
        );
      },
      spanAt: () => 1,
      step: (index) => this.runEffect(index, effects[index]!, this.states.get(effects[index]!.effect_id)!),
      failed: (error, index) => {
        if (!(error instanceof OperationalError) && (error as NodeJS.ErrnoException).code === undefined)
          throw error;
        const message = (error as Error).message;
        this.result.failure = { code: error instanceof StwError ? error.code : 'io-error', message };
        this.settle(index, { outcome: 'failed', reason: 'operational-error', message });
      },
      stopped: (index) =>
        this.markRemaining(index + 1, 'not-attempted', 'an earlier effect did not complete'),
    });
    await this.finish();
  }

  private markRemaining(from: number, reason: string, message: string): void {
    for (const [index, effect] of this.result.effects.entries()) {
      if (index < from || effect.outcome !== 'not-attempted') continue;
      const state = this.states.get(effect.effect_id);
      if (state?.phase === 'verified') {
        effect.outcome = 'already-done';
        effect.message = `done and verified by an earlier run; not re-checked in this run (${reason})`;
      } else {
        effect.reason = reason;
        effect.message = message;
      }
    }
  }

  private async finish(): Promise<void> {
    const outcomes = this.result.effects.map((effect) => effect.outcome);
    const doneCount = outcomes.filter((o) => o === 'done' || o === 'already-done').length;
    const anyEffect = doneCount > 0 || outcomes.includes('partial');
    if (this.result.interruption !== null) this.result.status = anyEffect ? 'partial' : 'cancelled';
    else if (doneCount === outcomes.length && outcomes.length > 0) this.result.status = 'complete';
    else if (anyEffect) this.result.status = 'partial';
    else this.result.status = outcomes.includes('failed') ? 'failed' : 'refused';
    if (this.result.recovery !== null) {
      try {
        this.result.recovery.present = await this.protocol.isPinPresent();
      } catch {
        this.result.recovery.present = false;
      }
    }
  }

  private async runEffect(
    index: number,
    effect: RetirementEffect,
    state: EffectJournalState,
  ): Promise<'next' | 'stop'> {
    const id = effect.effect_id;
    if (state.phase === 'verified') {
      const found = await this.inspect(effect);
      if (found.state === 'done') {
        this.settle(index, { outcome: 'already-done', verified: true });
        return 'next';
      }
      this.settle(index, {
        outcome: 'failed',
        reason: 'postcondition-changed',
        message: `recorded as done, but now: ${found.detail}`,
      });
      return 'stop';
    }
    if (state.phase === 'settled' && state.last?.result === 'done') {
      // Done but not verified by an earlier run: what else changed since must pass the guard too.
      const guarded = await this.protocol.guard?.(effect);
      if (guarded != null) return this.unexpected(index, effect.effect_id, guarded, true);
      return this.verify(index, effect, true);
    }
    if (state.phase === 'settled' && state.last?.result === 'partial') {
      this.settle(index, {
        outcome: 'partial',
        reason: 'manual-review-required',
        message:
          state.last.reason === 'unexpected-change'
            ? 'an earlier run found another change made alongside this effect; review it by hand (never retried)'
            : 'an earlier run removed part of the files and kept the rest; review the destination by hand (never retried)',
      });
      return 'stop';
    }
    if (state.phase === 'open') {
      // Interrupted after its intent: ask the world, never retry blindly.
      const found = await this.inspect(effect);
      const guarded = found.state === 'done' ? await this.protocol.guard?.(effect) : null;
      if (guarded != null) return this.unexpected(index, id, guarded, true);
      if (found.state === 'done') {
        await this.append({
          type: 'outcome',
          effect_id: id,
          result: 'done',
          recovered: true,
          at: this.now(),
        });
        await this.checkpoint('after-outcome', id);
        return this.verify(index, effect, true);
      }
      if (found.state === 'inconsistent') {
        await this.append({
          type: 'outcome',
          effect_id: id,
          result: 'partial',
          reason: 'interrupted',
          recovered: true,
          at: this.now(),
        });
        this.settle(index, {
          outcome: 'partial',
          reason: 'manual-review-required',
          message: `an earlier run was interrupted during this effect and now ${found.detail}`,
          recovered: true,
        });
        return 'stop';
      }
      await this.append({
        type: 'outcome',
        effect_id: id,
        result: 'not-done',
        reason: 'interrupted-before-effect',
        recovered: true,
        at: this.now(),
      });
    }

    const check = await this.recheck(effect);
    if (check.ok === 'interrupted') {
      this.result.interruption = { cause: check.cause, before_effect_id: id };
      this.settle(index, {
        reason: check.cause === 'signal' ? 'cancelled' : 'deadline',
        message: 'stopped before this effect',
      });
      return 'stop';
    }
    if (check.ok !== true) {
      this.result.refusal = { code: check.code, message: check.message };
      this.settle(index, { outcome: 'refused', reason: check.code, message: check.message });
      return 'stop';
    }
    const before = await this.inspect(effect);
    if (before.state !== 'not-done') {
      this.settle(index, {
        outcome: 'refused',
        reason: 'manual-review-required',
        message: `before the effect: ${before.detail}`,
      });
      return 'stop';
    }
    await this.append({ type: 'intent', effect_id: id, effect: effect.type, at: this.now() });
    await this.checkpoint('after-intent', id);
    return this.perform(index, effect);
  }

  /** The effect itself, then the inspection that decides what happened. */
  private async perform(index: number, effect: RetirementEffect): Promise<'next' | 'stop'> {
    const id = effect.effect_id;
    const { note, removal } = await this.protocol.perform(effect, {
      isStopped: () => this.stopped() !== undefined,
      afterEntry: () => this.checkpoint('after-entry', id),
    });
    await this.checkpoint('after-effect', id);
    const after = await this.inspect(effect);
    const guarded = after.state === 'done' ? await this.protocol.guard?.(effect) : null;
    if (guarded != null) return this.unexpected(index, id, guarded, false);
    if (after.state === 'done') {
      await this.append({
        type: 'outcome',
        effect_id: id,
        result: 'done',
        ...(removal ? { removed: removal.removed } : {}),
        at: this.now(),
      });
      await this.checkpoint('after-outcome', id);
      if (removal) this.result.effects[index]!.removed = removal.removed.length;
      return this.verify(index, effect, false);
    }
    if (after.state === 'not-done' && (removal === undefined || removal.removed.length === 0)) {
      await this.append({
        type: 'outcome',
        effect_id: id,
        result: 'failed',
        reason: 'effect-failed',
        at: this.now(),
      });
      this.settle(index, {
        outcome: 'failed',
        reason: 'effect-failed',
        message: note ?? removal?.retained[0]?.why ?? after.detail,
        retained: removal?.retained ?? [],
      });
      return 'stop';
    }
    // Some of it happened: record exactly what, and stop for a person to review.
    await this.append({
      type: 'outcome',
      effect_id: id,
      result: 'partial',
      reason: removal?.interrupted ? 'interrupted' : 'entries-kept',
      ...(removal ? { removed: removal.removed, retained: removal.retained } : {}),
      at: this.now(),
    });
    if (removal?.interrupted && this.stopped() !== undefined)
      this.result.interruption = { cause: this.stopped()!, before_effect_id: null };
    this.settle(index, {
      outcome: 'partial',
      reason: 'manual-review-required',
      message: `${removal?.interrupted ? 'interrupted during removal' : 'kept entries that no longer match the manifest'}; now ${after.detail}`,
      removed: removal?.removed.length ?? null,
      retained: removal?.retained ?? [],
    });
    return 'stop';
  }

  /** The effect happened, and something else with it: recorded partial, for a person to review; never retried. */
  private async unexpected(index: number, id: number, detail: string, recovered: boolean): Promise<'stop'> {
    await this.append({
      type: 'outcome',
      effect_id: id,
      result: 'partial',
      reason: 'unexpected-change',
      recovered,
      at: this.now(),
    });
    this.settle(index, {
      outcome: 'partial',
      reason: 'manual-review-required',
      message: `the effect happened, but not alone: ${detail}`,
      recovered,
    });
    return 'stop';
  }

  private async verify(
    index: number,
    effect: RetirementEffect,
    recovered: boolean,
  ): Promise<'next' | 'stop'> {
    const found = await this.inspect(effect);
    if (found.state !== 'done') {
      this.settle(index, {
        outcome: 'failed',
        reason: 'postcondition-failed',
        message: found.detail,
        recovered,
      });
      return 'stop';
    }
    const verified = (await this.protocol.verifiedFields?.(effect)) ?? { fields: {} };
    if ('unexpected' in verified)
      return this.unexpected(index, effect.effect_id, verified.unexpected, recovered);
    await this.append({
      type: 'verified',
      effect_id: effect.effect_id,
      ...verified.fields,
      at: this.now(),
    });
    this.settle(index, { outcome: 'done', verified: true, recovered });
    await this.checkpoint('after-verified', effect.effect_id);
    return 'next';
  }
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
