/**
 * Task creation on the engine's journaled run (`../tidy/engine/run.ts`), as retirement
 * is: `TaskCreationRun` is the run (its own journal `DIR/tasks/<task_id>.jsonl`, which
 * must be new; its ledger, the task create result; how a thrown step settles), and
 * `CreationStep` its one step — journal `intent` → the backend's native creation → the
 * read-back that proves what it made → journal `created` → `completed`, every outcome
 * journaled. The engine's stop check runs before it: a signal or the deadline that
 * arrives once the record is written, before the intent, stops the run with nothing made.
 * The read-back is part of the step, so nothing stops a creation between its native
 * command and the record of what it made.
 */
import { isStwError, RefusalError } from '../core/errors.js';
import { Journal } from '../core/fs-atomic.js';
import type { TaskCreateInputs } from '../tidy/backends/backend.js';
import { backendInfo } from '../tidy/backends/registry.js';
import { readJournalBounded } from '../tidy/engine/journal.js';
import type { StopCause } from '../tidy/engine/ledger.js';
import { TASK_JOURNAL_MAX_BYTES } from '../tidy/engine/limits.js';
import type { StepProtocol } from '../tidy/engine/protocol.js';
import { JournaledRun, type RunLedger } from '../tidy/engine/run.js';
import type { CreateTaskOptions, TaskCreateResult } from './create.js';
import { TASK_JOURNAL_REFUSALS } from './journal.js';
import { taskJournalPath } from './store.js';
import type { AnyTaskCreatedFacts, TaskCreationPlan, TaskJournalRecord } from './types.js';

/** Boundaries where the test-only checkpoint runs (crash and interrupt injection). */
export const TASK_CREATE_STEPS = ['after-record', 'after-intent', 'after-add', 'after-created'] as const;
export type TaskCreateStep = (typeof TASK_CREATE_STEPS)[number];

/** The native creation of one task and the read-back that proves what it made. */
export interface CreationSteps<F extends AnyTaskCreatedFacts> {
  /** Runs the native command; null on success, else the failure to journal. */
  add: () => Promise<{ code: string; message: string } | null>;
  /** Reads back what the command made; throws when it is not exactly the planned task. */
  observe: () => Promise<F>;
}

/** The result side of a creation run: the task create result. */
class CreationLedger implements RunLedger {
  constructor(
    readonly result: TaskCreateResult,
    private readonly checkoutNoun: string,
  ) {}

  /** Stopped before the creation began: nothing was made, and the record proves no task. */
  interrupt(cause: StopCause): void {
    this.result.status = 'failed';
    this.result.failure =
      cause === 'signal'
        ? { code: 'cancelled', message: `stopped by a signal before the ${this.checkoutNoun} was created` }
        : { code: 'deadline', message: `the deadline passed before the ${this.checkoutNoun} was created` };
  }

  refusePlan(code: string, message: string): void {
    this.result.status = 'refused';
    this.result.refusal = { code, message };
  }

  /** A known failure or refusal, as `task create` reports one. */
  settle(error: { code: string; message: string }, refused: boolean): void {
    this.result.status = refused ? 'refused' : 'failed';
    if (refused) this.result.refusal = { code: error.code, message: error.message };
    else this.result.failure = { code: error.code, message: error.message };
  }
}

/** One creation of one task checkout, journaled in the task's own creation journal. */
class TaskCreationRun extends JournaledRun<TaskJournalRecord, TaskCreateStep, CreationStep> {
  readonly ledger: CreationLedger;

  constructor(
    readonly task: TaskCreationPlan,
    readonly journalFile: string,
    options: CreateTaskOptions,
    inputs: TaskCreateInputs,
  ) {
    super({
      planId: task.task_id,
      stateDir: inputs.stateDir,
      journalPath: journalFile,
      deadline: inputs.observe.deadline,
      signal: inputs.observe.signal,
      now: inputs.now,
      checkpoint: options.checkpoint,
    });
    this.ledger = new CreationLedger(inputs.result, backendInfo(task.backend).checkoutNoun);
  }

  protected override openJournal(): Promise<Journal> {
    return Journal.open(this.journalFile);
  }

  /** A creation starts a new journal: one already there (its record was removed by hand) refuses. */
  protected async fold(
    path: string,
  ): Promise<{ records: readonly TaskJournalRecord[]; tornTail: undefined }> {
    const { records, tornTail } = await readJournalBounded(
      path,
      TASK_JOURNAL_MAX_BYTES,
      TASK_JOURNAL_REFUSALS,
    );
    if (records.length > 0 || tornTail !== undefined)
      throw new RefusalError(
        'task-exists',
        `task ${this.task.task_id} already has a creation journal ${JSON.stringify(path)}; nothing was created`,
      );
    return { records: [], tornTail: undefined };
  }

  /** A refusal or failure of the tool's own is the result; anything else rethrows. */
  protected settleThrown(error: unknown): void {
    if (!isStwError(error)) throw error;
    this.ledger.settle(error, error instanceof RefusalError);
  }

  async execute<F extends AnyTaskCreatedFacts>(steps: CreationSteps<F>): Promise<void> {
    await this.checkpoint('after-record', 1);
    await this.drive(new CreationStep(this, steps), 1);
  }
}

/** The one step of a creation: intent → native creation → read-back → created → completed. */
class CreationStep implements StepProtocol<TaskJournalRecord> {
  constructor(
    private readonly run: TaskCreationRun,
    private readonly steps: CreationSteps<AnyTaskCreatedFacts>,
  ) {}

  reserveMs(): number {
    return 0;
  }

  resume(): void {}

  async begin(): Promise<'go'> {
    return 'go';
  }

  spanAt(): number {
    return 1;
  }

  async step(): Promise<'next' | 'stop'> {
    const { run } = this;
    const taskId = run.task.task_id;
    await run.append({ type: 'intent', task_id: taskId, at: run.now() });
    await run.checkpoint('after-intent', 1);
    const failed = await this.steps.add();
    if (failed !== null) return this.fail(failed.code, failed.message);
    await run.checkpoint('after-add', 1);
    let facts: AnyTaskCreatedFacts;
    try {
      facts = await this.steps.observe();
    } catch (error) {
      return this.fail(
        'post-creation-check-failed',
        `the new ${backendInfo(run.task.backend).checkoutNoun} does not look as created: ${(error as Error).message}`,
      );
    }
    await run.append({ type: 'created', task_id: taskId, at: run.now(), ...facts });
    await run.checkpoint('after-created', 1);
    await run.append({ type: 'completed', task_id: taskId, at: run.now() });
    run.ledger.result.created = facts;
    run.ledger.result.status = 'complete';
    return 'next';
  }

  private async fail(code: string, message: string): Promise<'stop'> {
    const { run } = this;
    await run.append({ type: 'failed', task_id: run.task.task_id, at: run.now(), reason: code, message });
    run.ledger.settle({ code, message }, false);
    return 'stop';
  }
}

/** Runs one task's creation on the engine; `inputs.result` says what happened. */
export async function runCreation<F extends AnyTaskCreatedFacts>(
  task: TaskCreationPlan,
  options: CreateTaskOptions,
  inputs: TaskCreateInputs,
  steps: CreationSteps<F>,
): Promise<void> {
  const journal = taskJournalPath(inputs.stateDir, task.task_id);
  inputs.result.journal = journal;
  await new TaskCreationRun(task, journal, options, inputs).execute(steps);
}
