import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../core/errors.js';
import { readConfigFile } from '../core/read-config-file.js';
import { formatJsonPath, schemaValidator } from '../core/schema.js';
import { isSafeRelativePath } from './classify/proposals.js';
import { globProblem } from './scan/lifecycle-glob.js';
import { linkIgnoreProblem } from './scan/suppress/link-ignore.js';
import { refuseUserOnlyKeys, userConfigPath } from './trust.js';
import {
  type ClassifierSettings,
  DEFAULT_CONFIG,
  type HygieneConfig,
  type LifecycleRule,
  SIGNAL_NAMES,
  type SignalName,
} from './types.js';

export const CONFIG_FILE = '.dochygiene.yml';
/** The same file under the other extension YAML tools accept; both at once is an error. */
export const CONFIG_FILE_YAML = '.dochygiene.yaml';

/** Defaults for the optional keys of a lifecycle rule (schemas/config.schema.json). */
export const LIFECYCLE_RULE_DEFAULTS = { retain_recent: 3, max_age_days: 3 } as const;

type Raw = Record<string, unknown>;

function isObject(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(source: string, violations: string[]): never {
  throw new ConfigError('config-invalid', `${source}: ${violations[0]}`, { file: source, violations });
}

// Rules JSON Schema cannot say clearly: which `served_when*` a lifetime needs, unique names,
// a `match` the linear-time glob matcher accepts.
function lifecycleViolations(rules: Raw[]): string[] {
  const violations: string[] = [];
  const seen = new Set<string>();
  rules.forEach((rule, index) => {
    const at = (key?: string) => formatJsonPath(['lifecycle', 'rules', index, ...(key ? [key] : [])]);
    const hasPath = rule['served_when_path'] !== undefined;
    const hasJudged = rule['served_when'] !== undefined;
    if (hasPath && hasJudged)
      violations.push(`${at('served_when')}: give served_when_path or served_when, not both`);
    if (rule['lifetime'] === 'delete-once-served' && !hasPath && !hasJudged)
      violations.push(`${at()}: a delete-once-served rule needs served_when_path or served_when`);
    if (rule['lifetime'] !== 'delete-once-served' && (hasPath || hasJudged))
      violations.push(
        `${at(hasPath ? 'served_when_path' : 'served_when')}: only a delete-once-served rule has one`,
      );
    const match = typeof rule['match'] === 'string' ? globProblem(rule['match']) : undefined;
    if (match !== undefined) violations.push(`${at('match')}: ${match}`);
    const name = String(rule['name']);
    // The name goes into the cleanup commit's message and onto the terminal: one line, no
    // control characters (a repository could otherwise add a Signed-off-by trailer to your
    // commit, or escape sequences to its log).
    if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(name) || name.length > 128)
      violations.push(
        `${at('name')}: must be one line of at most 128 characters, with no control characters`,
      );
    if (seen.has(name)) violations.push(`${at('name')}: duplicate rule name ${JSON.stringify(name)}`);
    seen.add(name);
  });
  return violations;
}

/**
 * The problems of each string in the list at `section.key` (`problem` says what is wrong
 * with one, or undefined), each named by its JSON path (`scan.globs[2]: …`).
 */
function listViolations(
  raw: Raw,
  section: string,
  key: string,
  problem: (entry: string) => string | undefined,
): string[] {
  const parent = isObject(raw[section]) ? raw[section] : {};
  const entries = Array.isArray(parent[key]) ? parent[key] : [];
  return entries.flatMap((entry, index) => {
    const found = typeof entry === 'string' ? problem(entry) : undefined;
    return found === undefined ? [] : [`${formatJsonPath([section, key, index])}: ${found}`];
  });
}

// `signals:` names classes: an unknown one is named with the valid ones (the schema's own
// message would list no names), before the schema runs.
function signalNameViolations(raw: Raw): string[] {
  const signals = raw['signals'];
  if (!isObject(signals)) return [];
  const known: readonly string[] = SIGNAL_NAMES;
  const unknown = Object.keys(signals).filter((name) => !known.includes(name));
  return unknown.map(
    (name) => `signals.${name}: unknown signal ${JSON.stringify(name)}; valid: ${SIGNAL_NAMES.join(', ')}`,
  );
}

// `archive.dir` names a folder of the project: one a move may go into (docs/trust.md, "Moves").
function archiveViolations(raw: Raw): string[] {
  const archive = raw['archive'];
  const dir = isObject(archive) && typeof archive['dir'] === 'string' ? archive['dir'] : undefined;
  if (dir === undefined || isSafeRelativePath(dir.replace(/^(\.\/)+/, '').replace(/\/+$/, ''))) return [];
  return [`archive.dir: must be a folder inside the project (not absolute, no '..', not in .git)`];
}

/** `lifecycle.rules[2].type: …` → `lifecycle.rules[2] (rule "runs").type: …`, so the error names the rule. */
function withRuleName(violation: string, rules: readonly unknown[]): string {
  return violation.replace(/^lifecycle\.rules\[(\d+)\]/, (whole, index: string) => {
    const rule = rules[Number(index)];
    const name = isObject(rule) && typeof rule['name'] === 'string' ? rule['name'] : undefined;
    return name === undefined ? whole : `${whole} (rule ${JSON.stringify(name)})`;
  });
}

/** YAML text as a mapping of keys (empty or comments only: no keys), or a `ConfigError` naming `source`. */
function parseMapping(text: string, source: string): Raw {
  let raw: unknown;
  try {
    raw = parseYaml(text, { uniqueKeys: true, prettyErrors: false });
  } catch (error) {
    const message = (error as Error).message.split('\n')[0] ?? 'malformed YAML';
    throw new ConfigError('config-invalid', `${source}: not valid YAML: ${message}`, { file: source });
  }
  if (raw === null || raw === undefined) return {};
  if (!isObject(raw)) fail(source, ['(root): must be a mapping of keys']);
  return raw;
}

/**
 * Parses and validates the text of a repository's `.dochygiene.yml`. Every key is optional
 * and merged over `DEFAULT_CONFIG`; an unknown key or bad value is a `ConfigError` whose
 * message names the key path, e.g. `.dochygiene.yml: reminder.stale_after_days: must be >= 1`.
 * A key only the user may set (src/hygiene/trust.ts) is refused first (`user-only-key`).
 * The shipped `schemas/config.schema.json` is the one description of what is allowed; the
 * classifier and vault command in the result are the defaults (see `loadConfig`).
 */
export function parseConfig(
  text: string,
  source: string = CONFIG_FILE,
  env: NodeJS.ProcessEnv = process.env,
): HygieneConfig {
  const raw = parseMapping(text, source);
  refuseUserOnlyKeys(raw, source, env);
  const lifecycle = isObject(raw['lifecycle']) ? raw['lifecycle'] : {};
  const rules = (Array.isArray(lifecycle['rules']) ? lifecycle['rules'] : []) as unknown[];
  const names = signalNameViolations(raw);
  if (names.length > 0) fail(source, names);
  const violations = schemaValidator('config.schema.json')(raw);
  if (violations.length > 0)
    fail(
      source,
      violations.map((v) => withRuleName(v, rules)),
    );
  const ruleViolations = [
    ...archiveViolations(raw),
    ...lifecycleViolations(rules as Raw[]),
    // `scan.globs` and `links.ignore` come from the repository: each must be a glob the
    // linear-time matcher takes (a backtracking matcher hangs on `**/*a*a*a*a*a*a*c`), or
    // for `links.ignore` a /regex/ RE2 runs (scan/suppress/link-ignore.ts; docs/trust.md).
    ...listViolations(raw, 'scan', 'globs', globProblem),
    ...listViolations(raw, 'links', 'ignore', linkIgnoreProblem),
  ];
  if (ruleViolations.length > 0)
    fail(
      source,
      ruleViolations.map((v) => withRuleName(v, rules)),
    );
  return mergeOverDefaults(raw);
}

/** What the user config may set (schemas/user-config.schema.json): the keys a repository may not. */
export interface UserConfig {
  classifier?: ClassifierSettings;
  vault_command?: string[];
}

/** Parses and validates the text of the user config; `source` names it in errors. */
export function parseUserConfig(text: string, source: string): UserConfig {
  const raw = parseMapping(text, source);
  const violations = schemaValidator('user-config.schema.json')(raw);
  if (violations.length > 0) fail(source, violations);
  const lifecycle = isObject(raw['lifecycle']) ? raw['lifecycle'] : {};
  return {
    ...(raw['classifier'] !== undefined ? { classifier: classifierSettings(raw['classifier']) } : {}),
    ...(Array.isArray(lifecycle['vault_command'])
      ? { vault_command: lifecycle['vault_command'] as string[] }
      : {}),
  };
}

/** A bare classifier name or a settings object, as one shape. */
function classifierSettings(value: unknown): ClassifierSettings {
  if (typeof value === 'string') return { provider: value as ClassifierSettings['provider'] };
  if (isObject(value)) return { ...(value as unknown as ClassifierSettings) };
  return { ...DEFAULT_CONFIG.classifier };
}

function mergeOverDefaults(raw: Raw): HygieneConfig {
  const section = (key: string): Raw => (isObject(raw[key]) ? (raw[key] as Raw) : {});
  const scan = section('scan');
  const lifecycle = section('lifecycle');
  return {
    scan: {
      globs: (scan['globs'] as string[] | undefined) ?? [...DEFAULT_CONFIG.scan.globs],
      excluded_dirs: (scan['excluded_dirs'] as string[] | undefined) ?? [
        ...DEFAULT_CONFIG.scan.excluded_dirs,
      ],
    },
    signals: { ...(section('signals') as Partial<Record<SignalName, 'on' | 'off'>>) },
    links: { ignore: [...((section('links')['ignore'] as string[] | undefined) ?? [])] },
    reminder: { ...DEFAULT_CONFIG.reminder, ...section('reminder') },
    archive: { ...DEFAULT_CONFIG.archive, ...section('archive') },
    context: { ...DEFAULT_CONFIG.context, ...section('context') },
    classifier: { ...DEFAULT_CONFIG.classifier },
    lifecycle: {
      rules: ((lifecycle['rules'] as Raw[] | undefined) ?? []).map(
        (rule) => ({ ...LIFECYCLE_RULE_DEFAULTS, ...rule }) as LifecycleRule,
      ),
    },
  };
}

/** A file's text, or undefined when it does not exist; any other failure is `config-unreadable`. */
async function readOptional(path: string, label: string): Promise<string | undefined> {
  try {
    return await readConfigFile(path);
  } catch (error) {
    throw new ConfigError('config-unreadable', `${label}: cannot read: ${(error as Error).message}`, {
      file: label,
    });
  }
}

/** Reads the user config (`userConfigPath`); a missing file sets nothing. */
export async function loadUserConfig(env: NodeJS.ProcessEnv = process.env): Promise<UserConfig> {
  const path = userConfigPath(env);
  const text = await readOptional(path, path);
  return text === undefined ? {} : parseUserConfig(text, path);
}

/**
 * The repository config's text and its name in messages: the `--config` file when one is
 * given (it must exist), else `<root>/.dochygiene.yml` or `<root>/.dochygiene.yaml` (both: a
 * `config-invalid` error; neither: undefined, the default configuration).
 */
export async function readRepositoryConfig(
  root: string,
  file?: string,
): Promise<{ text: string; source: string } | undefined> {
  if (file !== undefined) {
    const text = await readOptional(file, file);
    if (text === undefined)
      throw new ConfigError('config-unreadable', `${file}: cannot read: no such file (--config)`, { file });
    return { text, source: file };
  }
  const [yml, yaml] = await Promise.all([
    readOptional(join(root, CONFIG_FILE), CONFIG_FILE),
    readOptional(join(root, CONFIG_FILE_YAML), CONFIG_FILE_YAML),
  ]);
  if (yml !== undefined && yaml !== undefined)
    throw new ConfigError(
      'config-invalid',
      `${CONFIG_FILE} and ${CONFIG_FILE_YAML} both exist; keep one of them`,
      { file: CONFIG_FILE },
    );
  if (yml !== undefined) return { text: yml, source: CONFIG_FILE };
  return yaml === undefined ? undefined : { text: yaml, source: CONFIG_FILE_YAML };
}

/**
 * The configuration in effect: the repository's config (`readRepositoryConfig`: `--config
 * FILE`, else `<root>/.dochygiene.yml` or `.yaml`; none is the default configuration) for what
 * to scan and how to judge it, and the user config for the classifier and the vault command
 * (docs/trust.md: a `--config` file is trusted as the repository's, no more). `env` locates
 * the user config. `source` names the file the repository config came from.
 */
export async function loadConfig(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
  file?: string,
): Promise<HygieneConfig> {
  const found = await readRepositoryConfig(root, file);
  const config =
    found === undefined ? structuredClone(DEFAULT_CONFIG) : parseConfig(found.text, found.source, env);
  if (found !== undefined) config.source = found.source;
  const user = await loadUserConfig(env);
  if (user.classifier !== undefined) config.classifier = user.classifier;
  if (user.vault_command !== undefined) config.lifecycle.vault_command = user.vault_command;
  return config;
}
