import type { HygieneConfig, Signal, SignalName } from '../../types.js';
import type { AgentContext } from '../context/loading.js';
import type { WhoLoads } from '../context/who-loads.js';
import type { ScanFacts } from '../facts.js';
import type { HistoryFacts } from '../history-facts.js';
import type { VersionFact } from '../manifests.js';

/**
 * What a signal reads besides the parsed docs (which every signal gets):
 * - `history`: the whole history; without it the signal is listed as unavailable;
 * - `renames`: rename history when there is any (the signal runs without it);
 * - `manifests`: the project's version facts (package.json, pyproject.toml, …).
 */
export type SignalNeed = 'history' | 'renames' | 'manifests';

export interface SignalInput {
  facts: ScanFacts;
  /** Always present; `complete` is false when history was not (fully) read. */
  history: HistoryFacts;
  /** Empty unless the signal needs `manifests`. */
  manifests: readonly VersionFact[];
  config: HygieneConfig;
  /** What each agent loads (context/agents.ts), as in the artifact's `agents`. */
  agents: readonly AgentContext[];
  /** The same facts by path: which agents load a file, at start-up or on demand. */
  whoLoads: WhoLoads;
  /** Whether a listed path is inside the scan's `--scope` (every path when none was given). */
  inScope: (path: string) => boolean;
}

/** Emits one signal of the module's own name on `path`. */
export type EmitSignal = (path: string, signal: Omit<Signal, 'name'>) => void;

/**
 * One scanner signal (docs/scanner-and-classifiers.md): its contract name, what it reads, and the function from
 * those to signals. A new signal is a new module listed in `signals/index.ts`.
 */
export interface SignalModule {
  name: SignalName;
  /**
   * Which files it reads: every scanned doc, or agent-context files only. The CLI help's
   * signal list is generated from it at build time (scripts/generate-signal-lists.mjs).
   */
  scope: 'docs' | 'agent-context';
  description: string;
  /**
   * Whether its findings are shown by default (docs/scanner-and-classifiers.md, "Which signals
   * are shown"). A hidden class is computed but withheld: counted in the summaries, never
   * shown or proposed for, until `--signals all` or `signals: {NAME: on}` shows it. Set from
   * the precision bench (bench/precision/): a class is shown at 0.9 measured precision or more.
   */
  shownByDefault: boolean;
  /**
   * Of a class shown by default, the findings held back all the same (counted as hidden, shown
   * by `--signals all` or `signals: {NAME: on}`): the part of the class that measured under 0.9
   * on the bench (a backticked path with weak evidence, a link in a generated doc).
   */
  heldBack?: (path: string, signal: Signal) => boolean;
  needs: readonly SignalNeed[];
  collect(input: SignalInput, emit: EmitSignal): void | Promise<void>;
}
