import type { ScanFacts } from '../facts.js';
import { baseOf, dirOf, STALE_FOLDERS } from '../paths.js';
import { readSites, siteOf } from '../site/index.js';
import type { SiteFiles } from '../site/types.js';
import type { SignalModule } from './types.js';

const DATE_IN_NAME =
  /(?:^|[^0-9])((?:19|20)\d{2})[-_.]?(0[1-9]|1[0-2])(?:[-_.]?(0[1-9]|[12]\d|3[01]))?(?![0-9])/;
const VERSIONED_NAME = /^(.*?)[-_.]?v(\d+(?:\.\d+)*)$/i;
/**
 * Folders whose docs are dated by convention, as published posts (Jekyll's `_posts/` requires
 * `YYYY-MM-DD-` names; Docusaurus and Hugo blogs, news): a date there says when the post was
 * published, not that it has expired (prettier/prettier's 43 `website/blog/` posts were each
 * proposed for deletion as an unlinked doc in a stale location).
 */
const DATED_BY_CONVENTION: ReadonlySet<string> = new Set(['blog', '_posts', 'posts', 'news']);

/**
 * A doc under a temporary folder, or named with a date (outside a blog's or news folder),
 * draft, old, or an older version than a sibling's. Hidden by default: on the precision bench
 * none of 35 judged was worth a maintainer's time (a `historical/`, `proposals/` or `wip/`
 * folder kept on purpose, versioned release notes, dated design records); a repository whose
 * temporary folders do expire turns it on with `signals: {stale_name_location: on}`.
 */
export const staleNameLocation: SignalModule = {
  name: 'stale_name_location',
  scope: 'docs',
  description:
    'lives under plans/, drafts/, wip/ …, or its name carries a date, draft, old or an older version',
  shownByDefault: false,
  needs: [],
  collect({ facts }, emit) {
    const newerSibling = newerSiblings(facts.allDocs);
    const servedBy = publishedPages(facts);
    for (const doc of facts.docs.values()) {
      const inboundRefs = facts.inbound.get(doc.path)?.size ?? 0;
      const segments = doc.path.split('/');
      const name = segments[segments.length - 1]!;
      const stemWords = name
        .toLowerCase()
        .replace(/\.[^.]*$/, '')
        .split(/[^a-z0-9]+/);
      // A page a site serves is published: a name is never reason enough to delete it.
      const site = servedBy(doc.path);
      const push = (reason: string, detail: string, extra: Record<string, unknown> = {}) =>
        emit(doc.path, {
          detail: site === undefined ? detail : `${detail}; the ${site} site publishes it`,
          data: {
            reason,
            ...extra,
            inbound_references: inboundRefs,
            ...(site !== undefined ? { served_by: site } : {}),
          },
        });
      const folderAt = segments.slice(0, -1).findIndex((s) => STALE_FOLDERS.has(s.toLowerCase()));
      if (folderAt !== -1) {
        const folder = segments.slice(0, folderAt + 1).join('/');
        push('location', `lives under "${folder}/"`, { folder });
      }
      const date = DATE_IN_NAME.exec(name);
      const published = segments.slice(0, -1).some((s) => DATED_BY_CONVENTION.has(s.toLowerCase()));
      if (date && !published)
        push('date-in-name', `its name carries a date (${date[0].replace(/^[^0-9]/, '')})`);
      // The word as the name's first or last word (`old-setup.md`, `api-draft.md`), not inside a
      // longer slug (`update-old-x-ignores.md` is about old ignores, not an old page).
      // A name written as a symbol (`Draft.md`, Hugo's page on the `.Draft` method) is a page
      // about that symbol.
      const symbolName = /^[A-Z][a-z]+(?:[A-Z][a-z]*)*\.[^.]+$/.test(name);
      const atEdge = (word: string) =>
        !symbolName && (stemWords[0] === word || stemWords[stemWords.length - 1] === word);
      if (atEdge('draft')) push('draft', 'its name says draft');
      if (atEdge('old')) push('old', 'its name says old');
      const newer = newerSibling.get(doc.path);
      if (newer)
        push('older-version', `a newer version sits beside it: "${newer}"`, { newer_sibling: newer });
    }
  },
};

/** Doc → the generator of the site that serves it as a page (undefined: no site serves it). */
function publishedPages(facts: ScanFacts): (doc: string) => string | undefined {
  const { tree } = facts;
  const sites = readSites(tree.root, tree.files);
  if (sites.length === 0) return () => undefined;
  const files: SiteFiles = {
    files: tree.files,
    isFile: (p) => tree.isFile(p),
    frontmatter: (p) => facts.docs.get(p)?.parsed.frontmatter.data,
  };
  return (doc) => siteOf(sites, files, doc)?.generator;
}

/** Doc → the newest sibling of the same versioned name (`guide-v1.md` → `guide-v2.md`). */
function newerSiblings(allDocs: readonly string[]): Map<string, string> {
  const versionGroups = new Map<string, { path: string; version: number[] }[]>();
  for (const path of allDocs) {
    const name = baseOf(path);
    const dot = name.lastIndexOf('.');
    const stem = dot > 0 ? name.slice(0, dot) : name;
    const m = VERSIONED_NAME.exec(stem);
    if (!m) continue;
    const key = `${dirOf(path)}\0${m[1]!.toLowerCase()}\0${name.slice(dot)}`;
    const version = m[2]!.split('.').map(Number);
    const list = versionGroups.get(key);
    if (list) list.push({ path, version });
    else versionGroups.set(key, [{ path, version }]);
  }
  const newerSibling = new Map<string, string>();
  for (const list of versionGroups.values()) {
    if (list.length < 2) continue;
    const newest = [...list].sort((a, b) => compareParts(b.version, a.version))[0]!;
    for (const item of list)
      if (compareParts(item.version, newest.version) < 0) newerSibling.set(item.path, newest.path);
  }
  return newerSibling;
}

function compareParts(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
