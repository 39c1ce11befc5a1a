/**
 * `tidy apply` on jj (docs/tidy.md, "Apply on jj"). Per action, in plan order:
 * revalidate at a fresh operation (the current operation must be the one this run — or
 * the plan — last saw, and the target must still decide `delete`) → journal the intent
 * with that operation → create the recovery bookmark at the exact commit → check that
 * operation's parent and delta → delete the local bookmark → check again, and the whole
 * delta since the revalidated operation → journal the outcome → verify → journal
 * `verified`. jj has no per-bookmark compare-and-swap, so the operation checks are the
 * guard: a concurrent operation is detected and reported, not prevented. The change is
 * never abandoned; nothing is pushed or fetched.
 */
import { Deadline } from '../../../core/deadline.js';
import { RefusalError } from '../../../core/errors.js';
import type { DeleteRunInputs, TidyApplyStep } from '../../apply.js';
import { bindingMismatch } from '../../engine/binding.js';
import type { ActionLedger } from '../../engine/ledger.js';
import { INSPECTION_GRACE_MS } from '../../engine/limits.js';
import type { ActionProtocol } from '../../engine/protocol.js';
import { ActionRun } from '../../engine/run.js';
import type { ActionJournalState, JournalRecord } from '../../journal.js';
import type { TidyPlanV1 } from '../../types.js';
import { decideBookmark } from './decide.js';
import {
  classifyJjAction,
  createRecoveryBookmark,
  deleteLocalBookmark,
  describeJjAction,
  type JjView,
  jjRestoreCommand,
  readView,
  unexpectedChanges,
} from './effects.js';
import {
  type JjCallContext,
  type JjObservation,
  observeJj,
  readCurrentOperation,
  readOperationParents,
} from './observe.js';
import { readJjBinding, requireSupportedJj } from './plan.js';

/** What apply on jj never does, stated with every jj result. */
export const TIDY_APPLY_JJ_LIMITATIONS: readonly string[] = [
  "a jj bookmark delete is not an atomic compare-and-swap: the current operation is checked just before each effect, and the new operation's parent and the whole bookmark delta just after, so a concurrent change is detected and reported, not prevented",
  'the change is never abandoned: its commit stays reachable from the recovery bookmark',
  'nothing is pushed or fetched and no jj git sync runs; in a colocated repository jj exports the bookmark changes to Git refs itself',
  'working-copy files are not observed or backed up; workspaces are not changed',
  'there is no general undo: each deleted bookmark is restored from its recovery bookmark with the command shown',
  'recovery bookmarks are kept after success; review them before removing any',
];

/**
 * An action starts only with at least this much of the deadline left, or twice the longest
 * action of the run so far if more: one the deadline stops inside, after its recovery
 * bookmark, needs a person on every later run, whereas one never started just waits.
 */
const ACTION_RESERVE_MS = 2_000;

interface JjAction {
  action_id: number;
  ref: string;
  old_oid: string;
  recovery_ref: string;
}

/** `tidy apply` of a jj plan: the engine's run over its actions, one per step, with jj's protocol. */
export async function applyJjDeletes(inputs: DeleteRunInputs): Promise<void> {
  const run = new ActionRun({
    planId: inputs.plan.plan_id,
    stateDir: inputs.stateDir,
    journalPath: inputs.journalPath,
    actions: actionsOf(inputs.plan),
    result: inputs.result,
    deadline: inputs.deadline,
    options: inputs.options,
    now: inputs.now,
  });
  await run.execute((engine) => new JjDeleteProtocol(engine, inputs));
}

function actionsOf(plan: TidyPlanV1): JjAction[] {
  return plan.effects.map((e) => ({
    action_id: e.action_id,
    ref: e.ref,
    old_oid: e.old_oid,
    recovery_ref: e.recovery_ref ?? '',
  }));
}

/** jj's delete protocol: one action per step, each guarded by the operation log. */
class JjDeleteProtocol implements ActionProtocol {
  readonly limitations = TIDY_APPLY_JJ_LIMITATIONS;
  readonly deadlineMessage = 'the deadline passed, or too little of it was left for this action, before it';
  readonly interruptibleInside = true;
  private readonly actions: JjAction[];
  private readonly ledger: ActionLedger;
  /** The operation this run may find current: the plan's, then the last one it made itself. */
  private expectedOp: string;
  /** The observation at `expectedOp` (refreshed from the verified delta after each action). */
  private observation: JjObservation | undefined;
  /** The operation each open intent was revalidated at, from the journal. */
  private readonly openIntents = new Map<number, string>();

  constructor(
    private readonly run: ActionRun,
    private readonly inputs: DeleteRunInputs,
  ) {
    this.actions = actionsOf(inputs.plan);
    this.expectedOp = inputs.plan.jj?.operation_id ?? '';
    this.ledger = run.ledger;
  }

  restoreCommand(ref: string, recoveryRef: string): string {
    return jjRestoreCommand(ref, recoveryRef);
  }

  /**
   * An action starts only with at least ACTION_RESERVE_MS of the deadline left, or twice
   * the longest action of the run so far if more.
   */
  reserveMs(longestStepMs: number): number {
    return Math.max(ACTION_RESERVE_MS, 2 * longestStepMs);
  }

  spanAt(): number {
    return 1;
  }

  step(index: number): Promise<'next' | 'stop'> {
    return this.runAction(index);
  }

  hasOpenIntent(actionId: number): boolean {
    return this.openIntents.has(actionId);
  }

  /** Past the output bound once, the bookmark listings of this run are read by name at once. */
  private readonly bookmarkListing = { byName: false };
  /** The last four views read, by operation: an operation's view never changes. */
  private readonly views = new Map<string, Promise<JjView>>();

  /** The view at `op`, read again only once it is no longer among the last four read. */
  private viewAt(op: string, ctx: JjCallContext): Promise<JjView> {
    const known = this.views.get(op);
    if (known !== undefined) return known;
    const view = readView(op, ctx);
    this.views.set(op, view);
    // A failed read is not kept: the next one reads again.
    view.catch(() => {
      if (this.views.get(op) === view) this.views.delete(op);
    });
    if (this.views.size > 4) this.views.delete(this.views.keys().next().value!);
    return view;
  }

  private ctx(grace = false): JjCallContext {
    const { bounds, deadline, options, env, plan } = this.inputs;
    return {
      deadline: grace ? Deadline.after(INSPECTION_GRACE_MS) : deadline,
      bounds,
      signal: grace ? undefined : options.signal,
      cwd: plan.repository!.path,
      env,
      bookmarkListing: this.bookmarkListing,
    };
  }

  private append(record: JournalRecord): Promise<void> {
    return this.run.append(record);
  }

  private checkpoint(step: TidyApplyStep, actionId: number): Promise<void> {
    return this.run.checkpoint(step, actionId);
  }

  /** The last operation an earlier run of this plan made and verified is where the repository should be now; before any, the plan's own. */
  resume(records: readonly JournalRecord[]): void {
    for (const record of records) {
      if ((record.type === 'verified' || record.type === 'outcome') && typeof record.operation === 'string')
        this.expectedOp = record.operation;
      if (record.type === 'intent' && typeof record.operation === 'string')
        this.openIntents.set(record.action_id, record.operation);
    }
  }

  /** The jj version, and the repository the plan was made for at the current operation. */
  async begin(): Promise<'go' | 'stop'> {
    const { plan } = this.inputs;
    await requireSupportedJj(this.ctx(), this.inputs.env);
    const current = await readCurrentOperation(this.ctx());
    const observation = await this.observe(current);
    const mismatch = bindingMismatch(this.inputs.binding, await readJjBinding(observation, this.ctx()));
    if (mismatch === null) return 'go';
    this.ledger.refusePlan(
      'repository-changed',
      `the repository at ${JSON.stringify(plan.repository!.path)}: ${mismatch}`,
      0,
    );
    return 'stop';
  }

  private async observe(op: string): Promise<JjObservation> {
    const { plan } = this.inputs;
    const ctx = this.ctx();
    const observation = await observeJj(
      {
        path: plan.repository!.path,
        base: plan.base.selector,
        names: undefined,
        version: plan.backend.version ?? '',
      },
      ctx,
    );
    // observeJj reads the current operation itself; it must still be `op`.
    if (observation.operationId !== op)
      throw new RefusalError(
        'operation-changed',
        `the repository moved from operation ${op} to ${observation.operationId} while it was observed`,
      );
    this.observation = observation;
    return observation;
  }

  private async runAction(index: number): Promise<'next' | 'stop'> {
    const action = this.actions[index]!;
    const state = this.ledger.states.get(action.action_id)!;
    if (
      state.phase === 'verified' ||
      (state.phase === 'settled' && state.lastOutcome?.result === 'deleted')
    ) {
      const view = await this.viewAt(await readCurrentOperation(this.ctx()), this.ctx());
      const found = classifyJjAction(view, action);
      if (found !== 'committed') {
        this.ledger.settle(index, {
          outcome: 'failed',
          reason: 'postcondition-changed',
          message: `recorded as done, but now ${describeJjAction(view, action)}`,
        });
        return 'next';
      }
      if (state.phase !== 'verified')
        await this.append({ type: 'verified', action_id: action.action_id, at: this.inputs.now() });
      this.ledger.settle(index, {
        outcome: 'already-done',
        verified: true,
        recovered: state.phase !== 'verified',
      });
      return 'next';
    }
    if (state.phase === 'open') return this.resolveOpen(index, action, state);
    return this.runFresh(index, action);
  }

  /**
   * The last run journaled its intent and stopped before its outcome. The intent names
   * the operation it was revalidated at; what happened since is read from the operation
   * log and the views, never assumed: both effects on a chain of our own two operations
   * → committed; nothing changed since that operation → not happened (fresh attempt after
   * revalidation); anything else → a person reviews it.
   */
  private async resolveOpen(
    index: number,
    action: JjAction,
    state: ActionJournalState,
  ): Promise<'next' | 'stop'> {
    const { now } = this.inputs;
    const intentOp = this.lastIntentOperation(action.action_id);
    const ctx = this.ctx(true);
    const current = await readCurrentOperation(ctx);
    const view = await this.viewAt(current, ctx);
    const found = classifyJjAction(view, action);
    const review = (message: string) => {
      if (found === 'committed' || found === 'pinned-only') this.ledger.pin(action.action_id);
      this.ledger.settle(index, {
        outcome: 'refused',
        reason: 'manual-review-required',
        message,
        recovered: true,
      });
      return 'stop' as const;
    };
    if (intentOp === undefined)
      return review('an earlier run was interrupted after an intent that names no operation');
    if (found === 'not-happened' && current === intentOp) {
      await this.append({
        type: 'outcome',
        action_id: action.action_id,
        result: 'failed',
        reason: 'interrupted-before-effect',
        recovered: true,
        at: now(),
      });
      state.phase = 'settled';
      this.expectedOp = intentOp;
      return this.runFresh(index, action);
    }
    if (found === 'committed') {
      const check = await this.checkOwnChain(intentOp, current, action);
      if (check !== null)
        return review(`an earlier run was interrupted; the bookmark is deleted and pinned, but ${check}`);
      await this.append({
        type: 'outcome',
        action_id: action.action_id,
        result: 'deleted',
        recovered: true,
        operation: current,
        at: now(),
      });
      await this.checkpoint('after-outcome', action.action_id);
      return this.verify(index, action, intentOp, current, true);
    }
    return review(
      `an earlier run was interrupted after its intent and now ${describeJjAction(view, action)}`,
    );
  }

  private lastIntentOperation(actionId: number): string | undefined {
    return this.openIntents.get(actionId);
  }

  /**
   * `current` must be our delete, whose parent is our recovery-bookmark operation, whose
   * parent is `from`; and the whole delta from `from` to `current` exactly the action's.
   * Returns null when it is, else what differs.
   */
  private async checkOwnChain(from: string, current: string, action: JjAction): Promise<string | null> {
    const ctx = this.ctx(true);
    const deleteParents = await readOperationParents(current, ctx);
    if (deleteParents.length !== 1) return `operation ${current} has ${deleteParents.length} parents`;
    const pinOp = deleteParents[0]!;
    const pinParents = await readOperationParents(pinOp, ctx);
    if (pinParents.length !== 1 || pinParents[0] !== from)
      return `the operations since ${from} are not exactly this action's two`;
    const problems = unexpectedChanges(await this.viewAt(from, ctx), await this.viewAt(current, ctx), {
      created: [{ name: action.recovery_ref, commit: action.old_oid }],
      deleted: [action.ref],
    });
    return problems.length === 0 ? null : `other changes came with it: ${problems.join('; ')}`;
  }

  /** Revalidates at the current operation; a message when the action must not run. */
  private async revalidate(action: JjAction): Promise<{ stop: string } | { stale: string } | { op: string }> {
    const ctx = this.ctx();
    const current = await readCurrentOperation(ctx);
    if (
      current !== this.expectedOp ||
      this.observation === undefined ||
      this.observation.operationId !== current
    ) {
      if (current !== this.expectedOp) {
        const changes = unexpectedChanges(
          await this.viewAt(this.expectedOp, ctx),
          await this.viewAt(current, ctx),
          {
            created: [],
            deleted: [],
          },
        );
        return {
          stop: `operation ${current} is current, not ${this.expectedOp} (the one last observed): another jj operation ran${changes.length > 0 ? `; it changed ${changes.join('; ')}` : ''}`,
        };
      }
      await this.observe(current);
    }
    const observation = this.observation!;
    const plan = this.inputs.plan;
    if (observation.base.commit !== plan.base.oid)
      return {
        stop: `base ${plan.base.selector} is at ${observation.base.commit}, not the planned ${plan.base.oid}`,
      };
    const decided = observation.bookmarks.local.some((b) => b.name === action.ref)
      ? decideBookmark(action.ref, observation)
      : undefined;
    if (decided === undefined || decided.oid !== action.old_oid)
      return { stale: `${action.ref} is now ${decided?.oid ?? 'absent'}, not ${action.old_oid}` };
    if (decided.decision !== 'delete') return { stale: `now retained: ${decided.reasons.join(', ')}` };
    if (observation.bookmarks.local.some((b) => b.name === action.recovery_ref))
      return { stale: `recovery bookmark ${action.recovery_ref} already exists` };
    return { op: current };
  }

  private async runFresh(index: number, action: JjAction): Promise<'next' | 'stop'> {
    const { now } = this.inputs;
    const check = await this.revalidate(action);
    if ('stop' in check) {
      this.ledger.refusePlan('stale-proof', check.stop, index);
      return 'stop';
    }
    if ('stale' in check) {
      this.ledger.settle(index, { outcome: 'refused', reason: 'stale-proof', message: check.stale });
      return 'next';
    }
    const from = check.op;
    await this.append({
      type: 'intent',
      action_id: action.action_id,
      ref: action.ref,
      old_oid: action.old_oid,
      recovery_ref: action.recovery_ref,
      operation: from,
      at: now(),
    });
    this.openIntents.set(action.action_id, from);
    await this.checkpoint('after-intent', action.action_id);

    // Once journaled, the two effects are not cancelled by the signal (the run stops
    // between actions); the deadline still bounds each call.
    const ctx = { ...this.ctx(), signal: undefined };
    await createRecoveryBookmark(action.recovery_ref, action.old_oid, ctx);
    // Created (jj reported success): a recovery root from now on, whatever comes next.
    this.ledger.pin(action.action_id);
    const pinOp = await readCurrentOperation(this.ctx(true));
    const pinProblem = await this.checkStep(from, pinOp, {
      created: [{ name: action.recovery_ref, commit: action.old_oid }],
      deleted: [],
    });
    if (pinProblem !== null) return this.unexpected(index, `creating the recovery bookmark: ${pinProblem}`);
    await this.checkpoint('after-pin', action.action_id);

    await deleteLocalBookmark(action.ref, ctx);
    await this.checkpoint('after-transaction', action.action_id);
    const deleteOp = await readCurrentOperation(this.ctx(true));
    const deleteProblem =
      (await this.checkStep(pinOp, deleteOp, { created: [], deleted: [action.ref] })) ??
      (await this.checkStep(
        from,
        deleteOp,
        { created: [{ name: action.recovery_ref, commit: action.old_oid }], deleted: [action.ref] },
        false,
      ));
    if (deleteProblem !== null) return this.unexpected(index, `deleting the bookmark: ${deleteProblem}`);
    await this.append({
      type: 'outcome',
      action_id: action.action_id,
      result: 'deleted',
      operation: deleteOp,
      at: now(),
    });
    await this.checkpoint('after-outcome', action.action_id);
    return this.verify(index, action, from, deleteOp, false);
  }

  /** `after`'s parent must be `before` (when `parent`), and the delta between them exactly `allowed`. */
  private async checkStep(
    before: string,
    after: string,
    allowed: Parameters<typeof unexpectedChanges>[2],
    parent = true,
  ): Promise<string | null> {
    const ctx = this.ctx(true);
    if (parent) {
      const parents = await readOperationParents(after, ctx);
      if (parents.length !== 1 || parents[0] !== before)
        return `the new operation ${after} has parent(s) ${parents.join(', ') || 'none'}, not ${before}: another operation ran concurrently`;
    }
    const problems = unexpectedChanges(
      await this.viewAt(before, ctx),
      await this.viewAt(after, ctx),
      allowed,
    );
    return problems.length === 0 ? null : `unexpected changes: ${problems.join('; ')}`;
  }

  /** An effect's operation did something else too: report it, journal nothing more, stop. */
  private unexpected(index: number, message: string): 'stop' {
    this.ledger.settle(index, { outcome: 'failed', reason: 'manual-review-required', message });
    this.ledger.markRemaining(index + 1, 'run-failed', 'not attempted after an unexpected repository change');
    return 'stop';
  }

  private async verify(
    index: number,
    action: JjAction,
    from: string,
    op: string,
    recovered: boolean,
  ): Promise<'next' | 'stop'> {
    const ctx = this.ctx(true);
    const current = await readCurrentOperation(ctx);
    const view = await this.viewAt(current, ctx);
    if (current !== op || classifyJjAction(view, action) !== 'committed') {
      this.ledger.settle(index, {
        outcome: 'failed',
        reason: 'postcondition-failed',
        message: `expected the bookmark absent and the recovery bookmark at ${action.old_oid} at operation ${op}; found ${describeJjAction(view, action)} at ${current}`,
        recovered,
      });
      return 'stop';
    }
    await this.append({
      type: 'verified',
      action_id: action.action_id,
      operation: op,
      at: this.inputs.now(),
    });
    this.ledger.deletedThisRun += 1;
    this.expectedOp = op;
    // The verified delta is exactly this action's: an observation made at `from` stays
    // valid once the action is applied to it; any other is made afresh.
    if (this.observation?.operationId !== from) this.observation = undefined;
    else {
      this.observation = {
        ...this.observation,
        operationId: op,
        bookmarks: {
          local: [
            ...this.observation.bookmarks.local.filter((b) => b.name !== action.ref),
            { name: action.recovery_ref, targets: [action.old_oid] },
          ],
          remote: this.observation.bookmarks.remote,
        },
      };
    }
    this.ledger.settle(index, { outcome: 'deleted', verified: true, recovered });
    await this.checkpoint('after-verified', action.action_id);
    return 'next';
  }
}
