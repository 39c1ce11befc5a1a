/**
 * The `rules` classifier (SPEC §2.6): a deterministic, model-free mapping from scanner
 * signals to slim proposals. It proposes an exact edit only where the signal's data pins
 * it down (and the file text confirms it); otherwise a generative op or nothing. It never
 * authors a guarded field.
 *
 * Precedence per file, so that no two proposals conflict at apply time (SPEC §2.9):
 *   1. superseded → move-to-archive (the file moves whole; nothing else is proposed);
 *   2. orphaned → delete-range of the whole file (covers every line; nothing else),
 *      unless a completed marker says to keep it as a frozen record (step 3);
 *   3. in-place deterministic edits: insert-frontmatter (completed), dedupe blocks,
 *      replace-text (dangling references, version skew) — an anchor that overlaps one
 *      already taken is dropped (the next check re-proposes it);
 *   4. bloat → a generative distill, only when step 3 proposed nothing: the model-free
 *      fixes come first so they still happen with no model, and the distill is proposed
 *      by the next check once they are applied.
 * Non-destructive dispositions win over destructive ones (archive before delete, freeze
 * before delete): the scanner's evidence never outweighs keeping the content.
 */
import { posix } from 'node:path';
import { splitLines } from './line-span.js';
import { findProposalConflicts, isSafeRelativePath } from './proposals.js';
import {
  type Anchor,
  COMPLETED_STATUSES,
  type HygieneConfig,
  type Proposal,
  type ScanArtifact,
  type Signal,
  SUPERSEDED_STATUSES,
} from './types.js';

/** Reads a project-relative file's text; `undefined` (or a throw) when it cannot be read. */
export type ReadText = (path: string) => string | undefined;
/** Whether a project-relative path already exists (a move must not overwrite it). */
export type PathExists = (path: string) => boolean;

const STALE_NAME_REASONS = new Set(['location', 'date-in-name', 'draft', 'old']);

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const int = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) ? value : undefined;

function markerValue(signal: Signal): string {
  return (str(signal.data?.['value']) ?? '').trim().toLowerCase();
}

function isSupersededMarker(signal: Signal): boolean {
  if (signal.name !== 'frontmatter_marker') return false;
  const marker = str(signal.data?.['marker']);
  if (marker === 'superseded_by' || marker === 'archived') return true;
  if (marker === 'status' || marker === 'body-status') return SUPERSEDED_STATUSES.has(markerValue(signal));
  return false;
}

function isCompletedMarker(signal: Signal): boolean {
  if (signal.name !== 'frontmatter_marker') return false;
  const marker = str(signal.data?.['marker']);
  if (marker === 'tasks-complete') return true;
  if (marker === 'status' || marker === 'body-status') return COMPLETED_STATUSES.has(markerValue(signal));
  return false;
}

const PATH_CHAR_BEFORE = /[\w.\-/~%]/;
const PATH_CHAR_AFTER = /[\w\-/%]/;

/**
 * Whether every occurrence of `target` on the line stands alone as a path token, so that
 * replacing all of them (the applier's replace-text semantics) cannot touch a longer
 * path that merely contains it (`a.md` inside `data.md`).
 */
export function occursOnlyAsToken(line: string, target: string): boolean {
  if (target === '') return false;
  let from = 0;
  let found = false;
  for (;;) {
    const at = line.indexOf(target, from);
    if (at === -1) return found;
    found = true;
    const before = at === 0 ? '' : line[at - 1]!;
    const end = at + target.length;
    let after = end >= line.length ? '' : line[end]!;
    // A trailing full stop is sentence punctuation unless a word character follows it.
    if (after === '.') after = /\w/.test(line[end + 1] ?? '') ? 'x' : '';
    if (PATH_CHAR_BEFORE.test(before) || PATH_CHAR_AFTER.test(after)) return false;
    from = at + 1;
  }
}

const PLAIN_VERSION = /^v?\d+(\.\d+){0,3}$/;
/** A manifest version with at most one leading operator; group 1 is its floor (`^5.9.3` → `5.9.3`). */
const SINGLE_BOUND = /^(?:\^|~|>=|=|v)?(\d+(?:\.\d+){0,3})$/;

function archiveDest(path: string, config: HygieneConfig): string {
  const name = posix.basename(path);
  if (config.archive.dir !== null && config.archive.dir !== '') {
    return posix.normalize(posix.join(config.archive.dir, name)).replace(/^\.\//, '');
  }
  const dir = posix.dirname(path);
  return dir === '.' ? `archive/${name}` : `${dir}/archive/${name}`;
}

interface FileContext {
  path: string;
  signals: Signal[];
  lines: string[];
  config: HygieneConfig;
  isAgentContext: boolean;
  exists: PathExists;
  reservedDests: Set<string>;
}

function isOlderSibling(signal: Signal): boolean {
  return (
    signal.name === 'stale_name_location' &&
    str(signal.data?.['reason']) === 'older-version' &&
    str(signal.data?.['newer_sibling']) !== undefined
  );
}

function isUnreferencedStaleName(signal: Signal): boolean {
  return (
    signal.name === 'stale_name_location' &&
    STALE_NAME_REASONS.has(str(signal.data?.['reason']) ?? '') &&
    signal.data?.['inbound_references'] === 0
  );
}

function supersededProposal(ctx: FileContext): Proposal | undefined {
  const marker = ctx.signals.find(isSupersededMarker);
  const sibling = ctx.signals.find(isOlderSibling);
  const trigger = marker ?? sibling;
  if (trigger === undefined || ctx.isAgentContext) return undefined;
  const dest = archiveDest(ctx.path, ctx.config);
  // Never guess another name: an occupied destination means no proposal.
  // An archive.dir that leads out of the project cannot be honoured either.
  if (!isSafeRelativePath(dest) || dest === ctx.path || ctx.reservedDests.has(dest) || ctx.exists(dest)) {
    return undefined;
  }
  ctx.reservedDests.add(dest);
  const by =
    marker !== undefined
      ? (str(marker.data?.['superseded_by']) ??
        (str(marker.data?.['marker']) === 'superseded_by' ? markerValue(marker) : ''))
      : (str(sibling?.data?.['newer_sibling']) ?? '');
  const why = by !== '' ? ` (superseded by ${by})` : ` (marked ${markerValue(trigger) || 'archived'})`;
  return {
    path: ctx.path,
    category: { class: 'stale', subtype: 'superseded' },
    // Every signal that supports the move is its evidence, in scanner order.
    signals: ctx.signals.filter((signal) => isSupersededMarker(signal) || isOlderSibling(signal)),
    op: `Move the superseded doc to ${dest}${why}.`,
    op_type: 'deterministic',
    exact_edit: { kind: 'move-to-archive', dest_path: dest },
    confidence: marker !== undefined ? 0.9 : 0.7,
  };
}

function orphanedProposal(ctx: FileContext): Proposal | undefined {
  const trigger = ctx.signals.find(isUnreferencedStaleName);
  // A completed doc is frozen as a record rather than deleted (non-destructive first).
  if (trigger === undefined || ctx.isAgentContext || ctx.lines.length === 0) return undefined;
  if (ctx.signals.some(isCompletedMarker)) return undefined;
  const n = ctx.lines.length;
  return {
    path: ctx.path,
    category: { class: 'stale', subtype: 'orphaned' },
    signals: ctx.signals.filter(isUnreferencedStaleName),
    op: `Delete this doc (all ${n} line${n === 1 ? '' : 's'}): nothing links to it and it sits in a stale location.`,
    op_type: 'deterministic',
    exact_edit: { kind: 'delete-range', anchor: { start_line: 1, end_line: n } },
    confidence: 0.6,
  };
}

function inPlaceProposals(ctx: FileContext): Proposal[] {
  const out: Proposal[] = [];
  const taken: Anchor[] = [];
  const free = (a: Anchor) => taken.every((t) => a.end_line < t.start_line || t.end_line < a.start_line);
  const inFile = (a: Anchor) =>
    a.start_line >= 1 && a.start_line <= a.end_line && a.end_line <= ctx.lines.length;

  const completed = ctx.signals.find(isCompletedMarker);
  if (completed !== undefined) {
    out.push({
      path: ctx.path,
      category: { class: 'stale', subtype: 'completed-in-place' },
      signals: ctx.signals.filter(isCompletedMarker),
      op: 'Freeze the completed doc with frontmatter hygiene: frozen, so it stays as a record and is no longer scanned.',
      op_type: 'deterministic',
      exact_edit: { kind: 'insert-frontmatter', key: 'hygiene', value: 'frozen' },
      confidence: 0.8,
    });
  }

  for (const signal of ctx.signals) {
    if (signal.name !== 'duplicate_content') continue;
    const start = int(signal.data?.['start_line']);
    const end = int(signal.data?.['end_line']);
    const ref = str(signal.data?.['canonical_ref']);
    if (start === undefined || end === undefined || ref === undefined || ref.split('#')[0] === ctx.path)
      continue;
    const anchor = { start_line: start, end_line: end };
    if (!inFile(anchor) || !free(anchor)) continue;
    taken.push(anchor);
    out.push({
      path: ctx.path,
      category: { class: 'stale', subtype: 'duplicated' },
      signals: [signal],
      op: `Replace lines ${start}–${end}, a copy of ${ref}, with a link to it.`,
      op_type: 'deterministic',
      exact_edit: { kind: 'dedupe', anchor, canonical_ref: ref },
      confidence: 0.9,
    });
  }

  for (const signal of ctx.signals) {
    const line = signal.line;
    if (line === undefined || line < 1 || line > ctx.lines.length) continue;
    const text = ctx.lines[line - 1]!;
    const anchor = { start_line: line, end_line: line };
    if (signal.name === 'broken_reference') {
      const target = str(signal.data?.['target']);
      const suggested = str(signal.data?.['suggested_target']);
      if (target === undefined || suggested === undefined || suggested === target || suggested.includes('\n'))
        continue;
      if (!occursOnlyAsToken(text, target) || !free(anchor)) continue;
      taken.push(anchor);
      const how =
        str(signal.data?.['suggested_by']) === 'rename-history'
          ? 'git history shows it moved'
          : 'a unique file of that name exists';
      out.push({
        path: ctx.path,
        category: { class: 'stale', subtype: 'dangling-reference' },
        signals: [signal],
        op: `Point the broken reference ${target} on line ${line} at ${suggested} (${how}).`,
        op_type: 'deterministic',
        exact_edit: { kind: 'replace-text', anchor, match: target, replacement: suggested },
        confidence: str(signal.data?.['suggested_by']) === 'rename-history' ? 0.9 : 0.7,
      });
    } else if (signal.name === 'version_skew') {
      const match = str(signal.data?.['match']);
      const stated = str(signal.data?.['stated']);
      const actual = str(signal.data?.['actual']);
      const subject = str(signal.data?.['subject']) ?? 'version';
      const manifest = str(signal.data?.['manifest']) ?? 'the manifest';
      // The replacement is the lowest version the manifest allows (`^5.9.3`, `>=20.19` → their
      // floor); a compound range (`>=2 <3`, `1.x || 2.x`) is left to a person.
      const floor = actual === undefined ? undefined : SINGLE_BOUND.exec(actual.trim())?.[1];
      if (match === undefined || stated === undefined || floor === undefined) continue;
      if (!PLAIN_VERSION.test(stated)) continue;
      const first = match.indexOf(stated);
      if (first === -1 || match.indexOf(stated, first + 1) !== -1 || !text.includes(match)) continue;
      const replacement = match.slice(0, first) + floor + match.slice(first + stated.length);
      if (replacement === match || !free(anchor)) continue;
      taken.push(anchor);
      out.push({
        path: ctx.path,
        category: { class: 'stale', subtype: 'contradicted' },
        signals: [signal],
        op: `Update the stated ${subject} version ${stated} on line ${line} to ${floor}, as ${manifest} requires (${actual}).`,
        op_type: 'deterministic',
        exact_edit: { kind: 'replace-text', anchor, match, replacement },
        confidence: 0.7,
      });
    }
  }
  return out;
}

function distillProposal(ctx: FileContext): Proposal | undefined {
  const n = ctx.lines.length;
  if (n === 0) return undefined;
  const weight = ctx.signals.find((s) => s.name === 'context_weight');
  if (weight !== undefined) {
    const budget = int(weight.data?.['budget']) ?? ctx.config.context.budget_tokens;
    const tokens = int(weight.data?.['tokens']);
    return {
      path: ctx.path,
      category: { class: 'bloat', subtype: 'distill' },
      signals: [weight],
      op: `Distil this always-loaded agent context${tokens !== undefined ? ` (≈${tokens} tokens)` : ''} to under its ${budget}-token budget, keeping every instruction that still applies.`,
      op_type: 'generative',
      reducible_range: { start_line: 1, end_line: n },
      confidence: 0.7,
    };
  }
  const growth = ctx.signals.find((s) => s.name === 'append_only_growth');
  if (growth !== undefined) {
    const first = int(growth.data?.['first_appended_line']);
    const start = first !== undefined && first >= 1 && first <= n ? first : 1;
    return {
      path: ctx.path,
      category: { class: 'bloat', subtype: 'distill' },
      signals: [growth],
      op: `Distil the notes appended ${start > 1 ? `from line ${start} on` : 'over time'} into the durable points they still make.`,
      op_type: 'generative',
      reducible_range: { start_line: start, end_line: n },
      confidence: 0.6,
    };
  }
  return undefined;
}

/**
 * Classifies every signal-bearing candidate of `artifact` into slim proposals.
 * Deterministic: the same artifact and file texts give the same proposals in the same
 * order (by path, then by the precedence above). A file that cannot be read gets none.
 */
export function classifyWithRules(
  artifact: ScanArtifact,
  config: HygieneConfig,
  readText: ReadText,
  exists: PathExists = () => false,
): Proposal[] {
  const out: Proposal[] = [];
  const shortlisted = new Set(artifact.shortlist);
  const agentContext = new Set(artifact.agent_context ?? []);
  const reservedDests = new Set<string>();
  for (const path of Object.keys(artifact.signals).sort()) {
    const signals = artifact.signals[path] ?? [];
    if (signals.length === 0 || !shortlisted.has(path)) continue;
    let text: string | undefined;
    try {
      text = readText(path);
    } catch {
      text = undefined;
    }
    if (text === undefined) continue;
    const ctx: FileContext = {
      path,
      signals,
      lines: splitLines(text),
      config,
      isAgentContext: agentContext.has(path),
      exists,
      reservedDests,
    };
    const whole = supersededProposal(ctx) ?? orphanedProposal(ctx);
    if (whole !== undefined) {
      out.push(whole);
      continue;
    }
    const inPlace = inPlaceProposals(ctx);
    if (inPlace.length > 0) {
      out.push(...inPlace);
      continue;
    }
    const distill = distillProposal(ctx);
    if (distill !== undefined) out.push(distill);
  }
  // The precedence above makes conflicts impossible; fail loudly if that ever regresses.
  const conflicts = findProposalConflicts(out);
  if (conflicts.length > 0)
    throw new Error(`rules classifier produced conflicting proposals: ${conflicts[0]}`);
  return out;
}
