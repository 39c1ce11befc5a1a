/**
 * The `rules` classifier (docs/scanner-and-classifiers.md): a deterministic, model-free mapping from scanner
 * signals to slim proposals. It proposes an exact edit only where the signal's data pins
 * it down (and the file text confirms it); otherwise a generative op or nothing. It never
 * authors a guarded field.
 *
 * Precedence per file, so that no two proposals conflict at apply time (docs/hygiene-clean.md):
 *   1. superseded → move-to-archive (the file moves whole; nothing else is proposed);
 *   2. orphaned → delete-range of the whole file (covers every line; nothing else),
 *      unless a completed marker says to keep it as a frozen record (step 3);
 *   3. in-place deterministic edits: insert-frontmatter (completed), dedupe blocks (never
 *      in an always-loaded agent-context file: a link is not an import, so the agent would
 *      lose the instruction), replace-text for dangling references (all fixable ones on a
 *      line in one edit) — an anchor that overlaps one already taken is dropped (the next
 *      check re-proposes it);
 *   3b. in agent context, `near_duplicate` → bloat/redundant, always confirm (its evidence
 *      is judged): a word-for-word repeat inside the file, or a copy Claude Code already
 *      loads through an import, is deleted (delete-range); any other copy (a Claude file
 *      restating another agent's file, a context file restating a guide) gets one
 *      generative entry for its largest span, whose op names the import or link to add;
 *   3c. in agent context, `repeated_block` → delete the second copy (delete-range) when the
 *      text still repeats the first word for word, and `machine_markers` → one replace-text
 *      removing the markers; both bloat/redundant, so always confirm;
 *   4. bloat → a generative distill, only when step 3 proposed nothing: the model-free
 *      fixes come first so they still happen with no model, and the distill is proposed
 *      by the next check once they are applied.
 * `version_skew` gets no proposal: a stated version may be historical ("Node 18 support was
 * dropped"), which only a reader can tell; the signal stays in the scan for a classifier
 * that can judge it.
 * Non-destructive dispositions win over destructive ones (archive before delete, freeze
 * before delete): the scanner's evidence never outweighs keeping the content.
 */
import { posix } from 'node:path';
import { splitLines } from '../line-span.js';
import { isTestData } from '../scan/paths.js';
import { stripMarkers } from '../scan/signals/machine-markers.js';
import {
  type Anchor,
  COMPLETED_STATUSES,
  type HygieneConfig,
  moveDoubt,
  namedElsewhereDoubt,
  onlyChangesTheBase,
  type Proposal,
  REFERENCE_SIGNALS,
  type ScanArtifact,
  type Signal,
  SUPERSEDED_STATUSES,
  siteDoubt,
} from '../types.js';
import { type DedupeFacts, decideDedupe, readPairs } from './dedupe.js';
import { configuresToolOrAgent, findProposalConflicts, isSafeRelativePath } from './proposals.js';

/** Why a doc gets no proposal although it has signals. */
const GENERATED = 'a generated doc: the fix belongs in its source';
const TEST_DATA = "test data (under a test, fixture or snapshot folder): input to a tool's tests, not a doc";
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

const isTasksComplete = (signal: Signal) => str(signal.data?.['marker']) === 'tasks-complete';

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

/** Whether every occurrence of `text` on the line ends where a path would (not `a.md` in `a.md.bak`). */
function alwaysEndsAsToken(line: string, text: string): boolean {
  for (let at = line.indexOf(text); at !== -1; at = line.indexOf(text, at + 1)) {
    const end = at + text.length;
    let after = line[end] ?? '';
    if (after === '.') after = /\w/.test(line[end + 1] ?? '') ? 'x' : '';
    if (PATH_CHAR_AFTER.test(after)) return false;
  }
  return true;
}

export interface LinkFix {
  target: string;
  suggested: string;
  /** The reference in its syntax on the line (`](old.md`, `]: old.md`, `@old.md`, …). */
  match: string;
  replacement: string;
}

/**
 * How a broken reference with a known new target is fixed on its line: the target in the
 * syntax that makes it a reference (so a file name in prose is never rewritten), and only
 * when that form stands on the line as a whole path token.
 */
export function linkFix(line: string, signal: Signal): LinkFix | undefined {
  const target = str(signal.data?.['target']);
  const suggested = str(signal.data?.['suggested_target']);
  if (target === undefined || suggested === undefined || suggested === target || /[\r\n]/.test(suggested))
    return undefined;
  const forms: [string, string][] = (() => {
    switch (str(signal.data?.['kind'])) {
      case 'definition':
        return [
          [']: ', ''],
          [']: <', '>'],
        ];
      case 'html':
        return [
          ['="', '"'],
          ["='", "'"],
        ];
      case 'import':
        return [['@', '']];
      case 'code-path':
        return [['`', '`']];
      default:
        return [
          ['](', ''],
          ['](<', '>'],
        ];
    }
  })();
  for (const [before, after] of forms) {
    const match = `${before}${target}${after}`;
    if (!line.includes(match) || (after === '' && !alwaysEndsAsToken(line, match))) continue;
    return { target, suggested, match, replacement: `${before}${suggested}${after}` };
  }
  return undefined;
}

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
  /** The dedupe proposals decided for this file (see dedupe.ts). */
  dedupes: Proposal[];
}

function isOlderSibling(signal: Signal): boolean {
  return (
    signal.name === 'stale_name_location' &&
    str(signal.data?.['reason']) === 'older-version' &&
    str(signal.data?.['newer_sibling']) !== undefined
  );
}

/**
 * A doc nothing links to whose name or folder says stale. Never a page a site publishes
 * (`served_by`): a name alone is no reason to delete a published page.
 */
function isUnreferencedStaleName(signal: Signal): boolean {
  return (
    signal.name === 'stale_name_location' &&
    STALE_NAME_REASONS.has(str(signal.data?.['reason']) ?? '') &&
    signal.data?.['inbound_references'] === 0 &&
    signal.data?.['served_by'] === undefined
  );
}

function supersededProposal(ctx: FileContext): Proposal | undefined {
  const marker = ctx.signals.find(isSupersededMarker);
  const sibling = ctx.signals.find(isOlderSibling);
  const trigger = marker ?? sibling;
  if (trigger === undefined || ctx.isAgentContext) return undefined;
  const dest = archiveDest(ctx.path, ctx.config);
  // Never guess another name: an occupied destination means no proposal.
  // An archive.dir that leads out of the project cannot be honoured either, nor a move
  // from or onto a file that configures a tool or an agent (docs/trust.md, "Moves").
  if (
    !isSafeRelativePath(dest) ||
    dest === ctx.path ||
    ctx.reservedDests.has(dest) ||
    ctx.exists(dest) ||
    configuresToolOrAgent(ctx.path) ||
    configuresToolOrAgent(dest)
  ) {
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

  // A freeze needs a status the author wrote (frontmatter or an in-body status line): a
  // fully ticked checklist alone is not a finished doc (an annual report's template ticks
  // every box), so its signal stays reported with no entry.
  const completed = ctx.signals.find((signal) => isCompletedMarker(signal) && !isTasksComplete(signal));
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

  // Dedupes decided for this file (from its own signals or from a copy elsewhere that links
  // here); never in an always-loaded agent-context file.
  for (const proposal of ctx.isAgentContext ? [] : ctx.dedupes) {
    const anchor = proposal.exact_edit!.anchor!;
    if (!inFile(anchor) || !free(anchor)) continue;
    taken.push(anchor);
    out.push(proposal);
  }

  // Every fixable broken reference, grouped by line: one replace-text per line, so that
  // several moved links on one line are fixed together in one cleanup.
  const fixesByLine = new Map<number, { signal: Signal; fix: LinkFix }[]>();
  for (const signal of ctx.signals) {
    const line = signal.line;
    if (!REFERENCE_SIGNALS.has(signal.name) || line === undefined || line < 1 || line > ctx.lines.length)
      continue;
    if (onlyChangesTheBase(signal)) continue;
    const fix = linkFix(ctx.lines[line - 1]!, signal);
    if (fix === undefined) continue;
    const group = fixesByLine.get(line);
    if (group === undefined) fixesByLine.set(line, [{ signal, fix }]);
    else group.push({ signal, fix });
  }
  for (const [line, fixes] of [...fixesByLine].sort(([a], [b]) => a - b)) {
    const anchor = { start_line: line, end_line: line };
    if (!free(anchor)) continue;
    const text = ctx.lines[line - 1]!;
    let fixed = text;
    for (const { fix } of fixes) fixed = fixed.split(fix.match).join(fix.replacement);
    if (fixed === text) continue;
    taken.push(anchor);
    const one = fixes.length === 1 ? fixes[0]! : undefined;
    const byHistory = fixes.every(({ signal }) => str(signal.data?.['suggested_by']) === 'rename-history');
    const caveat = fixes
      .map(({ signal }) =>
        byHistory ? moveDoubt(signal) : (namedElsewhereDoubt(signal) ?? siteDoubt(signal)),
      )
      .find((c) => c !== undefined);
    const how = `${byHistory ? 'git history shows where it moved' : 'a unique file of that name exists'}${
      caveat === undefined ? '' : `, but ${caveat}`
    }`;
    out.push({
      path: ctx.path,
      category: { class: 'stale', subtype: 'dangling-reference' },
      signals: fixes.map(({ signal }) => signal),
      op:
        one !== undefined
          ? `Point the broken reference ${one.fix.target} on line ${line} at ${one.fix.suggested} (${how}).`
          : `Point ${fixes.length} broken references on line ${line} at their new paths: ${fixes
              .map(({ fix }) => `${fix.target} → ${fix.suggested}`)
              .join(', ')}.`,
      op_type: 'deterministic',
      // One fix: its link syntax as the match, so prose naming the same file is untouched.
      // Several: the whole line, rewritten once.
      exact_edit:
        one !== undefined
          ? { kind: 'replace-text', anchor, match: one.fix.match, replacement: one.fix.replacement }
          : { kind: 'replace-text', anchor, match: text, replacement: fixed },
      confidence: byHistory && caveat === undefined ? 0.9 : 0.7,
    });
  }
  return out;
}

const CLAUDE_ID = 'claude-code';

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * `near_duplicate` in an agent-context file → bloat/redundant proposals (step 3b). The
 * deterministic ones take anchors no earlier proposal holds; where no exact edit fits, one
 * generative proposal (the largest span) asks for the copy to be reduced by a person.
 */
function redundantProposals(ctx: FileContext, taken: readonly Proposal[]): Proposal[] {
  const anchors = taken.map((p) => p.exact_edit?.anchor).filter((a): a is Anchor => a !== undefined);
  const free = (a: Anchor) => anchors.every((t) => a.end_line < t.start_line || t.end_line < a.start_line);
  const out: Proposal[] = [];
  let generative: Proposal | undefined;
  for (const signal of ctx.signals) {
    if (signal.name !== 'near_duplicate') continue;
    const start = int(signal.data?.['start_line']);
    const end = int(signal.data?.['end_line']);
    const other = str(signal.data?.['other_path']);
    const ref = str(signal.data?.['other_ref']) ?? other;
    const similarity =
      typeof signal.data?.['similarity'] === 'number' ? (signal.data['similarity'] as number) : 0;
    if (
      start === undefined ||
      end === undefined ||
      other === undefined ||
      start < 1 ||
      end > ctx.lines.length
    )
      continue;
    const anchor = { start_line: start, end_line: end };
    const relation = str(signal.data?.['relation']);
    const loadedBy = strings(signal.data?.['loaded_by']);
    const otherLoadedBy = strings(signal.data?.['other_loaded_by']);
    const isClaudeOnly = loadedBy.includes(CLAUDE_ID) && !otherLoadedBy.includes(CLAUDE_ID);
    const base = {
      path: ctx.path,
      category: { class: 'bloat', subtype: 'redundant' } as const,
      signals: [signal],
    };
    const percent = `${Math.round(similarity * 100)}%`;
    const twice =
      relation === 'agent-context' && loadedBy.includes(CLAUDE_ID) && otherLoadedBy.includes(CLAUDE_ID);
    if (free(anchor) && relation === 'within-file' && signal.data?.['exact'] === true) {
      anchors.push(anchor);
      out.push({
        ...base,
        op: `Delete lines ${start}–${end}: below their heading they repeat ${ref} of the same file word for word.`,
        op_type: 'deterministic',
        exact_edit: { kind: 'delete-range', anchor },
        confidence: 0.8,
      });
    } else if (free(anchor) && twice) {
      anchors.push(anchor);
      out.push({
        ...base,
        op: `Delete lines ${start}–${end}: Claude Code already loads ${ref} (${percent} the same wording), so every session pays for it twice.`,
        op_type: 'deterministic',
        exact_edit: { kind: 'delete-range', anchor },
        confidence: 0.7,
      });
    } else if (
      generative === undefined ||
      end - start > generative.reducible_range!.end_line - generative.reducible_range!.start_line
    ) {
      // Putting an import in the copy's place is no exact edit (replace-text is one line),
      // and a rewrite may not add an import: that part is the person's, named in the op.
      const target = posix.relative(posix.dirname(ctx.path), other) || other;
      const how =
        relation === 'agent-context' && isClaudeOnly
          ? `make this file import it (a line @${target}) and drop the copy`
          : relation === 'restated-doc'
            ? `keep what an agent needs in a line or two and point to ${other} for the rest`
            : 'keep one copy, in the file every agent that needs it loads';
      generative = {
        ...base,
        op: `Reduce lines ${start}–${end}, which restate ${ref} (${percent} the same wording): ${how}.`,
        op_type: 'generative',
        reducible_range: anchor,
        confidence: 0.5,
      };
    }
  }
  out.push(...exactRepeatProposals(ctx, free, anchors));
  return generative !== undefined ? [...out, generative] : out;
}

const wordKey = (lines: readonly string[]) =>
  (
    lines
      .join(' ')
      .toLowerCase()
      .match(/[\p{L}\p{N}_]+/gu) ?? []
  ).join(' ');

/**
 * `repeated_block` → delete the second copy, when the file's text still repeats it word for
 * word (with one blank line around it, so one stays); `machine_markers` → one replace-text
 * over the marked lines that removes every marker of the shape (lines holding only a marker
 * go). Both are bloat/redundant: always confirm.
 */
function exactRepeatProposals(ctx: FileContext, free: (a: Anchor) => boolean, anchors: Anchor[]): Proposal[] {
  const out: Proposal[] = [];
  const base = { path: ctx.path, category: { class: 'bloat', subtype: 'redundant' } as const };
  for (const signal of ctx.signals) {
    const start = int(signal.data?.['start_line']);
    const end = int(signal.data?.['end_line']);
    if (start === undefined || end === undefined || start < 1 || end > ctx.lines.length || start > end)
      continue;
    if (signal.name === 'repeated_block') {
      const firstStart = int(signal.data?.['first_start_line']);
      const firstEnd = int(signal.data?.['first_end_line']);
      if (firstStart === undefined || firstEnd === undefined || firstEnd >= start || firstStart < 1) continue;
      const copy = wordKey(ctx.lines.slice(start - 1, end));
      if (copy === '' || copy !== wordKey(ctx.lines.slice(firstStart - 1, firstEnd))) continue;
      const blank = (n: number) => n < 1 || n > ctx.lines.length || ctx.lines[n - 1]!.trim() === '';
      const anchor = {
        start_line: start,
        end_line: blank(start - 1) && end < ctx.lines.length && blank(end + 1) ? end + 1 : end,
      };
      if (!free(anchor)) continue;
      anchors.push(anchor);
      out.push({
        ...base,
        signals: [signal],
        op: `Delete lines ${start}–${end}: they repeat lines ${firstStart}–${firstEnd} of the same file word for word.`,
        op_type: 'deterministic',
        exact_edit: { kind: 'delete-range', anchor },
        confidence: 0.8,
      });
    } else if (signal.name === 'machine_markers') {
      out.push(...markerProposals(ctx, signal, free, anchors));
    }
  }
  return out;
}

/**
 * Removes a `machine_markers` shape: markers with the same text on every line go in one
 * replace-text over their span (when the text occurs nowhere else in it, code included);
 * otherwise one edit per line — a replace-text, or a delete-range for a line holding only
 * the marker. A line whose text no longer carries the marker gets none.
 */
function markerProposals(
  ctx: FileContext,
  signal: Signal,
  free: (a: Anchor) => boolean,
  anchors: Anchor[],
): Proposal[] {
  const shape = str(signal.data?.['shape']);
  const marked = (Array.isArray(signal.data?.['lines']) ? (signal.data['lines'] as unknown[]) : [])
    .map(int)
    .filter((n): n is number => n !== undefined && n >= 1 && n <= ctx.lines.length);
  if (shape === undefined || marked.length === 0) return [];
  const base = {
    path: ctx.path,
    category: { class: 'bloat', subtype: 'redundant' } as const,
    signals: [signal],
    op_type: 'deterministic' as const,
    confidence: 0.8,
  };
  const stripped = marked.map((n) => ({
    n,
    line: ctx.lines[n - 1]!,
    ...stripMarkers(ctx.lines[n - 1]!, shape),
  }));
  if (stripped.some((s) => s.removed.length === 0)) return [];
  const literal = stripped[0]!.removed.join('');
  const span = { start_line: marked[0]!, end_line: marked[marked.length - 1]! };
  const spanText = ctx.lines.slice(span.start_line - 1, span.end_line).join('\n');
  const sameEverywhere =
    stripped.every((s) => s.kept !== null && s.line.replace(literal, '') === s.kept) &&
    spanText.split(literal).length - 1 === marked.length;
  if (sameEverywhere && free(span)) {
    anchors.push(span);
    return [
      {
        ...base,
        op: `Remove the ${marked.length} "${literal.trim()}" markers in lines ${span.start_line}–${span.end_line}: no agent acts on them, and every one that loads the file pays for them.`,
        exact_edit: { kind: 'replace-text', anchor: span, match: literal, replacement: '' },
      },
    ];
  }
  const out: Proposal[] = [];
  for (const s of stripped) {
    const anchor = { start_line: s.n, end_line: s.n };
    if (!free(anchor)) continue;
    anchors.push(anchor);
    out.push(
      s.kept === null
        ? {
            ...base,
            op: `Delete line ${s.n}: it holds only the marker ${s.removed.join('').trim()}, which no agent acts on.`,
            exact_edit: { kind: 'delete-range', anchor },
          }
        : {
            ...base,
            op: `Remove the marker ${s.removed.join('').trim()} from line ${s.n}: no agent acts on it.`,
            exact_edit: { kind: 'replace-text', anchor, match: s.line, replacement: s.kept },
          },
    );
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
      op: `Distil this ${str(weight.data?.['injection']) === 'on-demand' ? 'on-demand' : 'always-loaded'} agent context${tokens !== undefined ? ` (≈${tokens} tokens)` : ''} to under its ${budget}-token budget, keeping every instruction that still applies.`,
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

/** Every dedupe the evidence supports, by the path it edits (see dedupe.ts for the conditions). */
function decideDedupes(
  artifact: ScanArtifact,
  facts: DedupeFacts,
  onDeclined: (path: string, signal: Signal, reason: string) => void,
): Map<string, Proposal[]> {
  const pairs = readPairs(artifact.signals);
  const byPath = new Map<string, Proposal[]>();
  const seen = new Set<string>();
  for (const path of Object.keys(artifact.signals).sort()) {
    for (const signal of artifact.signals[path] ?? []) {
      if (signal.name !== 'duplicate_content') continue;
      const { proposal, declined } = decideDedupe(path, signal, pairs, facts);
      if (proposal === undefined) {
        onDeclined(path, signal, `no dedupe: ${declined ?? 'not proved'}`);
        continue;
      }
      const anchor = proposal.exact_edit!.anchor!;
      // Two signals can name the same copy (each file points at the other): propose it once.
      const key = `${proposal.path}\0${anchor.start_line}\0${anchor.end_line}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const list = byPath.get(proposal.path);
      if (list === undefined) byPath.set(proposal.path, [proposal]);
      else list.push(proposal);
    }
  }
  for (const list of byPath.values())
    list.sort((a, b) => a.exact_edit!.anchor!.start_line - b.exact_edit!.anchor!.start_line);
  return byPath;
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
  facts: Partial<Omit<DedupeFacts, 'readText'>> & {
    /** Told why a signal got no proposal, where the rules decline one on purpose. */
    onDeclined?: (path: string, signal: Signal, reason: string) => void;
  } = {},
): Proposal[] {
  const out: Proposal[] = [];
  const shortlisted = new Set(artifact.shortlist);
  const agentContext = new Set(artifact.agent_context ?? []);
  const reservedDests = new Set<string>();
  const safeRead = (path: string): string | undefined => {
    try {
      return shortlisted.has(path) ? readText(path) : undefined;
    } catch {
      return undefined;
    }
  };
  const dedupes = decideDedupes(
    artifact,
    {
      readText: safeRead,
      exists,
      realPath: facts.realPath ?? ((path) => path),
      isGenerated: facts.isGenerated ?? (() => false),
      linksTo: facts.linksTo ?? (() => false),
      ...(facts.parse !== undefined ? { parse: facts.parse } : {}),
    },
    facts.onDeclined ?? (() => {}),
  );
  const paths = [...new Set([...Object.keys(artifact.signals), ...dedupes.keys()])].sort();
  for (const path of paths) {
    const signals = artifact.signals[path] ?? [];
    const dedupesHere = dedupes.get(path) ?? [];
    if ((signals.length === 0 && dedupesHere.length === 0) || !shortlisted.has(path)) continue;
    // A generated doc is rewritten by its generator: the fix belongs in the source. Test data
    // (a fixture, a snapshot) is input to a tool's tests, written as the test needs it.
    const notEdited =
      facts.isGenerated?.(path) === true ? GENERATED : isTestData(path) ? TEST_DATA : undefined;
    if (notEdited !== undefined) {
      for (const signal of signals) facts.onDeclined?.(path, signal, notEdited);
      continue;
    }
    const text = safeRead(path);
    if (text === undefined) continue;
    const ctx: FileContext = {
      path,
      signals,
      lines: splitLines(text),
      config,
      isAgentContext: agentContext.has(path),
      exists,
      reservedDests,
      dedupes: dedupesHere,
    };
    const whole = supersededProposal(ctx) ?? orphanedProposal(ctx);
    if (whole !== undefined) {
      out.push(whole);
      continue;
    }
    // An agent-context file gets no automatic edit but a link fix the applier can prove;
    // a freeze or a version rewrite there is left to a person (its signals stay reported).
    const inPlace = inPlaceProposals(ctx).filter(
      (p) => !ctx.isAgentContext || p.category.subtype === 'dangling-reference',
    );
    const redundant = ctx.isAgentContext ? redundantProposals(ctx, inPlace) : [];
    const deterministic = [...inPlace, ...redundant.filter((p) => p.op_type === 'deterministic')];
    if (deterministic.length > 0) {
      out.push(...deterministic);
      continue;
    }
    const distill = distillProposal(ctx) ?? redundant.find((p) => p.op_type === 'generative');
    if (distill !== undefined) out.push(distill);
  }
  // The precedence above makes conflicts impossible; fail loudly if that ever regresses.
  const conflicts = findProposalConflicts(out);
  if (conflicts.length > 0)
    throw new Error(`rules classifier produced conflicting proposals: ${conflicts[0]}`);
  return out;
}
