/**
 * The SessionStart reminder's decision (docs/hygiene-state.md). Kept light on purpose: `stw hygiene
 * remind` runs at every session start, so this module imports only node built-ins and the
 * type-only contracts; `yaml` is loaded only when a `.dochygiene.yml` exists.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../../core/errors.js';
import { DEFAULT_CONFIG, type HygieneState } from '../types.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The local calendar day of an instant (`YYYY-MM-DD` in the process's time zone, TZ). */
export function localDay(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

export type ReminderDecision =
  | { remind: false; reason: 'checked-recently' | 'reminded-today' }
  | { remind: true; message: string; daysSinceCheck: number | null };

/**
 * Remind when `last_check` is null or more than `staleAfterDays` days old, unless a
 * reminder was already shown on `now`'s local calendar day.
 */
export function decideReminder(state: HygieneState, now: Date, staleAfterDays: number): ReminderDecision {
  const lastCheck = state.last_check === null ? null : new Date(state.last_check);
  const ageMs = lastCheck === null ? null : now.getTime() - lastCheck.getTime();
  if (ageMs !== null && ageMs <= staleAfterDays * DAY_MS)
    return { remind: false, reason: 'checked-recently' };
  if (state.last_reminded !== null && localDay(new Date(state.last_reminded)) === localDay(now))
    return { remind: false, reason: 'reminded-today' };
  const days = ageMs === null ? null : Math.floor(ageMs / DAY_MS);
  const since =
    days === null
      ? 'No docs hygiene check has been run in this project yet'
      : `The last docs hygiene check was ${days === 1 ? '1 day' : `${days} days`} ago`;
  return {
    remind: true,
    daysSinceCheck: days,
    message: `${since}. Run /hygiene check to find stale and bloated docs and agent-context files.`,
  };
}

/**
 * `reminder.stale_after_days` from `<root>/.dochygiene.yml`, read without the full config
 * loader (no JSON Schema machinery at session start). Missing file or key → the default
 * from `DEFAULT_CONFIG`. Malformed YAML or a bad value → `ConfigError` naming the key; the
 * rest of the file is `loadConfig`'s to judge when a command that uses it runs.
 */
export async function readStaleAfterDays(root: string): Promise<number> {
  const fallback = DEFAULT_CONFIG.reminder.stale_after_days;
  let text: string;
  try {
    text = await readFile(join(root, '.dochygiene.yml'), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return fallback;
    throw new ConfigError('config-unreadable', `.dochygiene.yml: cannot read: ${code ?? 'error'}`);
  }
  const { parse } = await import('yaml');
  let raw: unknown;
  try {
    raw = parse(text, { prettyErrors: false });
  } catch {
    throw new ConfigError('config-invalid', '.dochygiene.yml: not valid YAML');
  }
  if (raw === null || raw === undefined) return fallback;
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw new ConfigError('config-invalid', '.dochygiene.yml: (root): must be a mapping of keys');
  const reminder = (raw as Record<string, unknown>)['reminder'];
  if (reminder === undefined) return fallback;
  if (typeof reminder !== 'object' || reminder === null || Array.isArray(reminder))
    throw new ConfigError('config-invalid', '.dochygiene.yml: reminder: must be a mapping');
  const value = (reminder as Record<string, unknown>)['stale_after_days'];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw new ConfigError(
      'config-invalid',
      '.dochygiene.yml: reminder.stale_after_days: must be a positive integer',
    );
  return value;
}
