/**
 * Task retirement on the engine's journaled run (`../engine/run.ts`): `RetirementRun` is
 * the run (the retirement journal's fold, its ledger, how a thrown step settles), and
 * `RetirementSteps` the action protocol it steps through — per effect: the resolution of
 * journal history, the full recheck, the intent, the effect, the inspection that decides
 * its outcome, and the verification. What each backend does and checks for an effect
 * (Git: ref transactions; jj: operation-pinned, with an operation guard) comes from its
 * `RetirementProtocol` (`Backend.prepareRetirement`).
 */
import { OperationalError, StwError } from '../../core/errors.js';
import { type StopCause, stopCause } from '../engine/ledger.js';
import { JOURNAL_MAX_BYTES } from '../engine/limits.js';
import type { StepProtocol } from '../engine/protocol.js';
import { JournaledRun, type JournaledRunInputs, type RunLedger } from '../engine/run.js';
import type {
  PreparedRetirement,
  RetirementApplyOptions,
  RetirementApplyResult,
  RetirementEffectResult,
  RetirementProtocol,
  RetirementStep,
} from './apply.js';
import { type EffectJournalState, loadRetirementJournal, type RetirementJournalRecord } from './journal.js';
import type { RetirementEffect, RetirementRecord } from './types.js';

/** The result side of a retirement run: how an effect settles, what the effects a run stops before are told, the status. */
export class RetirementLedger implements RunLedger {
  /** Journal state per effect, as loaded at the start of the run. */
  states = new Map<number, EffectJournalState>();

  constructor(
    readonly result: RetirementApplyResult,
    private readonly onProgress: RetirementApplyOptions['onProgress'],
  ) {}

  settle(index: number, fields: Partial<RetirementEffectResult>): void {
    const effect = this.result.effects[index]!;
    Object.assign(effect, fields);
    this.onProgress?.({ effect_id: effect.effect_id, type: effect.type, outcome: effect.outcome });
  }

  /** Effects the run stopped before; those an earlier run verified are reported done, not re-checked. */
  markRemaining(from: number, reason: string, message: string): void {
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

  refusePlan(code: string, message: string, fromIndex: number): void {
    this.result.refusal = { code, message };
    this.markRemaining(fromIndex, 'plan-refused', message);
  }

  interrupt(cause: StopCause, fromIndex: number): void {
    this.result.interruption = { cause, before_effect_id: this.result.effects[fromIndex]!.effect_id };
    this.markRemaining(
      fromIndex,
      cause === 'signal' ? 'cancelled' : 'deadline',
      cause === 'signal'
        ? 'stopped by a signal before this effect'
        : 'the deadline passed before this effect',
    );
  }

  /** The run's status from its effects' outcomes, and whether the branch pin exists now. */
  async finish(isPinPresent: () => Promise<boolean>): Promise<void> {
    const result = this.result;
    const outcomes = result.effects.map((effect) => effect.outcome);
    const doneCount = outcomes.filter((o) => o === 'done' || o === 'already-done').length;
    const anyEffect = doneCount > 0 || outcomes.includes('partial');
    if (result.interruption !== null) result.status = anyEffect ? 'partial' : 'cancelled';
    else if (doneCount === outcomes.length && outcomes.length > 0) result.status = 'complete';
    else if (anyEffect) result.status = 'partial';
    else result.status = outcomes.includes('failed') ? 'failed' : 'refused';
    if (result.recovery !== null) {
      try {
        result.recovery.present = await isPinPresent();
      } catch {
        result.recovery.present = false;
      }
    }
  }
}

/** One run of a stored retirement plan's effects through one backend's protocol. */
export class RetirementRun extends JournaledRun<RetirementJournalRecord, RetirementStep, RetirementSteps> {
  readonly ledger: RetirementLedger;

  constructor(
    inputs: JournaledRunInputs<RetirementStep>,
    readonly record: RetirementRecord,
    result: RetirementApplyResult,
    onProgress: RetirementApplyOptions['onProgress'],
  ) {
    super(inputs);
    this.ledger = new RetirementLedger(result, onProgress);
  }

  /** Whether the run must stop now (a signal, the deadline). */
  stopCause(): StopCause | undefined {
    return stopCause(this.run.deadline, this.run.signal);
  }

  /** Runs every effect through the backend's protocol; the result says what happened. Closes the journal. */
  async execute(prepared: PreparedRetirement): Promise<void> {
    await this.drive(new RetirementSteps(this, prepared), this.record.effects.length);
    await this.ledger.finish(() => prepared.protocol.isPinPresent());
  }

  protected async fold(
    path: string,
  ): Promise<{ records: readonly RetirementJournalRecord[]; tornTail: string | undefined }> {
    const loaded = await loadRetirementJournal(path, this.record.effects, JOURNAL_MAX_BYTES);
    this.ledger.states = loaded.states;
    return { records: [], tornTail: loaded.tornTail };
  }

  /** A step that threw with an error code: an operational failure of that effect. A bug rethrows. */
  protected settleThrown(error: unknown, index: number): void {
    if (!(error instanceof OperationalError) && (error as NodeJS.ErrnoException).code === undefined)
      throw error;
    const message = (error as Error).message;
    this.ledger.result.failure = { code: error instanceof StwError ? error.code : 'io-error', message };
    this.ledger.settle(index, { outcome: 'failed', reason: 'operational-error', message });
  }

  protected override stopped(index: number): void {
    this.ledger.markRemaining(index + 1, 'not-attempted', 'an earlier effect did not complete');
  }
}

/**
 * The retirement action protocol: one effect per step. Journal history is resolved first
 * (verified: inspected again; done but unverified: guarded and verified; partial: manual
 * review; an open intent: inspected, never retried blindly), then the full recheck, the
 * intent, the effect, the inspection that decides its outcome, and the verification.
 */
class RetirementSteps implements StepProtocol<RetirementJournalRecord> {
  private readonly ledger: RetirementLedger;
  private readonly hooks: RetirementProtocol;

  constructor(
    private readonly run: RetirementRun,
    prepared: PreparedRetirement,
  ) {
    this.ledger = run.ledger;
    this.hooks = prepared.protocol;
  }

  reserveMs(): number {
    return 0;
  }

  resume(): void {
    this.hooks.resume?.(this.ledger.states);
  }

  async begin(): Promise<'go'> {
    return 'go';
  }

  spanAt(): number {
    return 1;
  }

  step(index: number): Promise<'next' | 'stop'> {
    const effect = this.run.record.effects[index]!;
    return this.runEffect(index, effect, this.ledger.states.get(effect.effect_id)!);
  }

  private async runEffect(
    index: number,
    effect: RetirementEffect,
    state: EffectJournalState,
  ): Promise<'next' | 'stop'> {
    const id = effect.effect_id;
    if (state.phase === 'verified') {
      const found = await this.hooks.inspect(effect);
      if (found.state === 'done') {
        this.ledger.settle(index, { outcome: 'already-done', verified: true });
        return 'next';
      }
      this.ledger.settle(index, {
        outcome: 'failed',
        reason: 'postcondition-changed',
        message: `recorded as done, but now: ${found.detail}`,
      });
      return 'stop';
    }
    if (state.phase === 'settled' && state.last?.result === 'done') {
      // Done but not verified by an earlier run: what else changed since must pass the guard too.
      const guarded = await this.hooks.guard?.(effect);
      if (guarded != null) return this.unexpected(index, effect.effect_id, guarded, true);
      return this.verify(index, effect, true);
    }
    if (state.phase === 'settled' && state.last?.result === 'partial') {
      this.ledger.settle(index, {
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
      const found = await this.hooks.inspect(effect);
      const guarded = found.state === 'done' ? await this.hooks.guard?.(effect) : null;
      if (guarded != null) return this.unexpected(index, id, guarded, true);
      if (found.state === 'done') {
        await this.run.append({
          type: 'outcome',
          effect_id: id,
          result: 'done',
          recovered: true,
          at: this.run.now(),
        });
        await this.run.checkpoint('after-outcome', id);
        return this.verify(index, effect, true);
      }
      if (found.state === 'inconsistent') {
        await this.run.append({
          type: 'outcome',
          effect_id: id,
          result: 'partial',
          reason: 'interrupted',
          recovered: true,
          at: this.run.now(),
        });
        this.ledger.settle(index, {
          outcome: 'partial',
          reason: 'manual-review-required',
          message: `an earlier run was interrupted during this effect and now ${found.detail}`,
          recovered: true,
        });
        return 'stop';
      }
      await this.run.append({
        type: 'outcome',
        effect_id: id,
        result: 'not-done',
        reason: 'interrupted-before-effect',
        recovered: true,
        at: this.run.now(),
      });
    }

    const check = await this.hooks.recheck(effect);
    if (check.ok === 'interrupted') {
      this.ledger.result.interruption = { cause: check.cause, before_effect_id: id };
      this.ledger.settle(index, {
        reason: check.cause === 'signal' ? 'cancelled' : 'deadline',
        message: 'stopped before this effect',
      });
      return 'stop';
    }
    if (check.ok !== true) {
      this.ledger.result.refusal = { code: check.code, message: check.message };
      this.ledger.settle(index, { outcome: 'refused', reason: check.code, message: check.message });
      return 'stop';
    }
    const before = await this.hooks.inspect(effect);
    if (before.state !== 'not-done') {
      this.ledger.settle(index, {
        outcome: 'refused',
        reason: 'manual-review-required',
        message: `before the effect: ${before.detail}`,
      });
      return 'stop';
    }
    await this.run.append({ type: 'intent', effect_id: id, effect: effect.type, at: this.run.now() });
    await this.run.checkpoint('after-intent', id);
    return this.perform(index, effect);
  }

  /** The effect itself, then the inspection that decides what happened. */
  private async perform(index: number, effect: RetirementEffect): Promise<'next' | 'stop'> {
    const id = effect.effect_id;
    const { note, removal } = await this.hooks.perform(effect, {
      isStopped: () => this.run.stopCause() !== undefined,
      afterEntry: () => this.run.checkpoint('after-entry', id),
    });
    await this.run.checkpoint('after-effect', id);
    const after = await this.hooks.inspect(effect);
    const guarded = after.state === 'done' ? await this.hooks.guard?.(effect) : null;
    if (guarded != null) return this.unexpected(index, id, guarded, false);
    if (after.state === 'done') {
      await this.run.append({
        type: 'outcome',
        effect_id: id,
        result: 'done',
        ...(removal ? { removed: removal.removed } : {}),
        at: this.run.now(),
      });
      await this.run.checkpoint('after-outcome', id);
      if (removal) this.ledger.result.effects[index]!.removed = removal.removed.length;
      return this.verify(index, effect, false);
    }
    if (after.state === 'not-done' && (removal === undefined || removal.removed.length === 0)) {
      await this.run.append({
        type: 'outcome',
        effect_id: id,
        result: 'failed',
        reason: 'effect-failed',
        at: this.run.now(),
      });
      this.ledger.settle(index, {
        outcome: 'failed',
        reason: 'effect-failed',
        message: note ?? removal?.retained[0]?.why ?? after.detail,
        retained: removal?.retained ?? [],
      });
      return 'stop';
    }
    // Some of it happened: record exactly what, and stop for a person to review.
    await this.run.append({
      type: 'outcome',
      effect_id: id,
      result: 'partial',
      reason: removal?.interrupted ? 'interrupted' : 'entries-kept',
      ...(removal ? { removed: removal.removed, retained: removal.retained } : {}),
      at: this.run.now(),
    });
    if (removal?.interrupted && this.run.stopCause() !== undefined)
      this.ledger.result.interruption = { cause: this.run.stopCause()!, before_effect_id: null };
    this.ledger.settle(index, {
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
    await this.run.append({
      type: 'outcome',
      effect_id: id,
      result: 'partial',
      reason: 'unexpected-change',
      recovered,
      at: this.run.now(),
    });
    this.ledger.settle(index, {
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
    const found = await this.hooks.inspect(effect);
    if (found.state !== 'done') {
      this.ledger.settle(index, {
        outcome: 'failed',
        reason: 'postcondition-failed',
        message: found.detail,
        recovered,
      });
      return 'stop';
    }
    const verified = (await this.hooks.verifiedFields?.(effect)) ?? { fields: {} };
    if ('unexpected' in verified)
      return this.unexpected(index, effect.effect_id, verified.unexpected, recovered);
    await this.run.append({
      type: 'verified',
      effect_id: effect.effect_id,
      ...verified.fields,
      at: this.run.now(),
    });
    this.ledger.settle(index, { outcome: 'done', verified: true, recovered });
    await this.run.checkpoint('after-verified', effect.effect_id);
    return 'next';
  }
}
