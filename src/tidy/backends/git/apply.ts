/**
 * `tidy apply` on Git (docs/tidy.md, "Apply"): each delete revalidated against a fresh
 * observation, journaled durably, pinned by a recovery ref and deleted by
 * compare-and-swap in one Git ref transaction (batched), then verified.
 */
import { Deadline } from '../../../core/deadline.js';
import { RefusalError } from '../../../core/errors.js';
import type { WorktreeRecord } from '../../../core/git.js';
import { describeOutcome, type RunResult } from '../../../core/run.js';
import {
  type DeleteRunInputs,
  TIDY_APPLY_LIMITATIONS,
  type TidyApplyOptions,
  type TidyApplyStep,
  toDeleteEffect,
} from '../../apply.js';
import { bindingMismatch } from '../../engine/binding.js';
import { type ActionLedger, stopCause } from '../../engine/ledger.js';
import { INSPECTION_GRACE_MS } from '../../engine/limits.js';
import type { ActionProtocol } from '../../engine/protocol.js';
import { ActionRun } from '../../engine/run.js';
import type { ActionJournalState, JournalRecord } from '../../journal.js';
import { PIN_NOTE_MAX_BYTES, pinNoteBytes } from '../../pin-note.js';
import {
  IncompleteObservationError,
  type PlanWorktree,
  type RepositoryBinding,
  type TidyBounds,
  type TidyPlanV1,
} from '../../types.js';
import { readGitBinding } from './binding.js';
import { decideBranch, planWorktrees } from './decide.js';
import {
  type BaseGuard,
  classifyEffect,
  type DeleteEffect,
  type EffectInspection,
  type GitCallOptions,
  inspectEffect,
  pinAndDeleteAll,
  readRefOidsChunked,
  restoreCommand,
} from './effects.js';
import { type GitObservation, observeGit, readWorktreeFingerprint } from './observe.js';

// ---------------------------------------------------------------------------
// Revalidation

type Revalidation =
  | { kind: 'ok' }
  /** The whole plan's proof is stale (base, layout, worktrees): refuse every remaining action. */
  | { kind: 'plan-stale'; code: string; message: string }
  /** This target's proof is stale: refuse this action, leave the branch untouched. */
  | { kind: 'action-stale'; message: string }
  | { kind: 'interrupted'; cause: 'deadline' | 'signal' }
  | { kind: 'incomplete'; message: string };

/**
 * The fields of a worktree registration the plan's evidence depends on: which worktrees
 * exist and what each has checked out. Lock and prunable annotations do not change which
 * branches are protected, so they are not compared. Nor is a worktree's rebase/bisect
 * state: the fresh observation carries it and `checkTarget` re-decides with it, so a
 * rebase or bisect that starts after planning refuses only the branch it holds.
 */
function worktreeIdentity(w: PlanWorktree): string {
  return JSON.stringify([w.path, w.head, w.branch, w.detached, w.bare, w.is_main]);
}

function sameWorktrees(planned: readonly PlanWorktree[], observed: readonly WorktreeRecord[]): boolean {
  const a = planned.map(worktreeIdentity);
  const b = planWorktrees(observed).map(worktreeIdentity);
  return a.length === b.length && a.every((identity, index) => identity === b[index]);
}

/** Plan-wide facts: the same repository layout, base commit and worktree registrations. */
function checkPlanWide(plan: TidyPlanV1, observation: GitObservation): Revalidation {
  const repo = plan.repository!;
  const layout = observation.layout;
  if (
    layout.gitDir !== repo.git_dir ||
    layout.commonDir !== repo.common_dir ||
    (layout.toplevel ?? null) !== repo.toplevel ||
    layout.objectFormat !== repo.object_format ||
    layout.isShallow !== repo.is_shallow
  )
    return {
      kind: 'plan-stale',
      code: 'repository-changed',
      message: 'the repository layout differs from the plan',
    };
  if (observation.base.oid !== plan.base.oid || observation.baseChanged)
    return {
      kind: 'plan-stale',
      code: 'base-moved',
      message: `base ${plan.base.selector} now resolves to ${observation.base.oid}, not the planned ${plan.base.oid}`,
    };
  if (observation.worktreesChanged || !sameWorktrees(plan.worktrees, observation.worktrees))
    return {
      kind: 'plan-stale',
      code: 'worktrees-changed',
      message: 'worktree registrations or their HEADs differ from the plan',
    };
  return { kind: 'ok' };
}

/**
 * The target's own proof, re-derived with the planner's own decision function from the
 * fresh observation: the same tip, and still `delete` (integrated, stable while
 * observed, a plain commit, not the base, not used by any worktree).
 */
function checkTarget(effect: DeleteEffect, observation: GitObservation): Revalidation {
  const branch = observation.branches.find((b) => b.ref === effect.ref);
  if (branch === undefined) return { kind: 'action-stale', message: `${effect.ref} no longer exists` };
  if (branch.oid !== effect.old_oid)
    return { kind: 'action-stale', message: `tip moved from ${effect.old_oid} to ${branch.oid}` };
  const decision = decideBranch(branch, observation);
  if (decision.decision !== 'delete')
    return { kind: 'action-stale', message: `now retained: ${decision.reasons.join(', ')}` };
  return { kind: 'ok' };
}

/** Never started, or found by inspection to have had no effect: needs a fresh attempt. */
function isFresh(state: ActionJournalState | undefined): boolean {
  return (
    state !== undefined &&
    (state.phase === 'none' || (state.phase === 'settled' && state.lastOutcome?.result !== 'deleted'))
  );
}

/** Actions per transaction at most, once earlier batches succeeded (see freshBatchAt). */
const MAX_BATCH = 256;

// ---------------------------------------------------------------------------
// The run

function describeInspection(inspection: EffectInspection): string {
  const target = inspection.target_oid === null ? 'absent' : `at ${inspection.target_oid}`;
  const pin = inspection.pin_oid === null ? 'absent' : `at ${inspection.pin_oid}`;
  return `target ${target}, recovery ref ${pin}`;
}

/** `tidy apply` of a Git plan: the engine's run over its actions, in order, with Git's protocol. */
export async function applyGitDeletes(inputs: DeleteRunInputs): Promise<void> {
  const effects = inputs.plan.effects.map(toDeleteEffect);
  const run = new ActionRun({
    planId: inputs.plan.plan_id,
    stateDir: inputs.stateDir,
    journalPath: inputs.journalPath,
    actions: effects,
    result: inputs.result,
    deadline: inputs.deadline,
    options: inputs.options,
    now: inputs.now,
  });
  await run.execute((engine) => new GitDeleteProtocol(engine, inputs, effects));
}

/**
 * Git's delete protocol: fresh actions in batches (1, 2, 4 … 256), each batch one ref
 * transaction (verify the base, create every pin, delete every branch with its old OID
 * as compare-and-swap), the repository inspected after it; actions with journal history
 * resolved one by one.
 */
class GitDeleteProtocol implements ActionProtocol {
  readonly limitations = TIDY_APPLY_LIMITATIONS;
  readonly deadlineMessage = 'the deadline passed before this action';
  readonly interruptibleInside = false;
  private readonly ledger: ActionLedger;
  private readonly plan: TidyPlanV1;
  private readonly binding: RepositoryBinding;
  private readonly bounds: TidyBounds;
  private readonly deadline: Deadline;
  private readonly options: TidyApplyOptions;
  /** Inspections of the actions an earlier run completed, read at once. */
  private readonly prefetched = new Map<number, EffectInspection>();
  /** The run's full observation, and the worktree fingerprint read just before it. */
  private observation: GitObservation | undefined;
  private fingerprint: string | null | undefined;
  /** Full observations made by this run (one, unless the worktrees changed). */
  observations = 0;
  private batchSize = 1;

  constructor(
    private readonly run: ActionRun,
    inputs: DeleteRunInputs,
    private readonly effects: (DeleteEffect & { action_id: number })[],
  ) {
    this.ledger = run.ledger;
    this.plan = inputs.plan;
    this.binding = inputs.binding;
    this.bounds = inputs.bounds;
    this.deadline = inputs.deadline;
    this.options = inputs.options;
  }

  restoreCommand(ref: string, recoveryRef: string): string {
    return restoreCommand(ref, recoveryRef);
  }

  reserveMs(): number {
    return 0;
  }

  resume(): void {}

  /** The binding, then one read of everything an earlier run completed. */
  async begin(): Promise<'go' | 'stop'> {
    if ((await this.checkBinding()) === 'stop') return 'stop';
    await this.prefetchVerified();
    return 'go';
  }

  spanAt(index: number): number {
    return Math.max(1, this.freshBatchAt(index).length);
  }

  step(index: number): Promise<'next' | 'stop'> {
    const batch = this.freshBatchAt(index);
    if (batch.length > 0) return this.runFresh(index, batch);
    const effect = this.effects[index]!;
    return this.runAction(index, effect, this.ledger.states.get(effect.action_id)!);
  }

  hasOpenIntent(actionId: number): boolean {
    return this.ledger.states.get(actionId)?.phase === 'open';
  }

  private now(): string {
    return this.run.now();
  }

  private get cwd(): string {
    return this.plan.repository!.path;
  }

  private append(record: JournalRecord): Promise<void> {
    return this.run.append(record);
  }

  private appendAll(records: readonly JournalRecord[]): Promise<void> {
    return this.run.appendAll(records);
  }

  private checkpoint(step: TidyApplyStep, actionId: number): Promise<void> {
    return this.run.checkpoint(step, actionId);
  }

  /** Reads the target and the pin. After a transaction it gets a grace deadline of its own. */
  private inspect(effect: DeleteEffect, grace = false): Promise<EffectInspection> {
    return inspectEffect(effect, {
      cwd: this.cwd,
      deadline: grace ? Deadline.after(INSPECTION_GRACE_MS) : this.deadline,
      maxBytes: this.bounds.maxOutputBytes,
    });
  }

  /** The repository at the plan's path must be the one the plan was made for. */
  private async checkBinding(): Promise<'go' | 'stop'> {
    const cause = stopCause(this.deadline, this.options.signal);
    if (cause !== undefined) {
      this.ledger.interrupt(cause, 0);
      return 'stop';
    }
    const repo = this.plan.repository!;
    try {
      const now = await readGitBinding(repo.common_dir, this.plan.base.oid!, {
        deadline: this.deadline,
        bounds: this.bounds,
        signal: this.options.signal,
        cwd: repo.path,
      });
      const mismatch = bindingMismatch(this.binding, now);
      if (mismatch === null) return 'go';
      this.ledger.refusePlan(
        'repository-changed',
        `the repository at ${JSON.stringify(repo.path)}: ${mismatch}`,
        0,
      );
    } catch (error) {
      if (!(error instanceof IncompleteObservationError)) throw error;
      if (error.code === 'cancelled' || error.code === 'deadline')
        this.ledger.interrupt(error.code === 'cancelled' ? 'signal' : 'deadline', 0);
      else this.ledger.refusePlan('evidence-incomplete', error.message, 0);
    }
    return 'stop';
  }

  /** Returns 'stop' when the remaining actions must not run. */
  private async runAction(
    index: number,
    effect: DeleteEffect & { action_id: number },
    state: ActionJournalState,
  ): Promise<'next' | 'stop'> {
    const id = effect.action_id;

    // Completed by an earlier run: verify the recorded postcondition, never repeat the effect.
    if (state.phase === 'verified') {
      const now = this.prefetched.get(id) ?? (await this.inspect(effect));
      if (now.state === 'committed') {
        this.ledger.settle(index, { outcome: 'already-done', verified: true });
        return 'next';
      }
      this.notePin(effect, now);
      this.ledger.settle(index, {
        outcome: 'failed',
        reason: 'postcondition-changed',
        message: `recorded as done, but now ${describeInspection(now)}`,
      });
      return 'next';
    }

    // The transaction's result was journaled as a deletion but not yet verified.
    if (state.phase === 'settled' && state.lastOutcome?.result === 'deleted')
      return this.verifyAndRecord(index, effect, true);

    if (state.phase === 'open') {
      // The last run journaled its intent and stopped before journaling an outcome: the
      // transaction may or may not have committed. Never retry blindly — ask the
      // repository. The transaction is atomic and creates the pin only together with the
      // deletion, so exactly two states have a known history:
      //  - pin at the old OID and target absent: it committed; record that and verify;
      //  - pin absent and target still at the old OID: it did not happen; record that,
      //    then treat the action as fresh, which means full revalidation first;
      //  - anything else (pin elsewhere, target moved or recreated, both or neither
      //    present) has more than one possible history: a person must review it.
      const found = await this.inspect(effect, true);
      if (found.state === 'committed') {
        await this.append({
          type: 'outcome',
          action_id: id,
          result: 'deleted',
          recovered: true,
          at: this.now(),
        });
        await this.checkpoint('after-outcome', id);
        return this.verifyAndRecord(index, effect, true);
      }
      if (found.state !== 'not-happened') {
        this.notePin(effect, found);
        this.ledger.settle(index, {
          outcome: 'refused',
          reason: 'manual-review-required',
          message: `an earlier run was interrupted after its intent and now ${describeInspection(found)}`,
          recovered: true,
        });
        return 'next';
      }
      await this.append({
        type: 'outcome',
        action_id: id,
        result: 'failed',
        reason: 'interrupted-before-effect',
        recovered: true,
        at: this.now(),
      });
    }

    // Found not to have happened: a fresh attempt, revalidated first.
    return this.runFresh(index, [effect]);
  }

  /**
   * Actions completed by an earlier run are verified from one read of all their refs and
   * pins (chunked to the output bound) rather than one git call each.
   */
  private async prefetchVerified(): Promise<void> {
    const done = this.effects.filter((e) => this.ledger.states.get(e.action_id)?.phase === 'verified');
    if (done.length === 0 || stopCause(this.deadline, this.options.signal) !== undefined) return;
    const oids = await readRefOidsChunked(
      done.flatMap((e) => [e.ref, e.recovery_ref]),
      this.gitOptions(),
    );
    for (const effect of done) this.prefetched.set(effect.action_id, classifyEffect(effect, oids));
  }

  private gitOptions(grace = false): GitCallOptions {
    return {
      cwd: this.cwd,
      deadline: grace ? Deadline.after(INSPECTION_GRACE_MS) : this.deadline,
      maxBytes: this.bounds.maxOutputBytes,
    };
  }

  /**
   * The next batch of fresh actions starting at `index` (never started, or found by an
   * earlier run to have had no effect), in plan order; empty when the action at `index`
   * has journal history to resolve first. The batch doubles after each batch that fully
   * succeeds, up to MAX_BATCH (and PIN_NOTE_MAX_BYTES of branch names), and drops back to one action after any failure: a surprise
   * costs little, and a clean run approaches one transaction's cost per batch.
   */
  private freshBatchAt(index: number): (DeleteEffect & { action_id: number })[] {
    const batch: (DeleteEffect & { action_id: number })[] = [];
    let noteBytes = 0;
    for (const effect of this.effects.slice(index)) {
      if (batch.length >= this.batchSize || !isFresh(this.ledger.states.get(effect.action_id))) break;
      // The pins' shared reflog message stays bounded (pin-note.ts).
      noteBytes += pinNoteBytes(effect);
      if (batch.length > 0 && noteBytes > PIN_NOTE_MAX_BYTES) break;
      batch.push(effect);
    }
    return batch;
  }

  /**
   * Revalidates a batch: the full observation is made once per run, and again only when
   * the cheap worktree fingerprint (HEADs, registrations, rebase/bisect state, read from
   * files) changed since it was made. The base and each tip are then guarded by the
   * transaction itself (`verify` and the compare-and-swap).
   */
  private async revalidate(
    index: number,
    batch: readonly (DeleteEffect & { action_id: number })[],
  ): Promise<Exclude<Revalidation, { kind: 'ok' }> | { kind: 'ok'; stale: Map<number, string> }> {
    const repo = this.plan.repository!;
    const ctx = { deadline: this.deadline, bounds: this.bounds, signal: this.options.signal };
    try {
      const fingerprint = await readWorktreeFingerprint({ commonDir: repo.common_dir }, ctx);
      if (this.observation === undefined || fingerprint === null || fingerprint !== this.fingerprint) {
        this.observation = undefined;
        const observation = await observeGit(
          {
            path: repo.path,
            baseSelector: this.plan.base.selector,
            refs: this.effects.slice(index).map((e) => e.ref),
            omitMissingRefs: true,
          },
          ctx,
        );
        const planWide = checkPlanWide(this.plan, observation);
        if (planWide.kind !== 'ok') return planWide;
        this.observation = observation;
        this.fingerprint = fingerprint;
        this.observations += 1;
      }
    } catch (error) {
      if (error instanceof IncompleteObservationError) {
        if (error.code === 'cancelled') return { kind: 'interrupted', cause: 'signal' };
        if (error.code === 'deadline') return { kind: 'interrupted', cause: 'deadline' };
        return { kind: 'incomplete', message: error.message };
      }
      if (error instanceof RefusalError)
        return { kind: 'plan-stale', code: error.code, message: error.message };
      throw error;
    }
    const stale = new Map<number, string>();
    for (const effect of batch) {
      const check = checkTarget(effect, this.observation);
      if (check.kind === 'action-stale') stale.set(effect.action_id, check.message);
    }
    return { kind: 'ok', stale };
  }

  /** Runs fresh actions: revalidate, journal intents, one transaction, inspect, journal, verify. */
  private async runFresh(
    index: number,
    batch: readonly (DeleteEffect & { action_id: number })[],
  ): Promise<'next' | 'stop'> {
    const check = await this.revalidate(index, batch);
    switch (check.kind) {
      case 'interrupted':
        this.ledger.interrupt(check.cause, index);
        return 'stop';
      case 'plan-stale':
        this.ledger.refusePlan(check.code, check.message, index);
        return 'stop';
      case 'incomplete':
        // Evidence that could not be read completely never licenses a deletion.
        this.ledger.refusePlan('evidence-incomplete', check.message, index);
        return 'stop';
      case 'action-stale':
        return 'next'; // not produced for batches
      case 'ok':
        break;
    }
    // A pin must not exist yet: `create` would fail the batch, and an unexpected pin needs
    // a person. One read for the batch's pins.
    const pins = await readRefOidsChunked(
      batch.map((e) => e.recovery_ref),
      this.gitOptions(),
    );
    const ready: (DeleteEffect & { action_id: number })[] = [];
    batch.forEach((effect, offset) => {
      const message = check.stale.get(effect.action_id);
      const pin = pins.get(effect.recovery_ref);
      if (message !== undefined)
        this.ledger.settle(index + offset, { outcome: 'refused', reason: 'stale-proof', message });
      else if (pin !== undefined) {
        if (pin === effect.old_oid) this.ledger.pin(effect.action_id);
        this.ledger.settle(index + offset, {
          outcome: 'refused',
          reason: 'manual-review-required',
          message: `recovery ref ${effect.recovery_ref} already exists (at ${pin})`,
        });
      } else ready.push(effect);
    });
    if (ready.length === 0) return 'next';
    const at = (effect: { action_id: number }) => this.indexOf(effect.action_id);

    await this.appendAll(
      ready.map((effect) => ({
        type: 'intent' as const,
        action_id: effect.action_id,
        ref: effect.ref,
        old_oid: effect.old_oid,
        recovery_ref: effect.recovery_ref,
        at: this.now(),
      })),
    );
    for (const effect of ready) await this.checkpoint('after-intent', effect.action_id);

    // Not cancellable by the signal: once journaled, the atomic transaction is allowed to
    // finish, so the run stops *between* batches. The deadline still bounds it.
    const base =
      this.plan.base.ref === null ? null : { ref: this.plan.base.ref, oid: this.observation!.base.refOid! };
    const outcome = await pinAndDeleteAll(ready, base, this.gitOptions());
    for (const effect of ready) await this.checkpoint('after-transaction', effect.action_id);

    // Whatever git reported, the repository decides what happened.
    const names = ready.flatMap((e) => [e.ref, e.recovery_ref]);
    const after = await readRefOidsChunked(
      base === null ? names : [...names, base.ref],
      this.gitOptions(true),
    );
    const committed = ready.filter((e) => classifyEffect(e, after).state === 'committed');
    if (committed.length > 0) {
      await this.appendAll(
        committed.map((e) => ({
          type: 'outcome' as const,
          action_id: e.action_id,
          result: 'deleted' as const,
          at: this.now(),
        })),
      );
      for (const effect of committed) await this.checkpoint('after-outcome', effect.action_id);
      const verified = await readRefOidsChunked(
        committed.flatMap((e) => [e.ref, e.recovery_ref]),
        this.gitOptions(true),
      );
      const good = committed.filter((e) => classifyEffect(e, verified).state === 'committed');
      await this.appendAll(
        good.map((e) => ({ type: 'verified' as const, action_id: e.action_id, at: this.now() })),
      );
      for (const effect of committed) {
        const inspection = classifyEffect(effect, verified);
        if (inspection.state !== 'committed') {
          this.notePin(effect, inspection);
          this.ledger.settle(at(effect), {
            outcome: 'failed',
            reason: 'postcondition-failed',
            message: `expected the target absent and the recovery ref at ${effect.old_oid}; found ${describeInspection(inspection)}`,
          });
          continue;
        }
        this.ledger.deletedThisRun += 1;
        this.ledger.settle(at(effect), { outcome: 'deleted', verified: true });
        await this.checkpoint('after-verified', effect.action_id);
      }
    }
    if (committed.length === ready.length) {
      this.batchSize = Math.min(MAX_BATCH, this.batchSize * 2);
      return 'next';
    }
    this.batchSize = 1;
    const uncommitted = ready.filter((e) => classifyEffect(e, after).state !== 'committed');
    return this.settleUncommitted(uncommitted, after, base, ready.length === 1 ? outcome : undefined);
  }

  /**
   * Actions whose transaction did not commit. A moved base refuses the rest of the plan. A
   * moved or missing tip is stale; a pin present without the deletion needs a person (the
   * intent stays open). An action with no effect in a failed batch of several is retried
   * alone, after its `failed` outcome is journaled, so the one that failed is found.
   */
  private async settleUncommitted(
    uncommitted: readonly (DeleteEffect & { action_id: number })[],
    after: ReadonlyMap<string, string>,
    base: BaseGuard | null,
    single: RunResult | undefined,
  ): Promise<'next' | 'stop'> {
    const baseMoved = base !== null && after.get(base.ref) !== base.oid;
    const retry: (DeleteEffect & { action_id: number })[] = [];
    const records: JournalRecord[] = [];
    for (const effect of uncommitted) {
      const inspection = classifyEffect(effect, after);
      const index = this.indexOf(effect.action_id);
      if (inspection.pin_oid !== null) {
        this.notePin(effect, inspection);
        this.ledger.settle(index, {
          outcome: 'failed',
          reason: 'manual-review-required',
          message: `after the transaction: ${describeInspection(inspection)}`,
        });
        continue;
      }
      const moved = inspection.target_oid !== effect.old_oid;
      if (moved || baseMoved) {
        const message = moved
          ? `compare-and-swap refused: ${effect.ref} changed concurrently (${describeInspection(inspection)})`
          : `the base ${base!.ref} moved from ${base!.oid} to ${after.get(base!.ref) ?? 'nowhere'}`;
        records.push({
          type: 'outcome',
          action_id: effect.action_id,
          result: 'refused',
          reason: 'stale-proof',
          at: this.now(),
        });
        this.ledger.settle(index, { outcome: 'refused', reason: 'stale-proof', message });
      } else if (single !== undefined) {
        records.push({
          type: 'outcome',
          action_id: effect.action_id,
          result: 'failed',
          reason: 'transaction-failed',
          at: this.now(),
        });
        this.ledger.settle(index, {
          outcome: 'failed',
          reason: 'transaction-failed',
          message: describeOutcome(single, 'git update-ref'),
        });
      } else {
        records.push({
          type: 'outcome',
          action_id: effect.action_id,
          result: 'failed',
          reason: 'batch-aborted',
          at: this.now(),
        });
        retry.push(effect);
      }
    }
    await this.appendAll(records);
    for (const effect of retry) this.ledger.states.get(effect.action_id)!.phase = 'settled';
    if (baseMoved) {
      const nowAt = after.get(base!.ref) ?? 'nowhere';
      this.ledger.refusePlan(
        'base-moved',
        `base ${this.plan.base.selector} moved to ${nowAt} during apply`,
        0,
      );
      return 'stop';
    }
    for (const effect of retry) {
      const step = await this.runFresh(this.indexOf(effect.action_id), [effect]);
      if (step === 'stop') return 'stop';
    }
    return 'next';
  }

  private indexOf(actionId: number): number {
    return actionId - 1; // checkPlanEffects: action ids are 1..n in order
  }

  /** Verifies target absent and pin at the old OID, then journals `verified`. */
  private async verifyAndRecord(
    index: number,
    effect: DeleteEffect & { action_id: number },
    recovered: boolean,
  ): Promise<'next' | 'stop'> {
    const check = await this.inspect(effect, true);
    if (check.state !== 'committed') {
      this.notePin(effect, check);
      this.ledger.settle(index, {
        outcome: 'failed',
        reason: 'postcondition-failed',
        message: `expected the target absent and the recovery ref at ${effect.old_oid}; found ${describeInspection(check)}`,
        recovered,
      });
      return 'next';
    }
    await this.append({ type: 'verified', action_id: effect.action_id, at: this.now() });
    this.ledger.deletedThisRun += 1;
    this.ledger.settle(index, { outcome: 'deleted', verified: true, recovered });
    await this.checkpoint('after-verified', effect.action_id);
    return 'next';
  }

  /** A pin found at the old OID is a recovery root even when the action did not complete. */
  private notePin(effect: DeleteEffect & { action_id: number }, inspection: EffectInspection): void {
    if (inspection.pin_oid === effect.old_oid) this.ledger.pin(effect.action_id);
  }
}
