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
