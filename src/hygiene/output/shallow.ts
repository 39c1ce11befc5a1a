/** The one warning of a shallow clone, as the summary and report.md give it (docs/ci.md). */
export function shallowWarning(depth: number): string {
  return `history: shallow (depth ${depth}): history-based signals and link proofs are unavailable; fetch the whole history (actions/checkout: fetch-depth: 0)`;
}
