/**
 * `context_growth`: an agent-context file that keeps growing by additions over its recent
 * history — a trend, not `append_only_growth`'s one cut-off (80% of commits appending,
 * 200 lines), so a file that grows a little slower or is still shorter is caught before it
 * gets there. Every session pays for what such a file accumulates.
 */
import { THRESHOLDS } from '../thresholds.js';
import { isAlias } from './context-files.js';
import type { SignalModule } from './types.js';

export interface GrowthTrend {
  commits: number;
  rising: number;
  falling: number;
  lines_before: number;
  lines_now: number;
}

/** The trend over the last `window` line counts (oldest first), or undefined when it is not growth. */
export function growthTrend(lineCounts: readonly number[], window = THRESHOLDS.contextGrowthWindow) {
  // From the first version on: a new file filling up as it is written is not a trend.
  const counts = lineCounts.slice(-window - 1);
  if (counts.length <= THRESHOLDS.appendMinCommits) return undefined;
  let rising = 0;
  let falling = 0;
  let worstDrop = 0;
  for (let i = 1; i < counts.length; i++) {
    const delta = counts[i]! - counts[i - 1]!;
    if (delta > 0) rising++;
    else if (delta < 0) {
      falling++;
      worstDrop = Math.max(worstDrop, -delta);
    }
  }
  const commits = counts.length - 1;
  const before = counts[0]!;
  const now = counts[counts.length - 1]!;
  const added = now - before;
  const isGrowth =
    rising / commits >= THRESHOLDS.contextGrowthMinRising &&
    worstDrop <= now / 10 &&
    added >= THRESHOLDS.contextGrowthMinAdded &&
    added >= THRESHOLDS.contextGrowthMinRatio * Math.max(before, 1);
  return isGrowth ? { commits, rising, falling, lines_before: before, lines_now: now } : undefined;
}

export const contextGrowth: SignalModule = {
  name: 'context_growth',
  scope: 'agent-context',
  description: `an agent-context file whose last ${THRESHOLDS.contextGrowthWindow} commits mostly added lines, growing by half or more`,
  // Hidden: under 0.9 measured (issue 31: 0 of 1 on the bench, a new package's guide filling up
  // over its first commits; 6 of 6 on the holdout set's agent-heavy repository: 6 of 7 pooled).
  // `signals: {context_growth: on}` shows it; `context_weight` reports the heavy files.
  shownByDefault: false,
  needs: ['history'],
  collect({ facts, history, whoLoads }, emit) {
    const incomplete = new Set(history.incomplete.map((h) => h.path));
    for (const [path, g] of history.growth) {
      if (incomplete.has(path) || g.lineCounts === undefined) continue;
      if (!whoLoads.isLoaded(path) && !facts.agentContext.has(path)) continue;
      if (isAlias(path, facts, whoLoads)) continue;
      // A file append_only_growth already reports is not reported twice.
      const lines = facts.docs.get(path)!.lines.length;
      const appendRatio = g.commits === 0 ? 0 : g.appendOnly / g.commits;
      if (appendRatio >= THRESHOLDS.appendMinRatio && lines >= THRESHOLDS.appendMinLines) continue;
      const trend = growthTrend(g.lineCounts);
      if (trend === undefined) continue;
      emit(path, {
        detail: `grew from ${trend.lines_before} to ${trend.lines_now} lines over its last ${trend.commits} commits; ${trend.rising} added lines, ${trend.falling} removed any`,
        data: { ...trend },
      });
    }
  },
};
