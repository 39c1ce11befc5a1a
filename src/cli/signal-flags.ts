/**
 * The flags that say which findings are shown and where the config comes from
 * (docs/scanner-and-classifiers.md, "Which signals are shown", "Silencing a finding"):
 * `--signals all|default`, `--config FILE`, `--report-unused-suppressions`; and the lines
 * the human output adds for what was hidden, suppressed, or silenced nothing.
 */
import { resolve } from 'node:path';
import { UsageError } from '../core/errors.js';
import { escapeText, quote } from '../core/quote.js';
import { withheldClause } from '../hygiene/report/signal-counts.js';
import type { SignalCounts, UnusedSuppression } from '../hygiene/types.js';

/** `--config FILE`, for every command that reads the repository config. */
export const CONFIG_OPTION = { config: { type: 'string' } } as const;

/** `check` and `scan`: `--config`, `--signals`, `--report-unused-suppressions`. */
export const SIGNAL_OPTIONS = {
  ...CONFIG_OPTION,
  signals: { type: 'string' },
  'report-unused-suppressions': { type: 'boolean' },
} as const;

const SIGNALS_VALUES = ['all', 'default'] as const;

/** `--config FILE` made absolute (relative to the current directory), when given. */
export function configFileFlag(cwd: string, value: string | undefined): { configFile?: string } {
  return value === undefined ? {} : { configFile: resolve(cwd, value) };
}

/** `--signals all` → true; `default` or absent → false; anything else is a usage error. */
export function showAllFlag(value: string | undefined): boolean {
  if (value === undefined) return false;
  if (!(SIGNALS_VALUES as readonly string[]).includes(value))
    throw new UsageError(`--signals ${quote(value)}: use all (every class) or default`);
  return value === 'all';
}

/** The options a library call takes from these flags. */
export function signalFlags(
  cwd: string,
  values: { config?: string; signals?: string; 'report-unused-suppressions'?: boolean },
): { configFile?: string; showAllSignals?: boolean; reportUnusedSuppressions?: boolean } {
  return {
    ...configFileFlag(cwd, values.config),
    ...(showAllFlag(values.signals) ? { showAllSignals: true } : {}),
    ...(values['report-unused-suppressions'] === true ? { reportUnusedSuppressions: true } : {}),
  };
}

/** "Withheld: …" (hidden and suppressed per class, and the switch), when anything was. */
export function renderWithheldLine(counts: SignalCounts | undefined): string[] {
  const clause = withheldClause(counts);
  return clause === '' ? [] : [`Not shown: ${clause}.`];
}

/** `--report-unused-suppressions`: one line per directive or config entry that silenced nothing. */
export function renderUnused(unused: readonly UnusedSuppression[] | undefined): string[] {
  if (unused === undefined) return [];
  if (unused.length === 0) return ['Unused suppressions: none.'];
  return [
    `Unused suppressions (${unused.length}):`,
    ...unused.map(
      (u) =>
        `  ${quote(u.line !== undefined ? `${u.path}:${u.line}` : u.path)}  ${escapeText(u.suppression)}: ${u.reason}`,
    ),
  ];
}
