/**
 * Which model to call, where, and how hard: the user config's `classifier:` (never the
 * repository's: docs/trust.md) overridden by `--classifier`/`--model`; keys from the
 * environment only. A missing key for a remote provider is a `ConfigError` raised here,
 * before any scan or request.
 */
import { ConfigError, UsageError } from '../../../core/errors.js';
import type { ClassifierName, ClassifierSettings } from '../../types.js';
import { anthropicProvider } from './anthropic.js';
import { openaiProvider } from './openai.js';
import type { Provider, ProviderName } from './provider.js';

/**
 * Default models, chosen from the providers' model documentation (README: Model
 * classifiers): Anthropic's current Sonnet (the design routes classification to Sonnet),
 * and OpenAI's GPT-6.1 Sol, its balance of speed, cost and capability.
 */
export const DEFAULT_MODELS: Readonly<Record<ProviderName, string>> = {
  anthropic: 'claude-sonnet-5-5',
  openai: 'gpt-6.1-sol',
};

/** The SDKs' defaults when `ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL` are unset. */
export const DEFAULT_BASE_URLS: Readonly<Record<ProviderName, string>> = {
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com/v1',
};

const KEY_VARIABLES: Readonly<Record<ProviderName, string>> = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
};
const BASE_URL_VARIABLES: Readonly<Record<ProviderName, string>> = {
  anthropic: 'ANTHROPIC_BASE_URL',
  openai: 'OPENAI_BASE_URL',
};

export const MODEL_DEFAULTS = {
  maxConcurrency: 4,
  timeoutS: 120,
  runTimeoutS: 900,
} as const;

export const CLASSIFIER_NAMES: readonly ClassifierName[] = ['rules', 'anthropic', 'openai'];

export interface ModelSettings {
  provider: Provider;
  model: string;
  escalateModel?: string;
  /** Where requests go, as shown to the user before anything is sent. */
  endpoint: string;
  maxConcurrency: number;
  timeoutMs: number;
  runTimeoutMs: number;
}

export interface ClassifierOverrides {
  /** `--classifier NAME`. */
  classifier?: string;
  /** `--model NAME`. */
  model?: string;
}

/** The classifier name in effect: the flag, else the config. Unknown flag values are usage errors. */
export function effectiveClassifier(
  config: ClassifierSettings,
  overrides: ClassifierOverrides,
): ClassifierName {
  const name = overrides.classifier ?? config.provider;
  if (!(CLASSIFIER_NAMES as readonly string[]).includes(name))
    throw new UsageError(
      `unknown classifier ${JSON.stringify(name)}`,
      `use one of: ${CLASSIFIER_NAMES.join(', ')}`,
    );
  if (name === 'rules' && overrides.model !== undefined)
    throw new UsageError(
      '--model needs a model classifier',
      'add --classifier anthropic or --classifier openai',
    );
  return name as ClassifierName;
}

/** Loopback hosts: a server there is the user's own, so an OpenAI-compatible one may need no key. */
export function isLocalUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  return host === 'localhost' || host === '[::1]' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

function normalizeBaseUrl(url: string, source: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new ConfigError('invalid-base-url', `${source}: ${JSON.stringify(url)} is not an http(s) URL`);
  }
  return url.replace(/\/+$/, '');
}

/**
 * The model settings in effect, or undefined for the rules classifier. Precedence: flags,
 * then the user config (`config`), then the environment (`*_BASE_URL`), then the defaults.
 * The key comes only from the environment.
 */
export function resolveModelSettings(
  config: ClassifierSettings,
  overrides: ClassifierOverrides,
  env: NodeJS.ProcessEnv,
): ModelSettings | undefined {
  const name = effectiveClassifier(config, overrides);
  if (name === 'rules') return undefined;
  // Settings written for one provider do not carry over to another named on the command line.
  const own = config.provider === name ? config : { provider: name };
  const envBase = env[BASE_URL_VARIABLES[name]];
  const baseUrl =
    own.base_url !== undefined
      ? normalizeBaseUrl(own.base_url, 'classifier.base_url in the user config')
      : envBase !== undefined && envBase !== ''
        ? normalizeBaseUrl(envBase, BASE_URL_VARIABLES[name])
        : DEFAULT_BASE_URLS[name];
  const keyVariable = KEY_VARIABLES[name];
  const rawKey = env[keyVariable];
  const key = rawKey !== undefined && rawKey.trim() !== '' ? rawKey.trim() : undefined;
  const keyOptional = name === 'openai' && isLocalUrl(baseUrl);
  if (key === undefined && !keyOptional)
    throw new ConfigError(
      'missing-api-key',
      `classifier '${name}' needs ${keyVariable} in the environment (keys are never read from files); nothing was sent and the previous report is kept`,
      { variable: keyVariable },
    );
  const provider = name === 'anthropic' ? anthropicProvider(baseUrl, key!) : openaiProvider(baseUrl, key);
  const settings: ModelSettings = {
    provider,
    model: overrides.model ?? own.model ?? DEFAULT_MODELS[name],
    endpoint: provider.endpoint,
    maxConcurrency: own.max_concurrency ?? MODEL_DEFAULTS.maxConcurrency,
    timeoutMs: (own.timeout_s ?? MODEL_DEFAULTS.timeoutS) * 1000,
    runTimeoutMs: (own.run_timeout_s ?? MODEL_DEFAULTS.runTimeoutS) * 1000,
  };
  if (own.escalate_model !== undefined) settings.escalateModel = own.escalate_model;
  return settings;
}
