import { posix } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch';
import { parse as parseYaml } from 'yaml';
import { readConfigs } from './files.js';
import { dirOf } from './paths.js';

/**
 * A VitePress site: `<srcDir>/.vitepress/config.*` beside its pages. VitePress reads a link
 * that starts with `/` from the source folder, not from the repository's root, and serves
 * `<srcDir>/public/` at the site's root, so `/guide/features.md` written in
 * `docs/config/index.md` is `docs/guide/features.md` and `/og-image.webp` is
 * `docs/public/og-image.webp` (vitejs/vite: 32 proposed link fixes were such links). A
 * config's `srcDir` moves the source folder (and its public folder) from the config's site
 * root: vuejs/docs's `.vitepress/config.ts` sets `srcDir: 'src'`.
 */
export interface VitePressSite {
  /** Root-relative; '' is the root. */
  srcDir: string;
  /** Whether `<srcDir>/public/` is the public folder for sure (the config sets no `publicDir`). */
  publicDir: boolean;
  /** A page (source-relative) the config's `srcExclude` leaves unbuilt. */
  excluded: (page: string) => boolean;
}

const CONFIG = /(^|\/)\.vitepress\/config\.(?:js|mjs|cjs|ts|mts|cts)$/;

/**
 * The VitePress sites in `files`. A config that sets `rewrites` (pages served at other paths)
 * is not read, nor one whose `srcExclude` is not a plain list of globs (a page it excludes is
 * not built, so a link to it is broken on the site), nor one that sets `srcDir` other than
 * once, to a plain quoted folder inside the project (`srcDir: 'src'`, as vuejs/docs does, is
 * read from the site's root): hiding a broken link needs the site's own settings, so a doubt
 * reports it.
 */
export function readVitePressSites(root: string, files: readonly string[]): VitePressSite[] {
  return readConfigs(
    root,
    files,
    (file) => CONFIG.test(file),
    (file, text) => {
      if (/\brewrites\b/.test(text)) return undefined;
      const srcDir = sourceFolder(dirOf(dirOf(file)), text);
      const excluded = excludedPages(text);
      return srcDir === undefined || excluded === undefined
        ? undefined
        : { srcDir, publicDir: !/\bpublicDir\b/.test(text), excluded };
    },
  );
}

/**
 * The pages a config's `srcExclude` leaves unbuilt (vuejs/docs: `srcExclude:
 * ['tutorial/**\/description.md']`): none when it sets none; a matcher for one plain array of
 * quoted globs; undefined for anything else (computed, set twice), so the config is not read.
 */
function excludedPages(text: string): ((page: string) => boolean) | undefined {
  const set = setOnce(text, 'srcExclude', /\bsrcExclude\s*:\s*\[((?:\s*(['"])[^'"\n\\]+\2\s*,?)*)\s*\]/);
  if (set === 'unset') return () => false;
  if (set === undefined) return undefined;
  const globs = [...set[1]!.matchAll(/(['"])([^'"\n\\]+)\1/g)].map((m) => m[2]!);
  return picomatch(globs);
}

/**
 * How a config sets `key`: 'unset' when it never names it; the match of `pattern` when it
 * names it once and that is how it sets it; undefined otherwise (computed, set twice).
 */
function setOnce(text: string, key: string, pattern: RegExp): RegExpExecArray | 'unset' | undefined {
  const mentions = text.match(new RegExp(`\\b${key}\\b`, 'g'))?.length ?? 0;
  if (mentions === 0) return 'unset';
  const set = pattern.exec(text);
  return mentions === 1 && set !== null ? set : undefined;
}

/**
 * The source folder a config at `<siteRoot>/.vitepress/` names: the site's root when it sets
 * no `srcDir`; the one plain quoted folder it sets (`srcDir: 'src'`, `srcDir: "./docs"`), root-
 * relative; undefined for anything else (computed, set twice, absolute, or out of the project).
 */
function sourceFolder(siteRoot: string, text: string): string | undefined {
  const set = setOnce(text, 'srcDir', /\bsrcDir\s*:\s*(['"])([^'"\n\\]+)\1\s*[,}\n]/);
  if (set === 'unset') return siteRoot;
  if (set === undefined) return undefined;
  const folder = posix.normalize(posix.join(siteRoot, set[2]!)).replace(/\/+$/, '');
  if (posix.isAbsolute(set[2]!) || folder === '..' || folder.startsWith('../')) return undefined;
  return folder === '.' ? '' : folder;
}

/**
 * Where VitePress finds a root-relative link written in `doc` (`path` as read from the
 * repository's root, without its leading `/`): a page or file under the source folder, or a
 * file in its public folder; undefined when the doc is in no site or the site has neither.
 */
export function vitePressTarget(
  sites: readonly VitePressSite[],
  isFile: (path: string) => boolean,
  doc: string,
  path: string,
): string | undefined {
  // The innermost site holding the doc builds it.
  let site: VitePressSite | undefined;
  for (const s of sites)
    if (
      (s.srcDir === '' || doc.startsWith(`${s.srcDir}/`)) &&
      (site === undefined || s.srcDir.length > site.srcDir.length)
    )
      site = s;
  if (site === undefined) return undefined;
  const page = posix.join(site.srcDir, path);
  const built = (c: string) => !site.excluded(site.srcDir === '' ? c : c.slice(site.srcDir.length + 1));
  const candidates = [page, `${page}.md`, posix.join(page, 'index.md')].filter(built);
  if (site.publicDir) candidates.push(posix.join(site.srcDir, 'public', path));
  return candidates.find((c) => isFile(c));
}

/** A Docusaurus site: `docusaurus.config.*` in its folder, serving `<site>/static/` at the site's root. */
export interface DocusaurusSite {
  /** Root-relative; '' is the root. */
  siteDir: string;
}

const DOCUSAURUS_CONFIG = /(^|\/)docusaurus\.config\.(?:js|mjs|cjs|ts|mts|cts)$/;

/**
 * The Docusaurus sites in `files` whose static folder is the default `static/`: a config
 * that sets `staticDirectories` is not read (a doubt reports the link).
 */
export function readDocusaurusSites(root: string, files: readonly string[]): DocusaurusSite[] {
  return readConfigs(
    root,
    files,
    (file) => DOCUSAURUS_CONFIG.test(file),
    (file, text) => (/\bstaticDirectories\b/.test(text) ? undefined : { siteDir: dirOf(file) }),
  );
}

/**
 * The file a Docusaurus site serves for a root-relative link written in a doc inside the
 * site's folder (`/images/a.png` is `<site>/static/images/a.png`); undefined otherwise. A doc
 * outside the site's folder (a docs plugin's `path: '../docs'`) is read as written.
 */
export function docusaurusStaticTarget(
  sites: readonly DocusaurusSite[],
  isFile: (path: string) => boolean,
  doc: string,
  path: string,
): string | undefined {
  for (const { siteDir } of sites) {
    if (siteDir !== '' && !doc.startsWith(`${siteDir}/`)) continue;
    const found = posix.join(siteDir, 'static', path);
    if (isFile(found)) return found;
  }
  return undefined;
}

/** A Jekyll site: `_config.yml` in its source folder, which Jekyll serves at the site's root. */
export interface JekyllSite {
  /** Root-relative; '' is the root. */
  siteDir: string;
  /** The config's `exclude:` and Jekyll's default exclusions, matched site-relative. */
  excluded: Ignore;
}

/** What Jekyll leaves out of every build (its docs' default `exclude:` list). */
const JEKYLL_DEFAULT_EXCLUDE = [
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

/**
 * The config's `exclude:` entries and Jekyll's defaults, as gitignore patterns: they match at
 * any depth, wider than Jekyll's source-relative ones, so a doubt reports the link. Undefined
 * when the config does not parse or its `exclude` is not a list of strings.
 */
function jekyllExclusions(text: string): Ignore | undefined {
  let config: unknown;
  try {
    config = parseYaml(text);
  } catch {
    return undefined;
  }
  const exclude =
    config !== null && typeof config === 'object'
      ? (config as Record<string, unknown>)['exclude']
      : undefined;
  if (
    exclude !== undefined &&
    exclude !== null &&
    !(Array.isArray(exclude) && exclude.every((e) => typeof e === 'string'))
  )
    return undefined;
  return ignore().add([...JEKYLL_DEFAULT_EXCLUDE, ...((exclude as string[] | null | undefined) ?? [])]);
}

/**
 * Whether Jekyll builds the file at `rel` (site-relative): not a name starting with `_`, `.`
 * or `#` or ending in `~` anywhere on its path (`_posts/…`, `_includes/…`: Jekyll reads those,
 * it does not copy them; a config's `include:` is not read, so a doubt reports the link), and
 * not excluded.
 */
function jekyllServes(site: JekyllSite, rel: string): boolean {
  if (rel.split('/').some((seg) => /^[_.#]/.test(seg) || seg.endsWith('~'))) return false;
  return !site.excluded.ignores(rel);
}

const JEKYLL_CONFIG = /(^|\/)_config\.ya?ml$/;
/**
 * A `baseurl` other than empty or `/`: the site is served under that path (a GitHub project
 * site's `/repo`), so a link written `/assets/x` leaves it and is broken there too.
 */
const SERVED_UNDER_A_PATH = /^[ \t]*baseurl[ \t]*:[ \t]*(?!(?:["']\/?["']|\/)?[ \t]*(?:#.*)?$)\S/m;
/** A top-level `url:` on a domain of its own (not `*.github.io`), with no path. */
const OWN_DOMAIN =
  /^url[ \t]*:[ \t]*(["']?)https?:\/\/(?![^/"'\s]*\.github\.io\b)[^/"'\s]+\/?\1[ \t]*(?:#.*)?$/m;
/** Folders only Jekyll's source layout has beside its `_config.yml`. */
const JEKYLL_FOLDERS = ['_layouts', '_includes', '_posts', '_sass', '_data'];

/**
 * The Jekyll sites in `files`: a `_config.yml` whose folder has one of Jekyll's own folders
 * (`_layouts/`, `_includes/`, `_posts/`, `_sass/`, `_data/`) or whose text names Jekyll (Hexo
 * and others use the file name too). A config that sets `source:`, or a `baseurl` that serves
 * the site under a path, is not read, nor one with neither a domain of its own nor a `baseurl`
 * of its own (GitHub Pages serves a project site under `/<repo>`): a doubt reports the link.
 * Nor is one at the root, where a `/`-rooted link is read from there anyway.
 */
export function readJekyllSites(root: string, files: readonly string[]): JekyllSite[] {
  const folders = new Set(files.map((f) => dirOf(f)));
  const fileSet = new Set(files);
  // GitHub Pages gives a project site without a domain of its own the baseurl `/<repo>`, so a
  // site is taken as served at its root only with a domain of its own (a CNAME beside its
  // config or at the repository's root, or a top-level `url:` on a host other than
  // github.io, with no path), or a top-level baseurl the config sets itself.
  const servedAtTheRoot = (siteDir: string, text: string): boolean =>
    fileSet.has(`${siteDir}/CNAME`) ||
    fileSet.has('CNAME') ||
    /^baseurl[ \t]*:/m.test(text) ||
    OWN_DOMAIN.test(text);
  const hasJekyllFolder = (siteDir: string): boolean =>
    [...folders].some((d) =>
      JEKYLL_FOLDERS.some((name) => d === `${siteDir}/${name}` || d.startsWith(`${siteDir}/${name}/`)),
    );
  return readConfigs(
    root,
    files,
    (file) => JEKYLL_CONFIG.test(file) && dirOf(file) !== '',
    (file, text) => {
      if (
        /^\s*source\s*:/m.test(text) ||
        SERVED_UNDER_A_PATH.test(text) ||
        !servedAtTheRoot(dirOf(file), text) ||
        (!hasJekyllFolder(dirOf(file)) && !/\bjekyll\b/i.test(text))
      )
        return undefined;
      const excluded = jekyllExclusions(text);
      return excluded === undefined ? undefined : { siteDir: dirOf(file), excluded };
    },
  );
}

/**
 * The file a Jekyll site serves for a root-relative link written in a doc inside the site's
 * folder (`/assets/a.svg` in `aider/website/_posts/x.md` is `aider/website/assets/a.svg`:
 * Aider-AI/aider, 34 such links were "fixed" to `/aider/website/assets/…`, which breaks them on
 * the site); undefined otherwise. Only a file of that path counts (a page served under a
 * permalink or as `.html` is not looked for), and only one Jekyll builds: not under a `_`, `.` or
 * `#` name (`/_posts/x.md`, `/_includes/head.html` are read by Jekyll, not served), nor one its
 * config or defaults exclude (jekyllServes).
 */
export function jekyllTarget(
  sites: readonly JekyllSite[],
  isFile: (path: string) => boolean,
  doc: string,
  path: string,
): string | undefined {
  for (const site of sites) {
    const { siteDir } = site;
    if (!doc.startsWith(`${siteDir}/`)) continue;
    const found = posix.join(siteDir, path);
    if (
      found.startsWith(`${siteDir}/`) &&
      jekyllServes(site, found.slice(siteDir.length + 1)) &&
      isFile(found)
    )
      return found;
  }
  return undefined;
}
