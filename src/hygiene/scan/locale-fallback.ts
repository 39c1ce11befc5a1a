import { posix } from 'node:path';
import { parse } from 'yaml';
import { readConfigs } from './files.js';
import { baseOf, dirOf } from './paths.js';
import type { Resolved } from './resolve.js';

/**
 * A translated docs tree that mkdocs-static-i18n (1.x) builds with `docs_structure: folder`:
 * `<docsDir>/<locale>/…` per language, the default language in its own folder or at the docs
 * root. With `fallback_to_default` (on unless set false; a plugin option, not a language's),
 * a link the translation cannot resolve is looked up in the default language and then at the
 * docs root (the plugin's `I18nFiles.get_file_from_path`), so `ref/lifecycle.md` written in
 * `docs/ja/agents.md` works on the site when `docs/en/ref/lifecycle.md` or
 * `docs/ref/lifecycle.md` exists, though `docs/ja/ref/lifecycle.md` does not.
 */
export interface LocaleFallback {
  /** Root-relative; '' is the root. */
  docsDir: string;
  defaultLocale: string;
  /** The translations the site builds, each falling back to the default language. */
  locales: ReadonlySet<string>;
  /** `attr_list` is on: a heading's `{#id}` is its anchor on the site (GitHub ignores it). */
  attrList: boolean;
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

/** An option the site may not have as written (`!ENV [FALLBACK, true]` is read here as a list) counts only when it is absent or literally `value`. */
const absentOr = (options: Mapping, key: string, value: unknown): boolean =>
  !(key in options) || options[key] === value;

/**
 * One config file's fallback, or undefined when it builds no folder-structured translations
 * that fall back, or when what it says cannot be read for sure (a tagged value, an `INHERIT`ed
 * base): hiding a broken link needs the site's own settings, so a doubt reports it.
 */
function fallbackOf(configPath: string, text: string): LocaleFallback | undefined {
  let config: unknown;
  try {
    // mkdocs configs carry tags of their own (`!!python/name:…`, `!ENV`): read as plain values.
    config = parse(text, { logLevel: 'silent', uniqueKeys: false });
  } catch {
    return undefined;
  }
  if (!isMapping(config) || 'INHERIT' in config) return undefined;
  const options = i18nOptions(config);
  if (options === undefined || options['docs_structure'] !== 'folder') return undefined;
  if (!absentOr(options, 'fallback_to_default', true) || !absentOr(options, 'enabled', true))
    return undefined;
  const languages = Array.isArray(options['languages']) ? options['languages'].filter(isMapping) : [];
  const named = languages.filter((l) => typeof l['locale'] === 'string' && /^[\w-]+$/.test(l['locale']));
  const defaults = named.filter((l) => l['default'] === true);
  if (defaults.length !== 1) return undefined;
  const defaultLocale = defaults[0]!['locale'] as string;
  // A language the site does not build has no pages there: its links are read where they are.
  const locales = new Set(
    named
      .filter((l) => l['default'] !== true && absentOr(l, 'build', true))
      .map((l) => l['locale'] as string),
  );
  if ('docs_dir' in config && typeof config['docs_dir'] !== 'string') return undefined;
  const written = typeof config['docs_dir'] === 'string' ? config['docs_dir'] : 'docs';
  const docsDir = posix.normalize(posix.join(dirOf(configPath), written)).replace(/\/+$/, '');
  if (docsDir === '..' || docsDir.startsWith('../') || posix.isAbsolute(docsDir) || locales.size === 0)
    return undefined;
  const extensions = config['markdown_extensions'];
  const attrList = Array.isArray(extensions)
    ? extensions.some((e) => e === 'attr_list' || (isMapping(e) && 'attr_list' in e))
    : isMapping(extensions) && 'attr_list' in extensions;
  return { docsDir: docsDir === '.' ? '' : docsDir, defaultLocale, locales, attrList };
}

/** The locale fallbacks that the project's mkdocs configs (`mkdocs.yml` anywhere in `files`) set up. */
export function readLocaleFallbacks(root: string, files: readonly string[]): LocaleFallback[] {
  return readConfigs(root, files, (file) => CONFIG_NAMES.has(baseOf(file)), fallbackOf);
}

/**
 * The files the site tries, in order, for a link in `docPath` that the tree resolves to
 * `target` (root-relative), as mkdocs-static-i18n's folder structure looks a link up in a
 * translation's build: the path itself, then with the default language's folder for the
 * translation's (or the other way round), then without either; a path outside both is tried
 * in the translation's folder, then the default's, then as written. Undefined for a doc in no
 * translated folder; none for a target outside the docs folder (mkdocs resolves no such link).
 */
export function siteCandidates(
  fallbacks: readonly LocaleFallback[],
  docPath: string,
  target: string,
): { tried: string[]; fallback: LocaleFallback } | undefined {
  for (const fallback of fallbacks) {
    const { docsDir, defaultLocale, locales } = fallback;
    const prefix = docsDir === '' ? '' : `${docsDir}/`;
    if (!docPath.startsWith(prefix)) continue;
    const rest = docPath.slice(prefix.length);
    const slash = rest.indexOf('/');
    const locale = slash === -1 ? '' : rest.slice(0, slash);
    if (!locales.has(locale)) continue;
    if (!target.startsWith(prefix) || target === docsDir) return { tried: [], fallback };
    const uri = target.slice(prefix.length);
    const under = (folder: string) =>
      uri.startsWith(`${folder}/`) ? uri.slice(folder.length + 1) : undefined;
    const inLocale = under(locale);
    const inDefault = under(defaultLocale);
    const tried =
      inLocale !== undefined
        ? [uri, `${defaultLocale}/${inLocale}`, inLocale]
        : inDefault !== undefined
          ? [uri, `${locale}/${inDefault}`, inDefault]
          : [`${locale}/${uri}`, `${defaultLocale}/${uri}`, uri];
    return { tried: tried.map((p) => `${prefix}${p}`), fallback };
  }
  return undefined;
}

/**
 * The file a translation's reference reaches on the site when the tree lacks its target: the
 * first file the site tries (`siteCandidates`) that `isFile` finds. Undefined for a doc in no
 * translation, a target through a broken symlink, or nothing found.
 */
export function siteTarget(
  fallbacks: readonly LocaleFallback[],
  isFile: (path: string) => boolean,
  docPath: string,
  resolved: Resolved,
): { path: string; fallback: LocaleFallback } | undefined {
  if (fallbacks.length === 0 || resolved.brokenLink !== undefined) return undefined;
  const site = siteCandidates(fallbacks, docPath, resolved.path);
  const found = site?.tried.find(isFile);
  return site === undefined || found === undefined ? undefined : { path: found, fallback: site.fallback };
}

const ATTR_HEADING = /^ {0,3}#{1,6}\s.*\{([^}]*)\}\s*#*\s*$/;

/** The `{#id}` anchors of a page's ATX headings, as `attr_list` sets them (lowercased, as anchors are compared). */
export function attrListIds(lines: readonly string[]): Set<string> {
  const ids = new Set<string>();
  for (const line of lines) {
    const attrs = ATTR_HEADING.exec(line)?.[1];
    if (attrs === undefined) continue;
    for (const m of attrs.matchAll(/(?:^|\s)#([^\s#.}]+)/g)) ids.add(m[1]!.toLowerCase());
  }
  return ids;
}
