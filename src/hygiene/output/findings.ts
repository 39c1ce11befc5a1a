/**
 * Findings: every scanner signal as one located, fingerprinted row — what the `text`,
 * `github` and `sarif` formats render and what the gate, `--baseline` and
 * `--changed-since` filter (docs/ci.md). Data only; nothing here prints.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSafeRelativePath } from '../classify/proposals.js';
import type { Entry, SafetyTier, Signal, SignalName } from '../types.js';

export interface Finding {
  /** The signal's name: one SARIF rule per signal. */
  rule: SignalName;
  /** Project-root-relative, `/`-separated. */
  path: string;
  /** 1-based; absent for a finding on the whole file. */
  line?: number;
  /** 1-based column of the reference the signal names, else of the line's first non-blank character. */
  column?: number;
  message: string;
  /** Stable across runs and line shifts: rule, path, the flagged line's text, the target (docs/ci.md). */
  fingerprint: string;
  /** The report entry that carries this signal, when one does (`check` only). */
  entry?: { id: string; safety_tier: SafetyTier };
}

/** The text a signal points at, when it names one (a link target, a path). */
function targetOf(signal: Signal): string | undefined {
  const target = signal.data?.['target'];
  return typeof target === 'string' && target !== '' ? target : undefined;
}

function readLines(root: string, path: string): string[] | undefined {
  if (!isSafeRelativePath(path)) return undefined;
  try {
    return readFileSync(join(root, path), 'utf8').split(/\r?\n/);
  } catch {
    return undefined;
  }
}

/** The column of the `nth` (0-based) occurrence of `target` on the line (the last one when fewer). */
function columnOf(text: string, target: string | undefined, nth = 0): number {
  let at = target === undefined ? -1 : text.indexOf(target);
  for (let i = 0; i < nth && at >= 0; i++) {
    const next = text.indexOf(target!, at + target!.length);
    if (next < 0) break;
    at = next;
  }
  if (at >= 0) return at + 1;
  const blank = text.search(/\S/);
  return blank >= 0 ? blank + 1 : 1;
}

/** The entry of `entries` carrying `signal` on `path` (same name, line and target). */
function entryFor(entries: readonly Entry[], path: string, signal: Signal): Finding['entry'] {
  for (const entry of entries) {
    if (entry.path !== path) continue;
    const carried = entry.signals.some(
      (s) => s.name === signal.name && s.line === signal.line && targetOf(s) === targetOf(signal),
    );
    if (carried) return { id: entry.id, safety_tier: entry.safety_tier };
  }
  return undefined;
}

/**
 * One finding per signal, in path order then the scanner's order. `root` is where the files
 * are read (for columns and fingerprints); a file that cannot be read keeps its line, with
 * no column, and a fingerprint without the line's text.
 */
export function collectFindings(
  root: string,
  signals: Record<string, readonly Signal[]>,
  entries: readonly Entry[] = [],
): Finding[] {
  const findings: Finding[] = [];
  const seen = new Map<string, number>();
  for (const path of Object.keys(signals).sort()) {
    // The same target named twice on one line: the second finding is at its second occurrence.
    const onLine = new Map<string, number>();
    const list = signals[path] ?? [];
    const lines = list.some((s) => s.line !== undefined) ? readLines(root, path) : undefined;
    for (const signal of list) {
      const target = targetOf(signal);
      const text = signal.line === undefined ? undefined : lines?.[signal.line - 1];
      const key = [signal.name, path, text?.trim() ?? '', target ?? ''].join('\0');
      // The same rule on the same text twice in a file: the second gets its own fingerprint.
      const nth = seen.get(key) ?? 0;
      seen.set(key, nth + 1);
      const hash = createHash('sha256').update(`${key}\0${nth}`).digest('hex').slice(0, 32);
      const spot = `${signal.name}\0${signal.line ?? ''}\0${target ?? ''}`;
      const repeat = onLine.get(spot) ?? 0;
      onLine.set(spot, repeat + 1);
      const entry = entryFor(entries, path, signal);
      findings.push({
        rule: signal.name,
        path,
        ...(signal.line !== undefined ? { line: signal.line } : {}),
        ...(text !== undefined ? { column: columnOf(text, target, repeat) } : {}),
        message: signal.detail,
        fingerprint: hash,
        ...(entry !== undefined ? { entry } : {}),
      });
    }
  }
  return findings;
}

/** `path:line:column` (or `path:line`, or `path`): where a terminal or an editor jumps to. */
export function findingLocation(finding: Finding): string {
  if (finding.line === undefined) return finding.path;
  return finding.column === undefined
    ? `${finding.path}:${finding.line}`
    : `${finding.path}:${finding.line}:${finding.column}`;
}
