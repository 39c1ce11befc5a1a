import { formatInstant } from '../../../core/clock.js';
import { THRESHOLDS } from '../thresholds.js';
import type { SignalModule } from './types.js';

/** The doc's last commit is older than much churn to the paths it references. */
export const editRecencyVsChurn: SignalModule = {
  name: 'edit_recency_vs_churn',
  scope: 'docs',
  description: `${THRESHOLDS.churnCommits} commits to what a doc references since its last commit`,
  shownByDefault: false,
  needs: ['history'],
  collect({ history }, emit) {
    const incomplete = new Set(history.incomplete.map((h) => h.path));
    for (const [path, s] of history.churn) {
      if (incomplete.has(path)) continue;
      const last = history.lastCommit.get(path);
      if (last === undefined) continue;
      if (s.commits < THRESHOLDS.churnCommits) continue;
      emit(path, {
        detail: `last edited ${formatInstant(new Date(last * 1000))}; ${s.commits} commits to what it references since`,
        data: {
          last_commit: formatInstant(new Date(last * 1000)),
          commits_since: s.commits,
          referenced_paths: [...s.paths].sort(),
        },
      });
    }
  },
};
