/**
 * The SessionStart reminder (docs/hygiene-state.md): where the project is, whether to remind, and the
 * one config key it reads. It runs at every agent session start, so this module imports
 * only node built-ins, the light error classes and the type-only contracts. A YAML parser is
 * loaded only when the answer depends on a `reminder.stale_after_days` written in
 * `.dochygiene.yml` — `js-yaml`, one ES module that loads in a few milliseconds, where the
 * `yaml` package the config loader needs (for its documents and line counter) takes tens —
 * and git is asked for the work tree only when the file system alone cannot tell (README,
 * "Claude Code plugin").
 */
import { lstat, readFile, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ConfigError } from '../../core/errors.js';
import { ConfigFileProblem, readConfigFile } from '../../core/read-config-file.js';
import { DEFAULT_CONFIG, type HygieneState } from '../types.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** How the Claude Code plugin's command is typed: plugin skills are namespaced by plugin name. */
export const PLUGIN_CHECK_COMMAND = '/stw:hygiene check';

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
 * reminder was already shown on `now`'s local calendar day. The threshold is asked for
 * only when the answer depends on it: never when already reminded today, when there was
 * no check, or when the check is at most a day old (the threshold is at least 1).
 */
export async function decideReminder(
  state: HygieneState,
  now: Date,
  staleAfterDays: () => number | Promise<number>,
): Promise<ReminderDecision> {
  if (state.last_reminded !== null && localDay(new Date(state.last_reminded)) === localDay(now))
    return { remind: false, reason: 'reminded-today' };
  const ageMs = state.last_check === null ? null : now.getTime() - Date.parse(state.last_check);
  if (ageMs !== null && (ageMs <= DAY_MS || ageMs <= (await staleAfterDays()) * DAY_MS))
    return { remind: false, reason: 'checked-recently' };
  const days = ageMs === null ? null : Math.floor(ageMs / DAY_MS);
  const since =
    days === null
      ? 'No docs hygiene check has been run in this project yet'
      : `The last docs hygiene check was ${days === 1 ? '1 day' : `${days} days`} ago`;
  return {
    remind: true,
    daysSinceCheck: days,
    message: `${since}. Run ${PLUGIN_CHECK_COMMAND} (or stw hygiene check) to find stale and bloated docs and agent-context files.`,
  };
}

/** A config file's text, or undefined when it does not exist; `config-unreadable` naming `label` otherwise. */
async function readNamed(path: string, label: string): Promise<string | undefined> {
  try {
    return await readConfigFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = error instanceof ConfigFileProblem ? error.message : (code ?? 'error');
    throw new ConfigError('config-unreadable', `${label}: cannot read: ${why}`);
  }
}

/** The repository config's text and name, as `loadConfig` finds it (`--config`, `.yml`, `.yaml`). */
async function readReminderConfig(root: string, file?: string): Promise<{ text?: string; label: string }> {
  if (file !== undefined) {
    const text = await readNamed(file, file);
    if (text === undefined)
      throw new ConfigError('config-unreadable', `${file}: cannot read: no such file (--config)`);
    return { text, label: file };
  }
  const [yml, yaml] = await Promise.all([
    readNamed(join(root, '.dochygiene.yml'), '.dochygiene.yml'),
    readNamed(join(root, '.dochygiene.yaml'), '.dochygiene.yaml'),
  ]);
  if (yml !== undefined && yaml !== undefined)
    throw new ConfigError(
      'config-invalid',
      '.dochygiene.yml and .dochygiene.yaml both exist; keep one of them',
    );
  return yaml !== undefined
    ? { text: yaml, label: '.dochygiene.yaml' }
    : { text: yml, label: '.dochygiene.yml' };
}

/**
 * `reminder.stale_after_days` from `<root>/.dochygiene.yml` (or `.yaml`, or `--config FILE`), read without the full config
 * loader (no JSON Schema machinery at session start). Missing file or key → the default
 * from `DEFAULT_CONFIG`. A file whose text never names the key cannot set it, so it is not
 * parsed (YAML would only let an escaped key spell it otherwise). Malformed YAML or a bad
 * value → `ConfigError` naming the key; the rest of the file is `loadConfig`'s to judge
 * when a command that uses it runs. Both parsers read YAML 1.2's core schema, so they agree
 * on the one integer read here.
 */
export async function readStaleAfterDays(root: string, file?: string): Promise<number> {
  const fallback = DEFAULT_CONFIG.reminder.stale_after_days;
  const { text, label } = await readReminderConfig(root, file);
  if (text === undefined) return fallback;
  if (!text.includes('stale_after_days')) return fallback;
  const { load } = await import('js-yaml');
  let raw: unknown;
  try {
    raw = load(text);
  } catch {
    throw new ConfigError('config-invalid', `${label}: not valid YAML`);
  }
  if (raw === null || raw === undefined) return fallback;
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw new ConfigError('config-invalid', `${label}: (root): must be a mapping of keys`);
  const reminder = (raw as Record<string, unknown>)['reminder'];
  if (reminder === undefined) return fallback;
  if (typeof reminder !== 'object' || reminder === null || Array.isArray(reminder))
    throw new ConfigError('config-invalid', `${label}: reminder: must be a mapping`);
  const value = (reminder as Record<string, unknown>)['stale_after_days'];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw new ConfigError(
      'config-invalid',
      `${label}: reminder.stale_after_days: must be a positive integer`,
    );
  return value;
}

/** The work tree's root, no work tree, or "ask git": the file system alone cannot be sure. */
export type WorkTreeLookup = { root: string } | { root: undefined } | 'ask-git';

async function statOrUndefined(path: string, follow: boolean) {
  try {
    return await (follow ? stat(path) : lstat(path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/**
 * Finds the git work tree around `cwd` the way git does in the plain case, without
 * spawning git (a process start is most of the reminder's cost): walking up from the
 * realpath of `cwd`, the first directory holding a `.git` directory (with `HEAD`) or a
 * `.git` file (`gitdir: …`) is the root. Whenever git could decide differently — a
 * directory that may itself be a git dir (bare, or inside `.git`), a `.git` that is a
 * symlink or malformed, a file-system boundary crossed, or an owner other than this user
 * (git's `safe.directory` check, which stw's git runs without global config) — the answer
 * is `ask-git`. Reaching `/` with none of that means no work tree. Like every git call of
 * stw (`hardenedGitEnv`), inherited `GIT_*` variables play no part.
 */
export async function lookUpWorkTree(cwd: string): Promise<WorkTreeLookup> {
  const uid = process.getuid?.();
  if (uid === undefined) return 'ask-git';
  let dir = await realpath(cwd);
  const device = (await stat(dir)).dev;
  for (;;) {
    if (basename(dir) === '.git' || (await statOrUndefined(join(dir, 'HEAD'), false)) !== undefined)
      return 'ask-git';
    const here = await stat(dir);
    if (here.dev !== device) return 'ask-git';
    const dotGit = await statOrUndefined(join(dir, '.git'), false);
    if (dotGit !== undefined) {
      if (here.uid !== uid || dotGit.uid !== uid) return 'ask-git';
      if (dotGit.isDirectory())
        return (await statOrUndefined(join(dir, '.git', 'HEAD'), false))?.isFile()
          ? { root: dir }
          : 'ask-git';
      if (!dotGit.isFile()) return 'ask-git';
      const pointer = await readFile(join(dir, '.git'), 'utf8');
      return pointer.startsWith('gitdir: ') ? { root: dir } : 'ask-git';
    }
    const parent = dirname(dir);
    if (parent === dir) return { root: undefined };
    dir = parent;
  }
}
