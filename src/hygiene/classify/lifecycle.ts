/**
 * Lifecycle proposals (docs/lifecycle.md): a `delete-path` for every unit whose rule the
 * scanner proved satisfied — a temporary unit past retention and age, or a
 * `served_when_path` that exists. A `served_when` unit needs a judgment, so code proposes
 * nothing for it; a model or the plugin may, and that entry is always `confirm`.
 */
import { type LifecycleUnit, mayBeDeleted } from '../scan/lifecycle.js';
import type { Proposal, ScanArtifact } from '../types.js';

/** The units code may propose deleting on its own evidence. */
export function isProvedDeletable(unit: LifecycleUnit): boolean {
  return unit.decision === 'eligible' || unit.decision === 'served';
}

/** Units a proposal may name for a `delete-path`: the proved ones plus those awaiting a judgment. */
export function isDeletableUnit(unit: LifecycleUnit): boolean {
  return mayBeDeleted(unit);
}

export function proposeLifecycleDeletions(artifact: ScanArtifact): Proposal[] {
  return (artifact.lifecycle ?? []).filter(isProvedDeletable).map((unit) => ({
    path: unit.path,
    category: { class: 'stale', subtype: unit.decision === 'served' ? 'served' : 'expired' },
    signals: [],
    op: `delete ${unit.type === 'directory' ? 'folder' : 'file'} ${unit.path} (lifecycle rule ${unit.rule})`,
    op_type: 'deterministic',
    exact_edit: { kind: 'delete-path', recursive: unit.type === 'directory' },
    confidence: 1,
    why: unit.evidence,
  }));
}
