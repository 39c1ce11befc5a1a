/**
 * Retirement apply on jj (docs/tasks.md, "Tasks on jj"): the generic run of apply.ts with
 * jj's effects — a recovery bookmark at the working-copy commit, `jj workspace forget` of
 * exactly the task workspace (its files stay), and, when selected, the confined removal
 * of the verified manifest. jj has no compare-and-swap, so the operation log is the
 * guard: before each effect the current operation must be the one the plan (or the last
 * verified effect) ended at, and after a jj effect the new operation's only parent must
 * be that one and its whole bookmark and workspace delta exactly the planned change. The
 * change is never abandoned (the recovery bookmark keeps it); nothing is pushed, fetched
 * or synced with Git.
 */
import { lstat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { checkDirectoryChain, sameId } from '../../../../core/confined-fs.js';
import { Deadline } from '../../../../core/deadline.js';
import { isStwError, RefusalError } from '../../../../core/errors.js';
import { type LoadedJjTask, loadTask } from '../../../../task/store.js';
import { bindingMismatch } from '../../../engine/binding.js';
import { INSPECTION_GRACE_MS } from '../../../engine/limits.js';
import { shellQuote } from '../../../engine/restore.js';
import {
  type PreparedRetirement,
  type Recheck,
  type RetirementApplyOptions,
  type RetirementProtocol,
  recheckError,
} from '../../../retire/apply.js';
import type { EffectJournalState } from '../../../retire/journal.js';
import {
  manifestDifference,
  type RemovalReport,
  removeManifest,
  sameManifest,
} from '../../../retire/manifest.js';
import { checkOwnership } from '../../../retire/plan.js';
import type { RetirementEffect, RetirementRecord, TidyPlanV2 } from '../../../retire/types.js';
import { checkStateDir } from '../../../store.js';
import { type NativeInspection, type RepositoryBinding, recoveryBookmarkFor } from '../../../types.js';
import type { RetirementPrepareInputs } from '../../backend.js';
import { createRecoveryBookmark, type JjView, readView, unexpectedChanges } from '../effects.js';
import {
  type JjCallContext,
  jjOk,
  readCommitRoots,
  readCommitState,
  readCurrentOperation,
  readOperationParents,
  readWorkspaces,
} from '../observe.js';
import { requireSupportedJj } from '../plan.js';
import { isJjTask } from '../task/record.js';
import { jjRetirementBlockers } from './decide.js';
import { observeJjRetirement } from './observe.js';

/** What retirement apply on jj cannot promise, stated with every jj result. */
export const JJ_RETIREMENT_APPLY_LIMITATIONS: readonly string[] = [
  "jj has no compare-and-swap: the current operation is checked before each effect, and a jj effect's operation parent and whole delta after it, so a concurrent jj operation is detected and reported, not prevented",
  'the recovery bookmark keeps the working-copy commit and its change; untracked and ignored content is not backed up',
  'the change is never abandoned; nothing is pushed or fetched and no jj git sync runs',
  'there is no automatic rollback: removed files and the workspace are not restored; the restore command makes a new workspace with the same files',
  'an interrupted or uncertain removal is partial and needs manual review; it is never retried blindly',
  'recovery bookmarks stay after success; review them before removing any',
  'checks are samples, not a lock on the filesystem: each entry is verified just before removal, but ABA races cannot all be ruled out',
];

type JjRetirementRecord = RetirementRecord & { jj: NonNullable<RetirementRecord['jj']> };

/** The effects must be exactly what the jj planner writes: pin, forget, then (when selected) the files. */
function checkJjEffects(plan: TidyPlanV2, record: RetirementRecord): asserts record is JjRetirementRecord {
  const bad = (why: string) => new RefusalError('tampered-plan', `plan record ${plan.plan_id} ${why}`);
  if (record.jj === undefined || record.jj.working_copy === null) throw bad('lacks its jj observation');
  const types = record.effects.map((effect) => effect.type);
  const expected = ['pin-recovery-ref', 'remove-registration'];
  if (record.selection.remove_files !== null) expected.push('remove-files');
  if (
    JSON.stringify(types) !== JSON.stringify(expected) ||
    record.effects.some((e, i) => e.effect_id !== i + 1)
  )
    throw bad('has unexpected effects');
  const pin = record.effects[0]!;
  if (
    pin.recovery_ref !== recoveryBookmarkFor(plan.plan_id, 1) ||
    pin.oid !== record.jj.working_copy.commit_id
  )
    throw bad('names an unexpected recovery bookmark');
  if (record.effects[1]!.workspace !== record.jj.workspace.recorded.name)
    throw bad('forgets another workspace than the task');
  const files = record.effects[2];
  if (
    files !== undefined &&
    (files.root !== record.target.destination || record.selection.remove_files !== record.target.destination)
  )
    throw bad('removes files other than the recorded destination');
}

/**
 * The command that makes a workspace with the same files again (the pinned commit's
 * parent tree). jj adds a workspace only in a new or empty directory, so when the
 * retirement kept the files (forget only) the destination still holds them and the
 * workspace is added beside it, at `<destination>.restored`.
 */
export function jjWorkspaceRestoreCommand(
  name: string,
  parent: string,
  destination: string,
  filesKept: boolean,
): string {
  const at = filesKept ? `${destination}.restored` : destination;
  return `jj workspace add --name ${shellQuote(name)} -r ${shellQuote(`commit_id(${parent})`)} ${shellQuote(at)}`;
}

/** Checks a stored jj retirement plan against the store and the repository, and makes its protocol. */
export async function prepareJjRetirement(inputs: RetirementPrepareInputs): Promise<PreparedRetirement> {
  const { plan, options, bounds, deadline } = inputs;
  const record = plan.retirement!;
  checkJjEffects(plan, record);
  const repository = plan.repository!;
  await checkStateDir(options.stateDir, [
    repository.toplevel ?? '',
    repository.git_dir,
    repository.common_dir,
    record.target.destination,
  ]);
  const loaded = await loadTask(options.stateDir, record.task.task_id, inputs.key);
  if (!isJjTask(loaded))
    throw new RefusalError(
      'tampered-plan',
      `plan ${plan.plan_id} is a jj plan for a task that is not a jj workspace`,
    );
  const env = options.env ?? process.env;
  const observe = { deadline, bounds, signal: options.signal };
  await requireSupportedJj(observe, env);
  const ctx: JjCallContext = { ...observe, cwd: repository.path, env };
  // The repository at the plan's path must be the one the plan was made for.
  const info = await lstat(repository.common_dir, { bigint: true }).catch(() => null);
  const op = await readCurrentOperation(ctx);
  const now: RepositoryBinding = {
    metadata_dir: repository.common_dir,
    device: info?.dev.toString() ?? '',
    inode: info?.ino.toString() ?? '',
    // A failed read is incomplete evidence (it refuses with its own code), not a changed repository.
    root_commits: await readCommitRoots(op, plan.base.oid!, ctx),
  };
  const mismatch = bindingMismatch(inputs.binding, now);
  if (mismatch !== null)
    throw new RefusalError(
      'repository-changed',
      `the repository at ${JSON.stringify(repository.path)} is not the one plan ${plan.plan_id} was made for: ${mismatch}`,
    );
  const wc = record.jj.working_copy!;
  return {
    record,
    protocol: new JjRetirementProtocol(plan, record, inputs.key, options, ctx),
    restoreCommand: jjWorkspaceRestoreCommand(
      record.jj.workspace.recorded.name,
      wc.parents[0] ?? plan.base.oid!,
      record.target.destination,
      record.selection.remove_files === null,
    ),
    limitations: JJ_RETIREMENT_APPLY_LIMITATIONS,
  };
}

function failed(code: string, message: string): Recheck {
  return { ok: false, code, message };
}

class JjRetirementProtocol implements RetirementProtocol {
  /** The operation the next effect must start from: the plan's, then each verified jj effect's. */
  private expectedOp: string;
  /** The operation the last passing guard checked; verification adopts exactly this one. */
  private guardedOp: string | null = null;
  private readonly workspace: string;
  private readonly commit: string;
  private readonly pin: string;

  constructor(
    private readonly plan: TidyPlanV2,
    private readonly record: JjRetirementRecord,
    private readonly key: Buffer,
    private readonly options: RetirementApplyOptions,
    private readonly ctx: JjCallContext,
  ) {
    this.expectedOp = record.jj.operation_id;
    this.workspace = record.jj.workspace.recorded.name;
    this.commit = record.jj.working_copy!.commit_id;
    this.pin = record.effects[0]!.recovery_ref!;
  }

  resume(states: Map<number, EffectJournalState>): void {
    for (const effect of this.record.effects) {
      const op = states.get(effect.effect_id)?.operation;
      if (op !== undefined) this.expectedOp = op;
    }
  }

  /** Inspections run on their own short deadline, without the signal, like Git's: an effect that ran is always looked at. */
  private inspection(): JjCallContext {
    const { signal: _signal, ...rest } = this.ctx;
    return { ...rest, deadline: Deadline.after(INSPECTION_GRACE_MS) };
  }

  private async view(): Promise<{ op: string; view: JjView }> {
    const ctx = this.inspection();
    const op = await readCurrentOperation(ctx);
    return { op, view: await readView(op, ctx) };
  }

  async isPinPresent(): Promise<boolean> {
    const { view } = await this.view();
    return view.local.get(this.pin) === JSON.stringify([this.commit]);
  }

  async inspect(effect: RetirementEffect): Promise<NativeInspection> {
    if (effect.type === 'remove-files') {
      const { inspectFilesRemoval } = await import('../../../retire/apply.js');
      return inspectFilesRemoval(this.record);
    }
    const { view } = await this.view();
    if (effect.type === 'pin-recovery-ref') {
      const at = view.local.get(this.pin);
      if (at === JSON.stringify([this.commit]))
        return { state: 'done', detail: `${this.pin} at ${this.commit}` };
      if (at === undefined) return { state: 'not-done', detail: `${this.pin} absent` };
      return { state: 'inconsistent', detail: `${this.pin} at ${at}, not ${this.commit}` };
    }
    const listed = view.workspaces.get(this.workspace);
    if (listed === undefined)
      return { state: 'done', detail: `jj no longer lists the workspace ${this.workspace}` };
    const planned = this.record.jj.workspace.observed;
    if (
      planned !== null &&
      listed === JSON.stringify([planned.root, planned.commit_id, planned.change_id, planned.parents])
    )
      return { state: 'not-done', detail: `the workspace ${this.workspace} is registered` };
    return {
      state: 'inconsistent',
      detail: `the workspace ${this.workspace} is registered differently than planned`,
    };
  }

  /** The one operation since the expected one made exactly this effect's change, and the change is still there. */
  async guard(effect: RetirementEffect): Promise<string | null> {
    if (effect.type === 'remove-files') return null;
    const ctx = this.inspection();
    const op = await readCurrentOperation(ctx);
    const parents = await readOperationParents(op, ctx);
    if (parents.length !== 1 || parents[0] !== this.expectedOp)
      return `operation ${op} does not follow ${this.expectedOp} directly: another jj operation ran`;
    const [before, after] = await Promise.all([readView(this.expectedOp, ctx), readView(op, ctx)]);
    const problems =
      effect.type === 'pin-recovery-ref'
        ? unexpectedChanges(before, after, {
            created: [{ name: this.pin, commit: this.commit }],
            deleted: [],
          })
        : unexpectedChanges(before, withWorkspace(after, this.workspace, before), {
            created: [],
            deleted: [],
          });
    if (effect.type === 'remove-registration' && after.workspaces.has(this.workspace))
      problems.push(`workspace ${JSON.stringify(this.workspace)} is still listed`);
    // Never abandoned: the working-copy commit stays visible (the recovery bookmark keeps it).
    if ((await readCommitState(op, this.commit, ctx)) === null)
      problems.push(`the working-copy commit ${this.commit} is no longer visible`);
    if (problems.length > 0) return problems.slice(0, 3).join('; ');
    this.guardedOp = op;
    return null;
  }

  /** The operation the guard checked must still be the current one: an operation landing in between is not adopted. */
  async verifiedFields(
    effect: RetirementEffect,
  ): Promise<{ fields: Record<string, string> } | { unexpected: string }> {
    if (effect.type === 'remove-files') return { fields: {} };
    const guarded = this.guardedOp;
    this.guardedOp = null;
    const ctx = this.inspection();
    const now = await readCurrentOperation(ctx);
    if (guarded === null) return { unexpected: `operation ${now} was not checked by the guard` };
    if (now !== guarded)
      return {
        unexpected: `operation ${now} ran after ${guarded}, which the effect ended at: another jj operation ran${await this.changesBetween(guarded, now, ctx)}`,
      };
    this.expectedOp = guarded;
    return { fields: { operation: guarded } };
  }

  async perform(
    effect: RetirementEffect,
    hooks: { isStopped: () => boolean; afterEntry: () => Promise<void> },
  ): Promise<{ note: string | null; removal?: RemovalReport }> {
    const note = async (call: () => Promise<unknown>) => {
      try {
        await call();
        return null;
      } catch (error) {
        if (!isStwError(error)) throw error;
        return error.message;
      }
    };
    switch (effect.type) {
      case 'pin-recovery-ref':
        return { note: await note(() => createRecoveryBookmark(this.pin, this.commit, this.ctx)) };
      case 'remove-registration':
        // Forgets the workspace in jj's view only; its files stay on disk.
        return {
          note: await note(() =>
            jjOk(
              ['--ignore-working-copy', 'workspace', 'forget', '--', this.workspace],
              this.ctx,
              'jj workspace forget',
            ),
          ),
        };
      case 'remove-files':
        return {
          note: null,
          removal: await removeManifest(this.record.target.destination, this.record.manifest.entries, {
            format: 'sha1',
            maxFileBytes: this.record.manifest.max_file_bytes,
            parentId: this.record.target.parent_identity,
            isStopped: hooks.isStopped,
            afterEntry: hooks.afterEntry,
          }),
        };
      default:
        throw new Error(`jj retirement has no ${effect.type} effect`);
    }
  }

  async recheck(effect: RetirementEffect): Promise<Recheck> {
    const record = this.record;
    try {
      const loaded = await loadTask(this.options.stateDir, record.task.task_id, this.key);
      if (loaded.integrity !== record.task.record_integrity || !isJjTask(loaded))
        return failed('ownership-changed', `task ${record.task.task_id}'s record changed since planning`);
      checkOwnership(loaded, record.task.owner);
      const op = await readCurrentOperation(this.ctx);
      if (op !== this.expectedOp)
        return failed(
          'stale-proof',
          `jj is at operation ${op}, not ${this.expectedOp}: another jj operation ran since ${this.expectedOp === record.jj.operation_id ? 'planning' : 'the last verified effect'}${await this.changesSince(op)}`,
        );
      if (effect.type === 'remove-files') return await this.recheckFiles(op);
      return await this.recheckWorkspace(loaded, effect);
    } catch (error) {
      return recheckError(error);
    }
  }

  private changesSince(op: string): Promise<string> {
    return this.changesBetween(this.expectedOp, op, this.ctx);
  }

  /** The bookmark and workspace changes from one operation to another, for a message; '' when none or unreadable. */
  private async changesBetween(from: string, to: string, ctx: JjCallContext): Promise<string> {
    try {
      const problems = unexpectedChanges(await readView(from, ctx), await readView(to, ctx), {
        created: [],
        deleted: [],
      });
      return problems.length === 0 ? '' : ` (${problems.slice(0, 3).join('; ')})`;
    } catch {
      return '';
    }
  }

  /** Before the pin and the forget: the whole eligibility again, at the expected operation, and nothing moved. */
  private async recheckWorkspace(loaded: LoadedJjTask, effect: RetirementEffect): Promise<Recheck> {
    const record = this.record;
    const obs = await observeJjRetirement(
      loaded,
      this.plan.repository!.path,
      this.plan.base.selector,
      this.ctx,
    );
    if (obs.operationId !== this.expectedOp)
      return failed(
        'stale-proof',
        `another jj operation ran while the workspace was observed (${obs.operationId})`,
      );
    if (obs.base.commit !== this.plan.base.oid)
      return failed(
        'base-moved',
        `base ${this.plan.base.selector} is now at ${obs.base.commit}, not ${this.plan.base.oid}`,
      );
    const planned = record.jj.workspace.observed;
    if (
      planned === null ||
      obs.listed === undefined ||
      obs.listed.commit_id !== planned.commit_id ||
      obs.listed.change_id !== planned.change_id ||
      JSON.stringify(obs.listed.parents) !== JSON.stringify(planned.parents)
    )
      return failed(
        'stale-proof',
        `the workspace ${this.workspace} is not at the planned working-copy commit`,
      );
    const blockers = jjRetirementBlockers(
      loaded,
      obs,
      { removeRegistration: true, removeFiles: record.selection.remove_files },
      this.options.bounds?.maxEntries ?? record.manifest.max_entries,
    );
    const first = blockers[0];
    if (first !== undefined)
      return failed(
        'stale-proof',
        `${first.code}${first.path === null ? '' : ` ${first.path}`}: ${first.message}`,
      );
    const entries = obs.manifest?.entries ?? [];
    if (!sameManifest(record.manifest.entries, entries))
      return failed(
        'stale-proof',
        `the destination differs from the planned manifest: ${manifestDifference(record.manifest.entries, entries) ?? 'changed'}`,
      );
    if (JSON.stringify(obs.registration) !== JSON.stringify(record.registration.observed))
      return failed('stale-proof', 'the workspace metadata differs from the plan');
    if (effect.type === 'remove-registration' && !(await this.isPinPresent()))
      return failed('manual-review-required', `the recovery bookmark ${this.pin} is not in place`);
    return { ok: true };
  }

  /** Before the files: the workspace forgotten, the pin in place, the destination the recorded directory. */
  private async recheckFiles(op: string): Promise<Recheck> {
    const target = this.record.target;
    if (
      (await readWorkspaces(op, this.ctx)).some(
        (w) => w.name === this.workspace || w.root === target.destination,
      )
    )
      return failed('stale-proof', `jj lists a workspace at ${target.destination} again`);
    if (!(await this.isPinPresent()))
      return failed('manual-review-required', `the recovery bookmark ${this.pin} is not in place`);
    const chain = await checkDirectoryChain(target.destination);
    if (chain.problem !== null || chain.id === null || !sameId(chain.id, target.destination_identity))
      return failed('stale-proof', `${target.destination} is not the directory task create made`);
    const parent = await checkDirectoryChain(dirname(target.destination));
    if (parent.id === null || !sameId(parent.id, target.parent_identity))
      return failed('stale-proof', "the destination's parent folder was replaced");
    return { ok: true };
  }
}

/** `after` with workspace NAME as it was in `before`, when it is gone now (the one change forget makes). */
function withWorkspace(after: JjView, name: string, before: JjView): JjView {
  const was = before.workspaces.get(name);
  if (was === undefined || after.workspaces.has(name)) return after;
  return { ...after, workspaces: new Map([...after.workspaces, [name, was]]) };
}
