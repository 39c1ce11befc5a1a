/**
 * The data contracts of docs hygiene (docs/scanner-and-classifiers.md and docs/report-schema.md): configuration, the scanner's
 * intermediate artifact, classifier proposals and report schema 1.0. `KIND_TABLE` and
 * `deriveSafetyTier` are the single source of truth for edit kinds and safety tiers:
 * import them, never restate them.
 */

import { agentContextGlobs } from './scan/context/agents.js';
import type { AgentContext } from './scan/context/loading.js';
import type { LifecycleUnit } from './scan/lifecycle.js';
import { writtenPath } from './scan/paths.js';

// ── Configuration (.dochygiene.yml) ────────────────────────────────────────────

export type ClassifierName = 'rules' | 'anthropic' | 'openai';

/**
 * `classifier:` in `.dochygiene.yml`, normalised: a bare name becomes `{provider: name}`.
 * Keys are documented in README (Model classifiers); defaults live with the model client.
 */
export interface ClassifierSettings {
  provider: ClassifierName;
  model?: string;
  base_url?: string;
  max_concurrency?: number;
  timeout_s?: number;
  run_timeout_s?: number;
  escalate_model?: string;
}

export type LifecycleKind = 'keep' | 'temporary' | 'delete-once-served';

export interface LifecycleRule {
  name: string;
  match: string;
  type: 'file' | 'directory';
  lifetime: LifecycleKind;
  retain_recent: number;
  max_age_days: number;
  served_when_path?: string;
  served_when?: string;
  extract?: 'repo' | 'cross-repo';
}

export interface LifecycleConfig {
  rules: LifecycleRule[];
  /** `extract: cross-repo` hands a unit to this command (an argument array) before deleting it. */
  vault_command?: string[];
}

/** `signals:` in `.dochygiene.yml`: `on` shows a class hidden by default, `off` hides a shown one. */
export type SignalSwitch = 'on' | 'off';

export interface HygieneConfig {
  scan: { globs: string[]; excluded_dirs: string[] };
  /** Per signal class, shown or hidden over its default (docs/configuration in README). */
  signals: Partial<Record<SignalName, SignalSwitch>>;
  /**
   * `links.ignore`: targets whose broken-reference findings are suppressed (counted, not
   * shown): globs (the linear-time matcher of scan/lifecycle-glob.ts) or `/regex/` (RE2).
   */
  links: { ignore: string[] };
  reminder: { stale_after_days: number };
  /** `null`: an `archive/` folder beside each file. */
  archive: { dir: string | null };
  context: { budget_tokens: number };
  classifier: ClassifierSettings;
  lifecycle: LifecycleConfig;
  /** Where the repository config was read from (`.dochygiene.yml`, `.dochygiene.yaml`, a `--config` path), for messages. */
  source?: string;
}

/**
 * Agent-context files: every file some agent's loading model names (scan/context/agents.ts
 * holds the model and its sources), whether loaded at start-up or on demand.
 */
export const AGENT_CONTEXT_GLOBS: readonly string[] = agentContextGlobs();

export const DEFAULT_CONFIG: HygieneConfig = {
  scan: {
    globs: ['**/*.md', '**/*.mdc', ...AGENT_CONTEXT_GLOBS],
    excluded_dirs: ['build', 'vendor', 'archive', 'graphify-out', '.dochygiene', 'node_modules', '.git'],
  },
  signals: {},
  links: { ignore: [] },
  reminder: { stale_after_days: 7 },
  archive: { dir: null },
  // 5,000: on the precision bench, agent guides of 2,100–3,800 tokens were a normal size (docs/scanner-and-classifiers.md).
  context: { budget_tokens: 5000 },
  classifier: { provider: 'rules' },
  lifecycle: { rules: [] },
};

// ── State (.dochygiene/state.json) ─────────────────────────────────────────────

export interface HygieneState {
  last_check: string | null;
  last_clean: string | null;
  last_reminded: string | null;
}

// ── Status markers (shared by the scanner and the rules classifier) ─────────────

/** Frontmatter/body `status:` values that mean the work a doc describes is finished. */
export const COMPLETED_STATUSES: ReadonlySet<string> = new Set([
  'done',
  'complete',
  'completed',
  'implemented',
  'shipped',
  'finished',
]);
/** The signals of a reference that does not resolve: a link's, and a backticked path's (both fixed the same way). */
export const REFERENCE_SIGNALS: ReadonlySet<string> = new Set(['broken_reference', 'code_reference']);
/** `status:` values that mean a doc was replaced or abandoned. */
export const SUPERSEDED_STATUSES: ReadonlySet<string> = new Set([
  'superseded',
  'replaced',
  'withdrawn',
  'deprecated',
  'obsolete',
  'archived',
]);

// ── Scanner artifact (stw hygiene scan) ────────────────────────────────────────

export const SIGNAL_NAMES = [
  'broken_reference',
  'version_skew',
  'edit_recency_vs_churn',
  'stale_name_location',
  'archive_to_live_ratio',
  'frontmatter_marker',
  'append_only_growth',
  'duplicate_content',
  'context_weight',
  'near_duplicate',
  'session_notes',
  'context_growth',
  'directory_map_drift',
  'context_coverage',
  'misnamed_context_file',
  'context_index_drift',
  'tool_specific_wording',
  'repeated_block',
  'machine_markers',
  'stale_nested_context',
  'dropped_tool_claim',
  // Split from broken_reference after report 1.0 froze its signal list.
  'code_reference',
] as const;
export type SignalName = (typeof SIGNAL_NAMES)[number];

export interface Signal {
  name: SignalName;
  /** 1-based line the signal points at, when it points at one. */
  line?: number;
  detail: string;
  /** What a classifier needs to propose an exact edit without re-reading git. */
  data?: Record<string, unknown>;
}

/** A finding the user silenced: where, and by what (docs/scanner-and-classifiers.md, "Silencing a finding"). */
export interface SuppressedSignal {
  path: string;
  name: SignalName;
  line?: number;
  /** The directive (`docs/a.md:12 stw-ignore-next-line`) or config entry (`links.ignore[0]`) that silenced it. */
  by: string;
}

/** A directive or config entry that silenced nothing (`--report-unused-suppressions`). */
export interface UnusedSuppression {
  /** The doc with the directive, or the config file. */
  path: string;
  /** The directive's line; absent for a config entry. */
  line?: number;
  /** The directive as written, or the config key (`signals.version_skew: off`, `links.ignore[1]`). */
  suppression: string;
  reason: string;
}

/**
 * What the scan computed but does not show (docs/scanner-and-classifiers.md, "Which signals are
 * shown", "Silencing a finding"): hidden classes and suppressed findings, counted per class.
 * Neither is in `signals`, so no classifier, model or proposals file can make an entry of one.
 */
export interface Withheld {
  /** Every class hidden in this run (by default, or `signals: {NAME: off}`). */
  hidden_classes: SignalName[];
  /** Per class: findings of a hidden class (not also suppressed). */
  hidden: Partial<Record<SignalName, number>>;
  /** Per class: findings silenced by a directive or `links.ignore`. */
  suppressed: Partial<Record<SignalName, number>>;
  suppressed_signals: SuppressedSignal[];
  /** The switch that shows the hidden classes. */
  show_hidden_with: string;
  /** Directives and config entries that silenced nothing (only with `--report-unused-suppressions`). */
  unused_suppressions?: UnusedSuppression[];
}

export interface ExcludedPath {
  path: string;
  /** e.g. frozen, dochygiene-ignore, append-only-log, tool-state, excluded-dir, binary, not-utf8, symlink-outside-root. */
  reason: string;
  detail?: string;
}

export interface ScanArtifact {
  project_root: string;
  scope_globs: string[];
  excluded_dirs: string[];
  files_scanned: number;
  /** Every scanned path, project-root-relative, `/`-separated, sorted. */
  shortlist: string[];
  /** Path → its signals (only signal-bearing paths appear). */
  signals: Record<string, Signal[]>;
  /**
   * Scanned path (a real file) → the other paths that lead to it: symlinks to it and its
   * paths through symlinked folders. An alias is never scanned, shortlisted or edited itself.
   */
  aliases?: Record<string, string[]>;
  excluded: ExcludedPath[];
  /**
   * Paths an agent loads on every session: the agent-context files and the files they
   * `@import` (as many hops as Claude Code expands).
   */
  agent_context?: string[];
  /** Set in a shallow clone: history is truncated at `depth` commits (history-based proof unavailable). */
  history?: { shallow: true; depth: number };
  /** Signals that could not be computed, and why (e.g. shallow clone, not a repository). */
  unavailable?: { signal: SignalName; reason: string }[];
  /** Every unit a lifecycle rule matched, with its decision (present when rules are configured). */
  lifecycle?: LifecycleUnit[];
  /**
   * Paths whose history could not be read whole (an object missing from the clone), and why.
   * The scan is still complete; the history signals of these paths alone are not computed.
   */
  history_incomplete?: { path: string; reason: string }[];
  /**
   * Folders laid out as a site's content that its config builds no page from (a Docusaurus
   * `versioned_docs/version-X/` that `versions.json` does not list): dead copies whose links
   * are not checked; named once here.
   */
  unbuilt?: { path: string; site: string; reason: string }[];
  /** Per agent: what a session started at the root loads at start-up, on demand, and what a cap cuts. */
  agents?: AgentContext[];
  /** Findings computed but not shown: hidden classes and suppressed findings. */
  withheld?: Withheld;
}

// ── Categories, edit kinds, tiers (report schema 1.0) ──────────────────────────

export const STALE_SUBTYPES = [
  'orphaned',
  'superseded',
  'completed-in-place',
  'duplicated',
  'contradicted',
  'dangling-reference',
  'expired',
  'served',
] as const;
export const BLOAT_SUBTYPES = ['distill', 'split', 'redundant'] as const;
export type StaleSubtype = (typeof STALE_SUBTYPES)[number];
export type BloatSubtype = (typeof BLOAT_SUBTYPES)[number];
export type Category = { class: 'stale'; subtype: StaleSubtype } | { class: 'bloat'; subtype: BloatSubtype };

export type OpType = 'deterministic' | 'generative';
export type SafetyTier = 'auto' | 'confirm';
/** `judged` = the evidence rests on a judgment, not a computed fact (e.g. lifecycle `served_when`). */
export type Evidence = 'deterministic' | 'judged';

export const EDIT_KINDS = [
  'delete-range',
  'replace-text',
  'dedupe',
  'move-to-archive',
  'insert-frontmatter',
  'delete-path',
] as const;
export type EditKind = (typeof EDIT_KINDS)[number];

export interface KindInfo {
  /** Carries `anchor` and `expected_sha256`. */
  hasAnchor: boolean;
  /** Kind-specific fields that must be present. */
  fields: readonly string[];
  isDestructive: boolean;
  /** `runtime`: decided when the entry is made and re-verified at apply time (§2.11). */
  isReversible: boolean | 'runtime';
}

export const KIND_TABLE: Readonly<Record<EditKind, KindInfo>> = {
  'delete-range': { hasAnchor: true, fields: [], isDestructive: true, isReversible: false },
  'replace-text': {
    hasAnchor: true,
    fields: ['match', 'replacement'],
    isDestructive: false,
    isReversible: true,
  },
  dedupe: { hasAnchor: true, fields: ['canonical_ref'], isDestructive: false, isReversible: true },
  'move-to-archive': { hasAnchor: false, fields: ['dest_path'], isDestructive: false, isReversible: true },
  'insert-frontmatter': {
    hasAnchor: false,
    fields: ['key', 'value'],
    isDestructive: false,
    isReversible: true,
  },
  'delete-path': { hasAnchor: false, fields: ['recursive'], isDestructive: true, isReversible: 'runtime' },
};

/** A generative op rewrites prose in a tracked file: not destructive, reversible through git. */
export const GENERATIVE_FLAGS = { isDestructive: false, isReversible: true } as const;

/**
 * The only place a safety tier is made (docs/report-schema.md): generative → confirm; judged
 * evidence → confirm; destructive and irreversible → confirm; else auto.
 */
export function deriveSafetyTier(
  opType: OpType,
  isDestructive: boolean,
  isReversible: boolean,
  evidence: Evidence,
): SafetyTier {
  if (opType === 'generative') return 'confirm';
  if (evidence === 'judged') return 'confirm';
  if (isDestructive && !isReversible) return 'confirm';
  return 'auto';
}

export interface Anchor {
  /** 1-based, inclusive. */
  start_line: number;
  end_line: number;
}

/** An exact edit as a report carries it; `expected_sha256` is set for anchored kinds only. */
export interface ExactEdit {
  kind: EditKind;
  anchor?: Anchor;
  /** sha256 (hex) of the whole file's bytes at check time. */
  expected_sha256?: string;
  match?: string;
  replacement?: string;
  canonical_ref?: string;
  dest_path?: string;
  key?: string;
  value?: string;
  recursive?: boolean;
}

export interface TokenEstimate {
  raw_tokens: number;
  /** 1 for always-loaded agent context (and what it imports), 0 for other docs. */
  injection_frequency: number;
  weighted_tokens: number;
}

/** An entry's lifecycle block: the scan's facts at check time (apply re-derives them). */
export interface LifecycleInfo {
  rule: string;
  lifetime: LifecycleKind;
  /** Whether the path was tracked and clean at check time (re-verified at apply). */
  tracked: boolean;
  dirty: boolean;
  age_days?: number;
  age_source?: LifecycleUnit['age_source'];
  rank?: number;
  decision?: LifecycleUnit['decision'];
  evidence?: string;
  files?: number;
  /** The unit's listing digest at check time: apply skips the entry when it changed. */
  content_digest?: string;
  served_path?: string;
  served_when?: string;
  /** The rule distils the unit before deleting it (docs/lifecycle.md). */
  extract?: 'repo' | 'cross-repo';
}

export interface Entry {
  id: string;
  path: string;
  category: Category;
  signals: Signal[];
  op: string;
  op_type: OpType;
  exact_edit?: ExactEdit;
  /** Generative entries: the lines the rewrite replaces (absent: the whole file). */
  reducible_range?: Anchor;
  /** Generative entries: sha256 of the whole file's bytes at check time (the rewrite's guard). */
  file_sha256?: string;
  is_destructive: boolean;
  is_reversible: boolean;
  safety_tier: SafetyTier;
  token_estimate: TokenEstimate;
  confidence: number;
  /** That file's hash instant. */
  generated_at: string;
  why?: string;
  lifecycle?: LifecycleInfo;
}

/** One class's findings: shown, hidden (its class is), suppressed (by a directive or `links.ignore`). */
export interface ClassCounts {
  shown: number;
  hidden: number;
  suppressed: number;
}

/** Report 1.1 `signal_counts`: what the user was shown, per class and in all (report.md's opening table). */
export interface SignalCounts extends ClassCounts {
  /** Every class with a finding, or hidden. */
  by_signal: Partial<Record<SignalName, ClassCounts>>;
  hidden_classes: SignalName[];
  show_hidden_with: string;
}

/** Report schema versions `validate` accepts; finalize writes the newest. */
export const REPORT_SCHEMA_VERSIONS = ['1.0', '1.1'] as const;
export type ReportSchemaVersion = (typeof REPORT_SCHEMA_VERSIONS)[number];

/** Report 1.1: one agent's context, plus what it would save per session if every entry applied. */
export interface AgentContextSummary extends AgentContext {
  tokens_saved_per_session: number;
}

export interface Report {
  schema_version: ReportSchemaVersion;
  tool_version: string;
  /** The run instant; also becomes `last_check`. */
  generated_at: string;
  scan: {
    project_root: string;
    scope_globs: string[];
    excluded_dirs: string[];
    files_scanned: number;
    category_filter: string | null;
    /** The tokenizer that counted `raw_tokens`, e.g. "gpt-tokenizer/o200k_base". */
    tokenizer?: string;
  };
  shortlist: string[];
  entries: Entry[];
  totals?: {
    /**
     * Σ weighted_tokens over every file any agent loads at start-up. Different agents load
     * different files, so no one session saves all of it: `context.agents[]` has the per-agent figure.
     */
    tokens_saved_per_session: number;
  };
  /** 1.1: per agent, what a session started at the root loads and would save. */
  context?: { agents: AgentContextSummary[] };
  /** 1.1: scanner signals on shortlisted files that got no proposal at all. */
  unresolved_signals?: Record<string, Signal[]>;
  /** 1.1: per class, the findings shown, hidden and suppressed. */
  signal_counts?: SignalCounts;
}

/**
 * The scanner signal a classifier cites: same name, the same line when a line is given, and
 * the same `data.target` when one is given. A classifier names evidence; the scanner's own
 * signal object carries it, so nothing a classifier writes into a signal counts as proof.
 */
export function citedSignal(cited: unknown, signals: readonly Signal[]): Signal | undefined {
  if (typeof cited !== 'object' || cited === null) return undefined;
  const { name, line, data } = cited as { name?: unknown; line?: unknown; data?: unknown };
  if (typeof name !== 'string') return undefined;
  const target =
    typeof data === 'object' && data !== null ? (data as Record<string, unknown>)['target'] : undefined;
  return signals.find(
    (signal) =>
      signal.name === name &&
      (line === null || line === undefined || signal.line === line) &&
      (target === undefined || signal.data?.['target'] === target),
  );
}

/**
 * A broken-reference fix proved by code: it writes the suggested target, and git history
 * shows the move (a renamed file or folder, not a rename that may have split the file: a
 * module split into several keeps one name, which is then only one of the places its
 * content went) and that the reference was written before it (one written after the move
 * named the old place for a reason history cannot tell: scan/written-when.ts), or the paths
 * alone settle it (a case-only rename beside the missing file, or the
 * one file ending in the missing path's folder and name). A file that shares only the name
 * is a guess. For a backticked path only history counts: such a path is often written from
 * the package or folder its text is about (`src/schemas.ts` in a line on `packages/core`),
 * so a file that merely ends in it shows a way of writing paths, not a move, and rewriting
 * it from the root changes the author's convention (and leaves its neighbours as they were).
 * Never a fix that would leave the doc naming the old path elsewhere (namedElsewhereDoubt).
 * A name match proves nothing for a target that is not written as a path (writtenAsPath).
 */
function isProvedLinkFix(signal: Signal | undefined, replacement: unknown): boolean {
  if (signal === undefined || !REFERENCE_SIGNALS.has(signal.name)) return false;
  // The edit must write the target the evidence names, not another that happens to resolve.
  const target = signal.data?.['suggested_target'];
  if (typeof target !== 'string' || typeof replacement !== 'string' || !replacement.includes(target))
    return false;
  if (namedElsewhereDoubt(signal) !== undefined || siteDoubt(signal) !== undefined) return false;
  const by = signal.data?.['suggested_by'];
  if (by === 'rename-history' || by === 'folder-move') return moveDoubt(signal) === undefined;
  if (signal.data?.['kind'] === 'code-path') return false;
  if (!writtenAsPath(signal.data?.['target'])) return false;
  const match = signal.data?.['suggestion_match'];
  if (match === 'path-suffix' && writtenFromAnotherBase(signal)) return false;
  return by === 'unique-name' && (match === 'case-only' || match === 'path-suffix');
}

/**
 * Why a move in history does not settle a `rename-history` or `folder-move` fix, in words;
 * undefined when it does. A moved doc still served under its old name (its frontmatter id)
 * leaves no link behind; a rename that may have split the file is only one of the places its
 * content went; a reference not shown to be written before the move named the old place for
 * a reason history cannot tell.
 */
export function moveDoubt(signal: Signal): string | undefined {
  const data = signal.data;
  const elsewhere = namedElsewhereDoubt(signal) ?? siteDoubt(signal);
  if (elsewhere !== undefined) return elsewhere;
  if (data?.['old_name_served'] === true) return 'the moved doc is still served under its old name';
  if (data?.['suggested_by'] === 'rename-history' && data['rename_may_be_split'] === true)
    return 'the rename may have split the file';
  if (data?.['written_before_move'] !== true) return 'the reference may have been written after the move';
  return undefined;
}

/**
 * Why the fixed link is not proved on the site that builds the doc, in words (`site_doubt`,
 * scan/signals/broken-reference.ts): it does not resolve there, the link already resolves
 * there, or the repository's site routing is not settled for a `/`-rooted or static-asset link.
 */
export function siteDoubt(signal: Signal): string | undefined {
  const doubt = signal.data?.['site_doubt'];
  return typeof doubt === 'string' ? doubt : undefined;
}

/**
 * Why a fix would leave the doc naming the old path, in words; undefined when it would not.
 * The edit rewrites the reference's syntax only, so a doc that also names the old path in the
 * link's text, in prose or in a fenced block (a chat transcript's recorded edits) would name
 * both places: which of them the author meant to keep is a person's call
 * (`old_path_named_elsewhere`, scan/written-when.ts).
 */
export function namedElsewhereDoubt(signal: Signal): string | undefined {
  const line = signal.data?.['old_path_named_elsewhere'];
  return typeof line === 'number'
    ? `the doc names the old path on line ${line} too, where no fix reaches`
    : undefined;
}

/**
 * Whether the author wrote a path the doc's folder resolves at all, the ground a same-named
 * match stands on. Not a URL caught in a mangled link: `[x]((https://github.com/o/r/blob/master/a/README.md))`
 * has the destination `(https://…)`, read as a relative path, and a file ending in
 * `a/README.md` is a guess at which repository and branch the URL named (kubernetes/enhancements:
 * such links were rewritten to relative ones). Not a module specifier a bundler resolves
 * (`@theme/styles/x.css` in a VitePress page, `@site/…` in Docusaurus, `~/…`): the alias
 * may well resolve, and the file that ends in the rest of it is only where it seems to point.
 */
function writtenAsPath(target: unknown): boolean {
  return typeof target === 'string' && !target.includes('://') && !/^[@~]/.test(target);
}

/**
 * The found file ends in the whole path the author wrote (`ref/x.md` in docs/ja/a.md, found
 * at docs/ref/x.md): nothing moved, the link was written from another base (the repository
 * root, or a site generator's docs root: mkdocs-static-i18n falls back from docs/ja/ to docs/),
 * so it may work where it is read, and rewriting it changes the author's convention.
 */
function writtenFromAnotherBase(signal: Signal): boolean {
  const target = signal.data?.['target'];
  const found = signal.data?.['suggested_path'];
  if (typeof target !== 'string' || typeof found !== 'string') return true;
  const written = writtenPath(target);
  return written !== '' && (found === written || found.endsWith(`/${written}`));
}

/**
 * A same-name suggestion that only moves a `/`-rooted link, or a backticked path, to another
 * base (writtenFromAnotherBase): nothing moved, and nothing shows it is broken where it is
 * read. A `/`-rooted link that the repository's root lacks but a folder has was written for a
 * site that serves that folder at its root (fastapi/fastapi's 13 translations write
 * `<img src="/img/…">`, served from the English docs, and got 1,534 fixes to
 * `/docs/en/docs/img/…`, each wrong on the site); a backticked path is written from the
 * package its text is about. The rules classifier proposes no fix for it; the signal stays
 * reported. A relative link written from the wrong folder (`./sig-docs/README.md` inside
 * `sig-docs/`) is broken wherever it is read, and keeps its (confirm) fix.
 */
export function onlyChangesTheBase(signal: Signal): boolean {
  const target = signal.data?.['target'];
  return (
    signal.data?.['suggested_by'] === 'unique-name' &&
    signal.data?.['suggestion_match'] === 'path-suffix' &&
    (signal.data['kind'] === 'code-path' || (typeof target === 'string' && target.startsWith('/'))) &&
    writtenFromAnotherBase(signal)
  );
}

/**
 * The evidence behind an entry (docs/report-schema.md: judged evidence → confirm). An auto entry lands
 * unread, so evidence counts as deterministic only where code proves the edit:
 * - a `replace-text` is a link fix (every signal a `broken_reference` or `code_reference`) whose new target
 *   is proved (isProvedLinkFix) and which `check` applies in memory and re-resolves
 *   before it proposes it; a same-name guess or any other text replacement is judged;
 * - an `insert-frontmatter` (a freeze) is proved by a `status:` the author wrote in the
 *   frontmatter; an in-body status line or a ticked checklist is read by a heuristic, so
 *   judged;
 * - a `move-to-archive` is always judged: it breaks links from outside the repository;
 * - a `dedupe` is always judged: which copy is canonical is a judgment;
 * - a `bloat/redundant` entry is always judged: which copy stays, and whether a reworded
 *   copy says nothing of its own, is a judgment;
 * - a lifecycle `served_when` is a judgment, and so is an `extract` step (what is durable
 *   enough to keep).
 */
export function entryEvidence(
  entry: Pick<Entry, 'lifecycle' | 'exact_edit' | 'signals'> & { category?: Partial<Category> },
): Evidence {
  if (entry.lifecycle?.served_when !== undefined || entry.lifecycle?.extract !== undefined) return 'judged';
  if (entry.category?.subtype === 'redundant') return 'judged';
  const signals = Array.isArray(entry.signals) ? entry.signals : [];
  switch (entry.exact_edit?.kind) {
    case 'dedupe':
      return 'judged';
    case 'replace-text':
      return signals.length > 0 &&
        signals.every((signal) => isProvedLinkFix(signal, entry.exact_edit?.replacement))
        ? 'deterministic'
        : 'judged';
    case 'move-to-archive':
      // A move changes the file's address: links from outside the repository (a published
      // site, other repositories, bookmarks) break, and no rewrite here can reach them. No
      // frontmatter marker proves there are none, so a move is always a person's call.
      return 'judged';
    case 'insert-frontmatter':
      return signals.some(
        (signal) => signal?.name === 'frontmatter_marker' && signal.data?.['marker'] === 'status',
      )
        ? 'deterministic'
        : 'judged';
    default:
      return 'deterministic';
  }
}

// ── Classifier proposals (docs/scanner-and-classifiers.md) ───────────────────────────────────────────

/** What a classifier may author: never a guarded field. */
export interface Proposal {
  path: string;
  category: Category;
  signals: Signal[];
  op: string;
  op_type: OpType;
  /** A skeleton: kind, anchor and kind fields — no `expected_sha256`. */
  exact_edit?: Omit<ExactEdit, 'expected_sha256'>;
  /** For generative ops: the span whose tokens would be saved, and that the rewrite replaces. */
  reducible_range?: Anchor;
  confidence: number;
  why?: string;
}
