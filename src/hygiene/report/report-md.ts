/**
 * The human report (`.dochygiene/report.md`): a header, then Stale / Bloat / Signals with
 * no proposed fix / Cleared.
 * Plain enough to read in a terminal, structured enough to render on GitHub. Every
 * opaque string (paths, ops, signal details) is escaped so it can neither break the
 * Markdown nor put control characters on a terminal.
 */
import { escapeText } from '../../core/quote.js';
import type { Entry, Report, ScanArtifact, Signal } from '../types.js';
import { renderSignalTable } from './signal-counts.js';

/** How many cleared paths are listed before the rest are summarised (the JSON has all). */
const CLEARED_LISTED = 200;

/** A code span that holds `text` verbatim, whatever backticks it contains. */
export function codeSpan(text: string): string {
  const safe = escapeText(text);
  const runs = safe.match(/`+/g) ?? [];
  const fence = '`'.repeat(Math.max(0, ...runs.map((run) => run.length)) + 1);
  const pad = safe.startsWith('`') || safe.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${safe}${pad}${fence}`;
}

/** Prose with Markdown's inline syntax characters backslash-escaped. */
export function escapeMarkdown(text: string): string {
  // Only characters that start inline syntax mid-line; entries never begin a line with prose.
  return escapeText(text).replace(/[\\`*_[\]<>~&]/g, '\\$&');
}

const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * What the edit will really write, from `exact_edit` itself rather than the op sentence,
 * so a reviewer sees the exact text (and a hand-edited report cannot hide behind its op).
 */
function exactFields(entry: Entry): string {
  const edit = entry.exact_edit;
  if (edit === undefined) return '';
  switch (edit.kind) {
    case 'replace-text':
      return ` · ${codeSpan(edit.match ?? '')} → ${codeSpan(edit.replacement ?? '')}`;
    case 'dedupe':
      return ` · link to ${codeSpan(edit.canonical_ref ?? '')}`;
    case 'move-to-archive':
      return ` · to ${codeSpan(edit.dest_path ?? '')}`;
    case 'insert-frontmatter':
      return ` · ${codeSpan(`${edit.key ?? ''}: ${edit.value ?? ''}`)}`;
    default:
      return '';
  }
}

function renderEntry(entry: Entry): string[] {
  const edit = entry.exact_edit;
  const op = edit ? `${edit.kind} (deterministic)` : 'generative rewrite';
  const irreversible = entry.is_destructive && !entry.is_reversible ? ' · ⚠ **irreversible**' : '';
  const anchor = edit?.anchor ? ` · lines ${edit.anchor.start_line}–${edit.anchor.end_line}` : '';
  const tokens = entry.token_estimate;
  const weighted = tokens.injection_frequency > 0 ? ` (≈${tokens.weighted_tokens} per agent session)` : '';
  const lines = [
    `### ${codeSpan(entry.id)} ${codeSpan(entry.path)}`,
    '',
    `- **Category:** ${entry.category.class} / ${entry.category.subtype}`,
    `- **Op:** ${escapeMarkdown(entry.op)}`,
    `- **Edit:** ${op}${anchor}${exactFields(entry)}`,
    `- **Tier:** ${entry.safety_tier}${irreversible}`,
    `- **Tokens:** ≈${tokens.raw_tokens}${weighted}`,
  ];
  for (const signal of entry.signals) {
    const at = signal.line !== undefined ? ` (line ${signal.line})` : '';
    lines.push(`- **Signal:** ${codeSpan(signal.name)}${at} — ${escapeMarkdown(signal.detail)}`);
  }
  if (entry.why !== undefined) lines.push(`- **Why:** ${escapeMarkdown(entry.why)}`);
  lines.push('');
  return lines;
}

/**
 * Per agent (report 1.1): what a session pays at start-up and would save. Different agents
 * load different files, so there is no one "per session" total to add up across them.
 */
function agentLines(report: Report, saved: number, tokenizer: string): string[] {
  const agents = report.context?.agents;
  if (agents === undefined)
    return [`- **Tokens saved per agent session if all are applied:** ≈${saved}${tokenizer}`];
  if (agents.length === 0)
    return ['- **Agent context at start-up:** no agent loads a file from this project'];
  return [
    `- **Agent context at start-up**${tokenizer}:`,
    ...agents.map(
      (a) =>
        `  - ${escapeMarkdown(a.name)}: ≈${a.startup.tokens} tokens in ${count(a.startup.files.length, 'file')}; ≈${a.tokens_saved_per_session} saved per session if all are applied${a.cut_off.length > 0 ? ` · ${count(a.cut_off.length, 'file')} cut off by ${codeSpan(a.cut_off[0]!.setting)}` : ''}`,
    ),
  ];
}

function section(title: string, entries: Entry[]): string[] {
  const lines = [`## ${title} (${count(entries.length, 'entry', 'entries')})`, ''];
  if (entries.length === 0) lines.push('None.', '');
  for (const entry of entries) lines.push(...renderEntry(entry));
  return lines;
}

const sameSignal = (a: Signal, b: Signal) => a.name === b.name && a.line === b.line && a.detail === b.detail;

/** A duplicate_content signal as the pair of copies it names: the same key from either side. */
function duplicatePairKey(path: string, signal: Signal): string | undefined {
  if (signal.name !== 'duplicate_content') return undefined;
  const ref = signal.data?.['canonical_ref'];
  const m = typeof ref === 'string' ? /^(.*)#L(\d+)-L(\d+)$/.exec(ref) : null;
  if (m === null) return undefined;
  const sides = [
    `${path}:${signal.data?.['start_line']}-${signal.data?.['end_line']}`,
    `${m[1]}:${m[2]}-${m[3]}`,
  ];
  return sides.sort().join('\0');
}

/**
 * The scan's signals that no entry carries: on files with no entry, and on files whose
 * entries fix only some of their signals. Nothing the scanner found is hidden.
 */
export function signalsWithoutEntry(
  signals: ScanArtifact['signals'],
  entries: readonly Pick<Entry, 'path' | 'signals'>[],
): ScanArtifact['signals'] {
  const carried = new Map<string, Signal[]>();
  // A dedupe may edit the other copy: the signal on this side is answered by it too.
  const pairs = new Set<string>();
  for (const entry of entries) {
    carried.set(entry.path, [...(carried.get(entry.path) ?? []), ...entry.signals]);
    for (const signal of entry.signals) {
      const key = duplicatePairKey(entry.path, signal);
      if (key !== undefined) pairs.add(key);
    }
  }
  const isCarried = (path: string, signal: Signal) =>
    (carried.get(path) ?? []).some((c) => sameSignal(c, signal)) ||
    pairs.has(duplicatePairKey(path, signal) ?? '');
  const out: ScanArtifact['signals'] = {};
  for (const path of Object.keys(signals).sort()) {
    const left = (signals[path] ?? []).filter((signal) => !isCarried(path, signal));
    if (left.length > 0) out[path] = left;
  }
  return out;
}

/** A reference a site model could not settle, where it is written. */
export interface UnverifiableReference {
  path: string;
  signal: Signal;
}

/**
 * The signals no entry carries, without the references a site model could not settle
 * (`broken_reference` with `data.unverifiable`), and those apart: they are not broken, only
 * not checked, so they are counted and grouped on their own, never listed as needing a fix.
 */
export function splitUnverifiable(signals: ScanArtifact['signals']): {
  unfixed: ScanArtifact['signals'];
  unverifiable: UnverifiableReference[];
} {
  const unfixed: ScanArtifact['signals'] = {};
  const unverifiable: UnverifiableReference[] = [];
  for (const [path, list] of Object.entries(signals)) {
    const kept = (list ?? []).filter((signal) => {
      if (signal.name !== 'broken_reference' || typeof signal.data?.['unverifiable'] !== 'string')
        return true;
      unverifiable.push({ path, signal });
      return false;
    });
    if (kept.length > 0) unfixed[path] = kept;
  }
  return { unfixed, unverifiable };
}

const UNVERIFIABLE_EXAMPLES = 3;

/** The unverifiable references grouped by site and reason: how many, and a few of each. */
function unverifiableSection(refs: readonly UnverifiableReference[]): string[] {
  if (refs.length === 0) return [];
  const groups = new Map<string, UnverifiableReference[]>();
  for (const ref of refs) {
    const key = `${String(ref.signal.data?.['site'] ?? 'site')}\0${String(ref.signal.data?.['unverifiable'])}`;
    groups.set(key, [...(groups.get(key) ?? []), ref]);
  }
  const lines = [
    `## Links no site model could check (${count(refs.length, 'link')})`,
    '',
    'The documentation site builds these pages, but its model cannot settle where these links lead, and the file tree does not have them either. They are not reported broken and get no fix:',
    '',
  ];
  for (const [key, list] of [...groups].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1))) {
    const [site, reason] = key.split('\0') as [string, string];
    lines.push(`- ${count(list.length, 'link')} on the ${codeSpan(site)} site: ${escapeMarkdown(reason)}`);
    for (const { path, signal } of list.slice(0, UNVERIFIABLE_EXAMPLES))
      lines.push(
        `  - ${codeSpan(path)} (line ${signal.line ?? '?'}): ${codeSpan(String(signal.data?.['target'] ?? ''))}`,
      );
    if (list.length > UNVERIFIABLE_EXAMPLES)
      lines.push(`  - … and ${list.length - UNVERIFIABLE_EXAMPLES} more`);
  }
  lines.push('');
  return lines;
}

export interface ReportMarkdownExtras {
  /**
   * Signals no entry carries (see `signalsWithoutEntry`), on files with or without entries.
   * Those on files whose entries the category filter left out are named apart.
   */
  unfixed?: ScanArtifact['signals'];
  /** Files that have entries the category filter left out of the report. */
  filteredOut?: readonly string[];
  /** Why the classifier declined to propose a fix for a signal, where it says (shown beside it). */
  declined?: Record<string, { signal: Signal; reason: string }[]>;
}

/**
 * The human report. Every signal the scan found appears: carried by an entry (under it),
 * or listed under "Signals with no proposed fix" (a broken link whose new target nothing
 * proves, a duplicate with no canonical copy, …) — also on files that got a fix for
 * something else. Every count names its unit (entries or files).
 */
export function renderReportMarkdown(report: Report, extras: ReportMarkdownExtras = {}): string {
  const { unfixed, unverifiable } = splitUnverifiable(extras.unfixed ?? {});
  const filteredOut = new Set(extras.filteredOut ?? []);
  const candidates = new Set(report.entries.map((entry) => entry.path));
  const unfixedPaths = Object.keys(unfixed).filter((path) => (unfixed[path] ?? []).length > 0);
  const unfixedCount = unfixedPaths.reduce((n, path) => n + (unfixed[path] ?? []).length, 0);
  const listed = new Set([...candidates, ...unfixedPaths, ...filteredOut]);
  const cleared = report.shortlist.filter((path) => !listed.has(path));
  const filteredOnly = [...filteredOut].filter((path) => !candidates.has(path)).sort();
  const auto = report.entries.filter((entry) => entry.safety_tier === 'auto').length;
  const irreversible = report.entries.filter((e) => e.is_destructive && !e.is_reversible).length;
  const saved =
    report.totals?.tokens_saved_per_session ??
    report.entries.reduce((sum, e) => sum + e.token_estimate.weighted_tokens, 0);
  const scope =
    report.scan.scope_globs.length > 0 ? report.scan.scope_globs.map(codeSpan).join(', ') : 'everything';
  const filter = report.scan.category_filter === null ? 'none' : codeSpan(report.scan.category_filter);
  const tokenizer =
    report.scan.tokenizer !== undefined ? ` (counted with ${codeSpan(report.scan.tokenizer)})` : '';

  const lines = [
    '# Docs hygiene report',
    '',
    ...renderSignalTable(report.signal_counts),
    `- **Generated:** ${escapeMarkdown(report.generated_at)}`,
    `- **Scope:** ${scope}`,
    `- **Category filter:** ${filter}`,
    `- **Files scanned:** ${report.scan.files_scanned}`,
    `- **Candidates:** ${count(report.entries.length, 'entry', 'entries')} in ${count(candidates.size, 'file')} — ${auto} auto, ${report.entries.length - auto} need confirmation${irreversible > 0 ? ` (${irreversible} irreversible)` : ''}`,
    ...(unfixedPaths.length > 0
      ? [
          `- **Signals with no proposed fix:** ${count(unfixedCount, 'signal')} in ${count(unfixedPaths.length, 'file')} (review them by hand)`,
        ]
      : []),
    ...(unverifiable.length > 0
      ? [
          `- **Links no site model could check:** ${count(unverifiable.length, 'link')} (not reported broken; grouped by reason below)`,
        ]
      : []),
    ...(filteredOnly.length > 0
      ? [`- **Left out by the category filter:** ${count(filteredOnly.length, 'file')}`]
      : []),
    `- **Cleared:** ${count(cleared.length, 'file')} (cleared: scanned and found with no signal, so nothing to do there)`,
    ...agentLines(report, saved, tokenizer),
    '',
    'Apply with `stw hygiene clean` (auto entries are approved; confirm entries need `--approve ID`).',
    '',
    ...section(
      'Stale',
      report.entries.filter((entry) => entry.category.class === 'stale'),
    ),
    ...section(
      'Bloat',
      report.entries.filter((entry) => entry.category.class === 'bloat'),
    ),
  ];
  if (unfixedPaths.length > 0) {
    lines.push(`## Signals with no proposed fix (${count(unfixedPaths.length, 'file')})`, '');
    lines.push(
      'The scanner found these, but the evidence does not prove an exact edit (files that also got a fix are marked):',
      '',
    );
    for (const path of unfixedPaths) {
      const also = candidates.has(path) ? ' (its other signals have entries above)' : '';
      lines.push(`- ${codeSpan(path)}${also}`);
      for (const signal of unfixed[path] ?? []) {
        const at = signal.line !== undefined ? ` (line ${signal.line})` : '';
        const reason = extras.declined?.[path]?.find((d) => sameSignal(d.signal, signal))?.reason;
        const why = reason !== undefined ? ` (${escapeMarkdown(reason)})` : '';
        lines.push(`  - ${codeSpan(signal.name)}${at} — ${escapeMarkdown(signal.detail)}${why}`);
      }
    }
    lines.push('');
  }
  lines.push(...unverifiableSection(unverifiable));
  if (filteredOnly.length > 0) {
    lines.push(`## Left out by the category filter (${count(filteredOnly.length, 'file')})`, '');
    lines.push(
      'These have entries outside the category filter; run check without --category to see them:',
      '',
    );
    for (const path of filteredOnly) lines.push(`- ${codeSpan(path)}`);
    lines.push('');
  }
  lines.push(`## Cleared (${count(cleared.length, 'file')})`, '');
  if (cleared.length === 0) lines.push('None.');
  else {
    lines.push('Scanned with no signal and no proposed change:', '');
    for (const path of cleared.slice(0, CLEARED_LISTED)) lines.push(`- ${codeSpan(path)}`);
    if (cleared.length > CLEARED_LISTED) {
      lines.push(
        `- … and ${cleared.length - CLEARED_LISTED} more (the \`shortlist\` in report.json lists all)`,
      );
    }
  }
  lines.push('');
  return lines.join('\n');
}
