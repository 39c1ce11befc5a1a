/**
 * `check` (docs/report-schema.md, "How check writes it"): scan → classify (rules, a
 * proposals file or a model) → prove link fixes → finalize →
 * validate the report as its JSON parses back → only then write the report pair
 * (rollover) and stamp `last_check` with the envelope instant. An invalid report is never
 * written and the previous pair stays as it was.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Clock, formatInstant } from '../core/clock.js';
import { Deadline } from '../core/deadline.js';
import { jsonSyntaxDetail, OperationalError, UsageError, ValidationError } from '../core/errors.js';
import { isPlainJson, jsonChunks } from '../core/json-text.js';
import { collectGarbageNow } from '../core/memory.js';
import { quote } from '../core/quote.js';
import { placementProblem, readGitlinks } from './apply/placement.js';
import { gatherClassifierFacts } from './classify/facts.js';
import { proposeLifecycleDeletions } from './classify/lifecycle.js';
import {
  classifyWithModel,
  type DroppedProposal,
  describeRequests,
  type ModelUsageSummary,
  modelCandidates,
} from './classify/model/classify.js';
import { type RetryPolicy, runnerFor, type Sleep } from './classify/model/runner.js';
import { resolveModelSettings } from './classify/model/settings.js';
import {
  CATEGORY_FILTER_VALUES,
  isSafeRelativePath,
  parseCategoryFilter,
  parseProposals,
} from './classify/proposals.js';
import { classifyWithRules } from './classify/rules.js';
import { loadConfig } from './config.js';
import { shallowWarning } from './output/shallow.js';
import { resolveProjectRoot } from './project.js';
import { readDocWorld, type ScannedDocuments } from './references.js';
import { finalizeReport } from './report/finalize.js';
import { renderLifecycleSection } from './report/lifecycle-md.js';
import { proveLinkFixes } from './report/prove.js';
import { renderReportMarkdown, signalsWithoutEntry, splitUnverifiable } from './report/report-md.js';
import { validateReport } from './report/validate.js';
import { isPartialScan, scanWithDocuments } from './scan/index.js';
import { noteProbe } from './scan/probes.js';
import { withheldByDefault } from './scan/suppress/index.js';
import { GITIGNORE_LINE, StateStore, saveReport, type Text } from './state/store.js';
import type {
  Proposal,
  Report,
  ScanArtifact,
  Signal,
  SignalCounts,
  SignalName,
  UnusedSuppression,
} from './types.js';
import { REFERENCE_SIGNALS } from './types.js';

export interface CheckOptions {
  cwd: string;
  /** Root-relative globs or paths narrowing the scan. */
  scopes?: string[];
  /** `stale`, `bloat` or a subtype: filters entries (the scan is category-agnostic). */
  category?: string;
  /** Proposals written by someone else (e.g. the Claude Code skill) instead of the rules classifier. */
  proposalsFile?: string;
  /** `--classifier NAME`: overrides `.dochygiene.yml` `classifier:`. */
  classifier?: string;
  /** `--model NAME`: overrides the configured model. */
  model?: string;
  /** Where API keys and base URLs are read (`ANTHROPIC_API_KEY`, …); default: this process's. */
  env?: NodeJS.ProcessEnv;
  /** Model requests: how to retry, and (tests) how to wait between attempts. */
  modelRetry?: RetryPolicy;
  modelSleep?: Sleep;
  /** Told, before any request is sent, what will be sent where (files, ≈tokens, provider, model). */
  onNotice?: (message: string) => void;
  clock: Clock;
  deadline?: Deadline;
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
  /** False (`--no-write`): build and validate the report but save nothing under `.dochygiene/`. */
  write?: boolean;
  /** `--config FILE`: the repository config read instead of `.dochygiene.yml` (docs/trust.md: trusted as the repository's). */
  configFile?: string;
  /** `--signals all`: show the classes hidden by default or by `signals: {NAME: off}`. */
  showAllSignals?: boolean;
  /** Classes shown even when hidden: those `--fail-on` names (the gate counts what it was asked for). */
  showSignals?: readonly SignalName[];
  /** `--report-unused-suppressions`: list the directives and config entries that silenced nothing. */
  reportUnusedSuppressions?: boolean;
  /** False (`--no-cache`): the scan reads and parses everything (`ScanOptions.cache`). */
  cache?: boolean;
  /** Also return the report pair as templates cut at the run's instant (`CheckResult.templates`). */
  templates?: boolean;
  /** Test-only: corrupt the assembled report before validation, to prove nothing invalid is written. */
  faults?: { corruptReport?: (report: Report) => void };
}

export interface AgentSummary {
  agent: string;
  name: string;
  startup_tokens: number;
  startup_files: number;
  /** Counting only what this agent loads at start-up (a distill saves what is over its target). */
  tokens_saved_per_session: number;
}

export interface CheckSummary {
  /** Entries in the report. */
  candidates: number;
  /** Files with at least one entry. */
  files_with_entries: number;
  /** Signals no entry carries, and the files they are on (listed in report.md). */
  signals_without_entry: number;
  files_with_unfixed_signals: number;
  /**
   * References a site model could not settle (`data.unverifiable`): counted apart, never fixed,
   * grouped by reason in report.md; not in `signals_without_entry`.
   */
  unverifiable_references: number;
  /** Files with no entry and no unfixed signal. */
  cleared: number;
  auto: number;
  confirm: number;
  /** Σ weighted_tokens over every agent's start-up files; `agents` has the per-agent figures. */
  tokens_saved_per_session: number;
  agents: AgentSummary[];
  /** Per signal class: findings shown, hidden and suppressed, and the switch that shows the hidden ones. */
  signal_counts?: SignalCounts;
}

export interface CheckResult {
  report: Report;
  reportJsonPath: string;
  reportMdPath: string;
  /** The line to add to `.gitignore` when `.dochygiene/` is not ignored (nothing is edited). */
  gitignoreLine?: string;
  /** True when history could not be read: the report is valid but history signals are missing. */
  partial: boolean;
  /** False when the report pair was not written: `--no-write`, or a read-only tree (`notSaved` says which). */
  saved: boolean;
  notSaved?: string;
  /** Every signal of the scan, by path (the findings: `hygiene/output/findings.ts`). */
  signals: ScanArtifact['signals'];
  /** `history: shallow (depth N)` when the clone is shallow (history-based proof unavailable). */
  history?: ScanArtifact['history'];
  /** Which classifier made the proposals. */
  classifier: 'rules' | 'proposals-file' | 'anthropic' | 'openai';
  summary: CheckSummary;
  /** A model classifier's requests, tokens, retries and the proposals it dropped. */
  model?: ModelUsageSummary & { dropped_proposals: DroppedProposal[] };
  /** What went wrong after the report was written (it stands): e.g. `last_check` could not be stamped. */
  warnings?: string[];
  /** `--report-unused-suppressions`: the directives and config entries that silenced nothing. */
  unusedSuppressions?: UnusedSuppression[];
  /**
   * With `templates`: report.json and report.md cut where the run's instant stands, for the
   * result cache; absent where the report depends on the clock otherwise (lifecycle rules).
   */
  templates?: ReportTemplates;
}

/** A text cut at every place the run's instant stands: `parts.join(instant)` is the text. */
export interface ReportTemplates {
  json: string[];
  md: string[];
}

/** Reads and parses a proposals file; a malformed one is rejected before any scan. */
export async function readProposalsFile(path: string): Promise<Proposal[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(`cannot read proposals file ${JSON.stringify(path)} (${code})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ValidationError('invalid-proposals', `proposals file is not JSON: ${jsonSyntaxDetail(error)}`);
  }
  return parseProposals(value);
}

/** Entry, tier and file counts of a report (and of the signals no entry carries), as `check` prints them. */
export function summarizeReport(report: Report, all: ScanArtifact['signals'] = {}): CheckSummary {
  const { unfixed, unverifiable } = splitUnverifiable(all);
  const withEntries = new Set(report.entries.map((entry) => entry.path));
  const unfixedPaths = Object.keys(unfixed).filter((path) => (unfixed[path] ?? []).length > 0);
  const notCleared = new Set([...withEntries, ...unfixedPaths]);
  const auto = report.entries.filter((entry) => entry.safety_tier === 'auto').length;
  return {
    candidates: report.entries.length,
    files_with_entries: withEntries.size,
    signals_without_entry: unfixedPaths.reduce((n, path) => n + (unfixed[path] ?? []).length, 0),
    files_with_unfixed_signals: unfixedPaths.length,
    unverifiable_references: unverifiable.length,
    cleared: report.shortlist.filter((path) => !notCleared.has(path)).length,
    auto,
    confirm: report.entries.length - auto,
    tokens_saved_per_session: report.totals?.tokens_saved_per_session ?? 0,
    agents: (report.context?.agents ?? []).map((a) => ({
      agent: a.agent,
      name: a.name,
      startup_tokens: a.startup.tokens,
      startup_files: a.startup.files.length,
      tokens_saved_per_session: a.tokens_saved_per_session,
    })),
    ...(report.signal_counts !== undefined ? { signal_counts: report.signal_counts } : {}),
  };
}

/**
 * The report's JSON text, and the value that text parses back to (what is validated): for a
 * report of plain JSON values — every report the library builds — the report itself, and the
 * text in pieces (`jsonChunks`), so that neither the text nor a parse of it is ever held
 * whole. Any other value is serialised to a scratch file under the OS temp dir (never
 * `.dochygiene/`) and read back, so that the bytes validated are the bytes written.
 */
async function serializeReport(report: Report): Promise<{ json: Text; parsed: unknown }> {
  if (isPlainJson(report))
    return {
      json: {
        *[Symbol.iterator]() {
          yield* jsonChunks(report);
          yield '\n';
        },
      },
      parsed: report,
    };
  const json = `${JSON.stringify(report, null, 2)}\n`;
  const dir = await mkdtemp(join(tmpdir(), 'stw-check-'));
  try {
    const scratch = join(dir, 'report.json');
    await writeFile(scratch, json);
    return { json, parsed: JSON.parse(await readFile(scratch, 'utf8')) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Refuses a report that fails validation (anchors checked against the files' line counts). */
function assertValidReport(parsed: unknown, projectRoot: string): void {
  const violations = validateReport(parsed, { projectRoot });
  if (violations.length > 0) {
    const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : '';
    throw new ValidationError(
      'invalid-report',
      `the assembled report is invalid, so nothing was written: ${violations[0]}${more}`,
      violations,
    );
  }
}

/** report.md's list of model proposals that stayed invalid after the re-ask: named, never applied. */
function droppedSection(dropped: readonly DroppedProposal[]): string {
  if (dropped.length === 0) return '';
  const lines = ['', '## Dropped model proposals', '', 'Invalid after one re-ask, so not in the report:', ''];
  for (const item of dropped)
    lines.push(
      `- \`${item.path.replace(/`/g, "'")}\`: ${item.violations.join('; ').replace(/[\r\n]+/g, ' ')}`,
    );
  return `${lines.join('\n')}\n`;
}

function historySection(history: ScanArtifact['history']): string {
  return history === undefined ? '' : `\n## History\n\n${shallowWarning(history.depth)}.\n`;
}

/**
 * In a shallow clone a broken link's move cannot be looked up: its signal is marked
 * "unavailable" (where nothing else declined it) rather than left without a reason.
 */
function markShallowDeclines(
  unfixed: ScanArtifact['signals'],
  declined: Record<string, { signal: Signal; reason: string }[]>,
  depth: number,
): void {
  for (const [path, signals] of Object.entries(unfixed))
    for (const signal of signals) {
      if (!REFERENCE_SIGNALS.has(signal.name)) continue;
      const list = declined[path] ?? [];
      if (list.some((d) => d.signal === signal)) continue;
      list.push({ signal, reason: `history-based proof unavailable: shallow clone (depth ${depth})` });
      declined[path] = list;
    }
}

/** Usage errors that need no scan: an unknown category, --proposals with a model classifier. */
function checkUsage(options: CheckOptions): void {
  const category = options.category ?? null;
  if (category !== null && parseCategoryFilter(category) === undefined) {
    throw new UsageError(
      `unknown category ${quote(category)}`,
      `use a class or a subtype: ${CATEGORY_FILTER_VALUES.join(', ')}`,
    );
  }
  if (
    options.proposalsFile !== undefined &&
    (options.classifier !== undefined || options.model !== undefined)
  )
    throw new UsageError('--proposals cannot be combined with --classifier or --model');
}

type Config = Awaited<ReturnType<typeof loadConfig>>;
type ModelSettings = ReturnType<typeof resolveModelSettings>;

interface ClassifyInputs {
  artifact: ScanArtifact;
  config: Config;
  supplied: Proposal[] | undefined;
  settings: ModelSettings | undefined;
  readText: (path: string) => string | undefined;
  exists: (path: string) => boolean;
  onDeclined: (path: string, signal: Signal, reason: string) => void;
  documents: ScannedDocuments | undefined;
}

const REVEALED =
  'shown only by --signals all or --fail-on (its class is hidden or held back by default): looked at, not proposed for';

/**
 * The artifact the classifiers propose from: without the findings only `--signals all` or
 * `--fail-on NAME` showed (a switch to look, not an opt-in; `signals: {NAME: on}` is one).
 */
function proposable(
  artifact: ScanArtifact,
  options: Pick<CheckOptions, 'showAllSignals' | 'showSignals'>,
  config: Config,
  onDeclined: (path: string, signal: Signal, reason: string) => void,
): ScanArtifact {
  if (options.showAllSignals !== true && (options.showSignals ?? []).length === 0) return artifact;
  const withheld = withheldByDefault(config);
  // A generated doc's finding is declined by the classifier itself, with that reason.
  const isWithheld = (path: string, signal: Signal) =>
    signal.data?.['generated'] !== true && withheld(path, signal);
  const signals: ScanArtifact['signals'] = {};
  for (const [path, list] of Object.entries(artifact.signals)) {
    const kept = list.filter((signal) => !isWithheld(path, signal));
    for (const signal of list) if (isWithheld(path, signal)) onDeclined(path, signal, REVEALED);
    if (kept.length > 0) signals[path] = kept;
  }
  return { ...artifact, signals };
}

/** The proposals: a --proposals file as given, else the rules classifier, else a model. */
async function classifyCandidates(
  options: CheckOptions,
  inputs: ClassifyInputs,
): Promise<{ classified: Proposal[]; model: CheckResult['model'] }> {
  const { artifact, config, supplied, settings, readText, exists, onDeclined, documents } = inputs;
  if (supplied !== undefined) return { classified: supplied, model: undefined };
  if (settings === undefined)
    return {
      classified: classifyWithRules(artifact, config, readText, exists, {
        ...(await gatherClassifierFacts(artifact, readText, options.deadline, documents?.docs)),
        onDeclined,
      }),
      model: undefined,
    };
  const candidates = modelCandidates(artifact, readText);
  options.onNotice?.(describeRequests(candidates, settings));
  const answered = await classifyWithModel({
    artifact,
    candidates,
    budgetTokens: config.context.budget_tokens,
    settings,
    runner: runnerFor(settings, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.modelRetry ? { retry: options.modelRetry } : {}),
      ...(options.modelSleep ? { sleep: options.modelSleep } : {}),
    }),
    ...(options.onProgress
      ? {
          onProgress: (done: number, total: number) =>
            options.onProgress?.(`classified ${done}/${total} files`),
        }
      : {}),
  });
  return {
    classified: answered.proposals,
    model: { ...answered.usage, dropped_proposals: answered.dropped },
  };
}

/** The scan's lifecycle deletions added to the proposals, whoever classified the docs. */
function withLifecycleDeletions(classified: Proposal[], artifact: ScanArtifact): Proposal[] {
  // Lifecycle deletions are proved by the scan, whoever classified the docs.
  const named = new Set(classified.filter((p) => p.exact_edit?.kind === 'delete-path').map((p) => p.path));
  const deletions = proposeLifecycleDeletions(artifact).filter((proposal) => !named.has(proposal.path));
  // A file its lifecycle rule deletes gets no edit as well: the two could never share it.
  const deleted = new Set([...named, ...deletions.map((p) => p.path)]);
  return [
    ...classified.filter((p) => p.exact_edit?.kind === 'delete-path' || !deleted.has(p.path)),
    ...deletions,
  ];
}

/** Runs a whole check and writes the report pair; returns the report and where it went. */
export async function runCheck(options: CheckOptions): Promise<CheckResult> {
  const { supplied, root, env, config, settings } = await prepareCheck(options);
  const scanned = await scanForCheck(options, root, config, env);
  const { artifact } = scanned;
  const { proposals, declined, model } = await proposeAndProve(options, {
    root,
    config,
    supplied,
    settings,
    scanned,
  });

  const report = await finalizeReport({
    artifact,
    proposals,
    generatedAt: formatInstant(options.clock.now()),
    categoryFilter: options.category ?? null,
    clock: options.clock,
    budgetTokens: config.context.budget_tokens,
    archiveDir: config.archive.dir,
  });
  options.faults?.corruptReport?.(report);

  const { json, md, unfixed, templates } = await renderPair(options, {
    report,
    artifact,
    proposals,
    declined,
    model,
    lifecycleRules: config.lifecycle.rules.length,
  });
  scanned.saveTokenCounts();
  // An interrupted scan is incomplete evidence: keep the previous pair rather than replace it.
  if (options.signal?.aborted === true) {
    throw new OperationalError('cancelled', 'check was cancelled; the previous report was left as it was');
  }

  const store = new StateStore(root);
  const warnings: string[] = [];
  const notSaved =
    options.write === false
      ? 'the report was not saved (--no-write)'
      : await saveReport(store, { json, md, generatedAt: report.generated_at }, warnings);
  const ignored = notSaved === undefined ? await store.isIgnoredByGit() : undefined;
  return {
    report,
    reportJsonPath: store.reportJsonPath,
    reportMdPath: store.reportMdPath,
    ...(ignored === false ? { gitignoreLine: GITIGNORE_LINE } : {}),
    partial: isPartialScan(artifact),
    saved: notSaved === undefined,
    ...(notSaved !== undefined ? { notSaved } : {}),
    signals: artifact.signals,
    ...(artifact.history !== undefined ? { history: artifact.history } : {}),
    classifier: supplied !== undefined ? 'proposals-file' : (settings?.provider.name ?? 'rules'),
    summary: summarizeReport(report, unfixed),
    ...(model !== undefined ? { model } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(artifact.withheld?.unused_suppressions !== undefined
      ? { unusedSuppressions: artifact.withheld.unused_suppressions }
      : {}),
    ...(templates !== undefined ? { templates } : {}),
  };
}

/**
 * Everything refused before the scan: bad usage, a malformed proposals file, an unsafe
 * `.dochygiene`, a bad config, a missing model key. Returns the project root, its config and
 * the proposals given or the model settings (undefined: the rules classifier).
 */
async function prepareCheck(options: CheckOptions): Promise<{
  supplied: Proposal[] | undefined;
  root: string;
  env: NodeJS.ProcessEnv;
  config: Config;
  settings: ModelSettings | undefined;
}> {
  checkUsage(options);
  // A bad proposals file is rejected before any scan.
  const supplied =
    options.proposalsFile === undefined ? undefined : await readProposalsFile(options.proposalsFile);

  const root = await resolveProjectRoot(options.cwd);
  // An unsafe .dochygiene (e.g. a symlink out of the project) is refused before the scan.
  await new StateStore(root).assertSafe();
  const env = options.env ?? process.env;
  const config = await loadConfig(root, env, options.configFile);
  // A missing key is refused here, before the scan: nothing is sent, the report is kept.
  const settings =
    supplied === undefined
      ? resolveModelSettings(
          config.classifier,
          {
            ...(options.classifier !== undefined ? { classifier: options.classifier } : {}),
            ...(options.model !== undefined ? { model: options.model } : {}),
          },
          env,
        )
      : undefined;
  return { supplied, root, env, config, settings };
}

/** What `check` holds of a scan: `documents` is let go once link fixes are proved. */
interface CheckScan {
  artifact: ScanArtifact;
  documents: ScannedDocuments | undefined;
  saveCache: () => void;
  saveTokenCounts: () => void;
}

/** Scans for `check`; a --scope that matched no doc is refused (the previous report is kept). */
async function scanForCheck(
  options: CheckOptions,
  root: string,
  config: Config,
  env: NodeJS.ProcessEnv,
): Promise<CheckScan> {
  // `documents` (every doc's text and parse) is let go once link fixes are proved, before
  // the report is built (and the tokenizer loaded): the two need not be held at once.
  const scanned: CheckScan = await scanWithDocuments({
    root,
    config,
    nowMs: options.clock.now().getTime(),
    env,
    ...(options.cache === false ? { cache: false } : {}),
    ...(options.showAllSignals === true ? { showAllSignals: true } : {}),
    ...(options.showSignals !== undefined ? { showSignals: options.showSignals } : {}),
    ...(options.reportUnusedSuppressions === true ? { reportUnusedSuppressions: true } : {}),
    ...(options.scopes !== undefined ? { scopes: options.scopes } : {}),
    ...(options.deadline !== undefined ? { deadline: options.deadline } : {}),
    ...(options.onProgress !== undefined ? { onProgress: options.onProgress } : {}),
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  });
  // A mistyped --scope must not replace a good report with an empty one.
  if (options.scopes !== undefined && options.scopes.length > 0 && scanned.artifact.shortlist.length === 0) {
    throw new UsageError(
      `--scope ${options.scopes.map((scope) => quote(scope)).join(', ')} matched no scannable doc; the previous report is kept`,
      'give a folder, file or glob inside the project (relative to the current directory)',
    );
  }
  return scanned;
}

/** Signals that got no link fix or no entry, with why, by path (report.md lists them). */
type Declined = Record<string, { signal: Signal; reason: string }[]>;

/**
 * Classifies the scan, adds its lifecycle deletions and proves every link fix against the docs
 * it read; then lets those docs go (and saves the cache). Returns the proposals, the signals
 * declined on the way, and a model's usage.
 */
async function proposeAndProve(
  options: CheckOptions,
  inputs: {
    root: string;
    config: Config;
    supplied: Proposal[] | undefined;
    settings: ModelSettings | undefined;
    scanned: CheckScan;
  },
): Promise<{ proposals: Proposal[]; declined: Declined; model: CheckResult['model'] }> {
  const { root, config, supplied, settings, scanned } = inputs;
  const { artifact } = scanned;
  const readText = (path: string) =>
    isSafeRelativePath(path) ? readFileSync(join(artifact.project_root, path), 'utf8') : undefined;
  // A move destination is taken when something is there, or when a folder on the way is
  // not a plain folder of this repository (a file, a symlink, a submodule).
  const gitlinks =
    artifact.project_root === root
      ? await readGitlinks(root, Deadline.none()).catch(() => new Set<string>())
      : new Set<string>();
  const exists = (path: string) => {
    if (!isSafeRelativePath(path)) return false;
    noteProbe(path, artifact.project_root);
    return (
      existsSync(join(artifact.project_root, path)) ||
      placementProblem(artifact.project_root, path, gitlinks) !== undefined
    );
  };
  const declined: Declined = {};
  const onDeclined = (path: string, signal: Signal, reason: string) => {
    const list = declined[path] ?? [];
    list.push({ signal, reason });
    declined[path] = list;
  };
  const { classified, model } = await classifyCandidates(options, {
    artifact: proposable(artifact, options, config, onDeclined),
    config,
    supplied,
    settings,
    readText,
    exists,
    onDeclined,
    documents: scanned.documents,
  });
  const withDeletions = withLifecycleDeletions(classified, artifact);
  // Every link fix, whoever proposed it (rules, a proposals file, a model), is proved —
  // applied in memory and re-resolved — before it can be an auto entry — against the docs
  // the scan read, as it read them.
  const proposals = proveLinkFixes(
    await readDocWorld(root, config, options.deadline, scanned.documents),
    withDeletions,
    (proposal, why) => {
      for (const signal of proposal.signals) onDeclined(proposal.path, signal, `no link fix: ${why}`);
    },
  );
  scanned.documents = undefined;
  scanned.saveCache();
  // The documents, and the world the fixes were proved in, are garbage now: collect them
  // before the tokenizer loads, so that its tables take their place instead of adding to them.
  collectGarbageNow();
  return { proposals, declined, model };
}

/**
 * The report pair's texts, the report validated as its JSON parses back: report.json,
 * report.md (with the signals no entry carries, `unfixed`) and, when asked, their templates.
 */
async function renderPair(
  options: CheckOptions,
  inputs: {
    report: Report;
    artifact: ScanArtifact;
    proposals: Proposal[];
    declined: Declined;
    model: CheckResult['model'];
    lifecycleRules: number;
  },
): Promise<{
  json: Text;
  md: string;
  unfixed: ScanArtifact['signals'];
  templates: ReportTemplates | undefined;
}> {
  const { report, artifact, proposals, declined, model } = inputs;
  const { json, parsed } = await serializeReport(report);
  assertValidReport(parsed, artifact.project_root);
  // Every signal no proposal carries is listed (also on files that got a fix for another);
  // files whose proposals the category filter dropped are named apart.
  const kept = new Set(report.entries.map((entry) => entry.path));
  const unfixed = signalsWithoutEntry(artifact.signals, proposals);
  if (artifact.history !== undefined) markShallowDeclines(unfixed, declined, artifact.history.depth);
  const lifecycleMd = renderLifecycleSection(artifact.lifecycle);
  const renderMd = () =>
    renderReportMarkdown(report, {
      unfixed,
      declined,
      filteredOut: [...new Set(proposals.map((p) => p.path))].filter((path) => !kept.has(path)),
    }) +
    droppedSection(model?.dropped_proposals ?? []) +
    historySection(artifact.history) +
    (lifecycleMd === '' ? '' : `\n${lifecycleMd}`);
  const md = renderMd();
  // Lifecycle ages are the one part of a report that moves with the clock besides its stamps.
  const templates =
    options.templates === true && inputs.lifecycleRules === 0
      ? reportTemplates(report, () => ({ json: `${JSON.stringify(report, null, 2)}\n`, md: renderMd() }))
      : undefined;
  return { json, md, unfixed, templates };
}

/**
 * The report pair cut at the run's instant (`generated_at`, the envelope's and each entry's):
 * joined with another instant they are the pair a run at that instant writes. Undefined
 * when the entries were stamped at another second than the envelope (the run crossed one).
 */
function reportTemplates(
  report: Report,
  render: () => { json: string; md: string },
): ReportTemplates | undefined {
  const instant = report.generated_at;
  if (report.entries.some((entry) => entry.generated_at !== instant)) return undefined;
  // Letters and digits only: escaping (JSON, Markdown) leaves it as it is.
  const mark = `STWINSTANT${randomBytes(12).toString('hex')}`;
  const stamp = (value: string) => {
    report.generated_at = value;
    for (const entry of report.entries) entry.generated_at = value;
  };
  stamp(mark);
  let rendered: { json: string; md: string };
  try {
    rendered = render();
  } finally {
    stamp(instant);
  }
  const json = rendered.json.split(mark);
  const md = rendered.md.split(mark);
  // One stamp per entry and the envelope's in the JSON, one line in the Markdown: anything else is not understood.
  if (json.length !== report.entries.length + 2 || md.length !== 2) return undefined;
  return { json, md };
}
