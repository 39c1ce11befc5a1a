import { sep } from 'node:path';

/** Folder names that mark a doc as living in a temporary or retired place. */
export const STALE_FOLDERS: ReadonlySet<string> = new Set([
  'plans',
  'proposals',
  'drafts',
  'wip',
  'tmp',
  'scratch',
  'old',
  'deprecated',
]);
/** Folder names that mark what is under them as archived. */
export const ARCHIVE_SEGMENTS: ReadonlySet<string> = new Set([
  'archive',
  'archived',
  '_archive',
  '.archive',
  'attic',
]);
export const MARKDOWN_EXT = /\.(?:md|mdc|markdown|mdx)$/i;

/** The folder of a root-relative path ('' for the root). */
export function dirOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

/** The last segment of a root-relative path. */
export function baseOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

export function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

/** `decodeURIComponent`, or the text itself when it is not valid percent-encoding. */
export function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** True when a segment of `path` names an archive folder. */
export function isArchivePath(path: string): boolean {
  return path.split('/').some((s) => ARCHIVE_SEGMENTS.has(s.toLowerCase()));
}

/** Code-unit order: stable across locales. */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A target's path as written: no leading `./`, `../` or `/`, no fragment or query. */
export const writtenPath = (target: string): string =>
  target
    .split(/[#?]/, 1)[0]!
    .replace(/^(\.{1,2}\/)+/, '')
    .replace(/^\/+/, '');

/** `text` as a JavaScript regular expression that matches exactly it. */
export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Folder names under which a site keeps its translations. */
const TRANSLATION_FOLDERS: ReadonlySet<string> = new Set([
  'i18n',
  'l10n',
  'locales',
  'locale',
  'translations',
]);
/**
 * Language codes a docs folder or a Hugo-style file suffix (`page.fr.md`) is named after: the
 * languages documentation sites are commonly translated into, with an optional region
 * (`zh-cn`, `pt_BR`, `zh-Hans`).
 */
const LANGUAGES: ReadonlySet<string> = new Set(
  (
    'en zh ja ko fr de es pt ru it uk pl tr vi id nl ar fa he hi th cs sv da fi nb no hu ro el bn ' +
    'ta ur ms sk sl sr hr bg lt lv et ca eu gl ka hy az kk uz'
  ).split(' '),
);
const LOCALE = /^([a-z]{2})(?:[-_](?:[a-z]{2}|hans|hant|latn|cyrl))?$/i;
const VERSION_SEGMENT =
  /^(?:versioned_docs|versioned_sidebars|versions?|v?\d+(?:\.(?:\d+|x))*|version-.+|release-\d.*|\d+\.x)$/i;

const localeCode = (text: string): string | undefined => {
  const m = LOCALE.exec(text);
  return m !== null && LANGUAGES.has(m[1]!.toLowerCase()) ? text.toLowerCase().replace('_', '-') : undefined;
};

/**
 * Which translation and which version of the docs a path belongs to: its locale folders
 * (`i18n/`, `content/fr/`, `docs/zh-cn/`) or locale file suffix (`index.fr.md`), and its version
 * folders (`versioned_docs/version-30.4/`, `v2/`, `1.x/`), each '' when it has none. Two
 * paths of different variants are the same page in another language or release.
 */
export function variantOf(path: string): { locale: string; version: string } {
  const segments = path.split('/');
  const name = segments.pop() ?? '';
  const locale: string[] = [];
  const version: string[] = [];
  for (const s of segments) {
    const lower = s.toLowerCase();
    if (TRANSLATION_FOLDERS.has(lower)) locale.push(lower);
    else if (localeCode(s) !== undefined) locale.push(localeCode(s)!);
    else if (VERSION_SEGMENT.test(s)) version.push(lower);
  }
  const suffix = /\.([A-Za-z_-]{2,7})\.[^.]+$/.exec(name)?.[1];
  if (suffix !== undefined && localeCode(suffix) !== undefined) locale.push(localeCode(suffix)!);
  return { locale: locale.join('/'), version: version.join('/') };
}

/**
 * A placeholder written as a path, not a path: `design/NNNN-shortname.md`, a repro script
 * named with a run of capital X's, `content/en/blog/YYYY/post-name.md`, `<name>/x.md`, `{id}.json`, `my-plugin/`, `your-app/`,
 * `example.md`, `foo/bar.ts`, `file-name.ts`, `path/to/x`, or a lone file name with a leading `_`
 * (`_linux.cc`: the suffix of a family of files).
 */
export function isPlaceholderPath(path: string): boolean {
  if (
    /[<>{}$]|\.\.\.|…/.test(path) ||
    /X{3,}|N{3,}|Y{4}|\bMM\b|\bDD\b/.test(path) ||
    /\b(?:x{3,}|n{4,})\b/.test(path)
  )
    return true;
  if (/(?:^|\/)path\/to\//i.test(path) || /^_[^/]*$/.test(path)) return true;
  // A version placeholder: `theme/vX.Y.Z`, `x.y`.
  if (/(?:^|[^A-Za-z])[vV]?(?:X\.Y|x\.y)(?:\.[Zz])?(?![A-Za-z])/.test(path)) return true;
  return path.split('/').some((segment) => {
    const lower = segment.toLowerCase();
    const stem = lower.replace(/\..*$/, '');
    return (
      /^(?:my|your|some)-/.test(stem) ||
      /^(?:example|foo|bar|baz|qux|file[-_]?name|post[-_]name|short[-_]?name|some[-_]?file|placeholder)$/.test(
        stem,
      ) ||
      /(?:^|[-_.])(?:foo|example)(?:[-_.]|$)/.test(lower)
    );
  });
}

/**
 * Folder names so common that "this repository has one" says nothing about whether a
 * backticked path under it was meant here: `hack/update-gofmt.sh` in kubernetes/community's
 * contributor guide names the main kubernetes repository's script, not its own `hack/`.
 */
export const COMMON_FOLDERS: ReadonlySet<string> = new Set(
  (
    'hack scripts script docs doc src lib test tests tools tool bin build cmd pkg examples example ' +
    'config configs internal api app apps assets static public vendor third_party hooks .github ci ' +
    'dist utils util web site website content data contrib packages plugins staging cluster ' +
    // a static site's own folders, which every Hugo, Jekyll or Astro site has
    'layouts archetypes themes partials components pages styles css js images img _includes _layouts _data _sass'
  ).split(' '),
);

/** Folders that hold an example or tutorial project (a book's `listings/`), not the repository's own code. */
export const EXAMPLE_FOLDERS: ReadonlySet<string> = new Set(
  'listings examples example samples sample tutorial tutorials demo demos snippets fixtures testdata'.split(
    ' ',
  ),
);

/** Whether a path lies in an example or tutorial project (`listings/ch07/src/lib.rs`). */
export const isExamplePath = (path: string): boolean =>
  path.split('/').some((s) => EXAMPLE_FOLDERS.has(s.toLowerCase()));

const TEST_FOLDER = /^(?:tests?|__tests__|test[-_]?data|fixtures?|__fixtures__|__snapshots__|snapshots)$/i;

/**
 * Whether a Markdown file is input to a tool's tests, not a doc: under a test, fixture or
 * snapshot folder (a README or CONTRIBUTING there is about the tests, and is a doc), or a
 * Verify snapshot (`*.verified.md`). Its links are written to exercise the tool under test
 * (dotnet/docfx: 227 links in `test/**` sample docs and snapshots, some broken on purpose), so
 * none is reported broken, and no signal on it is made a proposal (docs/scanner-and-classifiers.md,
 * "Test data").
 */
export function isTestData(path: string): boolean {
  const name = baseOf(path);
  if (/\.(?:verified|received)\.mdx?$/i.test(name)) return true;
  if (/^(?:readme|contributing)\.(?:md|markdown|mdx)$/i.test(name)) return false;
  return dirOf(path)
    .split('/')
    .some((segment) => TEST_FOLDER.test(segment));
}

/** Folders of records: what was planned, decided or announced, naming the paths of its day. */
const RECORD_FOLDERS: ReadonlySet<string> = new Set(
  (
    'design designs rfc rfcs adr adrs decisions proposals plans ideas newsletters newsletter historical ' +
    'history specification specifications retrospectives postmortems release-notes releases changelogs'
  ).split(' '),
);

/**
 * Whether a doc is a record (a design, RFC, ADR, plan, proposal, newsletter, release notes or
 * changelog, or a dated doc): it names the paths of the day it was written, and a path gone
 * since is history, not a mistake to fix (cloudflare/agents' `design/rfc-think-actions.md`).
 */
export function isRecordDoc(path: string): boolean {
  const name = baseOf(path).toLowerCase();
  if (/^(?:rfc|adr)[-_\d]|^(?:changelog|changes|history|release[-_]?notes)\b/.test(name)) return true;
  if (/(?:^|[^0-9])(?:19|20)\d{2}[-_.]?(?:0[1-9]|1[0-2])(?![0-9])/.test(name)) return true;
  return dirOf(path)
    .split('/')
    .some((segment) => RECORD_FOLDERS.has(segment.toLowerCase()));
}
