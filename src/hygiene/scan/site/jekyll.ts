/**
 * Jekyll (jekyllrb.com): `_config.yml` in its source folder, served at the site's root. A page
 * `a/b.md` is served at `/a/b.html`, at `/a/b/` under `permalink: pretty` (just-the-docs) or
 * at `/a/b` under another style (`permalink: :title`, Homebrew/brew's docs); `index.md` at its
 * folder's URL, a frontmatter `permalink:` where it says (an `.html` page's too: jekyll/jekyll's
 * `/showcase/`), and jekyll-redirect-from's `redirect_from:` keeps old URLs; a post
 * `_posts/2024-01-02-x.md` at its permalink (`/2024/01/02/x.html` by default); every other file
 * is copied as it lies, except names starting with `_`, `.` or `#` or ending in `~`, and what
 * the config's `exclude:` and Jekyll's defaults leave out. A relative link to a Markdown file is
 * read from the file (jekyll-relative-links, on by default on GitHub Pages); `{{ site.baseurl }}`
 * is the site's (empty) base path. A `/`-rooted link in `aider/website/_posts/x.md` is read from
 * the site's folder (Aider-AI/aider: 34 such links were "fixed" to `/aider/website/assets/…`,
 * which breaks them on the site). A config that sets `source:`, or a `baseurl` that serves the
 * site under a path, or neither a domain nor a `baseurl` of its own (GitHub Pages serves a
 * project site under `/<repo>`), is not read: its docs are read as GitHub reads them. At the
 * repository's root, only a config with Jekyll's folders beside it is read (a `_config.yml`
 * alone often only themes a README).
 */
import { posix } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { dirOf, MARKDOWN_EXT } from '../paths.js';
import { inside, isMapping, isUnder, type Mapping, pagesByUrl, parseConfig, stringList } from './read.js';
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

/** What a page's URL ends with under the config's `permalink` style (Jekyll's `Page#template`). */
function pageEnding(style: unknown): '/' | '.html' | '' {
  if (typeof style !== 'string' || ['date', 'ordinal', 'weekdate', 'none'].includes(style)) return '.html';
  if (style === 'pretty' || style.endsWith('/')) return '/';
  return style.endsWith(':output_ext') ? '.html' : '';
}

/** The built-in permalink styles, as the patterns Jekyll expands them to. */
const STYLES: Record<string, string> = {
  date: '/:categories/:year/:month/:day/:title:output_ext',
  pretty: '/:categories/:year/:month/:day/:title/',
  ordinal: '/:categories/:year/:y_day/:title:output_ext',
  none: '/:categories/:title:output_ext',
};

/**
 * The URLs GitHub Pages answers a request for `url` from, in order: the URL itself; `x.html`
 * for `/x` and `/x` (a page written without an extension) for `/x.html`; a folder's page
 * `/x/` for `/x` (redirected) and for `/x/index.html`.
 */
function servedAs(url: string): string[] {
  if (url.endsWith('/index.html')) return [url, url.slice(0, -'index.html'.length)];
  if (url.endsWith('.html')) return [url, url.slice(0, -'.html'.length)];
  if (url.endsWith('/')) return [url];
  return [url, `${url}.html`, `${url}/`];
}

/** A file's YAML frontmatter (a `.html` page's, which the scan does not read), or undefined. */
function frontmatterOf(text: string | undefined): Mapping | undefined {
  if (text === undefined || !/^---\r?\n/.test(text)) return undefined;
  const end = text.search(/\r?\n---\s*(?:\r?\n|$)/);
  return end === -1 ? undefined : parseConfig('front.yml', text.slice(text.indexOf('\n') + 1, end));
}

/** Whether a config sets up a Jekyll site this model reads (see the module's comment). */
function modelled(file: string, text: string, context: ConfigContext): boolean {
  const siteDir = dirOf(file);
  const { listed } = context;
  const servedAtTheRoot =
    listed.has(`${siteDir}/CNAME`) ||
    listed.has('CNAME') ||
    /^baseurl[ \t]*:/m.test(text) ||
    OWN_DOMAIN.test(text);
  const prefix = siteDir === '' ? '' : `${siteDir}/`;
  const hasJekyllFolder = JEKYLL_FOLDERS.some((name) =>
    context.files.some((f) => f.startsWith(`${prefix}${name}/`)),
  );
  // At the repository's root a `_config.yml` alone often only themes a README (GitHub Pages):
  // the site is modelled when Jekyll's own folders stand beside it.
  const isJekyll = hasJekyllFolder || (siteDir !== '' && /\bjekyll\b/i.test(text));
  return !/^\s*source\s*:/m.test(text) && !SERVED_UNDER_A_PATH.test(text) && servedAtTheRoot && isJekyll;
}

function read(file: string, text: string, context: ConfigContext): Site | undefined {
  const siteDir = dirOf(file);
  if (!modelled(file, text, context)) return undefined;
  const excluded = exclusions(text);
  if (excluded === undefined) return undefined;
  const config = parseConfig(file, text) ?? {};
  const collectionsOf = isMapping(config['collections']) ? config['collections'] : {};
  const collections = Object.keys(collectionsOf).filter((name) => name !== 'posts');
  const ending = pageEnding(config['permalink']);
  const redirects = /\bjekyll-redirect-from\b/.test(text);
  /**
   * A document of a collection the config outputs (or a post), at its `permalink` when that
   * is written with placeholders the model knows, or Jekyll's default; undefined otherwise (its
   * links are not settled).
   */
  const collectionUrl = (rel: string, files: SiteFiles, source: string): string | undefined => {
    const post = /^(?:(.*)\/)?_posts\/(?:.*\/)?(\d{4})-(\d{2})-(\d{2})-([^/]+)$/.exec(rel);
    const m = /^_([^/]+)\/(.+)$/.exec(rel);
    const name = post !== null ? 'posts' : m?.[1];
    const options = name === undefined ? undefined : collectionsOf[name];
    if (post === null && (m === null || !isMapping(options) || options['output'] !== true)) return undefined;
    const written =
      isMapping(options) && typeof options['permalink'] === 'string' ? options['permalink'] : undefined;
    const style =
      post === null
        ? (written ?? '/:collection/:path:output_ext')
        : (written ?? config['permalink'] ?? 'date');
    if (typeof style !== 'string') return undefined;
    const pattern = STYLES[style] ?? style;
    const path = (post !== null ? post[5]! : m![2]!).replace(MARKDOWN_EXT, '');
    const data = files.frontmatter(source);
    const categories = [
      ...(post?.[1]?.split('/') ?? []),
      ...(stringList(data?.['categories']) ?? stringList(data?.['category']) ?? []).flatMap((c) =>
        c.split(/\s+/),
      ),
    ].filter((c) => c !== '');
    const values: Record<string, string> = {
      collection: name!,
      path: path.replace(/(^|\/)index$/, ''),
      name: posix.basename(path),
      title: posix.basename(path),
      slug: posix.basename(path),
      categories: categories.map((c) => c.toLowerCase()).join('/'),
      year: post?.[2] ?? '',
      month: post?.[3] ?? '',
      day: post?.[4] ?? '',
      output_ext: '.html',
    };
    let known = true;
    const url = pattern.replace(/:(\w+)/g, (_, key: string) => {
      const value = values[key];
      if (value === undefined || (post === null && ['year', 'month', 'day'].includes(key))) known = false;
      return value ?? '';
    });
    return known ? `/${url}`.replace(/\/{2,}/g, '/') : undefined;
  };
  /** Whether Jekyll builds or copies the file at `rel` (site-relative). */
  const serves = (rel: string) =>
    rel === '' ||
    (!rel.split('/').some((seg) => /^[_.#]/.test(seg) || seg.endsWith('~')) && !excluded.ignores(rel));
  const pageUrl = (source: string, files: SiteFiles): string | undefined => {
    if (!isUnder(source, siteDir) || source === siteDir || !MARKDOWN_EXT.test(source)) return undefined;
    const rel = inside(source, siteDir);
    const permalink = files.frontmatter(source)?.['permalink'];
    if (typeof permalink === 'string' && permalink.startsWith('/') && !permalink.includes(':'))
      return permalink;
    if (/(?:^|\/)_/.test(rel)) return collectionUrl(rel, files, source);
    if (!serves(rel)) return undefined;
    const stemmed = rel.replace(MARKDOWN_EXT, '');
    if (/(?:^|\/)index$/.test(stemmed)) return `/${stemmed.replace(/index$/, '')}`;
    return `/${stemmed}${ending}`;
  };
  /** What else the site serves: `.html` pages at their frontmatter permalinks, and redirects. */
  const more = (urls: Map<string, string>, files: SiteFiles) => {
    for (const f of files.files) {
      if (!isUnder(f, siteDir)) continue;
      const html = /\.html?$/.test(f) && serves(inside(f, siteDir));
      if (!html && !(redirects && MARKDOWN_EXT.test(f))) continue;
      const data = html ? frontmatterOf(context.read(f)) : files.frontmatter(f);
      if (data === undefined) continue;
      const permalink = data['permalink'];
      const at = [
        ...(html && typeof permalink === 'string' && !permalink.includes(':') ? [permalink] : []),
        ...(redirects ? (stringList(data['redirect_from']) ?? []) : []),
      ];
      for (const written of at) {
        const url = written.replace(/\/index\.html$/, '/');
        if (url.startsWith('/') && !urls.has(url)) urls.set(url, f);
      }
    }
  };
  const pages = pagesByUrl(pageUrl, undefined, more);
  // The URL folders collections' documents are served under (a permalink's text before its first `:`).
  const collectionPrefixes = collections.map((name) => {
    const options = collectionsOf[name];
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
    const page = servedAs(url)
      .map((u) => byUrl.get(u))
      .find((p) => p !== undefined);
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
    if (file === '..' || file.startsWith('../') || !serves(rel)) return undefined;
    if (rel !== '' && files.isFile(file)) return { path: file };
    const page = rel === '' || rel.endsWith('/') ? `${rel}index` : rel.replace(/\.html$/, '');
    const found = ['.md', '.markdown', '.html', '/index.md', '/index.html']
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
    // The site is served at the root (else the model does not read it): its base path is empty.
    expand: (written) =>
      written
        .replace(/\{\{\s*site\.baseurl\s*\}\}/g, '')
        .replace(/\{\{\s*(['"])([^'"{}]*)\1\s*\|\s*relative_url\s*\}\}/g, '$2'),
    doubt: (written) => (/\{\{|\{%/.test(written) ? 'a Liquid expression computes the link' : undefined),
    fileTarget: (_from, path, files) =>
      MARKDOWN_EXT.test(path) && isUnder(path, siteDir) && !path.startsWith('../') && files.isFile(path)
        ? { path }
        : undefined,
  };
}

export const jekyll: SiteModel = {
  id: 'jekyll',
  name: 'Jekyll',
  isConfig: (file) => CONFIG.test(file),
  read,
  source:
    'jekyllrb.com: “Configuration” (source, exclude, baseurl), “Pages”, “Posts”, “Permalinks”; GitHub Pages: jekyll-relative-links',
};
