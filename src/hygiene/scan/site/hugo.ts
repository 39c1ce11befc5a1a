/**
 * Hugo (gohugo.io): `hugo.{toml,yaml,json}` or `config.{toml,yaml,json}` at the site's root,
 * and/or the files of `config/_default/` (`hugo.toml`, and one file per root key:
 * `module.yaml`, `languages.toml`, …). A page's URL is its path under a content folder, one
 * folder deeper than its file (`docs/foo.md` is `/docs/foo/`), `_index.md` and `index.md` the
 * folder's own, lowercased, with frontmatter `slug:` or `url:` and a language prefix for a
 * language other than the default. Module mounts (`module.mounts`) replace the default
 * `content/` and `static/` of their target with folders of the repository, a submodule or
 * another module; a page's files (`content/…/x.svg`) and `static/` are served as they lie, a
 * translation's missing file from the default language's content. With the embedded link
 * render hook (a multilingual site, or `enableDefault`), a link is first looked up as a page
 * (`.GetPage`: from the page's folder — a leaf bundle's container — then the content root, `x`, `x.md`, `x/`) or a file of
 * the page's bundle. `/tags/…` and `/categories/…` (the `taxonomies`) are generated from front
 * matter: unverifiable. Frontmatter `aliases:` and
 * `redirects:` keep old URLs. Headings' `{#id}` name their anchors, and with Goldmark's
 * `autoDefinitionTermID` so do definition terms (`Term` over `: definition`), by their slug.
 */
import { posix } from 'node:path';
import { baseOf, dirOf } from '../paths.js';
import {
  deepestRoot,
  folderFrom,
  inside,
  isMapping,
  isUnder,
  type Mapping,
  parseConfig,
  perListing,
  stringList,
  unreadableSite,
} from './read.js';
import type { ConfigContext, Served, Site, SiteFiles, SiteModel } from './types.js';

const MAIN = /(^|\/)(?:hugo|config)\.(?:toml|ya?ml|json)$/;
const SPLIT = /(^|\/)config\/_default\/[^/]+\.(?:toml|ya?ml|json)$/;

interface Root {
  dir: string;
  /** The URL folder it is served under ('' for the root). */
  prefix: string;
  lang?: string;
}

/** The site root each Hugo config file belongs to, and the one file that stands for the site. */
const chosen = new WeakMap<ReadonlySet<string>, Map<string, string>>();

function siteConfigs(listed: ReadonlySet<string>): Map<string, string> {
  let out = chosen.get(listed);
  if (out !== undefined) return out;
  out = new Map();
  const rank = (file: string) => (/hugo\.[^/]+$/.test(file) ? 0 : SPLIT.test(file) ? 2 : 1);
  const folders = new Set<string>();
  for (const f of listed) folders.add(dirOf(f).split('/')[0] ?? '');
  for (const file of [...listed].sort()) {
    const split = SPLIT.test(file);
    if (!split && !MAIN.test(file)) continue;
    const root = split ? dirOf(dirOf(dirOf(file))) : dirOf(file);
    // `config.toml` is a common name: a Hugo site has its content, layouts or archetypes beside it.
    if (!/hugo\.[^/]+$/.test(file) && !hasHugoFolders(listed, root)) continue;
    const had = out.get(root);
    if (had === undefined || rank(file) < rank(had)) out.set(root, file);
  }
  chosen.set(listed, out);
  return out;
}

const hugoFolders = new WeakMap<ReadonlySet<string>, Set<string>>();

function hasHugoFolders(listed: ReadonlySet<string>, root: string): boolean {
  let tops = hugoFolders.get(listed);
  if (tops === undefined) {
    tops = new Set();
    for (const f of listed) {
      const m = /^(.*?)(?:^|\/)(?:content|layouts|archetypes)\//.exec(f);
      if (m !== null) tops.add(m[1]!.replace(/\/$/, ''));
    }
    hugoFolders.set(listed, tops);
  }
  return tops.has(root);
}

/** The site's settings: the main file, then `config/_default/*` (`hugo.*`/`config.*` at the top, others under their name). */
function mergedConfig(root: string, context: ConfigContext): Mapping | string {
  const prefix = root === '' ? '' : `${root}/`;
  const files = context.files.filter(
    (f) =>
      (dirOf(f) === root && MAIN.test(f)) ||
      (dirOf(f) === `${prefix}config/_default` && /\.(?:toml|ya?ml|json)$/.test(f)),
  );
  const config: Mapping = {};
  for (const file of files.sort((a, b) => a.length - b.length || (a < b ? -1 : 1))) {
    const text = context.read(file);
    const parsed = text === undefined ? undefined : parseConfig(file, text);
    if (parsed === undefined) return `the Hugo config ${file} does not parse`;
    const name = baseOf(file).replace(/\.[^.]+$/, '');
    if (dirOf(file) === root || name === 'hugo' || name === 'config') Object.assign(config, parsed);
    else config[name] = { ...(isMapping(config[name]) ? config[name] : {}), ...parsed };
  }
  return config;
}

function read(file: string, _text: string, context: ConfigContext): Site | undefined {
  const root = SPLIT.test(file) ? dirOf(dirOf(dirOf(file))) : dirOf(file);
  const config = mergedConfig(root, context);
  if (typeof config === 'string') return unreadableSite('hugo', file, [root], config);
  return hugoSite(file, root, config, context);
}

/** The folders a Hugo site serves from. */
interface Folders {
  content: Root[];
  statics: Root[];
  /** URL folders served from where the model cannot look: why, by URL prefix. */
  blind: { prefix: string; why: string }[];
}

/** A project's link or image render hook, with what its template does. */
type RenderHook = { file: string } & ReturnType<typeof hookKind>;

/** What a Hugo site's routes rest on, read once from its config. */
interface Hugo extends Folders {
  root: string;
  defaultLang: string;
  inSubdir: boolean;
  langs: ReadonlySet<string>;
  /** URLs are lowercased (no `disablePathToLower`). */
  lower: boolean;
  /** Why a theme or module may serve what the model does not find. */
  themed: string | undefined;
  /** Why a project render hook may rewrite a link. */
  hookDoubt: string | undefined;
  /** A project hook that looks links up as pages, as the embedded one does (gohugoio/hugoDocs). */
  pageHook: RenderHook | undefined;
  /** Links are looked up as pages first (the embedded hook, or a project hook like it). */
  embedded: boolean;
  /** A link render hook may rewrite links to Markdown sources. */
  hooks: boolean;
  taxonomies: readonly unknown[];
  redirects: Redirect[];
}

function hugoSite(file: string, root: string, config: Mapping, context: ConfigContext): Site {
  const defaultLang =
    typeof config['defaultContentLanguage'] === 'string' ? config['defaultContentLanguage'] : 'en';
  const languages = isMapping(config['languages']) ? config['languages'] : {};
  const langs = new Set([defaultLang, ...Object.keys(languages)]);
  const module = isMapping(config['module']) ? config['module'] : {};
  const mounts = Array.isArray(module['mounts']) ? module['mounts'].filter(isMapping) : [];
  const folders = mountedFolders(root, mounts, context);
  if (typeof folders === 'string') return unreadableSite('hugo', file, [root], folders);
  defaultFolders(root, config, mounts, defaultLang, folders);
  const themed =
    config['theme'] !== undefined || (Array.isArray(module['imports']) && module['imports'].length > 0)
      ? `the theme or module ${JSON.stringify(config['theme'] ?? (module['imports'] as Mapping[])[0]?.['path'] ?? '')} may serve it`
      : undefined;
  const renderHooks = context.files.filter(
    (f) => isUnder(f, root) && /(^|\/)layouts\/(?:.*\/)?_markup\/render-(?:link|image)/.test(f),
  );
  const readHooks = renderHooks.map((f) => ({ file: f, ...hookKind(context.read(f)) }));
  const linkHook = readHooks.find((h) => h.kind === 'unknown')?.file;
  const hookDoubt = linkHook === undefined ? undefined : `the render hook ${linkHook} may rewrite the link`;
  const pageHook = linkHook === undefined ? readHooks.find((h) => h.kind === 'get-page') : undefined;
  const unsettled =
    hookDoubt ??
    themed ??
    (config['permalinks'] !== undefined || config['uglyURLs'] === true
      ? 'permalinks or uglyURLs change the routes'
      : undefined) ??
    folders.blind[0]?.why;
  const markup = isMapping(config['markup']) ? config['markup'] : {};
  const goldmark = isMapping(markup['goldmark']) ? markup['goldmark'] : {};
  const parser = isMapping(goldmark['parser']) ? goldmark['parser'] : {};
  const enableDefault = JSON.stringify(markup).includes('"enableDefault":true');
  const hugo: Hugo = {
    ...folders,
    root,
    defaultLang,
    inSubdir: config['defaultContentLanguageInSubdir'] === true,
    langs,
    lower: config['disablePathToLower'] !== true,
    themed,
    hookDoubt,
    pageHook,
    // Hugo's embedded link render hook (on for a multilingual site, or `enableDefault`) looks a
    // link up as a page (`.GetPage`, from the page's folder, then the content root) or a file of
    // the page's bundle before passing it through as a URL.
    embedded: pageHook !== undefined || (renderHooks.length === 0 && (langs.size > 1 || enableDefault)),
    hooks: themed !== undefined || langs.size > 1 || enableDefault,
    taxonomies: isMapping(config['taxonomies'])
      ? Object.values(config['taxonomies'])
      : ['tags', 'categories'],
    redirects: netlifyRedirects(root, context),
  };
  const pageUrl = hugoPageUrl(hugo);
  return {
    generator: 'hugo',
    config: file,
    contentRoots: folders.content.map((r) => r.dir),
    ...(unsettled !== undefined ? { unsettled } : {}),
    explicitIds: true,
    ...(parser['autoDefinitionTermID'] === true ? { termIds: true } : {}),
    includes: /\{\{[<%]/,
    fileLinks: false,
    pageUrl,
    serves: hugoServes(hugo, pageUrl),
    sourceLink: hugoSourceLink(hugo, pageUrl),
    doubt: (written) => (written.includes('{{') ? 'a Hugo shortcode computes the link' : undefined),
  };
}

/** The folders module mounts (`module.mounts`) serve `content/` and `static/` from, or why a mount cannot be read. */
function mountedFolders(root: string, mounts: Mapping[], context: ConfigContext): Folders | string {
  const folders: Folders = { content: [], statics: [], blind: [] };
  const hasFiles = (dir: string) => context.files.some((f) => isUnder(f, dir) && f !== dir);
  // A submodule not checked out: `.gitmodules` names it (a mounted file or a missing folder is not one).
  const submodules = [...(context.read('.gitmodules') ?? '').matchAll(/^\s*path\s*=\s*(.+?)\s*$/gm)].map(
    (m) => m[1]!,
  );
  const notCheckedOut = (dir: string) => submodules.some((path) => isUnder(dir, path) || isUnder(path, dir));
  for (const mount of mounts) {
    const source = mount['source'];
    const target = mount['target'];
    if (typeof source !== 'string' || typeof target !== 'string') return 'a module mount is not plain';
    const kind = target.split('/')[0];
    if (kind !== 'content' && kind !== 'static') continue;
    const prefix = target.split('/').slice(1).join('/');
    const dir = folderFrom(root, source);
    const lang = typeof mount['lang'] === 'string' ? mount['lang'] : undefined;
    const at = { prefix, ...(lang !== undefined ? { lang } : {}) };
    if (dir === undefined)
      folders.blind.push({
        prefix: `${kind}:${prefix}`,
        why: `mounted from ${source}, outside the repository`,
      });
    else if (!hasFiles(dir) && notCheckedOut(dir))
      folders.blind.push({
        prefix: `${kind}:${prefix}`,
        why: `mounted from ${dir}, which is not checked out (a submodule?)`,
      });
    else (kind === 'content' ? folders.content : folders.statics).push({ dir, ...at });
  }
  return folders;
}

/** Adds the default `content/` (or each language's `contentDir`) and `static/` where no mount replaces them. */
function defaultFolders(
  root: string,
  config: Mapping,
  mounts: Mapping[],
  defaultLang: string,
  folders: Folders,
): void {
  const mounted = (kind: string) =>
    mounts.some((m) => typeof m['target'] === 'string' && m['target'].split('/')[0] === kind);
  if (!mounted('content')) {
    const languages = isMapping(config['languages']) ? config['languages'] : {};
    const perLang = Object.entries(languages).filter(
      ([, v]) => isMapping(v) && typeof v['contentDir'] === 'string',
    );
    for (const [lang, v] of perLang) {
      const dir = folderFrom(root, (v as Mapping)['contentDir'] as string);
      if (dir !== undefined) folders.content.push({ dir, prefix: '', lang });
    }
    const contentDir = typeof config['contentDir'] === 'string' ? config['contentDir'] : 'content';
    const dir = folderFrom(root, contentDir);
    if (dir !== undefined && !perLang.some(([lang]) => lang === defaultLang))
      folders.content.push({ dir, prefix: '' });
  }
  if (!mounted('static')) {
    for (const s of stringList(config['staticDir']) ?? ['static']) {
      const dir = folderFrom(root, s);
      if (dir !== undefined) folders.statics.push({ dir, prefix: '' });
    }
  }
}

/** A page's URL: its path under its content folder, slug or `url:`, language prefix, lowercased. */
function hugoPageUrl(hugo: Hugo): Site['pageUrl'] {
  const { defaultLang, langs } = hugo;
  const langOf = (r: Root, rel: string): string => {
    if (r.lang !== undefined) return r.lang;
    const m = /\.([\w-]+)\.(?:md|markdown|html?)$/.exec(rel);
    return m !== null && langs.has(m[1]!) ? m[1]! : defaultLang;
  };
  return (source: string, files: SiteFiles): string | undefined => {
    const r = deepestRoot(hugo.content, source);
    if (r === undefined || !/\.(?:md|markdown|html?)$/i.test(source)) return undefined;
    const rel = posix.join(r.prefix, inside(source, r.dir));
    const fm = files.frontmatter(source) ?? {};
    if (fm['headless'] === true || (isMapping(fm['build']) && fm['build']['render'] === 'never'))
      return undefined;
    const lang = langOf(r, rel);
    const langPrefix = lang !== defaultLang || hugo.inSubdir ? `/${lang}` : '';
    if (typeof fm['url'] === 'string' && fm['url'].startsWith('/')) return withSlash(fm['url']);
    // A language suffix (`about.fr.md`) is one of the site's languages; `issue_3.5_to_3.6.md` keeps its dots.
    const stemmed = baseOf(rel).replace(/\.(?:md|markdown|html?)$/i, '');
    const suffix = /\.([\w-]+)$/.exec(stemmed)?.[1];
    const name = suffix !== undefined && langs.has(suffix) ? stemmed.slice(0, -suffix.length - 1) : stemmed;
    const bundle = name === 'index' || name === '_index';
    const slug = !bundle && typeof fm['slug'] === 'string' ? fm['slug'] : name;
    const path = bundle ? dirOf(rel) : posix.join(dirOf(rel), slug);
    const url = withSlash(`${langPrefix}/${path}`);
    return hugo.lower ? url.toLowerCase() : url;
  };
}

/**
 * A link as the embedded render hook (or a project hook like it) reads it: an asset, a page
 * (`.GetPage`, from the page's folder, then the content root) or a file of the page's bundle.
 */
function hugoSourceLink(hugo: Hugo, pageUrl: Site['pageUrl']): NonNullable<Site['sourceLink']> {
  const { pageHook } = hugo;
  // `.GetPage` reads paths regardless of case (`methods/page/date` is `methods/page/Date.md`).
  const byLowerPath = perListing((files) => {
    const out = new Map<string, string>();
    for (const f of files.files) if (hugo.content.some((r) => isUnder(f, r.dir))) out.set(f.toLowerCase(), f);
    return out;
  });
  return (from: string, path: string, files: SiteFiles): Served => {
    const r = deepestRoot(hugo.content, from);
    if (!hugo.embedded || r === undefined || r.prefix !== '') return undefined;
    if (pageHook?.special.includes(path) === true)
      return {
        unverifiable: `the render hook ${pageHook.file} gives the destination "${path}" a meaning of its own`,
      };
    const asset = posix.join(hugo.root, 'assets', path.replace(/^\/+/, ''));
    if (!path.startsWith('.') && files.isFile(asset)) return { path: asset };
    const trimmed = path.replace(/\/+$/, '');
    const bare = trimmed.replace(/\.(?:md|markdown)$/i, '');
    // From a leaf bundle (`x/index.md`) the page's folder is the bundle's container, unless a
    // `../y.md` asks to go up from the bundle itself; a `./` or `../` path is only page-relative.
    const leaf = /(^|\/)index\.(?:md|markdown)$/.test(from);
    const up = bare !== trimmed && path.startsWith('../');
    const base = leaf && !up ? dirOf(dirOf(from)) : dirOf(from);
    const dirs = bare.startsWith('/') ? [r.dir] : bare.startsWith('.') ? [base] : [base, r.dir];
    for (const dir of dirs) {
      const at = posix.normalize(posix.join(dir, bare));
      if (!isUnder(at, r.dir)) continue;
      const page = [`${at}.md`, `${at}/index.md`, `${at}/_index.md`]
        .map((f) => (files.isFile(f) ? f : byLowerPath(files).get(f.toLowerCase())))
        .find((f) => f !== undefined && pageUrl(f, files) !== undefined);
      if (page !== undefined) return { path: page };
    }
    // A file of the page's bundle; with a hook that says so (hugoDocs'), of its section too.
    const resource = posix.normalize(posix.join(dirOf(from), path));
    return (leaf || pageHook?.sections === true) && files.isFile(resource) ? { path: resource } : undefined;
  };
}

/** The site's pages by URL, with the old URLs their `aliases:` and `redirects:` keep. */
function hugoIndex(hugo: Hugo, pageUrl: Site['pageUrl']): (files: SiteFiles) => Map<string, string> {
  const { lower } = hugo;
  return perListing((files) => {
    const urls = new Map<string, string>();
    for (const f of files.files) {
      const url = pageUrl(f, files);
      if (url === undefined) continue;
      if (!urls.has(url)) urls.set(url, f);
      const fm = files.frontmatter(f) ?? {};
      for (const alias of [...(stringList(fm['aliases']) ?? []), ...(stringList(fm['redirects']) ?? [])]) {
        const at = withSlash(
          alias.startsWith('/') ? alias : posix.join(dirOf(url.replace(/\/$/, '')), alias),
        );
        if (!urls.has(lower ? at.toLowerCase() : at)) urls.set(lower ? at.toLowerCase() : at, f);
      }
    }
    return urls;
  });
}

/** What the site serves at a URL: a page, a page's file, a static file, or a doubt. */
function hugoServes(hugo: Hugo, pageUrl: Site['pageUrl']): Site['serves'] {
  const { defaultLang, langs, content } = hugo;
  const index = hugoIndex(hugo, pageUrl);
  return (url: string, files: SiteFiles): Served => {
    const bare = url.replace(/\/index\.html$/, '/');
    const page = index(files).get(withSlash(hugo.lower ? bare.toLowerCase() : bare));
    if (page !== undefined && !/\.[a-z0-9]+$/i.test(bare.replace(/\/$/, ''))) return { path: page };
    const parts = url.split('/').filter((p) => p !== '');
    const lang =
      parts.length > 0 && langs.has(parts[0]!) && (parts[0] !== defaultLang || hugo.inSubdir)
        ? parts[0]!
        : defaultLang;
    const rest = lang === (parts[0] ?? '') ? parts.slice(1).join('/') : parts.join('/');
    // A page's file, in its language's content and then the default language's.
    const order = [
      ...content.filter((r) => r.lang === undefined || r.lang === lang),
      ...(lang !== defaultLang ? content.filter((r) => r.lang === defaultLang) : []),
    ];
    for (const r of order) {
      const at =
        r.prefix === ''
          ? rest
          : rest.startsWith(`${r.prefix}/`)
            ? rest.slice(r.prefix.length + 1)
            : undefined;
      if (at === undefined || at === '' || /\.(?:md|markdown)$/i.test(at)) continue;
      const file = posix.join(r.dir, at);
      if (files.isFile(file)) return { path: file };
    }
    for (const s of hugo.statics) {
      const at =
        s.prefix === ''
          ? parts.join('/')
          : parts.join('/').startsWith(`${s.prefix}/`)
            ? parts.join('/').slice(s.prefix.length + 1)
            : undefined;
      if (at !== undefined && at !== '' && files.isFile(posix.join(s.dir, at)))
        return { path: posix.join(s.dir, at) };
    }
    return unfound(hugo, parts, lang, rest);
  };
}

/** Why a URL the site's files do not serve may still be served (generated, mounted, redirected, rewritten), or undefined. */
function unfound(hugo: Hugo, parts: readonly string[], lang: string, rest: string): Served {
  const path = parts.join('/');
  if (parts.length > 0 && hugo.taxonomies.includes(lang === (parts[0] ?? '') ? parts[1] : parts[0]))
    return { unverifiable: 'a taxonomy page Hugo generates from front matter' };
  for (const b of hugo.blind) {
    const [kind, prefix] = b.prefix.split(':') as [string, string];
    if (
      prefix === '' ||
      path === prefix ||
      path.startsWith(`${prefix}/`) ||
      (kind === 'content' && rest.startsWith(`${prefix}/`))
    )
      return { unverifiable: b.why };
  }
  const redirect = hugo.redirects.find((r) =>
    r.prefix ? `/${path}/`.startsWith(r.from) : r.from === `/${path}`,
  );
  if (redirect !== undefined) return { unverifiable: `a Netlify redirect in ${redirect.file} sends it on` };
  if (hugo.hookDoubt !== undefined) return { unverifiable: hugo.hookDoubt };
  if (/\.(?:md|markdown)$/i.test(path) && hugo.hooks)
    return { unverifiable: 'a link render hook may rewrite links to Markdown sources' };
  if (hugo.themed !== undefined && /\.[a-z0-9]+$/i.test(path) && !/\.html?$/i.test(path))
    return { unverifiable: hugo.themed };
  return undefined;
}

/**
 * What a project's render hook does with a link's destination, read from its template:
 * `pass-through` writes it as it is (`href="{{ .Destination | safeURL }}"`, testing it only with
 * `hasPrefix`); `get-page` looks it up with `.GetPage` and passes through what it does not find,
 * as the embedded hook does (`special`: destinations it compares with `eq` and treats apart;
 * `sections`: it also reads the section's files); anything else is `unknown`.
 */
export function hookKind(text: string | undefined): {
  kind: 'pass-through' | 'get-page' | 'unknown';
  special: string[];
  sections: boolean;
} {
  const unknown = { kind: 'unknown' as const, special: [], sections: false };
  if (text === undefined) return unknown;
  const code = text.replace(/\{\{-?\s*\/\*[\s\S]*?\*\/\s*-?\}\}/g, '');
  if (
    /\b(?:relref|ref|replace|replaceRE|strings\.Replace\w*|absURL|relURL|absLangURL|relLangURL)\b/.test(code)
  )
    return unknown;
  if (/\.GetPage\b/.test(code) && /\.Destination\b/.test(code))
    return {
      kind: 'get-page',
      special: [...code.matchAll(/\beq\s+(?:\$u\.String|\.Destination)\s+"([^"]*)"/g)].map((m) => m[1]!),
      sections: /CurrentSection\.Resources\.Get/.test(code),
    };
  const rest = code
    .replace(/href="\{\{-?\s*\.Destination\s*(?:\|\s*safeURL\s*)?-?\}\}"/g, '')
    .replace(/hasPrefix\s+\.Destination\s+"[^"]*"/g, '');
  return /href=/.test(code) && !/\.Destination\b/.test(rest)
    ? { kind: 'pass-through', special: [], sections: false }
    : unknown;
}

interface Redirect {
  file: string;
  from: string;
  prefix: boolean;
}

/**
 * The paths a Netlify `_redirects` file sends on (`static/_redirects`, or the home page's
 * `index.redirects` output template): `from` with a trailing `/` for a `*` splat.
 */
function netlifyRedirects(root: string, context: ConfigContext): Redirect[] {
  const out: Redirect[] = [];
  for (const name of ['static/_redirects', 'layouts/index.redirects', 'layouts/_default/index.redirects']) {
    const file = posix.join(root, name);
    if (!context.listed.has(file)) continue;
    for (const line of (context.read(file) ?? '').split('\n')) {
      const from = /^\s*(\/\S*)\s+\S/.exec(line)?.[1];
      if (from === undefined || from.includes('{{')) continue;
      const prefix = from.endsWith('/*');
      out.push({ file, from: prefix ? from.slice(0, -1) : from.replace(/\/+$/, '') || '/', prefix });
    }
  }
  return out;
}

const withSlash = (url: string): string => {
  const u = posix.normalize(url.startsWith('/') ? url : `/${url}`);
  return u.endsWith('/') ? u : `${u}/`;
};

export const hugo: SiteModel = {
  id: 'hugo',
  name: 'Hugo',
  isConfig: (file, listed) =>
    (MAIN.test(file) || SPLIT.test(file)) && [...siteConfigs(listed).values()].includes(file),
  read,
  source:
    'gohugo.io: “Configure Hugo”, “Module configuration” (mounts), “URL management”, “Page bundles”, “Multilingual mode”',
};
