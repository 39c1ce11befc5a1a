/**
 * What one backend's action protocol supplies to the engine's run (`run.ts`). The run
 * owns the journal, the ledger, the stop check before every step, the deadline reserve,
 * the handling of an operational failure or an interruption inside a step, the final
 * status and the recovery list; the protocol owns how its actions are revalidated,
 * performed, inspected and verified (Git: batched pin + compare-and-swap in one ref
 * transaction; jj: operation-pinned, one action per step).
 */
import type { JournalRecord } from '../journal.js';

/**
 * What the engine's run needs of any kind of journaled run's steps (a delete or a
 * retirement: `ActionProtocol`; a task creation: `src/task/run.ts`).
 */
export interface StepProtocol<Rec> {
  /** How much of the deadline must be left to start a step, given the longest step so far. */
  reserveMs(longestStepMs: number): number;
  /** The journal as loaded (torn tail already settled): what the protocol resumes from. */
  resume(records: readonly Rec[]): void;
  /** Checks before the first step (tool, repository binding); 'stop' once the ledger says why. */
  begin(): Promise<'go' | 'stop'>;
  /** How many actions the step at `index` covers (a batch of fresh actions, or one). */
  spanAt(index: number): number;
  /**
   * One step from `index`: revalidate → journal intent → perform → inspect → journal the
   * outcome → verify → journal `verified`, or the resolution of an action with journal
   * history (verified, deleted, or an open intent). Settles its actions in the ledger.
   */
  step(index: number): Promise<'next' | 'stop'>;
}

export interface ActionProtocol<Rec = JournalRecord> extends StepProtocol<Rec> {
  /** What this backend's apply never does, stated with every result. */
  readonly limitations: readonly string[];
  /** What an action the deadline stopped before is told. */
  readonly deadlineMessage: string;
  /**
   * Whether a deadline or a signal that stops an observation inside a step interrupts
   * the run (jj: between its two operations) rather than failing it (Git: the step's one
   * ref transaction is bounded by the deadline, and a stop there is a failure to report).
   */
  readonly interruptibleInside: boolean;
  /** The command that restores one ref from its recovery pin. */
  restoreCommand(ref: string, recoveryRef: string): string;
  /** Whether an intent for this action is journaled without an outcome (in this run or an earlier one). */
  hasOpenIntent(actionId: number): boolean;
}
