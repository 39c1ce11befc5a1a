/**
 * Retirement decisions every backend shares (pure): the blocker collector, the
 * destination's identity checks, and the actions' decisions from the blockers (any
 * blocker retains the whole retirement). Each backend's own blockers are in its folder
 * (`backends/<name>/retire/decide.ts`). Blocker paths are absolute.
 */
import { type PhysicalId, sameId } from '../../core/confined-fs.js';
import type { RetirementAction, RetirementBlocker, RetirementBlockerCode } from './types.js';

export interface RetirementSelection {
  removeRegistration: boolean;
  /** The destination, when files removal is selected. */
  removeFiles: string | null;
}

/** Collects blockers, once per code and path, up to the bound. */
export class Blockers {
  readonly list: RetirementBlocker[] = [];
  private readonly seen = new Set<string>();
  constructor(private readonly limit: number) {}
  add(code: RetirementBlockerCode, path: string | null, message: string): void {
    const key = `${code}\0${path ?? ''}`;
    if (this.seen.has(key) || this.list.length >= this.limit) return;
    this.seen.add(key);
    this.list.push({ code, path, message });
  }
}

/** Blockers on the registration: the `.git` file, the admin dir, git's entry, the lock. */
/** What the destination and its parent must still be: the directories task create made and recorded. */
export function destinationBlockers(
  destination: string,
  created: { destination_identity: PhysicalId; parent_identity: PhysicalId },
  obs: {
    destination: { exists: boolean; identity: PhysicalId | null; problem: string | null };
    parentIdentity: PhysicalId | null;
  },
  out: Blockers,
): void {
  if (obs.destination.problem !== null)
    out.add(
      'symlink',
      destination,
      `the destination is not reached through real directories: ${obs.destination.problem}`,
    );
  else if (!obs.destination.exists)
    out.add('destination-missing', destination, 'the destination does not exist');
  else if (
    obs.destination.identity === null ||
    !sameId(obs.destination.identity, created.destination_identity)
  )
    out.add(
      'destination-replaced',
      destination,
      'the destination is another directory than the one task create made (device/inode differ)',
    );
  if (obs.parentIdentity === null || !sameId(obs.parentIdentity, created.parent_identity))
    out.add(
      'destination-replaced',
      destination,
      "the destination's parent folder is not the one recorded at creation",
    );
}

/** The selected actions and their decisions: with any blocker both retain. */
export function retirementActions(
  selection: RetirementSelection,
  blockers: readonly RetirementBlocker[],
): RetirementAction[] {
  const reasons = [...new Set(blockers.map((blocker) => blocker.code))];
  const decision = reasons.length === 0 ? 'retire' : 'retain';
  const actions: RetirementAction[] = [];
  if (selection.removeRegistration) actions.push({ action: 'remove-registration', decision, reasons });
  if (selection.removeFiles !== null) actions.push({ action: 'remove-files', decision, reasons });
  return actions;
}
