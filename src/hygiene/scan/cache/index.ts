/**
 * The scan's content-addressed cache (docs/scanner-and-classifiers.md, "The cache"): per
 * blob, a doc's parse facts; per commit, the history pass. It lives under the repository's
 * common git dir (`sourcesteward-cache/`), never in the work tree; there is none outside a
 * repository, or where it cannot be written, and then the scan runs as it would without it.
 * Every key holds the settings digest: the tool's version, the configuration, the
 * thresholds, the scan's scopes and where the project sits in the repository.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../../core/errors.js';
import { discoverRepo } from '../../../core/git.js';
import { packageRoot, toolVersion } from '../../../core/package.js';
import { dropTokenCountStore, useTokenCountStore } from '../../tokens.js';
import type { HygieneConfig } from '../../types.js';
import { THRESHOLDS } from '../thresholds.js';
import { HistoryCache } from './history-cache.js';
import { cacheKeyPath, readOrCreateCacheKey } from './key.js';
import { ParseCache } from './parse-cache.js';
import { CacheStore, type ClearResult, cacheDirOf, maxBytesFrom, ownsCommonDir } from './store.js';
import { TokenCache } from './token-cache.js';

export { blobId, type ReadText } from './parse-cache.js';
export type { ClearResult } from './store.js';

/** Bumped when what an entry holds changes shape or meaning. */
const FORMAT = 1;

export interface ScanCache {
  parse: ParseCache;
  /** Absent where the history cannot be kept safely (shallow, replaced or grafted commits). */
  history: HistoryCache | undefined;
  /** Writes what this scan added, then keeps the store within its bound. */
  save(): void;
  /** Token counts by text (counted until `saveTokens`, which stores the new ones and stops). */
  tokens: TokenCache;
  saveTokens(): void;
}

export interface CacheSubject {
  config: HygieneConfig;
  scopes: readonly string[];
  /** The project's path inside the repository ('' or ending in `/`). */
  prefix: string;
  /** The work tree's own git dir (a linked work tree has its own) and the common one. */
  gitDir: string;
  commonDir: string;
  isShallow: boolean;
  /** A toplevel-relative path whose blob ids the history keeps (the scan's `mayBeDoc`). */
  mayBeDoc: (path: string) => boolean;
  env?: NodeJS.ProcessEnv;
}

/** The size bound, or a one-line error for a bad `STW_CACHE_MAX_MIB`. */
export function cacheMaxBytes(env: NodeJS.ProcessEnv = process.env): number {
  const max = maxBytesFrom(env);
  if (max === undefined)
    throw new ConfigError(
      'bad-cache-size',
      `STW_CACHE_MAX_MIB=${JSON.stringify(env['STW_CACHE_MAX_MIB'])} is not a whole number of MiB (1 or more)`,
    );
  return max;
}

/** The scan's cache for this repository, or undefined when there can be none. */
export function openScanCache(subject: CacheSubject): ScanCache | undefined {
  const env = subject.env ?? process.env;
  // For commands run where no flag can be added (a hook, a skill's allowed command line).
  if (env['STW_NO_CACHE'] === '1') return undefined;
  const maxBytes = cacheMaxBytes(env);
  if (!ownsCommonDir(subject.gitDir, subject.commonDir)) return undefined;
  const key = readOrCreateCacheKey(cacheKeyPath(env));
  if (key === undefined) return undefined;
  const store = CacheStore.open(cacheDirOf(subject.commonDir), key, maxBytes);
  if (store === undefined) return undefined;
  const settings = digest(
    JSON.stringify({
      format: FORMAT,
      tool: versionOf(env),
      config: subject.config,
      thresholds: THRESHOLDS,
      scopes: subject.scopes,
      prefix: subject.prefix,
    }),
  );
  const pointer = (kind: string) => digest(`${kind}-latest\0${settings}\0${subject.gitDir}`);
  const parse = new ParseCache(store, settings, pointer('parse'));
  const tokens = new TokenCache(store, versionOf(env));
  useTokenCountStore(tokens);
  const history = historyIsStable(subject)
    ? new HistoryCache(store, settings, pointer('history'), subject.mayBeDoc)
    : undefined;
  return {
    parse,
    history,
    save() {
      parse.save();
      history?.save();
      store.evict();
    },
    tokens,
    saveTokens() {
      dropTokenCountStore(tokens);
      tokens.save();
    },
  };
}

/** Removes every entry of the cache of the repository whose common git dir is `commonDir`. */
export function clearCache(commonDir: string, env: NodeJS.ProcessEnv = process.env): ClearResult {
  const dir = cacheDirOf(commonDir);
  if (!existsSync(dir)) return { path: dir, entries: 0, bytes: 0 };
  // The key is not needed to remove entries; an empty one opens the store.
  const store = CacheStore.open(dir, Buffer.alloc(0), cacheMaxBytes(env));
  return store?.clear() ?? { path: dir, entries: 0, bytes: 0 };
}

/**
 * False where a commit's history is not a function of its id alone: a shallow clone, commits
 * replaced (`refs/replace/`) or grafted, or refs git keeps where they are not read here (reftable).
 */
function historyIsStable(subject: CacheSubject): boolean {
  if (subject.isShallow) return false;
  const { commonDir } = subject;
  if (existsSync(join(commonDir, 'info', 'grafts')) || existsSync(join(commonDir, 'reftable'))) return false;
  try {
    if (readdirSync(join(commonDir, 'refs', 'replace')).length > 0) return false;
  } catch {}
  try {
    if (readFileSync(join(commonDir, 'packed-refs'), 'latin1').includes(' refs/replace/')) return false;
  } catch {}
  return true;
}

/**
 * The tool's version and a digest of the code whose results are kept (the parser, the
 * history pass, the token counter, this cache) and of the parsing packages' versions: a
 * build that changes any of them misses even under the same version number (a developer's
 * rebuild). Tests stand in another with `STW_TEST_CACHE_VERSION` (only with `STW_TEST_HOOKS=1`).
 */
function versionOf(env: NodeJS.ProcessEnv): string {
  const stand = env['STW_TEST_HOOKS'] === '1' ? env['STW_TEST_CACHE_VERSION'] : undefined;
  if (stand !== undefined && stand !== '') return stand;
  buildDigest ??= digestOfBuild();
  return `${toolVersion()}+${buildDigest}`;
}

let buildDigest: string | undefined;

const KEPT_CODE = [
  '../markdown.js',
  '../history.js',
  '../thresholds.js',
  '../../tokens.js',
  './parsed-doc-codec.js',
  './history-log.js',
  './history-cache.js',
];
const PARSING_PACKAGES = ['markdown-it', 'yaml', 'github-slugger', 'gpt-tokenizer'];

function digestOfBuild(): string {
  const hash = createHash('sha256');
  for (const file of KEPT_CODE)
    hash.update(readOrEmpty(fileURLToPath(new URL(file, import.meta.url)))).update('\0');
  for (const name of PARSING_PACKAGES)
    hash.update(readOrEmpty(join(packageRoot(), 'node_modules', name, 'package.json'))).update('\0');
  return hash.digest('hex').slice(0, 16);
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** What `stw hygiene cache clear` removed; `path` is undefined outside a repository (there is no cache). */
export interface ClearedCache {
  path: string | undefined;
  entries: number;
  bytes: number;
}

/** Removes the scan cache of the repository around `cwd`. */
export async function clearScanCache(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ClearedCache> {
  const repo = await discoverRepo(cwd);
  if (repo === undefined || repo.commonDir === '' || !ownsCommonDir(repo.gitDir, repo.commonDir))
    return { path: undefined, entries: 0, bytes: 0 };
  return clearCache(repo.commonDir, env);
}
