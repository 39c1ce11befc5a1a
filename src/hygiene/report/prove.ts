/**
 * Proofs of auto edits (docs/report-schema.md: an auto entry must be provable). A link fix — a
 * `replace-text` whose evidence is broken references, the only replacement that is auto — is
 * applied to the file's text in memory and its references are resolved again with the
 * scanner's resolver, fragments included. A fix that does not make the reference resolve, or
 * breaks another, is dropped: the signal stays listed as unresolved.
 */
import type { Deadline } from '../../core/deadline.js';
import { loadConfig } from '../config.js';
import { type DocWorld, disproveLinkFix, readDocWorld, worldOf } from '../references.js';
import type { Entry, Proposal } from '../types.js';
import { REFERENCE_SIGNALS } from '../types.js';

const isLinkFix = (p: Proposal) =>
  p.exact_edit?.kind === 'replace-text' &&
  p.signals.length > 0 &&
  p.signals.every((s) => REFERENCE_SIGNALS.has(s.name));

/** The proposals with every unprovable link fix removed; each removal is reported. */
export function proveLinkFixes(
  docs: DocWorld,
  proposals: readonly Proposal[],
  onDropped: (proposal: Proposal, reason: string) => void = () => {},
): Proposal[] {
  const world = worldOf(docs);
  return proposals.filter((proposal) => {
    if (!isLinkFix(proposal)) return true;
    const entry = {
      id: 'proof',
      path: proposal.path,
      op_type: 'deterministic',
      exact_edit: proposal.exact_edit,
    } as Entry;
    const why = docs.docs.has(proposal.path)
      ? disproveLinkFix(world, proposal.path, [entry])
      : 'the file is not a doc the scan reads';
    if (why === undefined) return true;
    onDropped(proposal, why);
    return false;
  });
}

/** A link fix that could not be proved, and why. */
export interface UnprovedFix {
  path: string;
  reason: string;
}

/**
 * `proveLinkFixes` against the project's docs as they are now (read with the project's
 * config): what `stw hygiene finalize` runs on a proposals file, as `check` does.
 */
export async function proveLinkFixesIn(
  root: string,
  proposals: readonly Proposal[],
  deadline?: Deadline,
  configFile?: string,
): Promise<{ proposals: Proposal[]; unproved: UnprovedFix[] }> {
  const world = await readDocWorld(root, await loadConfig(root, process.env, configFile), deadline);
  const unproved: UnprovedFix[] = [];
  const proved = proveLinkFixes(world, proposals, (proposal, reason) =>
    unproved.push({ path: proposal.path, reason }),
  );
  return { proposals: proved, unproved };
}
