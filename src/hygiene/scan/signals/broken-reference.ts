import { ignoredByGit } from '../../../core/git.js';
import type { ScanFacts } from '../facts.js';
import { unsafePathReason } from '../files.js';
import type { HistoryFacts } from '../history-facts.js';
import { renameMayBeSplit, renameTarget } from '../history-facts.js';
import { attrListIds, type LocaleFallback, readLocaleFallbacks, siteTarget } from '../locale-fallback.js';
import type { DocRef } from '../markdown.js';
import { baseOf, dirOf, safeDecode } from '../paths.js';
import {
  checkResolved,
  codePathCandidates,
  fragmentTarget,
  type Resolved,
  writeTargetLike,
} from '../resolve.js';
import {
  type DocusaurusSite,
  docusaurusStaticTarget,
  type JekyllSite,
  jekyllTarget,
  readDocusaurusSites,
  readJekyllSites,
  readVitePressSites,
  type VitePressSite,
  vitePressTarget,
} from '../site-roots.js';
import { type MovedReference, type MovedSignal, markMoveEvidence } from '../written-when.js';
import { collectCodeReferences } from './code-references.js';
import type { SignalModule } from './types.js';

/** Why an unresolved backticked path is taken for one of this repository's. */
type CodePathEvidence = 'agent-context' | 'parent-folder' | 'history';

/**
 * A backticked path often names a file of another repository, a placeholder or a URL path. In
 * agent context every unresolved one is reported (it misleads agents); elsewhere only when its
 * folder exists here or history shows the path existed here.
 */
function codePathEvidence(
  facts: ScanFacts,
  history: HistoryFacts,
  docPath: string,
  ref: DocRef,
): CodePathEvidence | undefined {
  if (facts.agentContext.has(docPath)) return 'agent-context';
  const candidates = codePathCandidates(docPath, ref.target);
  if (candidates.some((p) => dirOf(p) !== '' && facts.tree.isDir(dirOf(p)))) return 'parent-folder';
  if (candidates.some((p) => history.existed.has(p) || history.renames.has(p))) return 'history';
  return undefined;
}

/**
 * A link, image, definition, HTML href/src, fragment, `@import` or code path that does not
 * resolve; in agent context also code references the tree contradicts (code-references.ts).
 */
export const brokenReference: SignalModule = {
  name: 'broken_reference',
  scope: 'docs',
  description:
    'a reference whose path or fragment does not resolve, with a suggested target when one is known',
  needs: ['renames'],
  async collect({ facts, history }, emit) {
    const { tree } = facts;
    const unresolved: {
      doc: string;
      ref: DocRef;
      check: { status: 'missing-path' | 'missing-fragment'; resolved: Resolved };
    }[] = [];
    const fallbacks = readLocaleFallbacks(tree.root, tree.files);
    const vitePress = readVitePressSites(tree.root, tree.files);
    const docusaurus = readDocusaurusSites(tree.root, tree.files);
    const jekyll = readJekyllSites(tree.root, tree.files);
    const idsOf = new Map<string, Set<string>>();
    for (const doc of facts.docs.values())
      for (const { ref, r } of facts.resolvedRefs.get(doc.path) ?? []) {
        const check = checkResolved(r, facts.anchorsOf, tree);
        if (check.status !== 'missing-path' && check.status !== 'missing-fragment') continue;
        if (
          resolvesOnTheSite(
            facts,
            fallbacks,
            { vitePress, docusaurus, jekyll },
            idsOf,
            doc.path,
            ref,
            check.resolved,
          )
        )
          continue;
        unresolved.push({ doc: doc.path, ref, check: { status: check.status, resolved: check.resolved } });
      }
    // A target git ignores is a build output (a generated reference page, say): it is
    // missing until the build runs, and no check of the tree can say whether it will be there.
    const ignored = await ignoredByGit(tree.root, [
      ...new Set(
        unresolved.flatMap(({ check }) =>
          check.status === 'missing-path' && check.resolved.brokenLink === undefined
            ? [check.resolved.path]
            : [],
        ),
      ),
    ]);
    const suggest = suggester(facts, history);
    // Emitted once the moves are checked: a move is proved only for a reference written
    // before it (written-when.ts).
    const found: MovedSignal[] = [];
    for (const { doc, ref, check } of unresolved) {
      if (check.status === 'missing-fragment') {
        found.push({
          doc,
          signal: {
            line: ref.line,
            detail: `fragment "#${check.resolved.fragment}" matches no heading in "${fragmentTarget(check.resolved, tree)}"`,
            data: { target: ref.target, kind: 'fragment' },
          },
        });
        continue;
      }
      const resolved = check.resolved;
      if (ignored.has(resolved.path)) continue;
      const evidence = ref.kind === 'code-path' ? codePathEvidence(facts, history, doc, ref) : undefined;
      if (ref.kind === 'code-path' && evidence === undefined) continue;
      const data: Record<string, unknown> = { target: ref.target, kind: ref.kind };
      if (evidence !== undefined) data['evidence'] = evidence;
      // A symlink out of the root or to nothing is never followed (docs/scanner-and-classifiers.md).
      if (resolved.brokenLink !== undefined) data['symlink'] = resolved.brokenLink.reason;
      const suggestion = suggest(doc, ref, resolved);
      if (suggestion !== undefined) Object.assign(data, suggestion.data);
      found.push({
        doc,
        signal: {
          line: ref.line,
          detail: `${ref.kind} target "${ref.target}" does not resolve${brokenLinkNote(resolved.brokenLink)}${
            suggestion !== undefined ? `; moved to "${suggestion.path}"?` : ''
          }`,
          data,
        },
        ...(data['suggested_by'] === 'rename-history'
          ? { moved: movedReference(history, doc, ref, resolved.path) }
          : {}),
      });
    }
    await markMoveEvidence(tree.root, facts, found);
    for (const { doc, signal } of found) emit(doc, signal);
    await collectCodeReferences({ facts, history }, emit);
  },
};

/**
 * Whether a site generator resolves the reference though the tree does not: a translated
 * page's link that mkdocs-static-i18n looks up in the default language (locale-fallback.ts).
 * The site takes the first file it finds, so a fragment is checked in that file only (its
 * headings' `{#id}` too, where `attr_list` is on): a translation's own page that lacks the
 * anchor is broken there too, whatever the default language's page has. Or a link written
 * with a leading `/` in a VitePress site's page, read from its source folder or served from
 * its public folder, or in a Docusaurus site's doc served from its `static/` folder
 * (site-roots.ts), or in a Jekyll site's doc read from the site's source folder; its
 * fragment is checked in the file found. A
 * backticked path is not a link the site resolves.
 */
function resolvesOnTheSite(
  facts: ScanFacts,
  fallbacks: readonly LocaleFallback[],
  sites: {
    vitePress: readonly VitePressSite[];
    docusaurus: readonly DocusaurusSite[];
    jekyll: readonly JekyllSite[];
  },
  /** `attrListIds` of the pages read so far. */
  idsOf: Map<string, Set<string>>,
  doc: string,
  ref: DocRef,
  resolved: Resolved,
): boolean {
  if (ref.kind === 'code-path' || resolved.brokenLink !== undefined) return false;
  const { vitePress, docusaurus, jekyll } = sites;
  const isFile = (p: string): boolean => facts.tree.isFile(p);
  // The reference read at the file the site found, fragment and all.
  const resolvesAt = (found: string): boolean =>
    checkResolved({ ...resolved, path: found, exists: true }, facts.anchorsOf, facts.tree).status ===
    'resolves';
  if (resolved.base === 'root' && (vitePress.length > 0 || docusaurus.length > 0 || jekyll.length > 0)) {
    const found =
      vitePressTarget(vitePress, isFile, doc, resolved.path) ??
      docusaurusStaticTarget(docusaurus, isFile, doc, resolved.path) ??
      jekyllTarget(jekyll, isFile, doc, resolved.path);
    if (found !== undefined && resolvesAt(found)) return true;
  }
  if (fallbacks.length === 0) return false;
  const site = siteTarget(fallbacks, isFile, doc, resolved);
  if (site === undefined) return false;
  const found = site.path;
  if (resolvesAt(found)) return true;
  const { fragment } = resolved;
  const lines = facts.docs.get(found)?.lines;
  if (!site.fallback.attrList || fragment === undefined || lines === undefined) return false;
  let ids = idsOf.get(found);
  if (ids === undefined) {
    ids = attrListIds(lines);
    idsOf.set(found, ids);
  }
  return ids.has(safeDecode(fragment).toLowerCase());
}

/**
 * Where a missing target went, when the evidence says: the rename history shows, or one
 * same-named file (nearestUnique), with how far the paths prove it (nameMatch).
 */
function suggester(
  facts: ScanFacts,
  history: HistoryFacts,
): (
  doc: string,
  ref: DocRef,
  resolved: Resolved,
) => { path: string; data: Record<string, unknown> } | undefined {
  const { tree } = facts;
  let byLowerName: Map<string, string[]> | undefined;
  return (doc, ref, resolved) => {
    const renamed = renameTarget(history.renames, resolved.path, (p) => tree.isFile(p));
    byLowerName ??= lowerNameIndex(tree.files);
    // Never the doc itself: a link to its own name means something else was meant.
    // Case is ignored only beside the missing file (a case-only rename); elsewhere a
    // name that differs in case is another file (OWNERS.md is not owners.md).
    const name = baseOf(resolved.path);
    const sameName = (byLowerName.get(name.toLowerCase()) ?? []).filter(
      (p) => p !== resolved.path && p !== doc && (baseOf(p) === name || dirOf(p) === dirOf(resolved.path)),
    );
    // A target history shows was deleted, not moved, was removed on purpose: a file
    // of the same name elsewhere is another document (it may have stood beside it).
    const deleted = renamed === undefined && history.existed.has(resolved.path);
    const found = renamed ?? (deleted ? undefined : nearestUnique(resolved.path, sameName));
    if (found === undefined) return undefined;
    const match = renamed !== undefined ? undefined : nameMatch(resolved.path, found, sameName);
    // A backticked path matched by its name alone is most often a placeholder or an
    // example (`assets/eip-N/image.png`): no suggestion, only the signal.
    if (ref.kind === 'code-path' && match === 'name-only') return undefined;
    // A suggestion becomes a link in the doc and a path in the report: never an unsafe name.
    if (unsafePathReason(found) !== undefined) return undefined;
    return {
      path: found,
      data: {
        suggested_target: withoutMarkdownPunctuation(writeTargetLike(doc, ref, resolved, found)),
        suggested_path: found,
        suggested_by: renamed !== undefined ? 'rename-history' : 'unique-name',
        ...(match !== undefined ? { suggestion_match: match } : {}),
        ...(renamed !== undefined && renameMayBeSplit(history, resolved.path)
          ? { rename_may_be_split: true }
          : {}),
        ...(renamed !== undefined && keepsOldName(facts, resolved.path, renamed)
          ? { old_name_served: true }
          : {}),
      },
    };
  };
}

/** The reference to a renamed path, with the commit of its first rename ('' when git did not name it). */
function movedReference(history: HistoryFacts, doc: string, ref: DocRef, path: string): MovedReference {
  return { doc, line: ref.line, written: ref.target, path, commit: history.renamedIn.get(path) ?? '' };
}

/**
 * Whether the moved doc names itself by its old file name in its frontmatter (`id:` or the
 * last part of `slug:`, as Docusaurus reads them): a site built from the docs still serves it
 * under that name, so a link to the old name may be how the docs are written (on
 * microsoft/playwright, `chrome-extensions.md` became `chrome-extensions-js-python.md` with
 * `id: chrome-extensions`, and every page links it by the old name).
 */
function keepsOldName(facts: ScanFacts, oldPath: string, newPath: string): boolean {
  const data = facts.docs.get(newPath)?.parsed.frontmatter.data;
  if (data === undefined) return false;
  const stem = baseOf(oldPath).replace(/\.[^.]*$/, '');
  const names = [data['id'], data['slug']].flatMap((v) =>
    typeof v === 'string' ? [v.replace(/\/+$/, '').split('/').pop() ?? ''] : [],
  );
  return names.includes(stem);
}

/** Why a path through a symlink does not resolve, for the signal's detail. */
function brokenLinkNote(link: Resolved['brokenLink']): string {
  if (link === undefined) return '';
  return link.reason === 'outside-root'
    ? `: "${link.link}" is a symlink out of the project`
    : `: "${link.link}" is a symlink to nothing ("${link.target}")`;
}

/** File name, lower-cased → the listed paths with that name (a case-only rename still matches). */
function lowerNameIndex(files: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of files) {
    const name = baseOf(file).toLowerCase();
    const list = out.get(name);
    if (list) list.push(file);
    else out.set(name, [file]);
  }
  return out;
}

/** Folder steps from `from` to `to` (up to the common folder, then down). */
function folderDistance(from: string, to: string): number {
  const a = from === '' ? [] : from.split('/');
  const b = to === '' ? [] : to.split('/');
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common++;
  return a.length - common + (b.length - common);
}

/**
 * The one same-named file to suggest: the only file of that name; else the one in the same
 * folder (a case-only rename); else, among those whose
 * folder has the same name as the missing one's (`x/README.md` for a missing `a/x/README.md`:
 * a common name alone says nothing), the nearest. None when two are equally near: never a guess.
 */
export function nearestUnique(missing: string, candidates: readonly string[]): string | undefined {
  if (candidates.length <= 1) return candidates[0];
  const sameFolder = candidates.filter((p) => dirOf(p) === dirOf(missing));
  if (sameFolder.length === 1) return sameFolder[0];
  if (sameFolder.length > 1) return undefined;
  const folderName = baseOf(dirOf(missing)).toLowerCase();
  const alike = candidates.filter((p) => dirOf(p) !== '' && baseOf(dirOf(p)).toLowerCase() === folderName);
  if (folderName === '' || alike.length === 0) return undefined;
  const ranked = alike
    .map((path) => ({ path, distance: folderDistance(dirOf(missing), dirOf(path)) }))
    .sort((x, y) => x.distance - y.distance);
  if (ranked.length > 1 && ranked[0]!.distance === ranked[1]!.distance) return undefined;
  return ranked[0]!.path;
}

/**
 * How far a same-named suggestion is proved by the paths alone (docs/scanner-and-classifiers.md):
 * - `case-only`: it stands beside the missing file, its name differing only in case;
 * - `path-suffix`: it ends in the missing path's folder and name (`sig-x/README.md` for a
 *   missing `community/sig-x/README.md`, or a link one folder too deep), and no other file
 *   of that name does;
 * - `name-only`: only the file name matches — a guess, never an auto edit.
 */
export function nameMatch(
  missing: string,
  suggestion: string,
  sameName: readonly string[],
): 'case-only' | 'path-suffix' | 'name-only' {
  if (dirOf(suggestion) === dirOf(missing)) return 'case-only';
  const tail = (p: string) => `${baseOf(dirOf(p))}/${baseOf(p)}`;
  if (dirOf(missing) === '' || dirOf(suggestion) === '' || tail(suggestion) !== tail(missing))
    return 'name-only';
  return sameName.filter((p) => dirOf(p) !== '' && tail(p) === tail(missing)).length === 1
    ? 'path-suffix'
    : 'name-only';
}

/** A fragment keeps only the fragment: `]`, `)`, `>` or quotes around it belong to the Markdown. */
export function withoutMarkdownPunctuation(target: string): string {
  return target.replace(/(#[^#]*?)[\])>"'`]+$/, '$1');
}
