/**
 * What `check` and `scan` report in CI (docs/ci.md): the findings, narrowed by PATH…,
 * `--changed-since` and `--baseline`, then judged by the gate. Data only; the formats
 * (`text`, `json`, `sarif`, `github`) render it.
 */
import { type ChangedLines, isChanged } from './changed.js';
import type { Finding } from './findings.js';
import { evaluateGate, type GateOptions, type GateResult, isCounted } from './gate.js';

export type { ChangedLines } from './changed.js';
export { readChangedLines } from './changed.js';
export { collectFindings, type Finding, findingLocation } from './findings.js';
export { GATE_EXIT_CODE, parseFailOn, parseMaxFindings } from './gate.js';

export interface FindingFilters {
  /** Only findings on these root-relative paths (`check PATH…`). */
  paths?: ReadonlySet<string>;
  /** Only findings on lines changed since a revision. */
  changed?: ChangedLines;
  /** Fingerprints of a saved run: findings in it are left out. */
  baseline?: ReadonlySet<string>;
}

export interface SelectedFindings {
  findings: Finding[];
  /** Findings left out because the baseline has them. */
  baselined: number;
  /** Findings left out by PATH… or `--changed-since`. */
  outside: number;
  gate: GateResult | undefined;
  /** True for a finding the gate counts (rendered as an error); always false without a gate. */
  isCounted: (finding: Finding) => boolean;
}

/** Narrows the findings and judges them by the gate. */
export function selectFindings(
  all: readonly Finding[],
  filters: FindingFilters,
  gate: GateOptions,
): SelectedFindings {
  const inside = all.filter(
    (finding) =>
      (filters.paths === undefined || filters.paths.has(finding.path)) &&
      (filters.changed === undefined || isChanged(finding, filters.changed)),
  );
  const findings = inside.filter((finding) => !filters.baseline?.has(finding.fingerprint));
  const verdict = evaluateGate(findings, gate);
  const failOn = gate.failOn ?? { level: 'signals' as const };
  return {
    findings,
    baselined: inside.length - findings.length,
    outside: all.length - inside.length,
    gate: verdict,
    isCounted: (finding) => verdict !== undefined && isCounted(finding, failOn),
  };
}
export { type FindingGroups, groupFindings } from './groups.js';
