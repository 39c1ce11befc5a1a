/** Thresholds of the scanner's signals (exported so tests and docs can name them). */
export const THRESHOLDS = {
  /** `edit_recency_vs_churn`: commits to referenced paths since the doc's last commit. */
  churnCommits: 10,
  /** … or lines changed in them. */
  churnLines: 500,
  appendMinCommits: 5,
  appendMinRatio: 0.8,
  appendMinLines: 200,
  /** Claude Code expands `@imports` up to four hops. */
  importHops: 4,
} as const;
