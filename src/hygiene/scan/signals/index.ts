import type { SignalName } from '../../types.js';
import { appendOnlyGrowth } from './append-only-growth.js';
import { archiveToLiveRatio } from './archive-to-live-ratio.js';
import { brokenReference } from './broken-reference.js';
import { contextWeight } from './context-weight.js';
import { duplicateContent } from './duplicate-content.js';
import { editRecencyVsChurn } from './edit-recency-vs-churn.js';
import { frontmatterMarker } from './frontmatter-marker.js';
import { staleNameLocation } from './stale-name-location.js';
import type { SignalModule } from './types.js';
import { versionSkew } from './version-skew.js';

export type { EmitSignal, SignalInput, SignalModule, SignalNeed } from './types.js';

/** Every scanner signal, in the order they run. */
export const SIGNAL_MODULES: readonly SignalModule[] = [
  brokenReference,
  versionSkew,
  editRecencyVsChurn,
  appendOnlyGrowth,
  staleNameLocation,
  archiveToLiveRatio,
  frontmatterMarker,
  duplicateContent,
  contextWeight,
];

/** History-based signals: unavailable without a full history. */
export const HISTORY_SIGNALS: readonly SignalName[] = SIGNAL_MODULES.filter((m) =>
  m.needs.includes('history'),
).map((m) => m.name);
