/**
 * mdBook (rust-lang.github.io/mdBook): `book.toml` at the book's root, its chapters under
 * `[book] src` (`src/`) as `SUMMARY.md` lists them; a file not listed is not rendered. A
 * chapter `a/b.md` is served at `/a/b.html` (a `README.md` chapter at its folder's
 * `index.html`), a relative link to `b.md` is rewritten to `b.html`, and every other file under
 * `src/` is copied as it lies. Headings' `{#id}` name their anchors. A link that climbs out of
 * the book leaves it (rust-lang's books link one another that way).
 */
import { posix } from 'node:path';
import { safeDecode } from '../paths.js';
import { folderFrom, inside, isMapping, isUnder, parseConfig, siteDirOf, unreadableSite } from './read.js';
import type { ConfigContext, Served, Site, SiteFiles, SiteModel } from './types.js';

/** The chapters a `SUMMARY.md` links (root-relative), drafts (`[x]()`) and external links aside. */
export function summaryChapters(src: string, text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/\]\(\s*<?([^)>\s]+)>?\s*\)/g)) {
    const target = safeDecode(m[1]!.replace(/#.*$/, ''));
    if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/')) continue;
    const path = posix.normalize(posix.join(src, target));
    if (!path.startsWith('../')) out.add(path);
  }
  return out;
}

function read(file: string, text: string, context: ConfigContext): Site | undefined {
  const root = siteDirOf(file);
  const config = parseConfig(file, text);
  if (config === undefined) return unreadableSite('mdbook', file, [root], `${file} does not parse`);
  const book = isMapping(config['book']) ? config['book'] : {};
  const src = folderFrom(root, typeof book['src'] === 'string' ? book['src'] : 'src');
  if (src === undefined)
    return unreadableSite('mdbook', file, [root], 'its src folder is outside the repository');
  const summaryPath = posix.join(src, 'SUMMARY.md');
  const summary = context.read(summaryPath);
  if (summary === undefined) return unreadableSite('mdbook', file, [src], `${summaryPath} cannot be read`);
  const chapters = summaryChapters(src, summary);
  const output = isMapping(config['output']) ? config['output'] : {};
  const html = isMapping(output['html']) ? output['html'] : {};
  const siteUrl = typeof html['site-url'] === 'string' ? html['site-url'].replace(/\/*$/, '/') : '/';
  const preprocessors = isMapping(config['preprocessor']) ? Object.keys(config['preprocessor']) : [];
  const known = new Set(['index', 'links']);
  const plugin = preprocessors.find((p) => !known.has(p));
  const isReadme = (p: string) => /(^|\/)readme\.md$/i.test(p);
  const pageUrl = (source: string, files: SiteFiles): string | undefined => {
    if (!chapters.has(source) || !files.isFile(source)) return undefined;
    const rel = inside(source, src);
    return `/${isReadme(rel) ? posix.join(posix.dirname(rel), 'index.html').replace(/^\.\//, '') : rel.replace(/\.md$/i, '.html')}`;
  };
  const chapterAt = (rel: string, files: SiteFiles): string | undefined => {
    const dir = posix.dirname(rel) === '.' ? '' : posix.dirname(rel);
    const base = posix.basename(rel).replace(/\.(?:html|md)$/i, '');
    const candidates = [posix.join(src, dir, `${base}.md`)];
    if (base.toLowerCase() === 'index' || base.toLowerCase() === 'readme')
      candidates.push(posix.join(src, dir, 'README.md'), posix.join(src, dir, 'index.md'));
    return candidates.find((c) => chapters.has(c) && files.isFile(c));
  };
  const serves = (url: string, files: SiteFiles): Served => {
    let rel = url.replace(/^\/+/, '');
    if (rel === '' || rel.endsWith('/')) rel += 'index.html';
    if (/\.(?:html|md)$/i.test(rel)) {
      const chapter = chapterAt(rel, files);
      if (chapter !== undefined) return { path: chapter };
      if (plugin !== undefined) return { unverifiable: `the preprocessor ${plugin} may generate it` };
      return undefined;
    }
    const file = posix.join(src, rel);
    if (files.isFile(file)) return { path: file };
    return plugin !== undefined ? { unverifiable: `the preprocessor ${plugin} may generate it` } : undefined;
  };
  return {
    generator: 'mdbook',
    config: file,
    contentRoots: [src],
    ...(plugin !== undefined ? { unsettled: `the preprocessor ${plugin} may change pages` } : {}),
    explicitIds: true,
    includes: /\{\{#(?:include|rustdoc_include|playground)/,
    fileLinks: false,
    pageUrl,
    serves,
    rooted: (path) =>
      siteUrl === '/'
        ? path
        : isUnder(path.slice(1), siteUrl.slice(1, -1))
          ? `/${inside(path.slice(1), siteUrl.slice(1, -1))}`
          : { unverifiable: `a /-rooted link outside the book's site-url ${siteUrl}` },
    doubt: (written) => (written.includes('{{') ? 'an mdBook preprocessor computes the link' : undefined),
  };
}

export const mdbook: SiteModel = {
  id: 'mdbook',
  name: 'mdBook',
  isConfig: (file) => posix.basename(file) === 'book.toml',
  read,
  source: 'mdBook guide: “Configuration” (book.toml), “SUMMARY.md”, “Markdown” (links, heading attributes)',
};
