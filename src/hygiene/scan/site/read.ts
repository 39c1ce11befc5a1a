/**
 * Config readers shared by the site models: real parsers for YAML, TOML and JSON, and the one
 * reading of a JS/TS config the models allow: a setting written once as a plain literal.
 */
import { posix } from 'node:path';
import { slug } from 'github-slugger';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { overYamlLimit, YAML_CONFIG_LIMIT, YAML_FRONTMATTER_LIMIT } from '../../../core/yaml-bounds.js';
import { dirOf, escapeRegExp } from '../paths.js';
import type { GeneratorId, Site, SiteFiles } from './types.js';

export type Mapping = Record<string, unknown>;
export const isMapping = (value: unknown): value is Mapping =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A config's text as a mapping, by its extension; undefined when it does not parse to one.
 * YAML or TOML over its bound (`core/yaml-bounds.ts`; a layout's `front.yml` is
 * frontmatter) is not parsed: both parsers spend seconds per megabyte of small arrays.
 */
export function parseConfig(file: string, written: string): Mapping | undefined {
  // A byte-order mark (docfx.json in dotnet/docfx) is no part of the config.
  const text = written.replace(/^\uFEFF/, '');
  try {
    const ext = file.slice(file.lastIndexOf('.') + 1).toLowerCase();
    const limit = file === 'front.yml' ? YAML_FRONTMATTER_LIMIT : YAML_CONFIG_LIMIT;
    if (ext !== 'json' && overYamlLimit(text, limit)) return undefined;
    // Generator configs carry tags of their own (`!!python/name:…`, `!ENV`): read as plain values.
    const value: unknown =
      ext === 'toml'
        ? parseToml(text)
        : ext === 'json'
          ? JSON.parse(text)
          : parseYaml(text, { logLevel: 'silent', uniqueKeys: false });
    return isMapping(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * How a JS/TS config sets `key`: 'unset' when it never names it; the string literal when it
 * names it once, set to a plain quoted string; undefined otherwise (computed, set twice): the
 * model reads a JS/TS config only where it is a plain literal.
 */
export function literalSetting(text: string, key: string): string | 'unset' | undefined {
  const mentions = text.match(new RegExp(`\\b${escapeRegExp(key)}\\b`, 'g'))?.length ?? 0;
  if (mentions === 0) return 'unset';
  const set = new RegExp(`\\b${escapeRegExp(key)}\\s*:\\s*(['"\`])([^'"\`\\n\\\\$]*)\\1\\s*[,}\\n]`).exec(
    text,
  );
  return mentions === 1 && set !== null ? set[2]! : undefined;
}

/** Whether `path` is `folder` or lies under it ('' holds everything). */
export const isUnder = (path: string, folder: string): boolean =>
  folder === '' || path === folder || path.startsWith(`${folder}/`);

/** `path` inside `folder` ('' for the folder itself). */
/** The folder among `roots` that `source` lies in, the deepest when they nest. */
export function deepestRoot<R extends { dir: string }>(roots: readonly R[], source: string): R | undefined {
  let best: R | undefined;
  for (const r of roots)
    if (isUnder(source, r.dir) && (best === undefined || r.dir.length > best.dir.length)) best = r;
  return best;
}

export const inside = (path: string, folder: string): string =>
  folder === '' ? path : path === folder ? '' : path.slice(folder.length + 1);

/** A folder written in a config, from the config's folder; undefined when it leaves the project. */
export function folderFrom(configDir: string, written: string): string | undefined {
  if (posix.isAbsolute(written)) return undefined;
  const folder = posix.normalize(posix.join(configDir, written)).replace(/\/+$/, '');
  if (folder === '..' || folder.startsWith('../')) return undefined;
  return folder === '.' ? '' : folder;
}

/** The folder of a config file (root-relative). */
export const siteDirOf = (file: string): string => dirOf(file);

/** A value as a string list (a single string is a list of one); undefined when it is neither. */
export function stringList(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  return undefined;
}

const ATTR_HEADING = /^ {0,3}#{1,6}\s.*\{([^}]*)\}\s*#*\s*$/;

/**
 * The explicit `{#id}` anchors of a page's ATX headings (lowercased, as anchors are compared):
 * mdBook, Hugo, Docusaurus, MkDocs `attr_list` and Pandoc read them; GitHub does not.
 */
export function explicitIds(lines: readonly string[]): Set<string> {
  const ids = new Set<string>();
  for (const line of lines) {
    const attrs = ATTR_HEADING.exec(line)?.[1];
    if (attrs === undefined) continue;
    for (const m of attrs.matchAll(/(?:^|\s)#([^\s=}]+)/g)) ids.add(m[1]!.toLowerCase());
  }
  return ids;
}

/**
 * The ids Goldmark gives a page's definition terms with `autoDefinitionTermID` (Hugo): a term is
 * a line followed by a `: definition` line, its id its text's slug (as a heading's).
 */
export function definitionTermIds(lines: readonly string[]): Set<string> {
  const ids = new Set<string>();
  let fence: string | undefined;
  for (let i = 0; i + 1 < lines.length; i++) {
    const line = lines[i]!;
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    if (fence !== undefined || line.trim() === '' || !/^:[ \t]/.test(lines[i + 1]!)) continue;
    const text = line
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[`*_]/g, '')
      .trim();
    if (text !== '' && !text.startsWith(':')) ids.add(slug(text));
  }
  return ids;
}

/** A cache per tree: an index a model builds once for the files it is asked about. */
export function perListing<T>(build: (files: SiteFiles) => T): (files: SiteFiles) => T {
  const cache = new WeakMap<SiteFiles, T>();
  return (files) => {
    let value = cache.get(files);
    if (value === undefined) {
      value = build(files);
      cache.set(files, value);
    }
    return value;
  };
}

/** A site whose config the model cannot read: every link in its folder is unverifiable. */
export function unreadableSite(
  generator: GeneratorId,
  config: string,
  contentRoots: readonly string[],
  reason: string,
): Site {
  return {
    generator,
    config,
    contentRoots,
    unreadable: reason,
    explicitIds: false,
    fileLinks: false,
    pageUrl: () => undefined,
    serves: () => ({ unverifiable: reason }),
  };
}

/** A page's name without its Markdown extension. */
export const stem = (name: string): string => name.replace(/\.(?:md|markdown|mdx|html?)$/i, '');

/**
 * Each page's URL (as `key` writes it) → its source, built once per tree; the first source
 * claims a URL, as a generator warns of the second. `more` adds what else the site serves at
 * a URL (redirects, routes of other pages).
 */
export function pagesByUrl(
  pageUrl: (source: string, files: SiteFiles) => string | undefined,
  key: (url: string) => string = (url) => url,
  more?: (urls: Map<string, string>, files: SiteFiles) => void,
): (files: SiteFiles) => Map<string, string> {
  return perListing((files) => {
    const urls = new Map<string, string>();
    for (const f of files.files) {
      const url = pageUrl(f, files);
      if (url !== undefined && !urls.has(key(url))) urls.set(key(url), f);
    }
    more?.(urls, files);
    return urls;
  });
}
