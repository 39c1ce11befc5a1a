import type { SignalName } from '../../types.js';
import { appendOnlyGrowth } from './append-only-growth.js';
import { archiveToLiveRatio } from './archive-to-live-ratio.js';
import { brokenReference, codeReference } from './broken-reference.js';
import { contextCoverage } from './context-coverage.js';
import { contextGrowth } from './context-growth.js';
import { contextIndexDrift } from './context-index-drift.js';
import { contextWeight } from './context-weight.js';
import { directoryMapDrift } from './directory-map-drift.js';
import { droppedToolClaim } from './dropped-tool-claim.js';
import { duplicateContent } from './duplicate-content.js';
import { editRecencyVsChurn } from './edit-recency-vs-churn.js';
import { frontmatterMarker } from './frontmatter-marker.js';
import { machineMarkers } from './machine-markers.js';
import { misnamedContextFile } from './misnamed-context-file.js';
import { nearDuplicate } from './near-duplicate.js';
import { repeatedBlock } from './repeated-block.js';
import { sessionNotes } from './session-notes.js';
import { staleNameLocation } from './stale-name-location.js';
import { staleNestedContext } from './stale-nested-context.js';
import { toolSpecificWording } from './tool-specific-wording.js';
import type { SignalModule } from './types.js';
import { versionSkew } from './version-skew.js';

export type { EmitSignal, SignalInput, SignalModule, SignalNeed } from './types.js';

/** Every scanner signal, in the order they run. */
export const SIGNAL_MODULES: readonly SignalModule[] = [
  brokenReference,
  codeReference,
  versionSkew,
  editRecencyVsChurn,
  appendOnlyGrowth,
  staleNameLocation,
  archiveToLiveRatio,
  frontmatterMarker,
  duplicateContent,
  contextWeight,
  // Agent context (docs/scanner-and-classifiers.md, "Agent-context signals").
  nearDuplicate,
  sessionNotes,
  contextGrowth,
  directoryMapDrift,
  contextCoverage,
  misnamedContextFile,
  contextIndexDrift,
  toolSpecificWording,
  repeatedBlock,
  machineMarkers,
  staleNestedContext,
  droppedToolClaim,
];

/** History-based signals: unavailable without a full history. */
export const HISTORY_SIGNALS: readonly SignalName[] = SIGNAL_MODULES.filter((m) =>
  m.needs.includes('history'),
).map((m) => m.name);
