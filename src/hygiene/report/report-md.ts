/**
 * The human report (`.dochygiene/report.md`): a header, then Stale / Bloat / Cleared.
 * Plain enough to read in a terminal, structured enough to render on GitHub. Every
 * opaque string (paths, ops, signal details) is escaped so it can neither break the
 * Markdown nor put control characters on a terminal.
 */
import { escapeText } from '../../core/quote.js';
import type { Entry, Report, ScanArtifact } from '../types.js';

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
  const lines = [`## ${title} (${entries.length})`, ''];
  if (entries.length === 0) lines.push('None.', '');
  for (const entry of entries) lines.push(...renderEntry(entry));
  return lines;
}

/** Renders the human report for a (valid) machine report. */
/**
 * The human report. With the scan's `signals`, files that carry signals but got no
 * proposal (e.g. a broken link whose new target nothing reveals) are listed apart from
 * the clean ones, so "cleared" never hides a known problem.
 */
export function renderReportMarkdown(report: Report, signals: ScanArtifact['signals'] = {}): string {
  const candidates = new Set(report.entries.map((entry) => entry.path));
  const notCandidates = report.shortlist.filter((path) => !candidates.has(path));
  const unresolved = notCandidates.filter((path) => (signals[path] ?? []).length > 0);
  const cleared = notCandidates.filter((path) => (signals[path] ?? []).length === 0);
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
    `- **Generated:** ${escapeMarkdown(report.generated_at)}`,
    `- **Scope:** ${scope}`,
    `- **Category filter:** ${filter}`,
    `- **Files scanned:** ${report.scan.files_scanned}`,
    `- **Candidates:** ${count(report.entries.length, 'entry', 'entries')} in ${count(candidates.size, 'file')} — ${auto} auto, ${report.entries.length - auto} need confirmation${irreversible > 0 ? ` (${irreversible} irreversible)` : ''}`,
    ...(unresolved.length > 0
      ? [`- **Signals with no proposed fix:** ${count(unresolved.length, 'file')} (review them by hand)`]
      : []),
    `- **Cleared:** ${count(cleared.length, 'file')}`,
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
  if (unresolved.length > 0) {
    lines.push(`## Signals with no proposed fix (${unresolved.length})`, '');
    lines.push('The scanner found these, but the evidence does not pin down an exact edit:', '');
    for (const path of unresolved.slice(0, CLEARED_LISTED)) {
      const found = (signals[path] ?? []).map(
        (signal) => `${codeSpan(signal.name)}${signal.line !== undefined ? ` (line ${signal.line})` : ''}`,
      );
      lines.push(`- ${codeSpan(path)} — ${found.join(', ')}`);
    }
    if (unresolved.length > CLEARED_LISTED)
      lines.push(`- … and ${unresolved.length - CLEARED_LISTED} more (run \`stw hygiene scan --json\`)`);
    lines.push('');
  }
  lines.push(`## Cleared (${cleared.length})`, '');
  if (cleared.length === 0) lines.push('None.');
  else {
    lines.push('Scanned with no proposed change:', '');
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
