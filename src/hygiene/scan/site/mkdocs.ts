/**
 * MkDocs (mkdocs.org): `mkdocs.yml` beside its `docs_dir` (`docs/`). Every file under the docs
 * folder is served: a page `a/b.md` at `/a/b/` (`use_directory_urls`, on by default) or
 * `/a/b.html`, `index.md` and `README.md` at their folder's URL; a relative link is read from
 * the page's source file and must stay inside the docs folder. A file `exclude_docs` or
 * `draft_docs` names (gitignore syntax), or whose name starts with `.`, is not built: it is
 * no page and is not served (`nav` leaves pages out of the menu, not the build). With `attr_list`, headings'
 * `{#id}` name their anchors. mkdocs-static-i18n (1.x, `docs_structure: folder`) builds a
 * translation from `<docs>/<locale>/` and, with `fallback_to_default` (on unless set false),
 * looks a link the translation lacks up in the default language and then at the docs root
 * (the plugin's `I18nFiles.get_file_from_path`), so `ref/lifecycle.md` written in
 * `docs/ja/agents.md` works on the site when `docs/en/ref/lifecycle.md` or
 * `docs/ref/lifecycle.md` exists. The redirects plugin's `redirect_maps` keep old pages' URLs.
 * A plugin the model does not know may generate pages: a target it does not find is
 * unverifiable there. The config may be a variant (`mkdocs-online.yml`) and `INHERIT` another;
 * mkdocs-exclude leaves files out of the build, and a file pymdownx.snippets puts into pages
 * (`--8<--`) that the build leaves out is read on those pages (`mkdocs-config.ts`).
 */
import { posix } from 'node:path';
import { repositoryGlobsMatcher } from '../lifecycle-glob.js';
import { baseOf, MARKDOWN_EXT } from '../paths.js';
import {
  excludePlugin,
  isChosenConfig,
  isMkdocsConfig,
  loadMkdocsConfig,
  snippetsOf,
  snippetsOptions,
} from './mkdocs-config.js';
import { folderFrom, inside, isMapping, isUnder, type Mapping, pagesByUrl, unreadableSite } from './read.js';
import type { ConfigContext, Served, Site, SiteFiles, SiteModel } from './types.js';

/** A translated docs tree that mkdocs-static-i18n builds with `docs_structure: folder`. */
export interface LocaleFallback {
  /** Root-relative; '' is the root. */
  docsDir: string;
  defaultLocale: string;
  /** The translations the site builds, each falling back to the default language. */
  locales: ReadonlySet<string>;
}

/** Plugins that change no page's URL and generate no page. */
const HARMLESS = new Set([
  'search',
  'i18n',
  'redirects',
  'tags',
  'social',
  'minify',
  'offline',
  'privacy',
  'meta',
  'glightbox',
  'awesome-pages',
  'literate-nav',
  'section-index',
  'git-revision-date',
  'git-revision-date-localized',
  'git-committers',
  'git-authors',
  'rss',
  'optimize',
  'typeset',
  // mkdocs-exclude: it only leaves files out of the build (read by `excludePlugin`).
  'exclude',
]);

/** The plugins a config lists, by name, with their options. */
function pluginsOf(config: Mapping): Map<string, Mapping> {
  const { plugins } = config;
  const out = new Map<string, Mapping>();
  const entries = Array.isArray(plugins) ? plugins : isMapping(plugins) ? [plugins] : [];
  for (const entry of entries) {
    if (typeof entry === 'string') out.set(entry, {});
    else if (isMapping(entry))
      for (const [name, options] of Object.entries(entry)) out.set(name, isMapping(options) ? options : {});
  }
  return out;
}

/** An option the site may not have as written (`!ENV [FALLBACK, true]` is read here as a list) counts only when it is absent or literally `value`. */
const absentOr = (options: Mapping, key: string, value: unknown): boolean =>
  !(key in options) || options[key] === value;

/** The folder-structured translations that fall back, or undefined (none, or not read for sure). */
function fallbackOf(docsDir: string, options: Mapping | undefined): LocaleFallback | undefined {
  if (options === undefined || options['docs_structure'] !== 'folder') return undefined;
  if (!absentOr(options, 'fallback_to_default', true) || !absentOr(options, 'enabled', true))
    return undefined;
  const languages = Array.isArray(options['languages']) ? options['languages'].filter(isMapping) : [];
  const named = languages.filter((l) => typeof l['locale'] === 'string' && /^[\w-]+$/.test(l['locale']));
  const defaults = named.filter((l) => l['default'] === true);
  if (defaults.length !== 1) return undefined;
  // A language the site does not build has no pages there: its links are read where they are.
  const locales = new Set(
    named
      .filter((l) => l['default'] !== true && absentOr(l, 'build', true))
      .map((l) => l['locale'] as string),
  );
  return locales.size === 0
    ? undefined
    : { docsDir, defaultLocale: defaults[0]!['locale'] as string, locales };
}

/**
 * The files the site tries, in order, for a link in `docPath` that reads as `target`, as
 * mkdocs-static-i18n's folder structure looks a link up in a translation's build: the path
 * itself, then with the default language's folder for the translation's (or the other way
 * round), then without either; a path outside both is tried in the translation's folder, then
 * the default's, then as written. Undefined for a doc in no translated folder.
 */
export function siteCandidates(
  fallback: LocaleFallback,
  docPath: string,
  target: string,
): string[] | undefined {
  const { docsDir, defaultLocale, locales } = fallback;
  const prefix = docsDir === '' ? '' : `${docsDir}/`;
  if (!docPath.startsWith(prefix)) return undefined;
  const rest = docPath.slice(prefix.length);
  const slash = rest.indexOf('/');
  const locale = slash === -1 ? '' : rest.slice(0, slash);
  if (!locales.has(locale)) return undefined;
  if (!target.startsWith(prefix) || target === docsDir) return [];
  const uri = target.slice(prefix.length);
  const under = (folder: string) => (uri.startsWith(`${folder}/`) ? uri.slice(folder.length + 1) : undefined);
  const inLocale = under(locale);
  const inDefault = under(defaultLocale);
  const tried =
    inLocale !== undefined
      ? [uri, `${defaultLocale}/${inLocale}`, inLocale]
      : inDefault !== undefined
        ? [uri, `${locale}/${inDefault}`, inDefault]
        : [`${locale}/${uri}`, `${defaultLocale}/${uri}`, uri];
  return tried.map((p) => `${prefix}${p}`);
}

/**
 * The files MkDocs leaves out of the build, as a matcher of docs-relative paths: its defaults
 * (names starting with `.`, `/templates/`) and `exclude_docs`/`draft_docs` (gitignore syntax:
 * a pattern without an inner `/` matches at any depth, a trailing `/` a folder and what is in
 * it); a string when a pattern is outside what the model reads (a negation, a glob it refuses).
 */
export function excludedDocs(config: Mapping): ((rel: string) => boolean) | string {
  const written = ['exclude_docs', 'draft_docs'].flatMap((key) => {
    const value = config[key];
    return typeof value === 'string' ? value.split('\n') : [];
  });
  const globs = ['**/.*', '**/.*/**', 'templates/**'];
  for (const raw of written) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('!')) return `its exclude_docs negates a pattern (${line})`;
    const folder = line.endsWith('/');
    const body = line.replace(/\/+$/, '');
    const anchored = body.replace(/^\//, '');
    const at = body.startsWith('/') || anchored.includes('/') ? anchored : `**/${anchored}`;
    globs.push(`${at}/**`);
    if (!folder) globs.push(at);
  }
  const matches = repositoryGlobsMatcher(globs);
  return matches ?? 'a pattern of its exclude_docs is outside the glob syntax the model reads';
}

function read(file: string, text: string, context: ConfigContext): Site | undefined {
  const dir = posix.dirname(file) === '.' ? '' : posix.dirname(file);
  if (!isChosenConfig(file, context)) return undefined;
  const config = loadMkdocsConfig(file, text, context);
  if (typeof config === 'string') return unreadableSite('mkdocs', file, [dir], config);
  if ('docs_dir' in config && typeof config['docs_dir'] !== 'string')
    return unreadableSite('mkdocs', file, [dir], 'its docs_dir is not plain');
  const docsDir = folderFrom(dir, typeof config['docs_dir'] === 'string' ? config['docs_dir'] : 'docs');
  if (docsDir === undefined)
    return unreadableSite('mkdocs', file, [dir], 'its docs_dir is outside the repository');
  const plugins = pluginsOf(config);
  const excluded = excludedDocs(config);
  const excludedByPlugin = excludePlugin(plugins.get('exclude'));
  if (typeof excluded === 'string') return unreadableSite('mkdocs', file, [dir], excluded);
  if (typeof excludedByPlugin === 'string') return unreadableSite('mkdocs', file, [dir], excludedByPlugin);
  /** Whether the build has the file (under the docs folder, not excluded). */
  const built = (path: string) =>
    isUnder(path, docsDir) &&
    path !== docsDir &&
    !excluded(inside(path, docsDir)) &&
    !excludedByPlugin(inside(path, docsDir));
  const snippets = snippetsOptions(config);
  const included = snippets === undefined ? undefined : snippetsOf(dir, snippets, built);
  const fallback = fallbackOf(docsDir, plugins.get('i18n'));
  const unknown = [...plugins.keys()].find((p) => !HARMLESS.has(p));
  const hooks =
    Array.isArray(config['hooks']) && config['hooks'].length > 0 ? String(config['hooks'][0]) : undefined;
  const unsettled =
    hooks !== undefined
      ? `the hook ${hooks} may rewrite pages`
      : unknown !== undefined
        ? `the plugin ${unknown} may generate pages`
        : plugins.has('i18n') && fallback === undefined
          ? 'the i18n plugin is not read for sure'
          : undefined;
  const extensions = config['markdown_extensions'];
  const attrList = Array.isArray(extensions)
    ? extensions.some((e) => e === 'attr_list' || (isMapping(e) && 'attr_list' in e))
    : isMapping(extensions) && 'attr_list' in extensions;
  const directory = config['use_directory_urls'] !== false;
  const siteUrl = typeof config['site_url'] === 'string' ? config['site_url'] : '';
  const published = /^https?:\/\/[^/]+(\/.*)?$/.exec(siteUrl);
  const sitePath = published?.[1]?.replace(/^\/+|\/+$/g, '') ?? '';
  const redirects = plugins.get('redirects')?.['redirect_maps'];
  const pageUrl = (source: string): string | undefined => {
    if (!built(source) || !MARKDOWN_EXT.test(source)) return undefined;
    const rel = inside(source, docsDir).replace(MARKDOWN_EXT, '');
    const own = /^(?:index|readme)$/i.test(baseOf(rel));
    const folder = posix.dirname(rel) === '.' ? '' : `${posix.dirname(rel)}/`;
    if (own) return `/${folder}`;
    return directory ? `/${rel}/` : `/${rel}.html`;
  };
  const index = pagesByUrl(pageUrl, undefined, (urls, files) => {
    if (!isMapping(redirects)) return;
    for (const [from, to] of Object.entries(redirects)) {
      const target = typeof to === 'string' ? posix.join(docsDir, to) : '';
      const url = pageUrl(posix.join(docsDir, from));
      if (url !== undefined && files.isFile(target) && !urls.has(url)) urls.set(url, target);
    }
  });
  const serves = (url: string, files: SiteFiles): Served => {
    const bare = url.replace(/\/index\.html$/, '/');
    const page = index(files).get(bare) ?? index(files).get(bare.endsWith('/') ? bare : `${bare}/`);
    if (page !== undefined) return { path: page };
    const file = posix.join(docsDir, url.replace(/^\/+/, ''));
    if (built(file) && files.isFile(file)) return { path: file };
    return unsettled !== undefined ? { unverifiable: unsettled } : undefined;
  };
  return {
    generator: 'mkdocs',
    config: file,
    contentRoots: [docsDir],
    ...(unsettled !== undefined ? { unsettled } : {}),
    explicitIds: attrList,
    ...(published !== null && sitePath === '' ? { rootClamps: true } : {}),
    // mkdocstrings renders an object's API (and its anchors) where a `::: name` line stands.
    includes:
      hooks !== undefined
        ? /(?:)/
        : plugins.has('mkdocstrings')
          ? /--8<--|\{%\s*include|\{\{|^\s*:::\s/
          : /--8<--|\{%\s*include|\{\{/,
    ...(hooks !== undefined ? { includesWhy: `the hook ${hooks} may set the anchor` } : {}),
    // Python-Markdown's toc slugs collapse runs of `-` (`Caret, Mark & Tilde` is `caret-mark-tilde`).
    anchorForm: (anchor) => anchor.replace(/-+/g, '-').replace(/^-|-$/g, ''),
    fileLinks: true,
    pageUrl,
    // A snippet the build leaves out (mkdocs-exclude) is read on the pages that include it.
    ...(included === undefined
      ? {}
      : { embedded: (doc: string, files: SiteFiles) => !built(doc) && included(files).has(doc) }),
    serves,
    fileTarget: (from, path, files) => {
      const tried = fallback !== undefined ? siteCandidates(fallback, from, path) : undefined;
      const found = (tried ?? [path]).find((p) => built(p) && files.isFile(p));
      if (found !== undefined) return { path: found };
      return unsettled !== undefined && MARKDOWN_EXT.test(path) ? { unverifiable: unsettled } : undefined;
    },
    rooted: (path) =>
      sitePath === ''
        ? path
        : isUnder(path.slice(1), sitePath)
          ? `/${inside(path.slice(1), sitePath)}`
          : { unverifiable: `a /-rooted link outside the site_url path /${sitePath}/` },
  };
}

export const mkdocs: SiteModel = {
  id: 'mkdocs',
  name: 'MkDocs',
  isConfig: isMkdocsConfig,
  read,
  source:
    'mkdocs.org: “Configuration” (docs_dir, use_directory_urls, INHERIT), “Writing your docs” (linking); mkdocs-static-i18n 1.x docs; mkdocs-exclude; pymdownx.snippets; Python-Markdown attr_list',
};
