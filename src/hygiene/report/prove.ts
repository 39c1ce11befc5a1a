/**
 * Proofs of auto edits (SPEC §2.5: an auto entry must be provable). A link fix — a
 * `replace-text` whose evidence is broken references, the only replacement that is auto — is
 * applied to the file's text in memory and its references are resolved again with the
 * scanner's resolver, fragments included. A fix that does not make the reference resolve, or
 * breaks another, is dropped: the signal stays listed as unresolved.
 */
import { type DocWorld, disproveLinkFix, worldOf } from '../references.js';
import type { Entry, Proposal } from '../types.js';

const isLinkFix = (p: Proposal) =>
  p.exact_edit?.kind === 'replace-text' &&
  p.signals.length > 0 &&
  p.signals.every((s) => s.name === 'broken_reference');

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
