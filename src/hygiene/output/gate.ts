/**
 * The CI gate of `check` and `scan` (docs/ci.md): which findings count (`--fail-on`) and how
 * many may stand (`--max-findings`). Pure: the CLI turns a failed gate into exit code 3.
 */
import { UsageError } from '../../core/errors.js';
import { quote } from '../../core/quote.js';
import { SIGNAL_NAMES, type SignalName } from '../types.js';
import type { Finding } from './findings.js';

/** Exit code of a run whose findings are over the gate: distinct from 1 (refusal) and 2 (usage). */
export const GATE_EXIT_CODE = 3;

export type FailOn =
  /** Every finding (every signal). */
  | { level: 'signals' }
  /** Findings a report entry carries (a proposed fix, auto or confirm). */
  | { level: 'entries' }
  /** Findings an auto entry carries (a fix `stw hygiene clean` applies unasked). */
  | { level: 'auto' }
  /** Findings of the named signals. */
  | { level: 'rules'; rules: ReadonlySet<SignalName> };

export interface GateOptions {
  failOn?: FailOn;
  /** How many counted findings may stand; absent with `failOn`: none. */
  maxFindings?: number;
}

export interface GateResult {
  /** What counted, as the user named it (`signals`, `auto`, `broken_reference,version_skew`). */
  fail_on: string;
  /** Findings the gate counts (after `--baseline`, `--changed-since` and PATH…). */
  counted: number;
  max_findings: number;
  failed: boolean;
}

/** Parses `--fail-on`: `signals`, `entries`, `auto`, or a comma-separated list of signal names. */
export function parseFailOn(text: string, hasEntries: boolean): FailOn {
  if (text === 'signals') return { level: 'signals' };
  if (text === 'entries' || text === 'auto') {
    if (!hasEntries)
      throw new UsageError(
        `--fail-on ${text} needs a report`,
        "use it with 'stw hygiene check', or name signals",
      );
    return { level: text };
  }
  const names = text.split(',').map((name) => name.trim());
  const unknown = names.find((name) => !(SIGNAL_NAMES as readonly string[]).includes(name));
  if (unknown !== undefined)
    throw new UsageError(
      `unknown --fail-on value ${quote(unknown)}`,
      `use signals, entries, auto, or signal names: ${SIGNAL_NAMES.join(', ')}`,
    );
  return { level: 'rules', rules: new Set(names as SignalName[]) };
}

/**
 * The classes `--fail-on` names: shown in that run even when hidden by default or by
 * `signals: {NAME: off}` (a gate asked by name to count a class counts it; docs/ci.md).
 */
export function namedClasses(failOn: FailOn | undefined): { showSignals?: SignalName[] } {
  return failOn?.level === 'rules' ? { showSignals: [...failOn.rules] } : {};
}

/** Parses `--max-findings`: a whole number, 0 or more. */
export function parseMaxFindings(text: string): number {
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)))
    throw new UsageError(`--max-findings must be a whole number, not ${quote(text)}`);
  return Number(text);
}

/** True when the gate counts `finding`. */
export function isCounted(finding: Finding, failOn: FailOn): boolean {
  switch (failOn.level) {
    case 'signals':
      return true;
    case 'entries':
      return finding.entry !== undefined;
    case 'auto':
      return finding.entry?.safety_tier === 'auto';
    case 'rules':
      return failOn.rules.has(finding.rule);
  }
}

function describeFailOn(failOn: FailOn): string {
  return failOn.level === 'rules' ? [...failOn.rules].join(',') : failOn.level;
}

/** The gate's verdict, or undefined when neither flag was given (today's exit codes stand). */
export function evaluateGate(findings: readonly Finding[], options: GateOptions): GateResult | undefined {
  if (options.failOn === undefined && options.maxFindings === undefined) return undefined;
  const failOn = options.failOn ?? { level: 'signals' };
  const counted = findings.filter((finding) => isCounted(finding, failOn)).length;
  const max = options.maxFindings ?? 0;
  return { fail_on: describeFailOn(failOn), counted, max_findings: max, failed: counted > max };
}
