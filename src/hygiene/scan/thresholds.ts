import { agentModel } from './context/agents.js';

/** Thresholds of the scanner's signals (exported so tests and docs can name them). */
export const THRESHOLDS = {
  /**
   * `edit_recency_vs_churn`: commits to referenced paths since the doc's last commit. Churn is
   * counted in commits, not lines: line counts would make the history pass diff every blob.
   */
  churnCommits: 10,
  appendMinCommits: 5,
  appendMinRatio: 0.8,
  appendMinLines: 200,
  /** Claude Code expands `@imports` this many hops deep (the loading model in context/agents.ts). */
  importHops: agentModel('claude-code').imports?.maxHops ?? 5,
} as const;
