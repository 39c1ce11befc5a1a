/**
 * The report's Lifecycle section: every unit a rule matched and what the rule decided,
 * deletable or not, so a person sees what is kept and why (docs/lifecycle.md).
 */
import type { LifecycleDecision, LifecycleUnit } from '../scan/lifecycle.js';
import { codeSpan, escapeMarkdown } from './report-md.js';

const DECISION_LABELS: Record<LifecycleDecision, string> = {
  eligible: 'deletable (expired)',
  served: 'deletable (served)',
  'needs-judgment': 'needs judgment (served_when)',
  'retain-recent': 'kept (among the newest)',
  'too-young': 'kept (not old enough)',
  'not-served': 'kept (not served yet)',
  keep: 'kept (lifetime keep)',
};

/** `## Lifecycle` for report.md, or '' when no rule is configured. */
export function renderLifecycleSection(units: readonly LifecycleUnit[] | undefined): string {
  if (units === undefined) return '';
  const lines = [`## Lifecycle (${units.length} matched)`, ''];
  if (units.length === 0) lines.push('No file or folder matches a lifecycle rule.');
  for (const unit of units) {
    const state = unit.tracked ? (unit.dirty ? 'tracked, dirty' : 'tracked, clean') : 'untracked';
    lines.push(
      `- ${codeSpan(unit.path)} — rule ${codeSpan(unit.rule)}: ${DECISION_LABELS[unit.decision]}; ${state}; ${escapeMarkdown(unit.evidence)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
