import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { parse } from 'yaml';
import { baseOf, dirOf } from './paths.js';

/**
 * A translated docs tree that mkdocs-static-i18n builds with `docs_structure: folder`:
 * `<docsDir>/<locale>/…` per language. A page or file missing from a translation falls back
 * to the default language's (`fallback_to_default`, on unless set false), so a link written
 * in `docs/ja/agents.md` to `ref/lifecycle.md` works on the site when `docs/ref/lifecycle.md`
 * (or `docs/en/ref/lifecycle.md`) exists, though `docs/ja/ref/lifecycle.md` does not.
 */
export interface LocaleFallback {
  /** Root-relative; '' is the root. */
  docsDir: string;
  defaultLocale: string;
  /** The translations that fall back to the default language. */
  locales: ReadonlySet<string>;
}

const CONFIG_NAMES: ReadonlySet<string> = new Set(['mkdocs.yml', 'mkdocs.yaml']);

type Mapping = Record<string, unknown>;
const isMapping = (value: unknown): value is Mapping =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The `i18n` plugin's options: plugins are a list (`- i18n: {…}`) or a mapping. */
function i18nOptions(config: Mapping): Mapping | undefined {
  const { plugins } = config;
  if (Array.isArray(plugins)) {
    const entry = plugins.find((p) => isMapping(p) && isMapping(p['i18n']));
    return entry === undefined ? undefined : ((entry as Mapping)['i18n'] as Mapping);
  }
  return isMapping(plugins) && isMapping(plugins['i18n']) ? plugins['i18n'] : undefined;
}

/** One config file's fallback, or undefined when it builds no folder-structured translations that fall back. */
function fallbackOf(configPath: string, text: string): LocaleFallback | undefined {
  let config: unknown;
  try {
    // mkdocs configs carry tags of their own (`!!python/name:…`, `!ENV`): read as plain values.
    config = parse(text, { logLevel: 'silent', uniqueKeys: false });
  } catch {
    return undefined;
  }
  if (!isMapping(config)) return undefined;
  const options = i18nOptions(config);
  if (options === undefined || options['docs_structure'] !== 'folder') return undefined;
  if (options['fallback_to_default'] === false) return undefined;
  const languages = Array.isArray(options['languages']) ? options['languages'].filter(isMapping) : [];
  const named = languages.filter((l) => typeof l['locale'] === 'string' && /^[\w-]+$/.test(l['locale']));
  const defaults = named.filter((l) => l['default'] === true);
  if (defaults.length !== 1) return undefined;
  const defaultLocale = defaults[0]!['locale'] as string;
  const locales = new Set(
    named
      .filter((l) => l['default'] !== true && l['fallback_to_default'] !== false)
      .map((l) => l['locale'] as string),
  );
  const written = typeof config['docs_dir'] === 'string' ? config['docs_dir'] : 'docs';
  const docsDir = posix.normalize(posix.join(dirOf(configPath), written)).replace(/\/+$/, '');
  if (docsDir === '..' || docsDir.startsWith('../') || posix.isAbsolute(docsDir) || locales.size === 0)
    return undefined;
  return { docsDir: docsDir === '.' ? '' : docsDir, defaultLocale, locales };
}

/** The locale fallbacks that the project's mkdocs configs (`mkdocs.yml` anywhere in `files`) set up. */
export function readLocaleFallbacks(root: string, files: readonly string[]): LocaleFallback[] {
  const out: LocaleFallback[] = [];
  for (const file of files) {
    if (!CONFIG_NAMES.has(baseOf(file))) continue;
    let text: string;
    try {
      text = readFileSync(join(root, file), 'utf8');
    } catch {
      continue;
    }
    const fallback = fallbackOf(file, text);
    if (fallback !== undefined) out.push(fallback);
  }
  return out;
}

/**
 * Where the site reads a reference in `docPath` from when the translation lacks its target:
 * the same page in the default language's folder, then at the docs root. None for a doc
 * outside every translated folder.
 */
export function fallbackDocPaths(fallbacks: readonly LocaleFallback[], docPath: string): string[] {
  const out: string[] = [];
  for (const { docsDir, defaultLocale, locales } of fallbacks) {
    const prefix = docsDir === '' ? '' : `${docsDir}/`;
    if (!docPath.startsWith(prefix)) continue;
    const rest = docPath.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash === -1 || !locales.has(rest.slice(0, slash))) continue;
    const page = rest.slice(slash + 1);
    out.push(`${prefix}${defaultLocale}/${page}`, `${prefix}${page}`);
  }
  return out;
}
