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
import type { ConfigContext, Served, Site, SiteFiles, SiteModel } from './types.js';

const CONFIG = /(^|\/)astro\.config\.(?:js|mjs|cjs|ts|mts|cts)$/;

const slugOf = (segment: string): string =>
  segment
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_.-]/gu, '')
    .replace(/\s/g, '-');

/** The text of the `{…}` that opens at `open` (braces in strings are not expected in a redirect map). */
function braced(text: string, open: number): string | undefined {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(open + 1, i);
  }
  return undefined;
}

const ENTRY = /^\s*(?:(['"])([^'"\n]*)\1|([\w$]+))\s*:\s*(['"])([^'"\n]*)\4\s*$/;

/**
 * The redirects an object literal lists (`'/old': '/new'`), spreading `...name` where `name`
 * is a default import of a local module that exports one plain literal (biomejs/website's
 * generated `redirects.js`); undefined when any entry is something else.
 */
function redirectMap(
  body: string,
  config: string,
  context: ConfigContext,
  seen = 0,
): Map<string, string> | undefined {
  const map = new Map<string, string>();
  for (const entry of body.replace(/^\s*\/\/.*$/gm, '').split(/,(?=\s*(?:['"\w$]|\.\.\.|$))/)) {
    if (entry.trim() === '') continue;
    const spread = /^\s*\.\.\.([\w$]+)\s*$/.exec(entry)?.[1];
    if (spread !== undefined) {
      const from = new RegExp(`^\\s*import\\s+${spread}\\s+from\\s*(['"])(\\.{1,2}/[^'"]+)\\1`, 'm').exec(
        context.read(config) ?? '',
      )?.[2];
      const module = from === undefined ? undefined : posix.join(dirOf(config), from);
      const text = module === undefined || seen > 0 ? undefined : context.read(module);
      const open = text?.search(/export\s+default\s*\{/) ?? -1;
      const inner = open === -1 ? undefined : braced(text!, text!.indexOf('{', open));
      const spreadMap = inner === undefined ? undefined : redirectMap(inner, module!, context, seen + 1);
      if (spreadMap === undefined) return undefined;
      for (const [k, v] of spreadMap) map.set(k, v);
      continue;
    }
    const m = ENTRY.exec(entry);
    if (m === null) return undefined;
    map.set(m[2] ?? m[3]!, m[5]!);
  }
  return map;
}

/** The config's `redirects` (Astro serves each old URL), 'none' when it sets none, undefined when not plain. */
function redirectsOf(
  file: string,
  text: string,
  context: ConfigContext,
): Map<string, string> | 'none' | undefined {
  const at = /\bredirects\s*:\s*\{/.exec(text);
  if (at === null) return /\bredirects\s*:/.test(text) ? undefined : 'none';
  const body = braced(text, at.index + at[0].length - 1);
  return body === undefined ? undefined : redirectMap(body, file, context);
}

function read(file: string, text: string, context: ConfigContext): Site | undefined {
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
  // A Starlight plugin (a list written in place, or a variable: biomejs/website passes
  // `plugins,`), or redirects the model cannot read, may serve routes the model does not know.
  const redirects = redirectsOf(file, text, context);
  const plugins = /\bplugins\s*:\s*(?:\[\s*[^\]\s]|[A-Za-z_$])|[{,]\s*plugins\s*[,}]/.test(text)
    ? 'a Starlight plugin may serve it'
    : redirects === undefined
      ? "the config's redirects may serve it"
      : undefined;
  const redirected = redirects instanceof Map ? redirects : new Map<string, string>();
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
  const serves = (url: string, files: SiteFiles, from = '', hops = 0): Served => {
    const bare = url.endsWith('/') ? url : `${url}/`;
    const page = index(files).get(bare);
    if (page !== undefined) return { path: page };
    const to = redirected.get(url) ?? redirected.get(bare) ?? redirected.get(bare.slice(0, -1));
    if (to !== undefined && hops < 4) {
      const target = /^[a-z]+:/i.test(to) ? undefined : to.replace(/[#?].*$/, '');
      if (target !== undefined) return serves(target, files, from, hops + 1);
      return { unverifiable: 'a redirect to another site' };
    }
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
    // A component or Markdown file of the project's own may render headings; Starlight's
    // components (`@astrojs/starlight/components`: Tabs, Steps, Aside …) and packages' do not.
    includes: /^\s*import\s.*\bfrom\s*['"](?:\.|@\/|~\/|\/|[^'"]*\.mdx?['"])/,
    // Astro's `src/` is the site's source: a Markdown file there outside the docs is a component
    // a page imports (biomejs/website's generated rule lists), read on the site.
    embedded: (doc) => MARKDOWN_EXT.test(doc) && isUnder(doc, `${prefix}src`) && !isUnder(doc, docs),
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
  read,
  source:
    'starlight.astro.build: “Pages”, “Internationalization”; docs.astro.build: “Routing”, “Images”, “Configuration reference” (base)',
};
