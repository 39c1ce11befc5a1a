/**
 * The trust model for configuration (docs/trust.md), enforced here and nowhere else. A
 * repository's `.dochygiene.yml` says what to scan and how to judge it. Whatever runs a
 * command, turns a model on, chooses which model, where a request or the API key goes, or
 * how hard and how long requests run is the user's alone: flags, the environment, or the user
 * config `$XDG_CONFIG_HOME/sourcesteward/config.yml`. A cloned repository is somebody
 * else's text; like git, which ignores `core.fsmonitor` and `core.hooksPath` from a
 * repository it does not trust, `stw` never takes such a key from one. It refuses the run
 * with one line naming the key and where to set it instead, so the key is seen, not silently
 * dropped (a repository that expected its vault command would otherwise lose the extract).
 */
import { join } from 'node:path';
import { ConfigError } from '../core/errors.js';
import { xdgToolDir } from '../core/xdg.js';

/** Where the user config lives: `$XDG_CONFIG_HOME/sourcesteward/config.yml`, else `~/.config/…`. */
export function userConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(xdgToolDir(env, 'XDG_CONFIG_HOME', '.config'), 'config.yml');
}

export interface UserOnlyKey {
  /** The key's path in the config, e.g. `classifier.base_url`. */
  key: string;
  /** Why only the user may set it. */
  why: string;
  /** Where else the user can set it, besides the user config (a flag, an environment variable). */
  alternatives: readonly string[];
}

/**
 * Every key a repository may not set, in the order a refusal names them. `classifier: rules`
 * (or `{provider: rules}`) asks for nothing and is allowed.
 */
export const USER_ONLY_KEYS: readonly UserOnlyKey[] = [
  { key: 'lifecycle.vault_command', why: 'it runs a command', alternatives: [] },
  { key: 'classifier', why: 'it turns a model on', alternatives: ['--classifier'] },
  { key: 'classifier.provider', why: 'it turns a model on', alternatives: ['--classifier'] },
  {
    key: 'classifier.base_url',
    why: 'it chooses where requests and your API key go',
    alternatives: ['ANTHROPIC_BASE_URL', 'OPENAI_BASE_URL'],
  },
  { key: 'classifier.model', why: 'it chooses the model your key pays for', alternatives: ['--model'] },
  { key: 'classifier.escalate_model', why: 'it chooses the model your key pays for', alternatives: [] },
  { key: 'classifier.max_concurrency', why: 'it sets how hard your key is used', alternatives: [] },
  { key: 'classifier.timeout_s', why: 'it sets how long a request may hold the run', alternatives: [] },
  { key: 'classifier.run_timeout_s', why: 'it sets how long a request may hold the run', alternatives: [] },
];

type Raw = Record<string, unknown>;
const isObject = (value: unknown): value is Raw =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The user-only keys a repository's raw config sets, in `USER_ONLY_KEYS` order. */
function userOnlyKeysSet(raw: Raw): string[] {
  const set = new Set<string>();
  const lifecycle = raw['lifecycle'];
  if (isObject(lifecycle) && lifecycle['vault_command'] !== undefined) set.add('lifecycle.vault_command');
  const classifier = raw['classifier'];
  if (classifier !== undefined && !isObject(classifier) && classifier !== 'rules') set.add('classifier');
  if (isObject(classifier))
    for (const [name, value] of Object.entries(classifier))
      if (!(name === 'provider' && value === 'rules')) set.add(`classifier.${name}`);
  return USER_ONLY_KEYS.map((k) => k.key).filter((key) => set.has(key));
}

/**
 * Refuses a repository config that sets a user-only key: a `ConfigError` (`user-only-key`)
 * whose one line names the first such key, why it is the user's, and where to set it.
 * Runs before the schema, so the key is named for what it is, not as an unknown key.
 */
export function refuseUserOnlyKeys(raw: Raw, source: string, env: NodeJS.ProcessEnv = process.env): void {
  const [first] = userOnlyKeysSet(raw);
  if (first === undefined) return;
  const entry = USER_ONLY_KEYS.find((k) => k.key === first)!;
  const userKey = first === 'classifier.provider' ? 'classifier' : first;
  const places = [...entry.alternatives, `${userKey}: in ${userConfigPath(env)}`];
  const where = places.length > 1 ? `${places.slice(0, -1).join(', ')} or ${places.at(-1)}` : places[0];
  throw new ConfigError(
    'user-only-key',
    `${source}: ${first} may come only from you, not from the repository (${entry.why}); set it with ${where}`,
    { file: source, key: first, user_config: userConfigPath(env) },
  );
}
