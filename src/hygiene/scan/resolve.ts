import { posix } from 'node:path';
import type { DocRef } from './markdown.js';
import { dirOf, MARKDOWN_EXT, safeDecode } from './paths.js';
import type { RealPath } from './symlinks.js';

/** What resolution needs to know of a tree: the scan's listing, or a tree after a planned edit. */
export interface PathLookup {
  /** A file or folder at this root-relative path ('' is the root). */
  exists(path: string): boolean;
  isDir(path: string): boolean;
  /** The README GitHub renders for a folder, if the tree knows it (a fragment into a folder is checked there). */
  readmeOf?(dir: string): string | undefined;
  /** The path through symlinks to its real file, if the tree knows its symlinks (the scan's does). */
  realPathOf?(path: string): RealPath;
}

/** The anchors (heading slugs, HTML ids) of a scanned Markdown doc; undefined when it is not one. */
export type AnchorLookup = (path: string) => ReadonlySet<string> | undefined;

/** A reference resolved against a tree. */
export interface Resolved {
  /** Root-relative, normalised; '' is the root itself. */
  path: string;
  fragment: string | undefined;
  exists: boolean;
  /** Whether the written path was read from the root or from the doc's folder. */
  base: 'root' | 'doc';
  /**
   * Set when a symlink on the way leads out of the root or nowhere: the reference does not
   * resolve, and `path` stays as written. Otherwise `path` is the real file's.
   */
  brokenLink?: { reason: 'outside-root' | 'dangling'; link: string; target: string };
}

export type ReferenceCheck =
  /** External, empty, or a code path that does not look like one of this repository's. */
  | { status: 'not-checked' }
  | { status: 'resolves'; resolved: Resolved }
  | { status: 'missing-path'; resolved: Resolved }
  | { status: 'missing-fragment'; resolved: Resolved };

/** A URL (a scheme, or `//host`): not a path in the project. */
export const EXTERNAL = /^[a-z][a-z0-9+.-]*:|^\/\//i;
/** GitHub's line anchors (`#L10`, `#L10-L20`) are not headings. */
const LINE_FRAGMENT = /^L\d+(?:C\d+)?(?:-L\d+(?:C\d+)?)?$/;

/**
 * Resolves a reference written in `docPath` against `tree`, as GitHub does: relative to the
 * doc's folder, or to the root for a leading `/`; a backticked code path is tried from the root
 * first. Returns undefined for what is not checked (external or empty). Whether an unresolved
 * code path is reported is the `broken_reference` signal's call (it may name another repository).
 */
export function resolveReference(tree: PathLookup, docPath: string, ref: DocRef): Resolved | undefined {
  const written = ref.target.trim();
  if (written === '' || EXTERNAL.test(written)) return undefined;
  const hash = written.indexOf('#');
  const beforeHash = hash === -1 ? written : written.slice(0, hash);
  const fragment = hash === -1 ? undefined : written.slice(hash + 1);
  const query = beforeHash.indexOf('?');
  const rawPath = safeDecode(query === -1 ? beforeHash : beforeHash.slice(0, query));
  if (rawPath === '') return { path: docPath, fragment, exists: true, base: 'doc' };
  const candidates: { path: string; base: 'root' | 'doc' }[] = [];
  if (rawPath.startsWith('/')) candidates.push({ path: posix.normalize(rawPath.slice(1)), base: 'root' });
  else if (ref.kind === 'code-path' && !rawPath.startsWith('./') && !rawPath.startsWith('../')) {
    candidates.push({ path: posix.normalize(rawPath), base: 'root' });
    candidates.push({ path: posix.join(dirOf(docPath), rawPath), base: 'doc' });
  } else candidates.push({ path: posix.join(dirOf(docPath), rawPath), base: 'doc' });
  let first: Resolved | undefined;
  for (const c of candidates) {
    let path = c.path.replace(/\/+$/, '');
    if (path === '.') path = '';
    if (path === '..' || path.startsWith('../')) continue;
    const r = resolvedAt(tree, path, fragment, c.base);
    if (r.exists) return r;
    first ??= r;
  }
  return first;
}

/** One candidate path resolved: to its real file through symlinks, never through a broken link. */
function resolvedAt(
  tree: PathLookup,
  path: string,
  fragment: string | undefined,
  base: Resolved['base'],
): Resolved {
  const real = tree.realPathOf?.(path);
  if (real === undefined) return { path, fragment, exists: tree.exists(path), base };
  if ('unresolved' in real) {
    const { unresolved: reason, link, target } = real;
    return { path, fragment, exists: false, base, brokenLink: { reason, link, target } };
  }
  return { path: real.path, fragment, exists: tree.exists(real.path), base };
}

/**
 * Whether a resolved reference's fragment names an anchor of its target. Undefined when there
 * is nothing to check: no fragment, a line anchor, or a target that is not a scanned Markdown doc.
 */
export function fragmentResolves(
  resolved: Resolved,
  anchorsOf: AnchorLookup,
  tree?: PathLookup,
): boolean | undefined {
  const { fragment } = resolved;
  if (fragment === undefined || fragment === '' || LINE_FRAGMENT.test(fragment)) return undefined;
  const target = fragmentTarget(resolved, tree);
  if (target === undefined) return undefined;
  const anchors = anchorsOf(target);
  if (!anchors) return undefined;
  const wanted = safeDecode(fragment)
    .toLowerCase()
    .replace(/^user-content-/, '');
  return anchors.has(wanted);
}

/** The doc whose headings a fragment names: the target, or the README GitHub renders for a folder. */
export function fragmentTarget(resolved: Resolved, tree?: PathLookup): string | undefined {
  if (MARKDOWN_EXT.test(resolved.path) && !tree?.isDir(resolved.path)) return resolved.path;
  if (tree?.isDir(resolved.path)) return tree.readmeOf?.(resolved.path);
  return undefined;
}

/** Where a backticked path may point: from the root, then from the doc's folder. */
export function codePathCandidates(docPath: string, target: string): string[] {
  const raw = safeDecode(target.replace(/[?#].*$/, ''));
  if (raw.startsWith('/')) return [posix.normalize(raw.slice(1))];
  if (raw.startsWith('./') || raw.startsWith('../')) return [posix.join(dirOf(docPath), raw)];
  return [posix.normalize(raw), posix.join(dirOf(docPath), raw)].filter((p) => !p.startsWith('../'));
}

/**
 * Checks one reference against a tree, path and fragment: what the `broken_reference` signal
 * reports, and what a proposed link fix or a cleanup must keep true.
 */
export function checkReference(
  tree: PathLookup,
  anchorsOf: AnchorLookup,
  docPath: string,
  ref: DocRef,
): ReferenceCheck {
  const resolved = resolveReference(tree, docPath, ref);
  return checkResolved(resolved, anchorsOf, tree);
}

/** `checkReference` for a reference already resolved. */
export function checkResolved(
  resolved: Resolved | undefined,
  anchorsOf: AnchorLookup,
  tree?: PathLookup,
): ReferenceCheck {
  if (!resolved) return { status: 'not-checked' };
  if (!resolved.exists) return { status: 'missing-path', resolved };
  if (fragmentResolves(resolved, anchorsOf, tree) === false) return { status: 'missing-fragment', resolved };
  return { status: 'resolves', resolved };
}

/**
 * `path` written the way `ref` was written in `docPath`: from the root or relative, `./` kept,
 * percent-encoded if the original was, with the original `?query#fragment`.
 */
export function writeTargetLike(docPath: string, ref: DocRef, resolved: Resolved, path: string): string {
  const written = ref.target;
  const cut = written.search(/[?#]/);
  const suffix = cut === -1 ? '' : written.slice(cut);
  const before = cut === -1 ? written : written.slice(0, cut);
  let out: string;
  if (before.startsWith('/')) out = `/${path}`;
  else if (resolved.base === 'root') out = path;
  else {
    out = posix.relative(dirOf(docPath), path);
    if (before.startsWith('./') && !out.startsWith('../')) out = `./${out}`;
  }
  if (before !== safeDecode(before)) out = encodeURI(out);
  return out + suffix;
}
