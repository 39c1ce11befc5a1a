/**
 * Retirement apply on Git: git's pin, own-lock and registration effects with git's own
 * view as the recheck, run by the generic retirement run (`src/tidy/retire/apply.ts`).
 */
import { sameId } from '../../../../core/confined-fs.js';
import { Deadline } from '../../../../core/deadline.js';
import { RefusalError } from '../../../../core/errors.js';
import type { LoadedGitTask } from '../../../../task/store.js';
import { bindingMismatch } from '../../../engine/binding.js';
import { INSPECTION_GRACE_MS } from '../../../engine/limits.js';
import {
  inspectFilesRemoval,
  type PreparedRetirement,
  RETIREMENT_APPLY_LIMITATIONS,
  type Recheck,
  type RetirementApplyOptions,
  type RetirementProtocol,
  recheckError,
} from '../../../retire/apply.js';
import { Blockers } from '../../../retire/decide.js';
import {
  manifestDifference,
  type RemovalReport,
  removeManifest,
  sameManifest,
} from '../../../retire/manifest.js';
import { checkOwnership } from '../../../retire/plan.js';
import {
  type GitRetirementRecord,
  isGitRetirementRecord,
  type RetirementEffect,
  type RetirementEffectType,
  type TidyPlanV2,
} from '../../../retire/types.js';
import { checkStateDir } from '../../../store.js';
import {
  type NativeInspection,
  type RepositoryBinding,
  type RetirementBackend,
  type RetirementNativeContext,
  recoveryRefFor,
  type TidyBounds,
} from '../../../types.js';
import type { RetirementPrepareInputs } from '../../backend.js';
import { readGitBinding } from '../binding.js';
import { restoreCommand } from '../effects.js';
import type { GitCallContext } from '../observe.js';
import { loadGitTask } from '../task/record.js';
import { ADMIN_ALLOWED, reflogBlockers, retirementBlockers } from './decide.js';
import { gitRetirementBackend } from './effects.js';
import { observeRetirement, type RetirementObservation } from './observe.js';
import { checkSource } from './plan.js';

const EFFECT_ORDER: readonly RetirementEffectType[] = [
  'pin-recovery-ref',
  'remove-files',
  'remove-own-lock',
  'remove-registration',
];

/** The effects must be exactly what the planner writes for this record: ids in order, types in order, the plan's own pin. */
function checkEffects(plan: TidyPlanV2, record: GitRetirementRecord): void {
  const bad = (why: string) => new RefusalError('tampered-plan', `plan record ${plan.plan_id} ${why}`);
  let last = -1;
  record.effects.forEach((effect, index) => {
    const order = EFFECT_ORDER.indexOf(effect.type);
    if (effect.effect_id !== index + 1 || order <= last)
      throw bad(`has an unexpected effect at position ${index + 1}`);
    last = order;
  });
  const types = record.effects.map((effect) => effect.type);
  if (
    types[0] !== 'pin-recovery-ref' ||
    !types.includes('remove-files') ||
    types[types.length - 1] !== 'remove-registration'
  )
    throw bad('lacks the pin, files or registration effect');
  const pin = record.effects[0]!;
  if (pin.recovery_ref !== recoveryRefFor(plan.plan_id, 1) || pin.oid !== record.target.tip_oid)
    throw bad('names an unexpected recovery ref');
  const files = record.effects.find((effect) => effect.type === 'remove-files')!;
  if (files.root !== record.target.destination || record.selection.remove_files !== record.target.destination)
    throw bad('removes files other than the recorded destination');
}

/**
 * The repository at the plan's path is the one the plan was made for (docs/tidy.md,
 * "Stored plans"): a repository recloned, replaced or moved there refuses.
 */
async function checkPlanBinding(
  plan: TidyPlanV2,
  planned: RepositoryBinding,
  ctx: Omit<GitCallContext, 'cwd'>,
): Promise<void> {
  const repository = plan.repository!;
  const now = await readGitBinding(repository.common_dir, plan.base.oid!, { ...ctx, cwd: repository.path });
  const mismatch = bindingMismatch(planned, now);
  if (mismatch !== null)
    throw new RefusalError(
      'repository-changed',
      `the repository at ${JSON.stringify(repository.path)} is not the one plan ${plan.plan_id} was made for: ${mismatch}`,
    );
}

/** Checks a stored Git retirement plan against the store and the repository, and makes its protocol. */
export async function prepareGitRetirement(inputs: RetirementPrepareInputs): Promise<PreparedRetirement> {
  const { plan, key, options, bounds, deadline } = inputs;
  const storedRecord = plan.retirement!;
  if (!isGitRetirementRecord(storedRecord))
    throw new RefusalError('tampered-plan', `plan record ${plan.plan_id} is not a Git retirement plan`);
  const record = storedRecord;
  checkEffects(plan, record);
  await checkStateDir(options.stateDir, [
    plan.repository?.toplevel ?? '',
    plan.repository?.git_dir ?? '',
    plan.repository?.common_dir ?? '',
    record.target.destination,
  ]);
  const loaded = await loadGitTask(options.stateDir, record.task.task_id, key);
  await checkPlanBinding(plan, inputs.binding, { deadline, bounds, signal: options.signal });
  return {
    record,
    protocol: new GitRetirementProtocol(plan, record, loaded, key, options, bounds, deadline),
    restoreCommand: restoreCommand(record.target.branch, record.effects[0]!.recovery_ref!),
    limitations: RETIREMENT_APPLY_LIMITATIONS,
  };
}

/** The Git protocol: git's worktree, lock and ref effects, checked with git's own view. */
class GitRetirementProtocol implements RetirementProtocol {
  private readonly backend: RetirementBackend;

  constructor(
    private readonly plan: TidyPlanV2,
    private readonly record: GitRetirementRecord,
    private loaded: LoadedGitTask,
    private readonly key: Buffer,
    private readonly options: RetirementApplyOptions,
    private readonly bounds: TidyBounds,
    private readonly deadline: Deadline,
  ) {
    this.backend = options.backend ?? gitRetirementBackend;
  }

  private native(grace = false): RetirementNativeContext {
    return {
      cwd: this.plan.repository!.path,
      deadline: grace ? Deadline.after(INSPECTION_GRACE_MS) : this.deadline,
      maxBytes: this.bounds.maxOutputBytes,
    };
  }

  async isPinPresent(): Promise<boolean> {
    const pin = this.record.effects[0]!;
    return (await this.backend.inspectPin(pin.recovery_ref!, pin.oid!, this.native(true))).state === 'done';
  }

  async perform(
    effect: RetirementEffect,
    hooks: { isStopped: () => boolean; afterEntry: () => Promise<void> },
  ): Promise<{ note: string | null; removal?: RemovalReport }> {
    const ctx = this.native();
    const adminDir = this.record.registration.recorded.admin_dir;
    let note: string | null = null;
    let removal: Awaited<ReturnType<typeof removeManifest>> | undefined;
    switch (effect.type) {
      case 'pin-recovery-ref':
        note = await this.backend.pin(effect.recovery_ref!, effect.oid!, this.record.target.branch, ctx);
        break;
      case 'remove-files':
        removal = await removeManifest(this.record.target.destination, this.record.manifest.entries, {
          format: this.record.source.object_format,
          maxFileBytes: this.record.manifest.max_file_bytes,
          parentId: this.record.target.parent_identity,
          isStopped: hooks.isStopped,
          afterEntry: hooks.afterEntry,
        });
        break;
      case 'remove-own-lock':
        note = await this.backend.removeOwnLock(this.record.target.destination, adminDir, effect.lock!, ctx);
        break;
      case 'remove-registration':
        note = await this.backend.removeRegistration(this.record.target.destination, adminDir, ctx);
        break;
    }
    return removal === undefined ? { note } : { note, removal };
  }

  /** What the world shows for one effect now. */
  async inspect(effect: RetirementEffect): Promise<NativeInspection> {
    const ctx = this.native(true);
    const adminDir = this.record.registration.recorded.admin_dir;
    switch (effect.type) {
      case 'pin-recovery-ref':
        return this.backend.inspectPin(effect.recovery_ref!, effect.oid!, ctx);
      case 'remove-files':
        return this.inspectFiles();
      case 'remove-own-lock':
        return this.backend.inspectLock(adminDir, effect.lock!, ctx);
      case 'remove-registration':
        return this.backend.inspectRegistration(this.record.target.destination, adminDir, ctx);
    }
  }

  /** Files: gone from the recorded parent (done), all there exactly as planned (not-done), or anything else. */
  inspectFiles(): Promise<NativeInspection> {
    return inspectFilesRemoval(this.record);
  }

  /** Ownership, integration, registration and the files (present as planned, or gone) again. */
  async recheck(effect: RetirementEffect): Promise<Recheck> {
    const record = this.record;
    let obs: RetirementObservation;
    try {
      const loaded = await loadGitTask(this.options.stateDir, record.task.task_id, this.key);
      if (loaded.integrity !== record.task.record_integrity)
        return {
          ok: false,
          code: 'ownership-changed',
          message: `task ${record.task.task_id}'s record changed since planning`,
        };
      checkOwnership(loaded, record.task.owner);
      this.loaded = loaded;
      obs = await observeRetirement(loaded, this.plan.repository!.path, this.plan.base.selector, {
        deadline: this.deadline,
        bounds: this.bounds,
        signal: this.options.signal,
      });
      checkSource(loaded, obs);
    } catch (error) {
      return recheckError(error);
    }
    if (obs.base.oid !== this.plan.base.oid)
      return {
        ok: false,
        code: 'base-moved',
        message: `base ${this.plan.base.selector} is now at ${obs.base.oid}, not the planned ${this.plan.base.oid}`,
      };
    if (obs.branchOid !== record.target.tip_oid || obs.ancestor.value !== true)
      return {
        ok: false,
        code: 'stale-proof',
        message: `${record.target.branch} is now at ${obs.branchOid ?? 'nothing'} (planned ${record.target.tip_oid}); integration must be proved again`,
      };
    if (effect.type !== 'pin-recovery-ref') {
      const pin = this.record.effects[0]!;
      const found = await this.backend.inspectPin(pin.recovery_ref!, pin.oid!, this.native());
      if (found.state !== 'done')
        return {
          ok: false,
          code: 'manual-review-required',
          message: `the recovery pin is not in place: ${found.detail}`,
        };
    }
    if (effect.type === 'pin-recovery-ref' || effect.type === 'remove-files') return this.recheckPresent(obs);
    return this.recheckRemoved(obs, effect);
  }

  /** Before the pin and the files: nothing blocks, and the manifest is exactly the planned one. */
  private recheckPresent(obs: RetirementObservation): Recheck {
    const record = this.record;
    const blockers = retirementBlockers(
      this.loaded,
      obs,
      { removeRegistration: true, removeFiles: record.selection.remove_files },
      this.bounds.maxEntries,
    );
    const first = blockers[0];
    if (first !== undefined)
      return {
        ok: false,
        code: 'stale-proof',
        message: `${first.code}${first.path === null ? '' : ` ${first.path}`}: ${first.message}`,
      };
    const entries = obs.manifest?.entries ?? [];
    if (!sameManifest(record.manifest.entries, entries))
      return {
        ok: false,
        code: 'stale-proof',
        message: `the destination differs from the planned manifest: ${manifestDifference(record.manifest.entries, entries) ?? 'changed'}`,
      };
    if (JSON.stringify(obs.registration) !== JSON.stringify(record.registration.observed))
      return { ok: false, code: 'stale-proof', message: 'the registration differs from the plan' };
    return { ok: true };
  }

  /** After the files: the destination gone from its parent, the registration still exactly ours. */
  private recheckRemoved(obs: RetirementObservation, effect: RetirementEffect): Recheck {
    const record = this.record;
    const recorded = record.registration.recorded;
    if (obs.destination.exists || obs.destination.problem !== null)
      return { ok: false, code: 'stale-proof', message: `${record.target.destination} exists again` };
    if (obs.parentIdentity === null || !sameId(obs.parentIdentity, record.target.parent_identity))
      return { ok: false, code: 'stale-proof', message: "the destination's parent folder was replaced" };
    if (obs.adminIdentity === null || !sameId(obs.adminIdentity, recorded.admin_dir_identity))
      return {
        ok: false,
        code: 'stale-proof',
        message: `the admin dir ${recorded.admin_dir} is not the recorded one`,
      };
    const unexpected = (obs.adminEntries ?? []).filter((name) => !ADMIN_ALLOWED.has(name));
    if (unexpected.length > 0)
      return {
        ok: false,
        code: 'stale-proof',
        message: `unexpected worktree metadata appeared: ${recorded.admin_dir}/${unexpected[0]}`,
      };
    const reflog = new Blockers(1);
    reflogBlockers(recorded.admin_dir, obs, reflog);
    const lost = reflog.list[0];
    if (lost !== undefined)
      return { ok: false, code: 'stale-proof', message: `${lost.code}: ${lost.message}` };
    if (obs.listed === undefined || obs.listed.branch !== record.target.branch)
      return { ok: false, code: 'stale-proof', message: 'git no longer lists the task worktree as planned' };
    const lock = obs.listed.locked;
    if (effect.type === 'remove-own-lock' && lock !== effect.lock)
      return {
        ok: false,
        code: 'lock-not-owned',
        message: `the worktree lock is not the one task create wrote (${recorded.admin_dir}/locked)`,
      };
    if (effect.type === 'remove-registration' && lock !== undefined)
      return {
        ok: false,
        code: 'lock-not-owned',
        message: `the worktree is locked again (${recorded.admin_dir}/locked); only the lock task create wrote is ever removed`,
      };
    return { ok: true };
  }
}
