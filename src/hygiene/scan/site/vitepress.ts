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
import { dirOf, escapeRegExp, MARKDOWN_EXT } from '../paths.js';
import { folderFrom, inside, isUnder, literalSetting, perListing, unreadableSite } from './read.js';
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

const SPECIAL = /[\s~`!@#$%^&*()\-_+=[\]{}|\\;:"'“”‘’<>,.?/]+/g;

/** VitePress's slug of a heading's text (`slugify` of @mdit-vue/shared): `describe.skipIf` is `describe-skipif`. */
export function vitepressSlug(text: string): string {
  return rawSlug(text)
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '')
    .replace(/^(\d)/, '_$1')
    .toLowerCase();
}

/**
 * The slug before VitePress trims it: the form of the custom `slugify` that vuejs/pinia and
 * vuejs/router copy from VitePress without its last steps (`Unit test (Vue 2)` is `Unit-test-Vue-2-`).
 */
const rawSlug = (text: string): string =>
  text
    .normalize('NFKD')
    .replace(/[\u0300-\u036F]/g, '')
    .replace(/\p{Cc}/gu, '')
    .replace(SPECIAL, '-');

/** A heading's text as markdown-it renders it for the slug: link text, no tags, no escapes. */
const headingText = (heading: string): string =>
  heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<\/?[A-Za-z][^>]*>/g, '')
    .replace(/\\(.)/g, '$1');

/**
 * How a JS/TS config sets `key` where it may write it more than once: the one plain literal
 * every mention sets it to, 'unset', or undefined (computed, or set to different values).
 */
function sameLiteral(text: string, key: string): string | 'unset' | undefined {
  const mentions = text.match(new RegExp(`\\b${key}\\b`, 'g'))?.length ?? 0;
  if (mentions === 0) return 'unset';
  const values = [...text.matchAll(new RegExp(`\\b${key}\\s*:\\s*(['"])([^'"\\n\\\\]*)\\1`, 'g'))].map(
    (m) => m[2]!,
  );
  return values.length === mentions && values.every((v) => v === values[0]) ? values[0] : undefined;
}

/** A heading's trailing attributes (`{#id .class}`) between the config's delimiters. */
const attrsOf = (left: string, right: string): RegExp =>
  new RegExp(`\\s*${escapeRegExp(left)}([^]*?)${escapeRegExp(right)}\\s*$`);

/** The text of a page's ATX headings, outside fenced code. */
function* headings(lines: readonly string[]): Generator<string> {
  let fence: string | undefined;
  for (const line of lines) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    const heading = fence === undefined ? /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1] : undefined;
    if (heading !== undefined) yield heading;
  }
}

/**
 * The anchors VitePress gives a page's headings: its slug of each ATX heading's text (`-1`,
 * `-2` for repeats) and the ids its attribute syntax names (`{#id}`, or `%{#id}%` where the
 * config sets `markdown.attrs` delimiters, as vuejs/pinia does).
 */
function headingIdsWith(
  left: string,
  right: string,
  untrimmed: boolean,
): (lines: readonly string[]) => Set<string> {
  const attrs = attrsOf(left, right);
  return (lines) => {
    const ids = new Set<string>();
    const seen = new Map<string, number>();
    for (const heading of headings(lines)) {
      const attr = attrs.exec(heading);
      for (const m of attr?.[1]?.matchAll(/(?:^|\s)#([^\s=}]+)/g) ?? []) ids.add(m[1]!.toLowerCase());
      const text = headingText(attr === null ? heading : heading.slice(0, attr.index));
      const slug = vitepressSlug(text);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      ids.add(count === 0 ? slug : `${slug}-${count}`);
      if (untrimmed) ids.add(rawSlug(text).replace(/^(\d)/, '_$1').toLowerCase());
    }
    return ids;
  };
}

/** A text's letters and digits, lowercased, without accents: what any slug function keeps of it. */
const lettersOf = (text: string): string =>
  text
    .normalize('NFKD')
    .replace(/[\u0300-\u036F]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');

/** VitePress's own components that render no heading. */
const BUILT_IN_PLAIN = ['Badge', 'ClientOnly'];

/**
 * Whether a line of a page puts text the model does not read into it that may carry a heading:
 * an `@include`, or a component other than one whose source the theme holds and that renders
 * no heading or id (vuejs/pinia's `<MasteringPiniaLink>`); a `\<T>` or `Store<Id>` is no tag.
 */
function insertsHeadings(plain: ReadonlySet<string>): { test(line: string): boolean } {
  return {
    test: (line) => {
      if (/<!--\s*@include:/.test(line)) return true;
      const text = line.replace(/`[^`]*`/g, '');
      for (const m of text.matchAll(/(?<![\\\w])<([A-Z][\w-]*)[\s/>]/g)) if (!plain.has(m[1]!)) return true;
      return false;
    },
  };
}

/** The theme's components (`.vue` files under `.vitepress/`) that render no heading and no id. */
function plainComponents(siteRoot: string, context: ConfigContext): Set<string> {
  const theme = posix.join(siteRoot, '.vitepress');
  const plain = new Set(BUILT_IN_PLAIN);
  for (const f of context.files) {
    if (!isUnder(f, theme) || !f.endsWith('.vue')) continue;
    const source = context.read(f);
    if (source !== undefined && !/<h[1-6][\s>]|[\s:]id\s*=/i.test(source))
      plain.add(posix.basename(f, '.vue'));
  }
  return plain;
}

/** The Markdown files the pages `@include` (`<!--@include: ./x.md-->`, `@/` from the source folder). */
const includedBy = (srcDir: string, built: (source: string) => boolean) =>
  perListing((files: SiteFiles) => {
    const included = new Set<string>();
    for (const page of files.files) {
      if (!built(page)) continue;
      for (const line of files.lines?.(page) ?? []) {
        // `<!--@include: ./x.md-->`, `./x.md#region`, `./x.md{3,10}`.
        const target = /<!--\s*@include:\s*(.+?)\s*-->/.exec(line)?.[1]?.replace(/[{#].*$/, '');
        if (target === undefined) continue;
        const path = target.startsWith('@/')
          ? posix.join(srcDir, target.slice(2))
          : posix.normalize(posix.join(dirOf(page), target));
        included.add(path);
      }
    }
    return included;
  });

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
  const left = sameLiteral(text, 'leftDelimiter');
  const right = sameLiteral(text, 'rightDelimiter');
  const delimiters =
    left === undefined || right === undefined
      ? undefined
      : [left === 'unset' ? '{' : left, right === 'unset' ? '}' : right];
  const included = includedBy(srcDir, built);
  const customSlug = /\bslugify\b/.test(text);
  return {
    generator: 'vitepress',
    config: file,
    contentRoots: [srcDir],
    ...(publicDir ? {} : { unsettled: 'its publicDir is set' }),
    explicitIds: true,
    includes: insertsHeadings(plainComponents(siteRoot, context)),
    ...(delimiters === undefined
      ? {}
      : { headingIds: headingIdsWith(delimiters[0]!, delimiters[1]!, customSlug) }),
    // A slug function of the config's own cannot be read: a fragment that is neither VitePress's
    // slug nor its untrimmed form (vuejs/pinia's copy) is not settled.
    ...(delimiters === undefined
      ? { anchorsUnsettled: () => 'its markdown.attrs delimiters are not plain literals' }
      : customSlug
        ? {
            anchorsUnsettled: (lines: readonly string[], fragment: string) => {
              const attrs = attrsOf(delimiters[0]!, delimiters[1]!);
              const named = (h: string) => /(?:^|\s)#[^\s=}]/.test(attrs.exec(h)?.[1] ?? '');
              // A slug function keeps a heading's letters and digits: only a heading without an
              // id whose letters are the fragment's may be named so (vuejs/router's zh API pages
              // link #aliasof where the heading's id is Properties-aliasOf).
              const wanted = lettersOf(fragment);
              const maybe = (h: string) => !named(h) && lettersOf(headingText(h)).includes(wanted);
              return wanted !== '' && [...headings(lines)].some(maybe)
                ? 'its markdown.anchor.slugify names headings its own way'
                : undefined;
            },
          }
        : {}),
    embedded: (doc, files) => MARKDOWN_EXT.test(doc) && !built(doc) && included(files).has(doc),
    fileLinks: true,
    pageUrl,
    serves,
    expected: (url) => {
      const path = url.replace(/^\/+/, '').replace(/\.html$/, '');
      if (path === '' || path.endsWith('/')) return posix.join(srcDir, path, 'index.md');
      return posix.join(srcDir, MARKDOWN_EXT.test(path) ? path : `${path}.md`);
    },
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
