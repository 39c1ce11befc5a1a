/**
 * The one journaled action run (docs/tidy.md, "Apply"): load the plan's journal (bounded,
 * torn tail kept as evidence), let the protocol resume from it and check the repository,
 * then step through the actions in plan order — a stop check before each step (a signal,
 * or the deadline less the protocol's reserve) — and settle what a step leaves: an
 * operational failure, an interruption inside a step, a refusal. Ends with the status and
 * the recovery roots. Each backend's protocol (`protocol.ts`) supplies the steps.
 */
import { performance } from 'node:perf_hooks';
import type { Deadline } from '../../core/deadline.js';
import { OperationalError, RefusalError, StwError } from '../../core/errors.js';
import type { Journal } from '../../core/fs-atomic.js';
import { finalStatus, type TidyApplyOptions, type TidyApplyResult, type TidyApplyStep } from '../apply.js';
import { type JournalAction, type JournalRecord, loadJournal } from '../journal.js';
import { IncompleteObservationError } from '../types.js';
import { isIoError, journalRefusal, openJournal, settleTornTail, type TornTailRecord } from './journal.js';
import { ActionLedger, type StopCause, stopCause } from './ledger.js';
import { JOURNAL_MAX_BYTES } from './limits.js';
import type { ActionProtocol, StepProtocol } from './protocol.js';

export interface ActionRunInputs {
  planId: string;
  stateDir: string;
  journalPath: string;
  actions: readonly JournalAction[];
  result: TidyApplyResult;
  deadline: Deadline;
  options: TidyApplyOptions;
  now: () => string;
}

/** A deadline or a signal that stopped an observation: an interruption, not a finding. */
function interruption(error: unknown): 'deadline' | 'signal' | undefined {
  if (!(error instanceof IncompleteObservationError)) return undefined;
  if (error.code === 'cancelled') return 'signal';
  return error.code === 'deadline' ? 'deadline' : undefined;
}

/** The loop every journaled run steps through its actions with. */
export interface StepLoop {
  /** How many actions the plan has. */
  count: number;
  /** Why the run must stop before the next step (a signal, the deadline less a reserve), given the longest step so far. */
  stopCause(longestStepMs: number): StopCause | undefined;
  /** The run stops before the action at `index`: say so in the result. */
  stoppedBefore(cause: StopCause, index: number): void;
  /** How many actions the step at `index` covers. */
  spanAt(index: number): number;
  step(index: number): Promise<'next' | 'stop'>;
  /** Settles what a step threw (an operational failure, a refusal, a stop inside it); rethrows a bug. */
  failed(error: unknown, index: number, span: number): void;
  /** After a step that stopped the run (or failed): what the actions after it are told. */
  stopped?(index: number, span: number): void;
}

/** Steps through the actions in order: a stop check before each step, and nothing after a step that stops. */
export async function runSteps(loop: StepLoop): Promise<void> {
  let index = 0;
  let longestStepMs = 0;
  while (index < loop.count) {
    const cause = loop.stopCause(longestStepMs);
    if (cause !== undefined) {
      loop.stoppedBefore(cause, index);
      return;
    }
    const span = loop.spanAt(index);
    const started = performance.now();
    let next: 'next' | 'stop';
    try {
      next = await loop.step(index);
    } catch (error) {
      loop.failed(error, index, span);
      next = 'stop';
    }
    longestStepMs = Math.max(longestStepMs, performance.now() - started);
    if (next === 'stop') {
      loop.stopped?.(index, span);
      return;
    }
    index += span;
  }
}

/** The result side of one kind of run: what the actions a run stops before are told. */
export interface RunLedger {
  /** The run stops before the action at `fromIndex` (none: after the last). */
  interrupt(cause: StopCause, fromIndex: number): void;
  /** The journal (or the check before the first step) refuses the run. */
  refusePlan(code: string, message: string, fromIndex: number): void;
}

/** What every journaled run is given: where its journal lives, the clock, the stop sources. */
export interface JournaledRunInputs<Step extends string> {
  planId: string;
  stateDir: string;
  journalPath: string;
  deadline: Deadline;
  signal?: AbortSignal | undefined;
  now: () => string;
  /** TEST-ONLY crash injection at a protocol boundary. */
  checkpoint?: ((step: Step, id: number) => void | Promise<void>) | undefined;
}

/**
 * One journaled run of a plan's actions through one protocol, for any kind of plan
 * (branch deletion: `ActionRun`; task retirement: `retire/run.ts`; task creation:
 * `src/task/run.ts`): the journal (opened when first appended to, closed at the end), its
 * bounded load and torn tail, the protocol's resume and begin, and the steps with a stop
 * check before each. Each kind supplies its journal fold, its ledger and how a thrown
 * step settles, and may keep its journal elsewhere (`openJournal`).
 */
export abstract class JournaledRun<
  Rec,
  Step extends string,
  Protocol extends StepProtocol<Rec> = ActionProtocol<Rec>,
> {
  private journal: Journal | undefined;
  protected protocol: Protocol | undefined;
  abstract readonly ledger: RunLedger;

  constructor(readonly run: JournaledRunInputs<Step>) {}

  now(): string {
    return this.run.now();
  }

  append(record: Rec | TornTailRecord): Promise<void> {
    return this.appendAll([record]);
  }

  /** Appends records with one fsync: all are durable before the step they announce. */
  async appendAll(records: readonly (Rec | TornTailRecord)[]): Promise<void> {
    if (records.length === 0) return;
    this.journal ??= await this.openJournal();
    this.journal.appendAll(records);
  }

  /** Opens the journal for appending: the apply journal of the plan, unless the kind keeps its own. */
  protected openJournal(): Promise<Journal> {
    return openJournal(this.run.stateDir, this.run.planId);
  }

  /** TEST-ONLY crash injection at a protocol boundary. */
  async checkpoint(step: Step, id: number): Promise<void> {
    await this.run.checkpoint?.(step, id);
  }

  /** Reads and folds the journal against the plan (the kind's ledger keeps the states). */
  protected abstract fold(path: string): Promise<{ records: readonly Rec[]; tornTail: string | undefined }>;
  /** Settles what a step threw (an operational failure, a refusal, a stop inside it); rethrows a bug. */
  protected abstract settleThrown(error: unknown, index: number, span: number): void;
  /** After a step that stopped the run: what the actions after it are told (nothing by default). */
  protected stopped(_index: number, _span: number): void {}

  /** Loads the journal, then steps through `count` actions with `protocol`. Closes the journal. */
  protected async drive(protocol: Protocol, count: number): Promise<void> {
    this.protocol = protocol;
    try {
      if (await this.load()) await this.steps(protocol, count);
    } finally {
      this.journal?.close();
    }
  }

  /** The journal, folded against the plan's actions; false when it refuses the run. */
  private async load(): Promise<boolean> {
    const { journalPath } = this.run;
    try {
      const loaded = await this.fold(journalPath);
      // Its action is still open or settled by the complete records: inspected by the protocol.
      await settleTornTail(journalPath, loaded.tornTail, this.now(), (record) => this.append(record));
      this.protocol!.resume(loaded.records);
      return true;
    } catch (error) {
      const refusal = journalRefusal(error, journalPath);
      this.ledger.refusePlan(refusal.code, refusal.message, 0);
      return false;
    }
  }

  private async steps(protocol: Protocol, count: number): Promise<void> {
    try {
      if ((await protocol.begin()) === 'stop') return;
    } catch (error) {
      this.settleThrown(error, 0, 1);
      return;
    }
    const { deadline, signal } = this.run;
    await runSteps({
      count,
      stopCause: (longest) => stopCause(deadline, signal, protocol.reserveMs(longest)),
      stoppedBefore: (cause, index) => this.ledger.interrupt(cause, index),
      spanAt: (index) => protocol.spanAt(index),
      step: (index) => protocol.step(index),
      failed: (error, index, span) => this.settleThrown(error, index, span),
      stopped: (index, span) => this.stopped(index, span),
    });
  }
}

/** One run of a plan's delete actions through one protocol. */
export class ActionRun extends JournaledRun<JournalRecord, TidyApplyStep> {
  readonly ledger: ActionLedger;

  constructor(readonly inputs: ActionRunInputs) {
    super({
      planId: inputs.planId,
      stateDir: inputs.stateDir,
      journalPath: inputs.journalPath,
      deadline: inputs.deadline,
      signal: inputs.options.signal,
      now: inputs.now,
      checkpoint: inputs.options.checkpoint,
    });
    this.ledger = new ActionLedger(inputs.result, {
      onProgress: inputs.options.onProgress,
      deadlineMessage: '',
    });
  }

  /** Runs every action through `protocol`; the result says what happened. Closes the journal. */
  async execute(makeProtocol: (run: ActionRun) => ActionProtocol): Promise<void> {
    const protocol = makeProtocol(this);
    this.ledger.deadlineMessage = protocol.deadlineMessage;
    const { result } = this.inputs;
    result.limitations = [...protocol.limitations];
    await this.drive(protocol, this.inputs.actions.length);
    result.status = finalStatus(result, this.ledger.deletedThisRun);
    result.recovery = this.ledger.recovery((ref, pin) => protocol.restoreCommand(ref, pin));
  }

  protected async fold(
    path: string,
  ): Promise<{ records: readonly JournalRecord[]; tornTail: string | undefined }> {
    const loaded = await loadJournal(path, this.inputs.actions, JOURNAL_MAX_BYTES);
    this.ledger.states = loaded.states;
    return loaded;
  }

  /**
   * What a step threw: git, jj or the filesystem failed under it (what its actions did is
   * unknown to this run; the journal stays as it is, so the next run inspects, and nothing
   * more runs), a stop inside it, or a refusal. A bug rethrows.
   */
  protected settleThrown(error: unknown, index: number, span: number): void {
    const cause = this.protocol!.interruptibleInside ? interruption(error) : undefined;
    if (cause !== undefined) this.interruptInside(cause, index);
    else if (error instanceof OperationalError || isIoError(error)) {
      const message = (error as Error).message;
      this.inputs.result.failure = { code: error instanceof StwError ? error.code : 'io-error', message };
      const actions = this.inputs.result.actions;
      for (let i = index; i < Math.min(index + span, actions.length); i += 1)
        if (actions[i]!.outcome === 'not-attempted')
          this.ledger.settle(i, { outcome: 'failed', reason: 'operational-error', message });
      this.ledger.markRemaining(index + span, 'run-failed', 'not attempted after an operational failure');
    } else if (error instanceof RefusalError) this.ledger.refusePlan(error.code, error.message, 0);
    else throw error;
  }

  /**
   * Stopped inside the action at `index`: with its intent journaled, it is not "before"
   * it — the next run inspects what it left (a pin made is listed under recovery).
   */
  private interruptInside(cause: 'deadline' | 'signal', index: number): void {
    const action = this.inputs.actions[index];
    if (action !== undefined && this.protocol!.hasOpenIntent(action.action_id)) {
      this.ledger.settle(index, {
        outcome: 'failed',
        reason: cause === 'signal' ? 'cancelled' : 'deadline',
        message: `${cause === 'signal' ? 'stopped by a signal' : 'the deadline passed'} during this action, after its intent was journaled; the next run inspects it`,
      });
      this.ledger.interrupt(cause, index + 1);
    } else this.ledger.interrupt(cause, index);
  }
}
