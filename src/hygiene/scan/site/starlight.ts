/**
 * Astro Starlight (starlight.astro.build): an `astro.config.*` that uses `@astrojs/starlight`;
 * its pages are `src/content/docs/**` (Markdown and MDX), each served at its path without the
 * extension, lowercased, with a trailing slash (`guides/My Page.md` is `/guides/my-page/`),
 * `index` at its folder's URL, a frontmatter `slug:` where it says. Links are routes, read
 * from the page's URL: Astro does not rewrite `x.md`. An image is read from the page's file
 * (Astro's image pipeline), `public/` is served at the root. With `locales`, a translation
 * (`src/content/docs/<locale>/`) missing a page shows the default language's. The config is
 * JavaScript: `base` is read only where it is a plain literal.
 */
import { posix } from 'node:path';
import { dirOf, MARKDOWN_EXT } from '../paths.js';
import { inside, isUnder, literalSetting, pagesByUrl, unreadableSite } from './read.js';
import type { Served, Site, SiteFiles, SiteModel } from './types.js';

const CONFIG = /(^|\/)astro\.config\.(?:js|mjs|cjs|ts|mts|cts)$/;

const slugOf = (segment: string): string =>
  segment
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_.-]/gu, '')
    .replace(/\s/g, '-');

function read(file: string, text: string): Site | undefined {
  if (!text.includes('@astrojs/starlight')) return undefined;
  const root = dirOf(file);
  const prefix = root === '' ? '' : `${root}/`;
  // Astro's `base` is a top-level setting (`  base: '/docs',` in the config object); a `base:`
  // written deeper (a sidebar group's autogenerate) is another setting.
  const base = literalSetting(
    text
      .split('\n')
      .filter((line) => /^\s{0,2}\S/.test(line))
      .join('\n'),
    'base',
  );
  if (base === undefined)
    return unreadableSite(
      'starlight',
      file,
      [`${prefix}src/content/docs`],
      'its base is not a plain literal',
    );
  const basePath = base === 'unset' ? '' : base.replace(/^\/+|\/+$/g, '');
  const docs = `${prefix}src/content/docs`;
  const publicDir = `${prefix}public`;
  const i18n = /\blocales\s*:/.test(text);
  // A Starlight plugin, or the config's `redirects`, may serve routes the model does not read.
  const plugins = /\bplugins\s*:\s*\[\s*[^\]\s]/.test(text)
    ? 'a Starlight plugin may serve it'
    : /\bredirects\s*:/.test(text)
      ? "the config's redirects may serve it"
      : undefined;
  const pageUrl = (source: string, files: SiteFiles): string | undefined => {
    if (!isUnder(source, docs) || !MARKDOWN_EXT.test(source)) return undefined;
    const slug = files.frontmatter(source)?.['slug'];
    if (typeof slug === 'string') return `/${slug.replace(/^\/+|\/+$/g, '')}/`.replace('//', '/');
    const rel = inside(source, docs).replace(MARKDOWN_EXT, '');
    const path = rel
      .split('/')
      .map(slugOf)
      .join('/')
      .replace(/(^|\/)index$/, '');
    return `/${path}/`.replace('//', '/');
  };
  const index = pagesByUrl(pageUrl);
  const serves = (url: string, files: SiteFiles): Served => {
    const bare = url.endsWith('/') ? url : `${url}/`;
    const page = index(files).get(bare);
    if (page !== undefined) return { path: page };
    const rel = url.replace(/^\/+/, '');
    if (rel !== '' && files.isFile(posix.join(publicDir, rel))) return { path: posix.join(publicDir, rel) };
    if (i18n) {
      // A translation's missing page: the default language's (the first folder is the locale).
      const rest = bare.split('/').slice(2).join('/');
      const fallback = index(files).get(`/${rest}`) ?? undefined;
      if (fallback !== undefined) return { path: fallback };
    }
    return plugins !== undefined ? { unverifiable: plugins } : undefined;
  };
  return {
    generator: 'starlight',
    config: file,
    contentRoots: [docs],
    ...(plugins !== undefined ? { unsettled: plugins } : {}),
    explicitIds: false,
    includes: /^\s*import\s|<[A-Z]\w*[\s/>]/,
    fileLinks: true,
    markdownLinks: false,
    pageUrl,
    serves,
    fileTarget: (_from, path, files) =>
      !MARKDOWN_EXT.test(path) && !path.startsWith('..') && files.isFile(path) ? { path } : undefined,
    rooted: (path) =>
      basePath === ''
        ? path
        : isUnder(path.slice(1), basePath)
          ? `/${inside(path.slice(1), basePath)}`
          : { unverifiable: `a /-rooted link outside the site's base /${basePath}/` },
  };
}

export const starlight: SiteModel = {
  id: 'starlight',
  name: 'Astro Starlight',
  isConfig: (file) => CONFIG.test(file),
  read: (file, text) => read(file, text),
  source:
    'starlight.astro.build: “Pages”, “Internationalization”; docs.astro.build: “Routing”, “Images”, “Configuration reference” (base)',
};
