import type { Finding } from './findings.js';

/** A finding the gate counts is an error; any other (or every one, with no gate) a warning. */
export function findingLevel(
  finding: Finding,
  isCounted?: (finding: Finding) => boolean,
): 'error' | 'warning' {
  return isCounted?.(finding) === true ? 'error' : 'warning';
}
