/**
 * VitePress (vitepress.dev): `<site>/.vitepress/config.*` beside its pages. A page `a/b.md`
 * under the source folder is served at `/a/b` (`.html` too), `index.md` at its folder's URL;
 * a `/`-rooted link is read from the source folder, not from the repository's root, and
 * `<srcDir>/public/` is served at the site's root, so `/guide/features.md` written in
 * `docs/config/index.md` is `docs/guide/features.md` and `/og-image.webp` is
 * `docs/public/og-image.webp` (vitejs/vite). A relative link is read from the page's file; an
 * asset is bundled from wherever it lies. A config's `srcDir` moves the source folder (and its
 * public folder): vuejs/docs sets `srcDir: 'src'`; `srcExclude` leaves pages unbuilt. A config
 * that sets `rewrites` (pages served at other paths) cannot be modelled, nor a computed
 * `srcDir` or `srcExclude` (the config is JavaScript: read only where a plain literal).
 */
import { posix } from 'node:path';
import { repositoryGlobsMatcher } from '../lifecycle-glob.js';
import { dirOf, MARKDOWN_EXT } from '../paths.js';
import { folderFrom, inside, isUnder, literalSetting, unreadableSite } from './read.js';
import type { ConfigContext, Served, Site, SiteFiles, SiteModel } from './types.js';

const CONFIG = /(^|\/)\.vitepress\/config(?:\/index)?\.(?:js|mjs|cjs|ts|mts|cts)$/;

/**
 * The pages a config's `srcExclude` leaves unbuilt (vuejs/docs: `srcExclude:
 * ['tutorial/**\/description.md']`): none when it sets none; a matcher for one plain array of
 * quoted globs; undefined for anything else (computed, set twice, a glob the linear-time matcher
 * does not take).
 */
function excludedPages(text: string): ((page: string) => boolean) | undefined {
  const mentions = text.match(/\bsrcExclude\b/g)?.length ?? 0;
  if (mentions === 0) return () => false;
  const set = /\bsrcExclude\s*:\s*\[((?:\s*(['"])[^'"\n\\]+\2\s*,?)*)\s*\]/.exec(text);
  if (mentions !== 1 || set === null) return undefined;
  return repositoryGlobsMatcher([...set[1]!.matchAll(/(['"])([^'"\n\\]+)\1/g)].map((m) => m[2]!));
}

function read(file: string, configText: string, context: ConfigContext): Site | undefined {
  // A config split over `.vitepress/config/*.ts` is read as one text.
  const folder = /\/config\/index\.[^/]+$/.test(file) ? dirOf(file) : undefined;
  const text =
    folder === undefined
      ? configText
      : context.files
          .filter((f) => dirOf(f) === folder && /\.(?:js|mjs|cjs|ts|mts|cts)$/.test(f))
          .map((f) => context.read(f) ?? '')
          .join('\n');
  const siteRoot = dirOf(dirOf(folder ?? file));
  const cannot = (why: string) => unreadableSite('vitepress', file, [siteRoot], why);
  if (/\brewrites\b/.test(text)) return cannot('its rewrites serve pages at other paths');
  const written = literalSetting(text, 'srcDir');
  const srcDir =
    written === 'unset' ? siteRoot : written === undefined ? undefined : folderFrom(siteRoot, written);
  if (srcDir === undefined) return cannot('its srcDir is not a plain folder in the project');
  const excluded = excludedPages(text);
  if (excluded === undefined) return cannot('its srcExclude is not a plain list of globs');
  const publicDir = !/\bpublicDir\b/.test(text);
  const built = (source: string) =>
    isUnder(source, srcDir) &&
    MARKDOWN_EXT.test(source) &&
    !excluded(inside(source, srcDir)) &&
    !inside(source, srcDir)
      .split('/')
      .some((s) => s === 'node_modules' || s === '.vitepress' || s === 'public');
  const pageUrl = (source: string): string | undefined => {
    if (!built(source)) return undefined;
    const rel = inside(source, srcDir).replace(MARKDOWN_EXT, '');
    return `/${rel.replace(/(^|\/)index$/, '$1')}`;
  };
  const serves = (url: string, files: SiteFiles): Served => {
    const path = url.replace(/^\/+/, '').replace(/\.html$/, '');
    const page = posix.join(srcDir, path);
    const candidates = [page, `${page}.md`, posix.join(page, 'index.md')].filter(
      (c) => !MARKDOWN_EXT.test(c) || built(c),
    );
    if (publicDir) candidates.push(posix.join(srcDir, 'public', path));
    const found = candidates.find((c) => c !== srcDir && files.isFile(c));
    return found !== undefined ? { path: found } : undefined;
  };
  return {
    generator: 'vitepress',
    config: file,
    contentRoots: [srcDir],
    ...(publicDir ? {} : { unsettled: 'its publicDir is set' }),
    explicitIds: true,
    includes: /<!--\s*@include:|<[A-Z]\w*[\s/>]/,
    fileLinks: true,
    pageUrl,
    serves,
    fileTarget: (_from, path, files) =>
      !MARKDOWN_EXT.test(path) && !path.startsWith('..') && files.isFile(path) ? { path } : undefined,
  };
}

export const vitepress: SiteModel = {
  id: 'vitepress',
  name: 'VitePress',
  isConfig: (file) => CONFIG.test(file),
  read,
  source:
    'vitepress.dev: “Routing” (file-based routing, linking, public directory), “Site config” (srcDir, srcExclude, rewrites)',
};
