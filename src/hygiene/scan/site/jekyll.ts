/**
 * Jekyll (jekyllrb.com): `_config.yml` in its source folder, served at the site's root. A page
 * `a/b.md` is served at `/a/b.html` (`index.md` at its folder's URL, a frontmatter `permalink:`
 * where it says), a post `_posts/2024-01-02-x.md` at `/2024/01/02/x.html`; every other file is
 * copied as it lies, except names starting with `_`, `.` or `#` or ending in `~`, and what the
 * config's `exclude:` and Jekyll's defaults leave out. A relative link to a Markdown file is
 * read from the file (jekyll-relative-links, on by default on GitHub Pages). A `/`-rooted link
 * in `aider/website/_posts/x.md` is read from the site's folder (Aider-AI/aider: 34 such links
 * were "fixed" to `/aider/website/assets/…`, which breaks them on the site). A config that sets
 * `source:`, or a `baseurl` that serves the site under a path, or neither a domain nor a
 * `baseurl` of its own (GitHub Pages serves a project site under `/<repo>`), is not read: its
 * docs are read as GitHub reads them. Nor one at the root.
 */
import { posix } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { dirOf, MARKDOWN_EXT } from '../paths.js';
import { inside, isMapping, type Mapping, pagesByUrl, parseConfig } from './read.js';
import type { ConfigContext, Served, Site, SiteFiles, SiteModel } from './types.js';

/** What Jekyll leaves out of every build (its docs' default `exclude:` list). */
const DEFAULT_EXCLUDE = [
  '.sass-cache/',
  '.jekyll-cache/',
  'gemfiles/',
  'Gemfile',
  'Gemfile.lock',
  'node_modules/',
  'vendor/bundle/',
  'vendor/cache/',
  'vendor/gems/',
  'vendor/ruby/',
];

const CONFIG = /(^|\/)_config\.ya?ml$/;
/** A `baseurl` other than empty or `/`: the site is served under that path. */
const SERVED_UNDER_A_PATH = /^[ \t]*baseurl[ \t]*:[ \t]*(?!(?:["']\/?["']|\/)?[ \t]*(?:#.*)?$)\S/m;
/** A top-level `url:` on a domain of its own (not `*.github.io`), with no path. */
const OWN_DOMAIN =
  /^url[ \t]*:[ \t]*(["']?)https?:\/\/(?![^/"'\s]*\.github\.io\b)[^/"'\s]+\/?\1[ \t]*(?:#.*)?$/m;
/** Folders only Jekyll's source layout has beside its `_config.yml`. */
const JEKYLL_FOLDERS = ['_layouts', '_includes', '_posts', '_sass', '_data'];

/** The config's `exclude:` and Jekyll's defaults, as gitignore patterns; undefined when not plain. */
function exclusions(text: string): Ignore | undefined {
  const config = parseConfig('_config.yml', text);
  if (config === undefined) return undefined;
  const exclude = config['exclude'];
  if (
    exclude !== undefined &&
    exclude !== null &&
    !(Array.isArray(exclude) && exclude.every((e) => typeof e === 'string'))
  )
    return undefined;
  return ignore().add([...DEFAULT_EXCLUDE, ...((exclude as string[] | null | undefined) ?? [])]);
}

function read(file: string, text: string, context: ConfigContext): Site | undefined {
  const siteDir = dirOf(file);
  const { listed } = context;
  const servedAtTheRoot =
    listed.has(`${siteDir}/CNAME`) ||
    listed.has('CNAME') ||
    /^baseurl[ \t]*:/m.test(text) ||
    OWN_DOMAIN.test(text);
  const hasJekyllFolder = JEKYLL_FOLDERS.some((name) =>
    context.files.some((f) => f.startsWith(`${siteDir}/${name}/`)),
  );
  if (
    /^\s*source\s*:/m.test(text) ||
    SERVED_UNDER_A_PATH.test(text) ||
    !servedAtTheRoot ||
    (!hasJekyllFolder && !/\bjekyll\b/i.test(text))
  )
    return undefined;
  const excluded = exclusions(text);
  if (excluded === undefined) return undefined;
  const config = parseConfig(file, text) ?? {};
  const collections = isMapping(config['collections']) ? Object.keys(config['collections']) : [];
  /**
   * A document of a collection the config outputs, at its `permalink` when that is written
   * with `:collection`, `:path` and `:name` only (`/:collection/:path/`), or Jekyll's default
   * `/:collection/:path.html`; undefined otherwise (another pattern: its links are not settled).
   */
  const collectionUrl = (rel: string): string | undefined => {
    const m = /^_([^/]+)\/(.+)$/.exec(rel);
    const options =
      m === null || !isMapping(config['collections']) ? undefined : config['collections'][m[1]!];
    if (m === null || m[1] === 'posts' || !isMapping(options) || options['output'] !== true) return undefined;
    const path = m[2]!.replace(MARKDOWN_EXT, '');
    const pattern =
      typeof options['permalink'] === 'string' ? options['permalink'] : '/:collection/:path.html';
    if (/:(?!collection\b|path\b|name\b)\w/.test(pattern)) return undefined;
    const url = pattern
      .replace(':collection', m[1]!)
      .replace(':path', path.replace(/(^|\/)index$/, ''))
      .replace(':name', posix.basename(path));
    return url.replace(/\/{2,}/g, '/');
  };
  /** Whether Jekyll builds or copies the file at `rel` (site-relative). */
  const serves = (rel: string) =>
    rel === '' ||
    (!rel.split('/').some((seg) => /^[_.#]/.test(seg) || seg.endsWith('~')) && !excluded.ignores(rel));
  const pageUrl = (source: string, files: SiteFiles): string | undefined => {
    if (!source.startsWith(`${siteDir}/`) || !MARKDOWN_EXT.test(source)) return undefined;
    const rel = inside(source, siteDir);
    const permalink = files.frontmatter(source)?.['permalink'];
    if (typeof permalink === 'string' && permalink.startsWith('/') && !permalink.includes(':'))
      return permalink;
    const collected = collectionUrl(rel);
    if (collected !== undefined) return collected;
    const post = /(?:^|\/)_posts\/(?:.*\/)?(\d{4})-(\d{2})-(\d{2})-([^/]+)$/.exec(rel);
    if (post !== null) return `/${post[1]}/${post[2]}/${post[3]}/${post[4]!.replace(MARKDOWN_EXT, '')}.html`;
    if (!serves(rel)) return undefined;
    return `/${rel.replace(MARKDOWN_EXT, '.html').replace(/(^|\/)index\.html$/, '$1')}`;
  };
  const pages = pagesByUrl(pageUrl);
  // The URL folders collections' documents are served under (a permalink's text before its first `:`).
  const collectionPrefixes = collections.map((name) => {
    const options = (config['collections'] as Mapping)[name];
    const pattern =
      isMapping(options) && typeof options['permalink'] === 'string' ? options['permalink'] : '/:collection/';
    return pattern.replace(':collection', name).replace(/:.*$/, '');
  });
  const collectionsDoubt =
    collections.length > 0
      ? `collections (${collections.join(', ')}) have permalinks of their own`
      : undefined;
  const at = (url: string, files: SiteFiles): Served => {
    const byUrl = pages(files);
    const page = byUrl.get(url) ?? byUrl.get(url.endsWith('/') ? `${url}index.html` : `${url}/`);
    if (page !== undefined) return { path: page };
    const found = asFile(url, files);
    const collected = collectionPrefixes.some((prefix) => url.startsWith(prefix));
    return (
      found ?? (collected && collectionsDoubt !== undefined ? { unverifiable: collectionsDoubt } : undefined)
    );
  };
  const asFile = (url: string, files: SiteFiles): Served => {
    const rel = url.replace(/^\/+/, '');
    const file = posix.join(siteDir, rel);
    if (!`${file}/`.startsWith(`${siteDir}/`) || !serves(rel)) return undefined;
    if (rel !== '' && files.isFile(file)) return { path: file };
    const page = rel === '' || rel.endsWith('/') ? `${rel}index` : rel.replace(/\.html$/, '');
    const found = ['.md', '.markdown', '.html', '/index.md']
      .map((ext) => posix.join(siteDir, `${page}${ext}`))
      .find((c) => files.isFile(c));
    return found !== undefined ? { path: found } : undefined;
  };
  return {
    generator: 'jekyll',
    config: file,
    contentRoots: [siteDir],
    ...(collectionsDoubt !== undefined ? { unsettled: collectionsDoubt } : {}),
    explicitIds: true,
    includes: /\{%\s*include/,
    fileLinks: true,
    pageUrl,
    serves: at,
    doubt: (written) => (/\{\{|\{%/.test(written) ? 'a Liquid expression computes the link' : undefined),
    fileTarget: (_from, path, files) =>
      MARKDOWN_EXT.test(path) && path.startsWith(`${siteDir}/`) && files.isFile(path) ? { path } : undefined,
  };
}

export const jekyll: SiteModel = {
  id: 'jekyll',
  name: 'Jekyll',
  isConfig: (file) => CONFIG.test(file) && dirOf(file) !== '',
  read,
  source:
    'jekyllrb.com: “Configuration” (source, exclude, baseurl), “Pages”, “Posts”, “Permalinks”; GitHub Pages: jekyll-relative-links',
};
