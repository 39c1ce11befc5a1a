/**
 * The findings of `check` grouped by what a person does with them (docs/hygiene-check.md):
 * - `fix`: an entry with an exact edit (auto or confirm) that `clean` applies;
 * - `review`: an entry whose change is a judgment (a generative rewrite to read first);
 * - `look`: a signal no entry carries, to look at by hand.
 * Data only; the CLI renders the top of each group.
 */
import type { Entry } from '../types.js';
import type { Finding } from './findings.js';

export interface FindingGroups {
  fix: Finding[];
  review: Finding[];
  look: Finding[];
}

/** Splits `findings` (in their order) by what their entry, if any, asks of a person. */
export function groupFindings(findings: readonly Finding[], entries: readonly Entry[]): FindingGroups {
  const judged = new Set(entries.filter((e) => e.op_type === 'generative').map((e) => e.id));
  const groups: FindingGroups = { fix: [], review: [], look: [] };
  for (const finding of findings) {
    if (finding.entry === undefined) groups.look.push(finding);
    else if (judged.has(finding.entry.id)) groups.review.push(finding);
    else groups.fix.push(finding);
  }
  return groups;
}
