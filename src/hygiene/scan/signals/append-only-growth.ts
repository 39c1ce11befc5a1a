import { lineCount } from '../markdown.js';
import { THRESHOLDS } from '../thresholds.js';
import type { SignalModule } from './types.js';

/** A non-log doc whose history is almost only appended lines, grown past a size threshold. */
export const appendOnlyGrowth: SignalModule = {
  name: 'append_only_growth',
  scope: 'docs',
  description: `${THRESHOLDS.appendMinCommits}+ commits, ${THRESHOLDS.appendMinRatio * 100}% of them only appending, and ${THRESHOLDS.appendMinLines}+ lines`,
  // Hidden: 0 of 2 sampled were worth a look (feature guides and reference pages that grow as
  // features land; issue 31's bench and holdout set). `context_weight` still drives distill.
  shownByDefault: false,
  needs: ['history'],
  collect({ facts, history }, emit) {
    const incomplete = new Set(history.incomplete.map((h) => h.path));
    for (const [path, g] of history.growth) {
      if (incomplete.has(path)) continue;
      const ratio = g.commits === 0 ? 0 : g.appendOnly / g.commits;
      if (g.commits < THRESHOLDS.appendMinCommits || ratio < THRESHOLDS.appendMinRatio) continue;
      const { text } = facts.docs.get(path)!;
      const lines = text.endsWith('\n') ? lineCount(text) - 1 : lineCount(text);
      if (lines < THRESHOLDS.appendMinLines) continue;
      emit(path, {
        detail: `${g.appendOnly} of ${g.commits} commits only added lines; ${lines} lines now`,
        data: { commits: g.commits, appended_ratio: Math.round(ratio * 1000) / 1000, lines },
      });
    }
  },
};
