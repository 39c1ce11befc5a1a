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
  /**
   * `context_growth`: an agent-context file of this many lines or more is followed over its
   * last `contextGrowthWindow` commits; it fires when at least `contextGrowthMinRising` of
   * them added lines, none took back more than a tenth of it, and it grew by
   * `contextGrowthMinRatio` of its size and `contextGrowthMinAdded` lines.
   */
  contextGrowthMinLines: 40,
  /** `directory_map_drift`: commits to the folders a map lists since the file's last commit. */
  mapChurnCommits: 25,
  contextGrowthWindow: 12,
  contextGrowthMinRising: 0.6,
  contextGrowthMinRatio: 0.5,
  contextGrowthMinAdded: 40,
  /** Claude Code expands `@imports` this many hops deep (the loading model in context/agents.ts). */
  importHops: agentModel('claude-code').imports?.maxHops ?? 5,
} as const;
