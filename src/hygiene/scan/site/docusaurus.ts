/**
 * Docusaurus (docusaurus.io): `docusaurus.config.{js,ts,…}` in the site's folder. A doc's URL is
 * the docs route (`routeBasePath`, `docs`) and its folder, then its id: the frontmatter `id:`
 * or the file's name, number prefixes (`01-`) dropped; `index.md`, `README.md` and a file named
 * as its folder are the folder's own; a frontmatter `slug:` replaces the name (or, from `/`,
 * the whole path under the route). `versions.json` names the versions: `versioned_docs/
 * version-X/` is served under `/docs/X/`, the newest at `/docs/`, the current docs at
 * `/docs/next/`; a `version-X/` folder of a version it does not list is built into no page
 * (`unbuilt`). A link to a Markdown file is looked up as Docusaurus does: `./b.md` and
 * `../b.md` from the doc's folder; `/b.md` in the doc's content folder (its version's, its
 * translation's) and then the site's folder; `b/c.md` there too, then from the doc's folder. Another
 * relative link to a file is read from the doc's file; a link to a route from the page's URL. `static/` is served at the root,
 * `src/pages/` as routes. Headings' `{#id}` name their anchors. The config is JavaScript: a
 * setting is read only where it is written once as a plain literal.
 */
import { posix } from 'node:path';
import { baseOf, dirOf, MARKDOWN_EXT } from '../paths.js';
import {
  deepestRoot,
  inside,
  isUnder,
  literalSetting,
  pagesByUrl,
  siteDirOf,
  unreadableSite,
} from './read.js';
import type { ConfigContext, Served, Site, SiteFiles, SiteModel } from './types.js';

const CONFIG = /(^|\/)docusaurus\.config\.(?:js|mjs|cjs|ts|mts|cts)$/;

interface DocsRoot {
  dir: string;
  /** URL folder, starting and ending with `/`. */
  route: string;
}

const NUMBER_PREFIX = /^\d+\s*[-_.]+\s*/;
/** Docusaurus's DefaultNumberPrefixParser leaves date- and version-like names as they are (`1.3_to_1.4`, `2024-01`). */
const NOT_A_PREFIX = /^(?:\d{2}|\d{4})[-_.]\d{2}|^\d+[-_.]\d+/;
const unnumbered = (segment: string): string =>
  NOT_A_PREFIX.test(segment) ? segment : segment.replace(NUMBER_PREFIX, '');

/** What a Docusaurus site's routes rest on, read once from its config. */
interface Docusaurus {
  siteDir: string;
  /** `siteDir` with a trailing `/` ('' for the root). */
  prefix: string;
  docsDir: string;
  /** The docs route, starting and ending with `/`. */
  route: string;
  roots: DocsRoot[];
  pagesDir: string;
  blogDir: string;
  staticDir: string;
  trailing: boolean;
  unsettled: string | undefined;
}

function read(file: string, text: string, context: ConfigContext): Site | undefined {
  const siteDir = siteDirOf(file);
  const prefix = siteDir === '' ? '' : `${siteDir}/`;
  const cannot = (why: string) => unreadableSite('docusaurus', file, [siteDir], why);
  const baseUrl = literalSetting(text, 'baseUrl');
  if (baseUrl === undefined) return cannot('its baseUrl is not a plain literal');
  const routes = [...text.matchAll(/\brouteBasePath\s*:\s*(['"])([^'"\n]*)\1/g)].map((m) => m[2]!);
  const docsRoute = routes.find((r) => !/blog/.test(r)) ?? 'docs';
  const route = `/${docsRoute.replace(/^\/+|\/+$/g, '')}/`.replace('//', '/');
  const versionsText = context.read(`${prefix}versions.json`);
  const versions = versionsOf(versionsText);
  if (versions === undefined) return cannot('its versions.json does not parse');
  const docsDir = docsDirOf(text, siteDir, context);
  const site: Docusaurus = {
    siteDir,
    prefix,
    docsDir,
    route,
    roots: docsRoots(text, prefix, docsDir, route, versions, context),
    pagesDir: `${prefix}src/pages`,
    blogDir: `${prefix}blog`,
    staticDir: `${prefix}static`,
    trailing: literalSetting(text, 'trailingSlash') === 'true' || /\btrailingSlash\s*:\s*true\b/.test(text),
    unsettled: unsettledBy(text),
  };
  const { unsettled, pagesDir, blogDir } = site;
  const unbuilt = unlistedVersions(context.files, prefix, versions);
  const pageUrl = docPageUrl(site);
  const base = baseUrl === 'unset' ? '/' : baseUrl.replace(/\/*$/, '/');
  return {
    generator: 'docusaurus',
    config: file,
    contentRoots: [...site.roots.map((r) => r.dir), pagesDir, blogDir],
    ...(unbuilt.length > 0
      ? {
          unbuilt: {
            dirs: unbuilt,
            why: `${versionsText === undefined ? `no ${prefix}versions.json lists a version` : `${prefix}versions.json does not list the version`}: Docusaurus builds no page from it`,
          },
        }
      : {}),
    ...(unsettled !== undefined ? { unsettled } : {}),
    explicitIds: true,
    includes: /^\s*import\s|<[A-Z]\w*[\s/>]/,
    fileLinks: true,
    pageUrl,
    serves: docServes(site, pageUrl),
    sourceLink: docSourceLink(site, pageUrl),
    // A relative link to an asset is bundled from wherever it lies in the repository.
    fileTarget: (_from, path, files) =>
      !MARKDOWN_EXT.test(path) && !path.startsWith('..') && files.isFile(path) ? { path } : undefined,
    rooted: (path) =>
      base !== '/' && isUnder(path.slice(1), base.slice(1, -1))
        ? `/${inside(path.slice(1), base.slice(1, -1))}`
        : path,
    alias: (path) => (path.startsWith('@site/') ? posix.join(siteDir, path.slice(6)) : undefined),
  };
}

/** The versions `versions.json` lists (none without one), or undefined when it does not parse. */
function versionsOf(versionsText: string | undefined): string[] | undefined {
  try {
    const parsed: unknown = versionsText === undefined ? [] : JSON.parse(versionsText);
    return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return undefined;
  }
}

/** The docs folder: the first plain `path:` that is not the blog's or the pages' and holds docs, else `docs/`. */
function docsDirOf(text: string, siteDir: string, context: ConfigContext): string {
  const paths = [...text.matchAll(/\bpath\s*:\s*(['"])([^'"\n]+)\1/g)].map((m) => m[2]!);
  const hasDocs = (dir: string) => context.files.some((f) => isUnder(f, dir) && MARKDOWN_EXT.test(f));
  return (
    [...paths.filter((p) => !/blog|pages/.test(p)), 'docs']
      .map((p) => posix.normalize(posix.join(siteDir, p)))
      .find((d) => !d.startsWith('..') && hasDocs(d)) ?? posix.join(siteDir, 'docs')
  );
}

/** Why the config may serve routes the model does not know (a computed setting, another docs instance, a plugin), or undefined. */
function unsettledBy(text: string): string | undefined {
  const computed =
    /\b(?:path|routeBasePath|staticDirectories|lastVersion|onlyIncludeVersions)\s*:\s*[^'"\s[]/.test(text);
  const otherDocs = /plugin-content-docs['"]/.test(text) || /\bstaticDirectories\b/.test(text);
  return computed
    ? 'a docs setting is computed'
    : otherDocs
      ? 'another docs instance or static folder is configured'
      : /\bplugins\s*:\s*\[\s*[^\]\s]/.test(text)
        ? 'a plugin may serve routes'
        : undefined;
}

/** The docs folders and their routes: the current docs, each listed version, each translation. */
function docsRoots(
  text: string,
  prefix: string,
  docsDir: string,
  route: string,
  versions: readonly string[],
  context: ConfigContext,
): DocsRoot[] {
  const roots: DocsRoot[] = [];
  const last = literalSetting(text, 'lastVersion');
  const lastVersion = last === 'unset' || last === undefined ? versions[0] : last;
  roots.push({
    dir: docsDir,
    route: versions.length > 0 && lastVersion !== 'current' ? `${route}next/` : route,
  });
  for (const v of versions)
    roots.push({
      dir: `${prefix}versioned_docs/version-${v}`,
      route: v === lastVersion ? route : `${route}${v}/`,
    });
  const locales = new Set(
    context.files.flatMap((f) => {
      const m = new RegExp(
        `^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}i18n/([^/]+)/docusaurus-plugin-content-docs/current/`,
      ).exec(f);
      return m === null ? [] : [m[1]!];
    }),
  );
  for (const locale of locales)
    roots.push({
      dir: `${prefix}i18n/${locale}/docusaurus-plugin-content-docs/current`,
      route: `/${locale}${roots[0]!.route}`,
    });
  return roots;
}

/** A page's URL: a React-folder page's path, a blog post's, or a doc's route, folders and id or slug. */
function docPageUrl(site: Docusaurus): Site['pageUrl'] {
  const { pagesDir, blogDir, trailing } = site;
  return (source: string, files: SiteFiles): string | undefined => {
    if (!MARKDOWN_EXT.test(source)) return undefined;
    const slash = (u: string) => (trailing && !u.endsWith('/') ? `${u}/` : u);
    if (isUnder(source, pagesDir)) {
      const rel = inside(source, pagesDir).replace(/\.[^.]+$/, '');
      return slash(`/${rel.replace(/(^|\/)index$/, '')}`.replace(/\/$/, '') || '/');
    }
    if (isUnder(source, blogDir)) return blogUrl(inside(source, blogDir), files.frontmatter(source) ?? {});
    const r = deepestRoot(site.roots, source);
    if (r === undefined) return undefined;
    const rel = inside(source, r.dir);
    if (rel.split('/').some((s) => s.startsWith('_'))) return undefined;
    const fm = files.frontmatter(source) ?? {};
    const folders = dirOf(rel) === '' ? [] : dirOf(rel).split('/').map(unnumbered);
    const name = unnumbered(baseOf(rel).replace(/\.[^.]+$/, ''));
    let path: string;
    if (typeof fm['slug'] === 'string')
      path = fm['slug'].startsWith('/') ? fm['slug'].slice(1) : posix.join(...folders, fm['slug']);
    else {
      const id = typeof fm['id'] === 'string' ? fm['id'] : name;
      const own = typeof fm['id'] !== 'string' && /^(?:index|readme)$/i.test(name);
      const folderOwn = typeof fm['id'] !== 'string' && name === folders[folders.length - 1];
      path = own || folderOwn ? folders.join('/') : posix.join(...folders, id);
    }
    const url = `${r.route}${path}`.replace(/\/+$/, '').replace(/\/{2,}/g, '/');
    return slash(url === '' ? '/' : url);
  };
}

/** What the site serves at a URL: a page (Markdown or React), a static file, or a doubt. */
function docServes(site: Docusaurus, pageUrl: Site['pageUrl']): Site['serves'] {
  const { pagesDir, staticDir, route, unsettled } = site;
  const bare = (url: string) => url.replace(/\/$/, '') || '/';
  const index = pagesByUrl(pageUrl, bare, (urls, files) => {
    // A route of a React page (`src/pages/x.tsx`).
    for (const f of files.files)
      if (isUnder(f, pagesDir) && /\.(?:jsx?|tsx?)$/.test(f)) {
        const url = bare(
          `/${inside(f, pagesDir)
            .replace(/\.[^.]+$/, '')
            .replace(/(^|\/)index$/, '')}`,
        );
        if (!urls.has(url)) urls.set(url, f);
      }
  });
  return (url: string, files: SiteFiles): Served => {
    const page = index(files).get(url.replace(/\/+$/, '').replace(/\.html$/, '') || '/');
    if (page !== undefined) return { path: page };
    const rel = url.replace(/^\/+/, '');
    if (rel !== '' && files.isFile(posix.join(staticDir, rel))) return { path: posix.join(staticDir, rel) };
    if (/^\/blog(\/|$)/.test(url))
      return { unverifiable: 'blog routes other than posts (tags, authors, pages) are not modelled' };
    if (!isUnder(url.slice(1), route.slice(1, -1)) && unsettled !== undefined)
      return { unverifiable: unsettled };
    return undefined;
  };
}

/**
 * Docusaurus's resolveMarkdownLinkPathname: `./x.md` and `../x.md` from the doc's folder;
 * `/x.md` from the content folders, then the site's; `x.md` from both, then the doc's folder.
 */
function docSourceLink(site: Docusaurus, pageUrl: Site['pageUrl']): NonNullable<Site['sourceLink']> {
  const { pagesDir, blogDir, prefix, docsDir, siteDir } = site;
  /** The content folders a Markdown link in `from` is looked up in: its localized folder, then its own. */
  const contentPaths = (from: string): string[] => {
    for (const dir of [pagesDir, blogDir]) if (isUnder(from, dir)) return [dir];
    const r = deepestRoot(site.roots, from);
    if (r === undefined) return [];
    return r.dir.startsWith(`${prefix}i18n/`) ? [r.dir, docsDir] : [r.dir];
  };
  return (from: string, path: string, files: SiteFiles): Served => {
    if (!/\.mdx?$/i.test(path)) return undefined;
    const relative = path.startsWith('./') || path.startsWith('../');
    const dirs = [
      ...(relative ? [] : [...contentPaths(from), siteDir]),
      ...(path.startsWith('/') ? [] : [dirOf(from)]),
    ];
    for (const dir of dirs) {
      const file = posix.normalize(posix.join(dir, path));
      if (file.startsWith('../') || !files.isFile(file)) continue;
      if (pageUrl(file, files) !== undefined) return { path: file };
    }
    return undefined;
  };
}

/**
 * The `versioned_docs/version-X/` folders whose version `versions.json` does not list (or that
 * lie beside no `versions.json`): Docusaurus builds only the listed versions, so such a folder
 * is a dead copy (reduxjs/react-redux dropped its versions in 2021 and kept the folder).
 */
function unlistedVersions(files: readonly string[], prefix: string, versions: readonly string[]): string[] {
  const listed = new Set(versions);
  const dirs = new Set<string>();
  const under = `${prefix}versioned_docs/version-`;
  for (const f of files) {
    if (!f.startsWith(under) || !MARKDOWN_EXT.test(f)) continue;
    const version = f.slice(under.length).split('/')[0]!;
    if (version !== '' && !listed.has(version)) dirs.add(`${under}${version}`);
  }
  return [...dirs].sort();
}

/**
 * A blog post's URL: `/blog/` and its frontmatter `slug:`, or the date and name its path
 * writes (`2024-01-02-hello.md`, `2024-01-02-hello/index.md`, `2024/01/02/hello.md`) as
 * `/blog/2024/01/02/hello`, or its path.
 */
function blogUrl(rel: string, fm: Record<string, unknown>): string {
  if (typeof fm['slug'] === 'string') return `/blog/${fm['slug'].replace(/^\/+/, '')}`;
  const path = rel.replace(/(?:\/index)?\.mdx?$/i, '');
  const dated = /^(\d{4})[-/](\d{2})[-/](\d{2})[-/](.+)$/.exec(path);
  return dated === null ? `/blog/${path}` : `/blog/${dated[1]}/${dated[2]}/${dated[3]}/${dated[4]}`;
}

export const docusaurus: SiteModel = {
  id: 'docusaurus',
  name: 'Docusaurus',
  isConfig: (file) => CONFIG.test(file),
  read,
  source:
    'docusaurus.io: “Docs introduction” (doc ids, slugs, number prefixes), “Versioning”, “Static assets”, “Markdown links”',
};
