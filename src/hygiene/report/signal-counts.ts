/**
 * Per signal class: how many findings were shown, hidden and suppressed (report 1.1
 * `signal_counts`, the table report.md opens with, the summaries of `check` and `scan`).
 */
import {
  type ClassCounts,
  type ScanArtifact,
  SIGNAL_NAMES,
  type SignalCounts,
  type SignalName,
} from '../types.js';

/** The counts of a scan's artifact; undefined for an artifact made before `withheld` existed. */
export function signalCounts(artifact: Pick<ScanArtifact, 'signals' | 'withheld'>): SignalCounts | undefined {
  const withheld = artifact.withheld;
  if (withheld === undefined) return undefined;
  const by = new Map<SignalName, ClassCounts>();
  const of = (name: SignalName) => {
    const known = by.get(name);
    if (known !== undefined) return known;
    const counts = { shown: 0, hidden: 0, suppressed: 0 };
    by.set(name, counts);
    return counts;
  };
  for (const list of Object.values(artifact.signals)) for (const signal of list) of(signal.name).shown++;
  for (const [name, n] of Object.entries(withheld.hidden)) of(name as SignalName).hidden += n ?? 0;
  for (const [name, n] of Object.entries(withheld.suppressed)) of(name as SignalName).suppressed += n ?? 0;
  for (const name of withheld.hidden_classes) of(name);
  const by_signal: SignalCounts['by_signal'] = {};
  const total: ClassCounts = { shown: 0, hidden: 0, suppressed: 0 };
  for (const name of SIGNAL_NAMES) {
    const counts = by.get(name);
    if (counts === undefined) continue;
    by_signal[name] = counts;
    total.shown += counts.shown;
    total.hidden += counts.hidden;
    total.suppressed += counts.suppressed;
  }
  return {
    ...total,
    by_signal,
    hidden_classes: [...withheld.hidden_classes],
    show_hidden_with: withheld.show_hidden_with,
  };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "12 hidden (duplicate_content 10, version_skew 2; shown with --signals all); 3 suppressed", or ''. */
export function withheldClause(counts: SignalCounts | undefined): string {
  if (counts === undefined) return '';
  const per = (key: 'hidden' | 'suppressed') =>
    Object.entries(counts.by_signal)
      .filter(([, c]) => (c?.[key] ?? 0) > 0)
      .map(([name, c]) => `${name} ${c![key]}`)
      .join(', ');
  const parts: string[] = [];
  if (counts.hidden > 0)
    parts.push(
      `${plural(counts.hidden, 'finding')} hidden (${per('hidden')}; shown with ${counts.show_hidden_with})`,
    );
  if (counts.suppressed > 0) parts.push(`${counts.suppressed} suppressed (${per('suppressed')})`);
  return parts.join('; ');
}

/** report.md's opening table: one row per class with a finding or hidden, then the totals (lines). */
export function renderSignalTable(counts: SignalCounts | undefined): string[] {
  if (counts === undefined || Object.keys(counts.by_signal).length === 0) return [];
  const hidden = new Set<string>(counts.hidden_classes);
  const lines = ['## Signals', '', '| signal | shown | hidden | suppressed |', '|---|--:|--:|--:|'];
  for (const [name, c] of Object.entries(counts.by_signal))
    lines.push(
      `| \`${name}\`${hidden.has(name) ? ' (hidden class)' : ''} | ${c!.shown} | ${c!.hidden} | ${c!.suppressed} |`,
    );
  lines.push(`| **total** | ${counts.shown} | ${counts.hidden} | ${counts.suppressed} |`, '');
  if (counts.hidden > 0)
    lines.push(
      `Hidden findings are computed but neither shown nor proposed for; \`${counts.show_hidden_with}\` (or \`signals: {NAME: on}\` in the config) shows them.`,
    );
  if (counts.suppressed > 0)
    lines.push(
      'Suppressed findings were silenced by a `<!-- stw-… -->` comment or `links.ignore` (`stw hygiene scan --json` lists each with what silenced it).',
    );
  lines.push('');
  return lines;
}
