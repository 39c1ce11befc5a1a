/**
 * The site view of a reference: where a documentation site built from the repository serves
 * the page a link is written in, and what it serves at the link's URL. One model per
 * generator (`hugo.ts`, `mdbook.ts`, …) says how its config is read and how its routes are
 * formed; this engine is generic (docs/scanner-and-classifiers.md, "Sites").
 */
import { posix } from 'node:path';
import { readConfigs, readTreeText } from '../files.js';
import { baseOf, dirOf, MARKDOWN_EXT, safeDecode } from '../paths.js';
import { docfx } from './docfx.js';
import { docusaurus } from './docusaurus.js';
import { hugo } from './hugo.js';
import { jekyll } from './jekyll.js';
import { mdbook } from './mdbook.js';
import { mkdocs } from './mkdocs.js';
import { definitionTermIds, explicitIds, isUnder } from './read.js';
import { starlight } from './starlight.js';
import type { GeneratorId, Served, Site, SiteFiles, SiteModel } from './types.js';
import { vitepress } from './vitepress.js';

export type { GeneratorId, Site, SiteFiles } from './types.js';

/** Every site model, one per generator. */
export const SITE_MODELS: readonly SiteModel[] = [
  hugo,
  mdbook,
  docusaurus,
  mkdocs,
  vitepress,
  jekyll,
  starlight,
  docfx,
];

/** The sites the project's configs set up (a config a model cannot read gives an unreadable site). */
export function readSites(root: string, files: readonly string[]): Site[] {
  const listed = new Set(files);
  const read = (path: string): string | undefined => readTreeText(root, path);
  return SITE_MODELS.flatMap((model) =>
    readConfigs(
      root,
      files,
      (file) => model.isConfig(file, listed),
      (file, text) => model.read(file, text, { files, listed, read }),
    ),
  );
}

/**
 * The site that builds `doc` as a page (the innermost content root holding it), else one that
 * embeds it in pages (an included partial, a component), if any.
 */
export function siteOf(sites: readonly Site[], files: SiteFiles, doc: string): Site | undefined {
  let best: { site: Site; depth: number } | undefined;
  for (const site of sites)
    for (const root of site.contentRoots) {
      if (!isUnder(doc, root)) continue;
      const depth = root === '' ? 0 : root.split('/').length;
      if (best !== undefined && best.depth >= depth) continue;
      if (site.unreadable === undefined && site.pageUrl(doc, files) === undefined) continue;
      best = { site, depth };
    }
  return best?.site ?? sites.find((site) => site.embedded?.(doc, files) === true);
}

/** The unbuilt content folder (`Site.unbuilt`) that holds `doc`, with its site, if any. */
export function unbuiltOf(
  sites: readonly Site[],
  doc: string,
): { site: Site; dir: string; why: string } | undefined {
  for (const site of sites) {
    const dir = site.unbuilt?.dirs.find((d) => isUnder(doc, d));
    if (dir !== undefined) return { site, dir, why: site.unbuilt!.why };
  }
  return undefined;
}

/** Every unbuilt content folder of the project's sites, once each (the scan names them). */
export function unbuiltFolders(
  sites: readonly Site[],
): { path: string; site: GeneratorId; reason: string }[] {
  return sites.flatMap((site) =>
    (site.unbuilt?.dirs ?? []).map((path) => ({ path, site: site.generator, reason: site.unbuilt!.why })),
  );
}

/** How a link reads on a site: the file it reaches, broken there, or a doubt the model cannot settle. */
export type SiteVerdict =
  | { verdict: 'resolves'; path: string }
  | {
      verdict: 'broken';
      path?: string;
      fragment?: string;
      /** The file that would serve the link, where a build step may write it (a file git ignores there is a build output). */
      expected?: string;
    }
  | { verdict: 'unverifiable'; reason: string };

const EXTERNAL = /^[a-z][a-z0-9+.-]*:|^\/\//i;
const LINE_FRAGMENT = /^L\d+(?:C\d+)?(?:-L\d+(?:C\d+)?)?$/;

/** The explicit ids of a page, read once per tree. */
const idsCache = new WeakMap<SiteFiles, Map<string, Set<string>>>();

/** What the site-side check needs of the tree's docs. */
export interface SiteDocs {
  /** The anchors GitHub gives a scanned doc (slugs and HTML ids), undefined when it is not one. */
  anchorsOf(path: string): ReadonlySet<string> | undefined;
  /** A scanned doc's lines. */
  linesOf(path: string): readonly string[] | undefined;
}

/**
 * The link `written` in the page `doc`, read as `site` builds it: the file it reaches and
 * whether its fragment names an anchor there (a heading's slug, an HTML id, or, where the
 * generator reads them, an explicit `{#id}`). Undefined for what is not checked (external).
 */
export function siteView(
  site: Site,
  files: SiteFiles,
  docs: SiteDocs,
  doc: string,
  written: string,
  /** The link's line (1-based): an include directive's path is read as a file. */
  line?: number,
): SiteVerdict | undefined {
  const text = site.expand?.(written.trim()) ?? written.trim();
  if (text === '' || EXTERNAL.test(text)) return undefined;
  if (site.unreadable !== undefined) return { verdict: 'unverifiable', reason: site.unreadable };
  const lineText = line === undefined ? undefined : docs.linesOf(doc)?.[line - 1];
  if (lineText !== undefined && site.includeLine?.test(lineText) === true) {
    const file = posix.join(dirOf(doc), safeDecode(text.replace(/[?#].*$/, '')));
    return files.isFile(file) ? { verdict: 'resolves', path: file } : { verdict: 'broken' };
  }
  const doubt = site.doubt?.(text, doc);
  if (doubt !== undefined) return { verdict: 'unverifiable', reason: doubt };
  const hash = text.indexOf('#');
  const beforeHash = hash === -1 ? text : text.slice(0, hash);
  const fragment = hash === -1 ? undefined : text.slice(hash + 1);
  const query = beforeHash.indexOf('?');
  const path = safeDecode(query === -1 ? beforeHash : beforeHash.slice(0, query));
  const lookup = site.caseInsensitive === true ? caseless(files) : files;
  // Text another page embeds is read from that page: a bare fragment or a relative link is its.
  const embedded = site.pageUrl(doc, files) === undefined;
  if (embedded && (path === '' || !path.startsWith('/'))) {
    const asFile = path === '' ? undefined : fileFrom(site, lookup, doc, path);
    if (asFile === undefined) return { verdict: 'unverifiable', reason: EMBEDDED };
  }
  const served = path === '' ? { path: doc } : reach(site, lookup, doc, path);
  if (served === undefined) {
    const expected = expectedFile(site, doc, path);
    return expected === undefined ? { verdict: 'broken' } : { verdict: 'broken', expected };
  }
  if ('unverifiable' in served) return { verdict: 'unverifiable', reason: served.unverifiable };
  if (
    fragment === undefined ||
    fragment === '' ||
    LINE_FRAGMENT.test(fragment) ||
    site.tabs?.test(fragment) === true
  )
    return { verdict: 'resolves', path: served.path };
  const anchors = MARKDOWN_EXT.test(served.path) ? docs.anchorsOf(served.path) : undefined;
  if (anchors === undefined) return { verdict: 'resolves', path: served.path };
  const wanted = safeDecode(fragment)
    .toLowerCase()
    .replace(/^user-content-/, '');
  const form = site.anchorForm;
  if (
    anchors.has(wanted) ||
    idsOf(site, files, docs, served.path).has(wanted) ||
    (form !== undefined && [...anchors].some((a) => form(a) === form(wanted)))
  )
    return { verdict: 'resolves', path: served.path };
  if (
    site.includes !== undefined &&
    (docs.linesOf(served.path) ?? []).some((line) => site.includes!.test(line))
  )
    return {
      verdict: 'unverifiable',
      reason: site.includesWhy ?? 'the page includes text (a shortcode, an include) that may set the anchor',
    };
  const unsettled = site.anchorsUnsettled?.(docs.linesOf(served.path) ?? [], wanted);
  if (unsettled !== undefined) return { verdict: 'unverifiable', reason: unsettled };
  return { verdict: 'broken', path: served.path, fragment };
}

/**
 * The anchors a site gives a page's headings beside GitHub's: `{#id}` where it reads them,
 * definition terms' ids where it makes them (Hugo's `autoDefinitionTermID`), its own slugs.
 */
function idsOf(site: Site, files: SiteFiles, docs: SiteDocs, path: string): Set<string> {
  if (!site.explicitIds && site.termIds !== true && site.headingIds === undefined) return new Set();
  let cache = idsCache.get(files);
  if (cache === undefined) {
    cache = new Map();
    idsCache.set(files, cache);
  }
  const key = `${site.config}\0${path}`;
  let ids = cache.get(key);
  if (ids === undefined) {
    const lines = docs.linesOf(path) ?? [];
    ids = new Set([
      ...(site.explicitIds ? explicitIds(lines) : []),
      ...(site.termIds === true ? definitionTermIds(lines) : []),
      ...(site.headingIds?.(lines) ?? []),
    ]);
    cache.set(key, ids);
  }
  return ids;
}

const EMBEDDED =
  'the text is put into a page (an include, a component) whose URL and headings it is read from';

/**
 * What the site serves for a link's path: a `/`-rooted link from the site's root; a relative
 * one, in a generator that rewrites links to files, read from the page's source file first;
 * otherwise as a URL from the page's own URL. A URL that climbs above the site's root leaves
 * the site (another published site may be there).
 */
function reach(
  site: Site,
  files: SiteFiles,
  doc: string,
  path: string,
): { path: string } | { unverifiable: string } | undefined {
  const aliased = site.alias?.(path);
  if (aliased !== undefined)
    return files.isFile(aliased) ? { path: files.spelled?.(aliased) ?? aliased } : undefined;
  const source = site.sourceLink?.(doc, path, files);
  if (source !== undefined) return source;
  if (path.startsWith('/')) {
    const url = site.rooted?.(posix.normalize(path)) ?? posix.normalize(path);
    return typeof url === 'string' ? site.serves(url, files, doc) : url;
  }
  const found = fileFrom(site, files, doc, path);
  if (found !== undefined) return found;
  if (site.fileLinks && site.markdownLinks !== false && MARKDOWN_EXT.test(path)) return undefined;
  const page = site.pageUrl(doc, files);
  if (page === undefined) return undefined;
  const from = page.endsWith('/') ? page.slice(1) : dirOf(page.slice(1));
  const climbed = posix.normalize(posix.join(from, path)).replace(/\/+$/, '');
  const above = climbed === '..' || climbed.startsWith('../');
  if (above && site.rootClamps !== true)
    return { unverifiable: 'the link leaves the site (another published site may serve it)' };
  // At the domain's root a browser drops the `..` that climb above it (RFC 3986, 5.2.4).
  const url = above ? climbed.replace(/^(?:\.\.(?:\/|$))+/, '') || '.' : climbed;
  return site.serves(`/${url === '.' ? '' : url}${path.endsWith('/') && url !== '.' ? '/' : ''}`, files, doc);
}

/**
 * The file a link that reaches nothing would be served from: a `/`-rooted link as the model
 * says (VitePress: the page under its source folder), a relative link to a Markdown file in a
 * generator that rewrites file links as that file (vuejs/router's API pages are generated
 * into a folder git ignores).
 */
function expectedFile(site: Site, doc: string, path: string): string | undefined {
  if (path.startsWith('/')) return site.expected?.(posix.normalize(path));
  if (!site.fileLinks || site.markdownLinks === false || !MARKDOWN_EXT.test(path)) return undefined;
  const file = posix.normalize(posix.join(dirOf(doc), path));
  return file.startsWith('../') ? undefined : file;
}

/** A relative link read as a path from the source file, in a generator that rewrites file links. */
function fileFrom(site: Site, files: SiteFiles, doc: string, path: string): Served {
  if (!site.fileLinks || (site.markdownLinks === false && MARKDOWN_EXT.test(path))) return undefined;
  const asFile = posix.normalize(posix.join(dirOf(doc), path)).replace(/\/+$/, '');
  return site.fileTarget?.(doc, asFile, files) ?? defaultFileTarget(site, files, asFile);
}

/** A relative link to a file: a page the site builds, or another file it copies beside the pages. */
function defaultFileTarget(site: Site, files: SiteFiles, asFile: string): { path: string } | undefined {
  if (asFile === '..' || asFile.startsWith('../') || !files.isFile(asFile)) return undefined;
  if (MARKDOWN_EXT.test(asFile))
    return site.pageUrl(asFile, files) !== undefined ? { path: asFile } : undefined;
  return site.contentRoots.some((root) => isUnder(asFile, root)) ? { path: asFile } : undefined;
}

const caselessCache = new WeakMap<SiteFiles, SiteFiles>();

/** The tree looked up regardless of case (DocFX's routes): a path answers with the listed file's spelling. */
function caseless(files: SiteFiles): SiteFiles {
  let wrapped = caselessCache.get(files);
  if (wrapped === undefined) {
    const byLower = new Map<string, string>();
    for (const f of files.files) if (!byLower.has(f.toLowerCase())) byLower.set(f.toLowerCase(), f);
    wrapped = {
      files: files.files,
      frontmatter: (p) => files.frontmatter(p),
      isFile: (p) => files.isFile(p) || byLower.has(p.toLowerCase()),
      spelled: (p) => (files.isFile(p) ? p : byLower.get(p.toLowerCase())),
    };
    caselessCache.set(files, wrapped);
  }
  return wrapped;
}

/**
 * Whether a doc is read on GitHub as well as on its site. A page source is read on the site:
 * its links are written for the site (`.html` links, routes, `{#id}` anchors), GitHub shows
 * its shortcodes and frontmatter raw, and its readers are sent to the site. A README (GitHub
 * shows it on its folder's page) and an agent-context file are read in the repository too.
 */
export function readOnGitHub(site: Site | undefined, doc: string, agentContext: boolean): boolean {
  return site === undefined || agentContext || /^readme\.(?:md|markdown|mdx)$/i.test(baseOf(doc));
}

/**
 * Whether `doc` is an issue, pull-request or discussion template: github.com shows it in an
 * issue or pull request of the repository, so its links are read from that page's URL.
 */
export function isGitHubTemplate(doc: string): boolean {
  const lower = doc.toLowerCase();
  return (
    /^(?:\.github\/|docs\/)?(?:pull_request_template|issue_template)\.md$/.test(lower) ||
    /^(?:\.github\/|docs\/)?(?:pull_request_template|issue_template|discussion_template)\//.test(lower)
  );
}

/**
 * A template's link as github.com reads it, from an issue or pull request's page
 * (`/OWNER/REPO/pull/1`): `/OWNER/REPO/blob/<ref>/<path>` reaches the repository's file (when
 * the tree has it; another repository's is not checked), `../blob/main/x.md` likewise; a
 * plain relative path (`docs/x.md`) is read from the page and reaches nothing.
 */
export function templateView(
  isFile: (path: string) => boolean,
  isDir: (path: string) => boolean,
  written: string,
): SiteVerdict | undefined {
  const text = written.trim();
  if (text === '' || text.startsWith('#') || EXTERNAL.test(text)) return undefined;
  const path = safeDecode(text.replace(/[?#].*$/, ''));
  const url = path.startsWith('/') ? posix.normalize(path) : posix.join('/OWNER/REPO/pull', path);
  const parts = url.split('/').filter((p) => p !== '');
  if (parts.length < 2)
    return { verdict: 'unverifiable', reason: 'a github.com page outside the repository' };
  const [, , section, , ...rest] = parts;
  if ((section === 'blob' || section === 'tree' || section === 'raw') && rest.length > 0) {
    const file = rest.join('/');
    if (isFile(file) || isDir(file)) return { verdict: 'resolves', path: file };
    return parts[0] === 'OWNER'
      ? { verdict: 'broken' }
      : { verdict: 'unverifiable', reason: 'a file of another repository or branch on github.com' };
  }
  if (parts[0] === 'OWNER' && section === 'pull') return { verdict: 'broken' };
  return { verdict: 'unverifiable', reason: 'a github.com page the model does not check' };
}
