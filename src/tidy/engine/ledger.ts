import type { RecoveryEntry, TidyApplyAction, TidyApplyProgress, TidyApplyResult } from '../apply.js';
import type { ActionJournalState } from '../journal.js';

/** Why a run stopped before an action. */
export type StopCause = 'deadline' | 'signal';

/**
 * The result side of one journaled delete run, written once for every backend: how an
 * action settles, which pins are recovery roots, and what the actions a run stopped
 * before are marked (`interrupt`, `refusePlan`, `markRemaining`). Git's batched run and
 * jj's operation-pinned run differ only in how they perform and inspect an action.
 */
export class ActionLedger {
  /** Journal state per action, as loaded at the start of the run. */
  states = new Map<number, ActionJournalState>();
  /** Actions whose recovery pin is at the action's commit: listed under `recovery`. */
  private readonly pins = new Set<number>();
  deletedThisRun = 0;

  /** What an action the deadline stopped before is told (jj keeps a reserve: it says so). */
  deadlineMessage: string;

  constructor(
    readonly result: TidyApplyResult,
    private readonly options: {
      onProgress?: ((event: TidyApplyProgress) => void) | undefined;
      deadlineMessage: string;
    },
  ) {
    this.deadlineMessage = options.deadlineMessage;
  }

  /** The action's recovery pin exists at its commit (a recovery root, whatever happens next). */
  pin(actionId: number): void {
    this.pins.add(actionId);
  }

  settle(index: number, fields: Partial<TidyApplyAction>): void {
    const action = this.result.actions[index]!;
    Object.assign(action, fields);
    if ((action.outcome === 'deleted' || action.outcome === 'already-done') && action.verified)
      this.pin(action.action_id);
    this.options.onProgress?.({ action_id: action.action_id, ref: action.ref, outcome: action.outcome });
  }

  /**
   * Actions the run stopped before. Those an earlier run completed are still reported
   * from the journal — as done, with their recovery refs — but marked unverified, since
   * this run did not look at them again; one deleted but not yet verified keeps its pin
   * and says verification is pending.
   */
  markRemaining(fromIndex: number, reason: string, message: string): void {
    for (const action of this.result.actions.slice(fromIndex)) {
      if (action.outcome !== 'not-attempted') continue;
      const state = this.states.get(action.action_id);
      if (state?.phase === 'verified') {
        action.outcome = 'already-done';
        action.verified = false;
        action.message = `done and verified by an earlier run; not re-checked in this run (${reason})`;
        this.pin(action.action_id);
      } else if (state?.phase === 'settled' && state.lastOutcome?.result === 'deleted') {
        action.reason = 'verification-pending';
        action.message = `deleted by an earlier run and not yet verified; ${message}`;
        this.pin(action.action_id);
      } else {
        action.reason = reason;
        action.message = message;
      }
    }
  }

  refusePlan(code: string, message: string, fromIndex: number): void {
    this.result.refusal = { code, message };
    this.markRemaining(fromIndex, 'plan-refused', message);
  }

  /** The run stops before the action at `fromIndex` (none: after the last). */
  interrupt(cause: StopCause, fromIndex: number): void {
    this.result.interruption = { cause, before_action_id: this.result.actions[fromIndex]?.action_id ?? null };
    this.markRemaining(
      fromIndex,
      cause === 'signal' ? 'cancelled' : 'deadline',
      cause === 'signal' ? 'stopped by a signal before this action' : this.deadlineMessage,
    );
  }

  /** The recovery entries, in plan order, with the backend's restore command. */
  recovery(restoreCommand: (ref: string, recoveryRef: string) => string): RecoveryEntry[] {
    return this.result.actions
      .filter((action) => this.pins.has(action.action_id))
      .map((action) => ({
        ref: action.ref,
        recovery_ref: action.recovery_ref,
        oid: action.old_oid,
        restore_command: restoreCommand(action.ref, action.recovery_ref),
      }));
  }
}

/** Whether the run must stop before the next action: a signal, or the deadline (less a reserve). */
export function stopCause(
  deadline: { isExpired: boolean; remainingMs(): number },
  signal: AbortSignal | undefined,
  reserveMs = 0,
): StopCause | undefined {
  if (signal?.aborted) return 'signal';
  if (deadline.isExpired || (reserveMs > 0 && deadline.remainingMs() < reserveMs)) return 'deadline';
  return undefined;
}
