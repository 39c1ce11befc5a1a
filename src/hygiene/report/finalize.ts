/**
 * The report builder (docs/report-schema.md): model-free assembly of a scanner artifact and slim
 * proposals into a full report (schema 1.1). It owns every guarded field: `expected_sha256` (of
 * the bytes it reads), `is_destructive`/`is_reversible` (from KIND_TABLE), `safety_tier`
 * (from `deriveSafetyTier`) and `token_estimate` (from a real local tokenizer).
 */
import { createHash } from 'node:crypto';
import { readFile, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { type Clock, formatInstant } from '../../core/clock.js';
import { UsageError, ValidationError } from '../../core/errors.js';
import { toolVersion } from '../../core/package.js';
import { isDeletableUnit } from '../classify/lifecycle.js';
import {
  CATEGORY_FILTER_VALUES,
  isSafeRelativePath,
  matchesCategoryFilter,
  moveViolations,
  parseCategoryFilter,
  parseProposals,
} from '../classify/proposals.js';
import { newReferenceOutOfProject } from '../leaves-project.js';
import { spanText, splitLines } from '../line-span.js';
import type { LifecycleUnit } from '../scan/lifecycle.js';
import { countTokens, TOKENIZER_NAME } from '../tokens.js';
import {
  citedSignal,
  DEFAULT_CONFIG,
  deriveSafetyTier,
  type Entry,
  type ExactEdit,
  entryEvidence,
  GENERATIVE_FLAGS,
  KIND_TABLE,
  type LifecycleInfo,
  type Proposal,
  REFERENCE_SIGNALS,
  type Report,
  type ScanArtifact,
  type Signal,
} from '../types.js';
import { startupPaths, tokensSavedFor } from './agent-savings.js';
import { signalCounts } from './signal-counts.js';

export interface FinalizeInput {
  artifact: ScanArtifact;
  proposals: Proposal[];
  /** The run instant (RFC 3339): the envelope `generated_at`, which also becomes `last_check`. */
  generatedAt: string;
  /** `stale`, `bloat` or a subtype; entries outside it are left out. Recorded in `scan`. */
  categoryFilter?: string | null;
  /** Stamps each file's `generated_at` at the instant its bytes are hashed. */
  clock: Clock;
  /** The distill target for savings when a signal does not carry one (context.budget_tokens). */
  budgetTokens?: number;
  /** `archive.dir`: besides a folder named like an archive, where a move may go (null: none). */
  archiveDir?: string | null;
}

interface FileBytes {
  bytes: Buffer;
  lines: string[];
}

/** The id key: path, subtype, kind (or `generative`), anchor and the frontmatter key. */
function idKey(entry: Entry): string {
  const edit = entry.exact_edit;
  const anchor = edit?.anchor ? `${edit.anchor.start_line}-${edit.anchor.end_line}` : '';
  // What the edit does is part of its identity: an id approved from an earlier report must
  // never name a different edit on the same lines (e.g. the next broken link on a line).
  const effect = [
    edit?.key,
    edit?.value,
    edit?.match,
    edit?.replacement,
    edit?.canonical_ref,
    edit?.dest_path,
  ]
    .map((part) => part ?? '')
    .join('\0');
  return [entry.path, entry.category.subtype, edit?.kind ?? 'generative', anchor, effect].join('\0');
}

/**
 * Short ids that stay the same across re-checks while the file, subtype, kind, anchor and
 * the edit's own fields do (not its hash guard): the first 8 hex digits of a sha256 of those facts. Entries are sorted first, so a
 * (vanishingly rare) prefix collision is resolved the same way every time: `-2`, `-3`, ….
 */
export function assignEntryIds(entries: Entry[]): void {
  const used = new Set<string>();
  for (const entry of entries) {
    const base = createHash('sha256').update(idKey(entry)).digest('hex').slice(0, 8);
    let id = base;
    for (let n = 2; used.has(id); n++) id = `${base}-${n}`;
    used.add(id);
    entry.id = id;
  }
}

function compareEntries(a: Entry, b: Entry): number {
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  const startA = a.exact_edit?.anchor?.start_line ?? 0;
  const startB = b.exact_edit?.anchor?.start_line ?? 0;
  if (startA !== startB) return startA - startB;
  const keyA = idKey(a);
  const keyB = idKey(b);
  return keyA < keyB ? -1 : keyA > keyB ? 1 : 0;
}

/** The lines whose tokens the entry accounts for (docs/report-schema.md); `undefined` = none. */
function tokenSpan(proposal: Proposal, lineTotal: number): { start: number; end: number } | undefined {
  const edit = proposal.exact_edit;
  if (edit === undefined) {
    const range = proposal.reducible_range;
    return range ? { start: range.start_line, end: range.end_line } : { start: 1, end: lineTotal };
  }
  if (edit.anchor !== undefined) return { start: edit.anchor.start_line, end: edit.anchor.end_line };
  // Setting a frontmatter key removes nothing from what is read.
  if (edit.kind === 'insert-frontmatter') return undefined;
  return { start: 1, end: lineTotal };
}

/**
 * Why an exact edit would write a reference out of the project that its lines did not hold
 * (docs/trust.md, "References out of the project"), or undefined. The anchored lines are
 * compared before and after the replacement; a frontmatter value is new text of its own.
 */
function outOfProjectViolation(
  root: string,
  proposal: Proposal,
  file: FileBytes | undefined,
): string | undefined {
  const edit = proposal.exact_edit;
  if (file === undefined || edit === undefined) return undefined;
  let before = '';
  let after: string | undefined;
  if (edit.kind === 'replace-text' && edit.anchor !== undefined && edit.match !== undefined) {
    before = spanText(file.lines, edit.anchor.start_line, edit.anchor.end_line);
    after = before.split(edit.match).join(edit.replacement ?? '');
  } else if (edit.kind === 'insert-frontmatter') after = edit.value ?? '';
  else if (edit.kind === 'dedupe' && edit.canonical_ref !== undefined) after = `[see](${edit.canonical_ref})`;
  if (after === undefined) return undefined;
  const out = newReferenceOutOfProject(root, proposal.path, before, after);
  return out === undefined ? undefined : `${out}; no edit may write a reference out of the project`;
}

/** Checks that need the file: anchors and ranges inside it, replace-text's match on its lines. */
function fileViolations(proposal: Proposal, file: FileBytes, at: string): string[] {
  const out: string[] = [];
  const n = file.lines.length;
  const inside = (range: { start_line: number; end_line: number }, where: string) => {
    if (range.end_line > n) {
      out.push(
        `${at}.${where}: lines ${range.start_line}–${range.end_line} are outside the file (${n} lines)`,
      );
      return false;
    }
    return true;
  };
  const edit = proposal.exact_edit;
  if (
    edit?.anchor !== undefined &&
    inside(edit.anchor, 'exact_edit.anchor') &&
    edit.kind === 'replace-text'
  ) {
    const text = spanText(file.lines, edit.anchor.start_line, edit.anchor.end_line);
    if (edit.match !== undefined && !text.includes(edit.match)) {
      out.push(`${at}.exact_edit.match: does not occur on the anchored lines`);
    }
  }
  if (proposal.reducible_range !== undefined) inside(proposal.reducible_range, 'reducible_range');
  return out;
}

/**
 * Why a cited signal the user was not shown cannot carry an entry, in words; undefined when
 * it was shown (or is no withheld one). A suppressed finding, and any signal of a hidden class,
 * is refused as an unknown one is: no proposal may come from a signal the user did not see
 * (docs/scanner-and-classifiers.md, "Which signals are shown", "Silencing a finding").
 */
function withheldCitation(signal: Signal, path: string, artifact: ScanArtifact): string | undefined {
  const withheld = artifact.withheld;
  if (withheld === undefined) return undefined;
  const line = typeof signal.line === 'number' ? signal.line : undefined;
  const suppressed = withheld.suppressed_signals.find(
    (s) => s.path === path && s.name === signal.name && (line === undefined || s.line === line),
  );
  const name = JSON.stringify(signal.name);
  if (suppressed !== undefined)
    return `the ${name} signal${suppressed.line !== undefined ? ` on line ${suppressed.line}` : ''} is suppressed (${suppressed.by}), so no entry may cite it`;
  if ((withheld.hidden_classes as readonly string[]).includes(signal.name))
    return `${name} is a hidden signal class, so no entry may cite it (shown with ${withheld.show_hidden_with} or signals: {${signal.name}: on})`;
  return undefined;
}

/** The signals entryEvidence reads as proof of an auto edit. */
const PROOF_SIGNALS: ReadonlySet<string> = new Set([...REFERENCE_SIGNALS, 'frontmatter_marker']);

/**
 * Builds a report from a scanner artifact and proposals. Every malformed proposal —
 * schema, guarded fields, a path outside the shortlist, an anchor outside its file — is
 * rejected with its index (`ValidationError`) before any hash or token is computed.
 */
export async function finalizeReport(input: FinalizeInput): Promise<Report> {
  const { artifact, generatedAt, clock } = input;
  const filterText = input.categoryFilter ?? null;
  const filter = categoryFilterOf(filterText);
  const { proposals, uncited } = withScannerSignals(input.proposals, artifact);

  const shortlisted = new Set(artifact.shortlist);
  const units = new Map((artifact.lifecycle ?? []).map((unit) => [unit.path, unit]));
  rejectIfAny(
    pathViolations(proposals, { artifact, shortlisted, units, archiveDir: input.archiveDir ?? null }),
  );
  rejectIfAny([...(await realPathViolations(proposals, artifact.project_root)), ...uncited]);
  const files = await readProposedFiles(proposals, artifact.project_root);
  rejectIfAny(
    proposals.flatMap((p, i) =>
      isLifecycleDeletion(p) ? [] : fileViolations(p, files.get(p.path)!, `proposals[${i}]`),
    ),
  );
  rejectIfAny(
    proposals.flatMap((p, i) => {
      const out = outOfProjectViolation(artifact.project_root, p, files.get(p.path));
      return out !== undefined ? [`proposals[${i}].exact_edit: ${out}`] : [];
    }),
  );

  const kept = proposals.filter((p) => matchesCategoryFilter(p.category, filter));
  const entries = buildEntries(kept, { artifact, files, units, clock });
  const budget = input.budgetTokens ?? DEFAULT_CONFIG.context.budget_tokens;
  const counts = signalCounts(artifact);
  const proposed = new Set(proposals.map((p) => p.path));
  const unresolved = Object.keys(artifact.signals)
    .filter(
      (path) => !proposed.has(path) && shortlisted.has(path) && (artifact.signals[path] ?? []).length > 0,
    )
    .sort();
  return {
    schema_version: '1.1',
    tool_version: toolVersion(),
    generated_at: generatedAt,
    scan: {
      project_root: artifact.project_root,
      scope_globs: artifact.scope_globs,
      excluded_dirs: artifact.excluded_dirs,
      files_scanned: artifact.files_scanned,
      category_filter: filterText,
      tokenizer: TOKENIZER_NAME,
    },
    shortlist: artifact.shortlist,
    entries,
    totals: {
      tokens_saved_per_session: entries.reduce((sum, e) => sum + e.token_estimate.weighted_tokens, 0),
    },
    ...(artifact.agents !== undefined
      ? {
          context: {
            agents: artifact.agents.map((agent) => ({
              ...agent,
              tokens_saved_per_session: tokensSavedFor(agent, entries, budget),
            })),
          },
        }
      : {}),
    ...(unresolved.length > 0
      ? { unresolved_signals: Object.fromEntries(unresolved.map((path) => [path, artifact.signals[path]!])) }
      : {}),
    ...(counts !== undefined ? { signal_counts: counts } : {}),
  };
}

/** The `--category` filter (undefined: none); an unknown one is a usage error. */
function categoryFilterOf(filterText: string | null): ReturnType<typeof parseCategoryFilter> {
  const filter = filterText === null ? undefined : parseCategoryFilter(filterText);
  if (filterText !== null && filter === undefined) {
    throw new UsageError(
      `unknown category ${JSON.stringify(filterText)}`,
      `use one of: ${CATEGORY_FILTER_VALUES.join(', ')}`,
    );
  }
  return filter;
}

/**
 * The proposals parsed, each signal the scan holds for its file replaced by the scanner's own
 * object; `uncited` says which cited signals the scan did not show or does not hold.
 */
function withScannerSignals(
  given: Proposal[],
  artifact: ScanArtifact,
): { proposals: Proposal[]; uncited: string[] } {
  // A proposal's signals stand for the scanner's: each one the scan holds for that file is
  // replaced by the scanner's own object, so the evidence a tier rests on is code-computed.
  // A signal a tier can rest on (entryEvidence) that the scan does not hold for the file is
  // refused: its data (a `suggested_by`, a `marker`) would be read as proof, and an auto
  // entry rest on what a proposal wrote. Others may come from a sibling file (a duplicate).
  const uncited: string[] = [];
  const proposals = parseProposals(given).map((proposal, i) => ({
    ...proposal,
    signals: proposal.signals.map((signal, j) => {
      const scanned = citedSignal(signal, artifact.signals[proposal.path] ?? []);
      const withheld = scanned === undefined ? withheldCitation(signal, proposal.path, artifact) : undefined;
      if (withheld !== undefined) {
        uncited.push(`proposals[${i}].signals[${j}]: ${withheld}`);
        return signal;
      }
      if (scanned !== undefined || !PROOF_SIGNALS.has(signal.name)) return scanned ?? signal;
      const line = typeof signal.line === 'number' ? ` on line ${signal.line}` : '';
      uncited.push(
        `proposals[${i}].signals[${j}]: the scanner reported no ${JSON.stringify(signal.name)} signal${line} for this file`,
      );
      return signal;
    }),
  }));
  return { proposals, uncited };
}

/**
 * What is wrong with each proposal's path as the scan saw it (an alias, not a deletable
 * lifecycle unit, not in the shortlist) and with its move.
 */
function pathViolations(
  proposals: Proposal[],
  scan: {
    artifact: ScanArtifact;
    shortlisted: ReadonlySet<string>;
    units: ReadonlyMap<string, LifecycleUnit>;
    archiveDir: string | null;
  },
): string[] {
  const { artifact, shortlisted, units, archiveDir } = scan;
  const violations: string[] = [];
  const aliasOf = realFileOfAlias(artifact);
  proposals.forEach((p, i) => {
    const real = aliasOf.get(p.path);
    if (real !== undefined) violations.push(`proposals[${i}].path: ${aliasMessage(p.path, real)}`);
    else if (isLifecycleDeletion(p)) {
      const unit = units.get(p.path);
      if (unit === undefined || !isDeletableUnit(unit) || !isSafeRelativePath(p.path))
        violations.push(
          `proposals[${i}].path: ${JSON.stringify(p.path)} is not a unit a lifecycle rule lets go (${unit?.decision ?? 'no rule matches it'})`,
        );
    } else if (!shortlisted.has(p.path) || !isSafeRelativePath(p.path)) {
      violations.push(`proposals[${i}].path: ${JSON.stringify(p.path)} is not in the scan's shortlist`);
    }
    violations.push(...moveViolations(p, `proposals[${i}]`, archiveDir));
  });
  return violations;
}

/** The disk may have changed since the scan: a path whose real file is another path is refused. */
async function realPathViolations(proposals: Proposal[], root: string): Promise<string[]> {
  const violations: string[] = [];
  for (const path of [...new Set(proposals.map((p) => p.path))].sort()) {
    const real = await realFileOf(root, path);
    const index = proposals.findIndex((p) => p.path === path);
    if (real === null)
      violations.push(
        `proposals[${index}].path: ${JSON.stringify(path)} leads out of the project through a symlink`,
      );
    else if (real !== undefined && real !== path)
      violations.push(`proposals[${index}].path: ${aliasMessage(path, real)}`);
  }
  return violations;
}

/** Reads each proposed doc once (not lifecycle deletions); one that cannot be read is refused. */
async function readProposedFiles(proposals: Proposal[], root: string): Promise<Map<string, FileBytes>> {
  // Its bytes are what the hash, the anchors and the tokens refer to.
  const files = new Map<string, FileBytes>();
  const violations: string[] = [];
  const docProposals = proposals.filter((p) => !isLifecycleDeletion(p));
  for (const path of [...new Set(docProposals.map((p) => p.path))].sort()) {
    try {
      const bytes = await readFile(join(root, path));
      files.set(path, { bytes, lines: splitLines(bytes.toString('utf8')) });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      const index = proposals.findIndex((p) => p.path === path);
      violations.push(`proposals[${index}].path: cannot read ${JSON.stringify(path)} (${code})`);
    }
  }
  rejectIfAny(violations);
  return files;
}

/**
 * The entries of the kept proposals, sorted, with their ids: each file hashed (and stamped)
 * once, in path order, at the instant its bytes are hashed.
 */
function buildEntries(
  kept: Proposal[],
  from: {
    artifact: ScanArtifact;
    files: ReadonlyMap<string, FileBytes>;
    units: ReadonlyMap<string, LifecycleUnit>;
    clock: Clock;
  },
): Entry[] {
  const { artifact, files, units, clock } = from;
  // Always loaded = some agent loads it at start-up (the per-agent model); an artifact made
  // before that model existed falls back to its agent_context list.
  const agentContext =
    artifact.agents !== undefined ? startupPaths(artifact.agents) : new Set(artifact.agent_context ?? []);
  const hashed = new Map<string, { sha256: string; at: string }>();
  for (const path of [...new Set(kept.filter((p) => !isLifecycleDeletion(p)).map((p) => p.path))].sort()) {
    const sha256 = createHash('sha256').update(files.get(path)!.bytes).digest('hex');
    hashed.set(path, { sha256, at: formatInstant(clock.now()) });
  }
  const entries = kept.map((proposal) =>
    isLifecycleDeletion(proposal)
      ? buildLifecycleEntry(proposal, units.get(proposal.path)!, formatInstant(clock.now()))
      : buildEntry(
          proposal,
          files.get(proposal.path)!,
          hashed.get(proposal.path)!,
          agentContext.has(proposal.path),
        ),
  );
  entries.sort(compareEntries);
  assignEntryIds(entries);
  return entries;
}

function buildEntry(
  proposal: Proposal,
  file: FileBytes,
  stamp: { sha256: string; at: string },
  isAlwaysLoaded: boolean,
): Entry {
  let exactEdit: ExactEdit | undefined;
  let isDestructive: boolean = GENERATIVE_FLAGS.isDestructive;
  let isReversible: boolean = GENERATIVE_FLAGS.isReversible;
  if (proposal.exact_edit !== undefined) {
    const info = KIND_TABLE[proposal.exact_edit.kind];
    exactEdit = { ...proposal.exact_edit };
    if (info.hasAnchor) exactEdit.expected_sha256 = stamp.sha256;
    isDestructive = info.isDestructive;
    // `runtime` reversibility is settled at apply time; until then assume the worst.
    isReversible = info.isReversible === true;
  }
  const span = tokenSpan(proposal, file.lines.length);
  const rawTokens = span === undefined ? 0 : countTokens(spanText(file.lines, span.start, span.end));
  const injectionFrequency = isAlwaysLoaded ? 1 : 0;
  const entry: Entry = {
    id: '',
    path: proposal.path,
    category: proposal.category,
    signals: proposal.signals,
    op: proposal.op,
    op_type: proposal.op_type,
    ...(exactEdit !== undefined ? { exact_edit: exactEdit } : {}),
    // Where a generative rewrite goes: clean replaces exactly these lines.
    ...(proposal.op_type === 'generative' && proposal.reducible_range !== undefined
      ? { reducible_range: { ...proposal.reducible_range } }
      : {}),
    ...(proposal.op_type === 'generative' ? { file_sha256: stamp.sha256 } : {}),
    is_destructive: isDestructive,
    is_reversible: isReversible,
    safety_tier: 'confirm',
    token_estimate: {
      raw_tokens: rawTokens,
      injection_frequency: injectionFrequency,
      weighted_tokens: rawTokens * injectionFrequency,
    },
    confidence: proposal.confidence,
    generated_at: stamp.at,
    ...(proposal.why !== undefined ? { why: proposal.why } : {}),
  };
  entry.safety_tier = deriveSafetyTier(proposal.op_type, isDestructive, isReversible, entryEvidence(entry));
  return entry;
}

/** Alias → its real file, from the artifact's `aliases`. */
function realFileOfAlias(artifact: ScanArtifact): Map<string, string> {
  const out = new Map<string, string>();
  for (const [real, aliases] of Object.entries(artifact.aliases ?? {}))
    for (const alias of aliases) out.set(alias, real);
  return out;
}

function aliasMessage(path: string, real: string): string {
  return `${JSON.stringify(path)} leads to the real file ${JSON.stringify(real)} through a symlink; an edit is proposed on the real file only`;
}

/**
 * The root-relative real file behind `path` (symlinks resolved): null when it leads out of
 * the root, undefined when it is missing (reading it then fails with its own message).
 */
async function realFileOf(root: string, path: string): Promise<string | null | undefined> {
  let realRoot: string;
  let real: string;
  try {
    [realRoot, real] = await Promise.all([realpath(root), realpath(join(root, path))]);
  } catch {
    return undefined;
  }
  const rel = relative(realRoot, real);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null;
  return sep === '/' ? rel : rel.split(sep).join('/');
}

function isLifecycleDeletion(proposal: Proposal): boolean {
  return proposal.exact_edit?.kind === 'delete-path';
}

/**
 * A lifecycle `delete-path`: every guarded fact comes from the scan's unit, never from the
 * proposal. Reversible only when git history holds every byte (tracked and clean); apply
 * re-derives that (docs/lifecycle.md).
 */
function buildLifecycleEntry(proposal: Proposal, unit: LifecycleUnit, at: string): Entry {
  const isReversible = unit.tracked && !unit.dirty;
  const lifecycle: LifecycleInfo = {
    rule: unit.rule,
    lifetime: unit.lifetime,
    tracked: unit.tracked,
    dirty: unit.dirty,
    age_days: unit.age_days,
    age_source: unit.age_source,
    ...(unit.rank !== undefined ? { rank: unit.rank } : {}),
    decision: unit.decision,
    evidence: unit.evidence,
    files: unit.files,
    content_digest: unit.content_digest,
    ...(unit.served_path !== undefined ? { served_path: unit.served_path } : {}),
    ...(unit.served_when !== undefined ? { served_when: unit.served_when } : {}),
    ...(unit.extract !== undefined ? { extract: unit.extract } : {}),
  };
  const entry: Entry = {
    id: '',
    path: proposal.path,
    category: proposal.category,
    signals: proposal.signals,
    op: proposal.op,
    op_type: 'deterministic',
    exact_edit: { kind: 'delete-path', recursive: unit.type === 'directory' },
    is_destructive: true,
    is_reversible: isReversible,
    safety_tier: 'confirm',
    token_estimate: { raw_tokens: 0, injection_frequency: 0, weighted_tokens: 0 },
    confidence: proposal.confidence,
    generated_at: at,
    ...(proposal.why !== undefined ? { why: proposal.why } : {}),
    lifecycle,
  };
  entry.safety_tier = deriveSafetyTier('deterministic', true, isReversible, entryEvidence(entry));
  return entry;
}

function rejectIfAny(violations: string[]): void {
  if (violations.length === 0) return;
  const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : '';
  throw new ValidationError('invalid-proposals', `invalid proposals: ${violations[0]}${more}`, [
    ...violations,
  ]);
}
