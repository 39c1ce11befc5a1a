import { ignoredByGit } from '../../../core/git.js';
import { findGeneratedDocs } from '../../classify/generated.js';
import type { Signal } from '../../types.js';
import type { ScanFacts } from '../facts.js';
import { unsafePathReason } from '../files.js';
import type { HistoryFacts } from '../history-facts.js';
import { renameMayBeSplit, renameTarget } from '../history-facts.js';
import type { DocRef } from '../markdown.js';
import {
  baseOf,
  COMMON_FOLDERS,
  cmp,
  dirOf,
  isPlaceholderPath,
  isRecordDoc,
  isTestData,
  MARKDOWN_EXT,
} from '../paths.js';
import {
  checkResolved,
  codePathCandidates,
  fragmentTarget,
  type ReferenceCheck,
  type Resolved,
  writeTargetLike,
} from '../resolve.js';
import {
  isGitHubTemplate,
  readOnGitHub,
  readSites,
  SITE_MODELS,
  type Site,
  type SiteDocs,
  type SiteFiles,
  type SiteVerdict,
  siteOf,
  siteView,
  templateView,
  unbuiltOf,
} from '../site/index.js';
import { type MovedReference, type MovedSignal, markMoveEvidence } from '../written-when.js';
import { CODE_REF_KINDS, collectCodeReferences } from './code-references.js';
import type { SignalInput, SignalModule } from './types.js';

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
  if (isPlaceholderPath(ref.target)) return undefined;
  if (facts.agentContext.has(docPath)) return 'agent-context';
  const candidates = codePathCandidates(docPath, ref.target);
  // A lone common folder (`hack/`, `scripts/`) is weak evidence: another repository's path;
  // it counts only when the doc also names a file of this repository in that folder
  // (`./tools/doc-to-md.sh` beside a missing `tools/doc-to-md.xsl`).
  const specific = (dir: string) =>
    dir !== '' && facts.tree.isDir(dir) && (!COMMON_FOLDERS.has(dir) || namesFileIn(facts, docPath, dir));
  if (candidates.some((p) => specific(dirOf(p)))) return 'parent-folder';
  if (candidates.some((p) => history.existed.has(p) || history.renames.has(p))) return 'history';
  return undefined;
}

/**
 * Whether history shows a backticked path (any place it may mean) was this repository's. A
 * path directly under a common folder (`src/index.ts`) once existing proves little: such a
 * path is most often written relative to a package (cloudflare/workers-sdk's AGENTS.md table).
 */
function existedHere(history: HistoryFacts, docPath: string, ref: DocRef): boolean {
  return codePathCandidates(docPath, ref.target).some(
    (p) => (history.existed.has(p) || history.renames.has(p)) && !COMMON_FOLDERS.has(dirOf(p)),
  );
}

/** Whether the doc has a reference that resolves to a file in `dir`. */
function namesFileIn(facts: ScanFacts, docPath: string, dir: string): boolean {
  return (facts.resolvedRefs.get(docPath) ?? []).some(
    ({ r }) => r?.exists === true && r.path.startsWith(`${dir}/`) && facts.tree.isFile(r.path),
  );
}

/** One finding of `broken_reference` or `code_reference`, on its doc. */
interface Found {
  doc: string;
  signal: Omit<Signal, 'name'>;
}

/** A link, image, definition, HTML href/src, fragment or `@import` that does not resolve. */
export const brokenReference: SignalModule = {
  name: 'broken_reference',
  scope: 'docs',
  description:
    'a link, image, HTML href/src, fragment or @import whose target does not resolve where it is read (GitHub, the site), with a suggested target when one is known',
  shownByDefault: true,
  // A generated doc is rewritten by its generator: its broken link is fixed in the source. A
  // link to a built page from a doc no site of the repository builds is read where another
  // build publishes it (rust-lang/book's `redirects/` stubs, copied beside the built book).
  heldBack: (_path, signal) => signal.data?.['generated'] === true || signal.data?.['built_page'] === true,
  needs: ['renames'],
  async collect(input, emit) {
    for (const { doc, signal } of (await referenceFindings(input)).links) emit(doc, signal);
  },
};

/**
 * A backticked path, file name, symbol, CLI flag, variable, npm script or make target that
 * names something this repository does not have. Shown by default where history proves the
 * path was this repository's (it existed here, or was renamed) in a doc that is not a record
 * (a design, RFC, plan, proposal or newsletter names the paths of its day); the rest is held
 * back: on the precision bench it was mostly another repository's path, a placeholder or a
 * symbol of a dependency (0.15 measured before the split).
 */
export const codeReference: SignalModule = {
  name: 'code_reference',
  scope: 'docs',
  description:
    'a backticked path, file, symbol, flag, variable, script or make target this repository does not have; shown where history proves the path was here',
  shownByDefault: true,
  heldBack: (path, signal) => !provedHere(signal) || isRecordDoc(path) || signal.data?.['generated'] === true,
  needs: ['renames'],
  async collect(input, emit) {
    for (const { doc, signal } of (await referenceFindings(input)).code) emit(doc, signal);
  },
};

/** Whether history proves a code reference's path was this repository's: it existed here, or moved. */
function provedHere(signal: Signal): boolean {
  return signal.data?.['existed_here'] === true || signal.data?.['suggested_by'] === 'rename-history';
}

/** Both modules' findings, computed once per scan (the first module to ask computes them). */
const computed = new WeakMap<ScanFacts, Promise<{ links: Found[]; code: Found[] }>>();

function referenceFindings(input: SignalInput): Promise<{ links: Found[]; code: Found[] }> {
  let found = computed.get(input.facts);
  if (found === undefined) {
    found = collectReferences(input);
    computed.set(input.facts, found);
  }
  return found;
}

/**
 * Every reference that does not resolve: links, images, definitions, HTML href/src, fragments,
 * `@import`s and backticked paths; in agent context also the code references the tree
 * contradicts (code-references.ts). Split into links and code by the reference's kind.
 */
async function collectReferences({
  facts,
  history,
}: SignalInput): Promise<{ links: Found[]; code: Found[] }> {
  const all: Found[] = [];
  const emit = (doc: string, signal: Omit<Signal, 'name'>) => all.push({ doc, signal });
  const { tree } = facts;
  const views = readViews(facts);
  const unresolved: Judged[] = [];
  const unverifiable: { doc: string; ref: DocRef; site: Site; reason: string }[] = [];
  for (const doc of facts.docs.values()) {
    // A dead copy no site builds (an unlisted Docusaurus version): its links are site routes
    // of a build that no longer runs; the scan names the folder once (`unbuilt`).
    if (isTestData(doc.path) || unbuiltOf(views.sites, doc.path) !== undefined) continue;
    const reader = views.readerOf(doc.path);
    for (const { ref, r } of facts.resolvedRefs.get(doc.path) ?? []) {
      const judged = judgeReference(facts, views, reader, ref, r);
      if (judged === undefined) continue;
      if ('reason' in judged)
        unverifiable.push({ doc: doc.path, ref, site: judged.site, reason: judged.reason });
      else unresolved.push(judged);
    }
  }
  // A target git ignores is a build output (a generated reference page, say): it is
  // missing until the build runs, and no check of the tree can say whether it will be there.
  const ignored = await ignoredByGit(tree.root, [
    ...new Set(
      unresolved.flatMap(({ check, onSite }) => [
        ...(check.status === 'missing-path' && check.resolved.brokenLink === undefined
          ? [check.resolved.path]
          : []),
        ...(onSite?.verdict === 'broken' && onSite.expected !== undefined ? [onSite.expected] : []),
      ]),
    ),
  ]);
  const suggest = suggester(facts, history);
  // Emitted once the moves are checked: a move is proved only for a reference written
  // before it (written-when.ts).
  const found: MovedSignal[] = [];
  for (const judged of unresolved) {
    const { check } = judged;
    if (check.status === 'missing-path' && ignored.has(check.resolved.path)) continue;
    const { onSite } = judged;
    if (onSite?.verdict === 'broken' && onSite.expected !== undefined && ignored.has(onSite.expected))
      continue;
    const signal = brokenSignal(facts, history, views, judged, suggest);
    if (signal !== undefined) found.push(signal);
  }
  await markMoveEvidence(tree.root, facts, found);
  for (const { doc, signal } of found) emit(doc, signal);
  for (const { doc, ref, site, reason } of unverifiable)
    emit(doc, {
      line: ref.line,
      detail: `${ref.kind} target "${ref.target}" cannot be checked on the ${siteName(site)} site: ${reason}`,
      data: { target: ref.target, kind: ref.kind, unverifiable: reason, site: site.generator },
    });
  await collectCodeReferences({ facts, history }, emit);
  await markGenerated(facts, all);
  const isCode = (f: Found) => CODE_REF_KINDS.has(String(f.signal.data?.['kind']));
  return { links: all.filter((f) => !isCode(f)), code: all.filter(isCode) };
}

/** Marks the findings in a generated doc (`data.generated`): its source is where they are fixed. */
async function markGenerated(facts: ScanFacts, all: Found[]): Promise<void> {
  const paths = [...new Set(all.map((f) => f.doc))].sort(cmp);
  const generated = await findGeneratedDocs(facts.tree.root, paths, (p) => facts.docs.get(p)?.text, true);
  for (const f of all)
    if (generated.has(f.doc)) f.signal = { ...f.signal, data: { ...f.signal.data, generated: true } };
}

/** A reference broken in at least one view it is read in. */
interface Judged {
  doc: string;
  ref: DocRef;
  /** The tree's check (what GitHub reads; a fix is found from it). */
  check: { status: Exclude<ReferenceCheck['status'], 'not-checked'>; resolved: Resolved };
  brokenOn: ('github' | 'site')[];
  site?: Site;
  /** How the site read it, where it builds the doc. */
  onSite?: SiteVerdict;
  /** An issue or pull-request template, read from github.com's URL space. */
  template?: boolean;
}

/** How the scan reads each doc: its site, whether GitHub reads it, whether it is a template. */
interface Views {
  sites: readonly Site[];
  files: SiteFiles;
  docs: SiteDocs;
  readerOf(doc: string): Reader;
  /** A site that cannot settle any `/`-rooted link in a doc beside its config (DocFX). */
  rootedBeside(doc: string): Site | undefined;
  /** Why a `/`-rooted or static-asset link fix cannot be proved anywhere in the repository. */
  unsettled: string | undefined;
}

interface Reader {
  doc: string;
  site: Site | undefined;
  onGitHub: boolean;
  template: boolean;
}

function readViews(facts: ScanFacts): Views {
  const { tree } = facts;
  const sites = readSites(tree.root, tree.files);
  const files: SiteFiles = {
    files: tree.files,
    isFile: (p) => tree.isFile(p),
    frontmatter: (p) => facts.docs.get(p)?.parsed.frontmatter.data,
    lines: (p) => facts.docs.get(p)?.lines,
  };
  const docs: SiteDocs = { anchorsOf: facts.anchorsOf, linesOf: (p) => facts.docs.get(p)?.lines };
  const doubt = sites.find((s) => s.unreadable !== undefined || s.unsettled !== undefined);
  return {
    sites,
    files,
    docs,
    unsettled:
      doubt === undefined
        ? undefined
        : `the ${siteName(doubt)} site's routing is not settled (${doubt.unreadable ?? doubt.unsettled})`,
    rootedBeside: (doc) =>
      sites.find(
        (s) =>
          s.rootedBeside !== undefined && (dirOf(s.config) === '' || doc.startsWith(`${dirOf(s.config)}/`)),
      ),
    readerOf: (doc) => {
      const site = sites.length > 0 ? siteOf(sites, files, doc) : undefined;
      return {
        doc,
        site,
        onGitHub: readOnGitHub(site, doc, facts.agentContext.has(doc)),
        template: isGitHubTemplate(doc),
      };
    },
  };
}

const siteName = (site: Site): string =>
  SITE_MODELS.find((m) => m.id === site.generator)?.name ?? site.generator;

/**
 * One reference judged where its doc is read: on GitHub (the tree; an issue or pull-request
 * template from github.com's URL space) and on the site that builds it. Broken in a view →
 * a `Judged`; not settled by the site and not found in the tree either → unverifiable; else
 * undefined. A backticked path is the repository's, read as the tree reads it.
 */
function judgeReference(
  facts: ScanFacts,
  views: Views,
  reader: Reader,
  ref: DocRef,
  r: Resolved | undefined,
): Judged | { site: Site; reason: string } | undefined {
  const { tree } = facts;
  if (isPlaceholder(ref.target) || (ref.kind === 'import' && isScopedPackage(facts, ref.target)))
    return undefined;
  const check = checkResolved(r, facts.anchorsOf, tree);
  const missing = check.status === 'missing-path' || check.status === 'missing-fragment';
  const doc = reader.doc;
  // A page only its site reads shows a backticked path as text: its readers take it for a path
  // in their own project or the theme (`layouts/_partials/navbar.html`, `src/SUMMARY.md`), not
  // this repository's, and no site links it (on seven site repositories, none was real).
  if (ref.kind === 'code-path' && reader.site !== undefined && !reader.onGitHub) return undefined;
  // A link a template computes (`{{ .RelPermalink }}`, `{% link x %}`) in a file no site builds:
  // a layout or a generator's template, checked nowhere as written.
  if (reader.site === undefined && TEMPLATE_EXPRESSION.test(ref.target)) return undefined;
  if (reader.site === undefined && !reader.template && ref.kind !== 'code-path' && missing) {
    const beside = ref.target.trim().startsWith('/') ? views.rootedBeside(doc) : undefined;
    if (beside !== undefined) return { site: beside, reason: beside.rootedBeside! };
  }
  if (ref.kind === 'code-path' || (reader.site === undefined && !reader.template))
    return missing ? { doc, ref, check: check as Judged['check'], brokenOn: ['github'] } : undefined;
  if (reader.template) {
    const view = templateView(
      (p) => tree.isFile(p),
      (p) => tree.isDir(p),
      ref.target,
    );
    if (view === undefined || view.verdict === 'resolves')
      return missing && view === undefined
        ? { doc, ref, check: check as Judged['check'], brokenOn: ['github'] }
        : undefined;
    if (view.verdict === 'unverifiable') return undefined;
    return { doc, ref, check: asCheck(check, ref), brokenOn: ['github'], template: true };
  }
  const site = reader.site!;
  const onSite = siteView(site, views.files, views.docs, doc, ref.target, ref.line);
  const brokenOn: Judged['brokenOn'] = [];
  if (reader.onGitHub && missing) brokenOn.push('github');
  if (onSite?.verdict === 'broken') brokenOn.push('site');
  if (brokenOn.length === 0)
    return onSite?.verdict === 'unverifiable' && missing ? { site, reason: onSite.reason } : undefined;
  return {
    doc,
    ref,
    check: asCheck(check, ref),
    brokenOn,
    site,
    ...(onSite !== undefined ? { onSite } : {}),
  };
}

/**
 * Whether an `@import` target is an npm scoped package's name (`@tm/core`: `tm/core` here), not
 * a path: two segments of package-name characters, no file extension, and no folder named as
 * the scope in the repository (eyaltoledano/claude-task-master's CLAUDE.md).
 */
function isScopedPackage(facts: ScanFacts, target: string): boolean {
  const m = /^([a-z0-9][a-z0-9._~-]*)\/([a-z0-9][a-z0-9_~-]*)$/.exec(target);
  return m !== null && !facts.tree.isDir(m[1]!);
}

/** A template language's expression (Hugo, Jinja, Liquid, Handlebars) in a link. */
const TEMPLATE_EXPRESSION = /\{\{.*\}\}|\{%.*%\}/;

/**
 * Whether a link target is a placeholder a tool or the reader fills in, not a path: a shell
 * variable (`$BRANCH_URL` in a bot's issue template, jekyll/jekyll) or the word `URL`/`LINK`
 * in an example of Markdown syntax (`[link text](URL)`, tauri-apps/tauri-docs).
 */
function isPlaceholder(target: string): boolean {
  const text = target.trim();
  return /^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?(?:[/#?]|$)/.test(text) || /^(?:URL|LINK|HREF|url|link)$/.test(text);
}

/** The tree's check of a reference broken elsewhere (one the tree does not check reads as written). */
function asCheck(check: ReferenceCheck, ref: DocRef): Judged['check'] {
  return check.status !== 'not-checked'
    ? check
    : { status: 'resolves', resolved: { path: ref.target, fragment: undefined, exists: true, base: 'doc' } };
}

/** The signal for a broken reference: where it is broken, and a fix only where every view proves it. */
function brokenSignal(
  facts: ScanFacts,
  history: HistoryFacts,
  views: Views,
  judged: Judged,
  suggest: ReturnType<typeof suggester>,
): MovedSignal | undefined {
  const { doc, ref, check, brokenOn, site, onSite } = judged;
  const { tree } = facts;
  const where =
    site === undefined && judged.template !== true
      ? ''
      : judged.template === true
        ? ' on github.com (a template is read from an issue or pull request)'
        : ` on ${brokenOn.map((b) => (b === 'site' ? `the ${siteName(site!)} site` : 'GitHub')).join(' and ')}`;
  const base = { broken_on: brokenOn, ...(site !== undefined ? { site: site.generator } : {}) };
  // The site reaches the page and only the anchor is missing there: a fragment to fix by hand.
  const siteFragment =
    onSite?.verdict === 'broken' && onSite.fragment !== undefined && !brokenOn.includes('github');
  if (check.status === 'missing-fragment' || siteFragment) {
    const onPage = siteFragment && onSite?.verdict === 'broken' ? onSite : undefined;
    const target = onPage?.path ?? fragmentTarget(check.resolved, tree);
    const fragment = onPage?.fragment ?? check.resolved.fragment;
    return {
      doc,
      signal: {
        line: ref.line,
        detail: `fragment "#${fragment}" matches no heading in "${target}"${where}`,
        data: { target: ref.target, kind: 'fragment', ...base },
      },
    };
  }
  const data: Record<string, unknown> = { target: ref.target, kind: ref.kind, ...base };
  if (linksBuiltPage(views, judged)) data['built_page'] = true;
  if (check.status !== 'missing-path') {
    // Broken on the site only: the tree has the file, so there is nothing to point it at.
    return {
      doc,
      signal: { line: ref.line, detail: `${ref.kind} target "${ref.target}" does not resolve${where}`, data },
    };
  }
  const resolved = check.resolved;
  const evidence = ref.kind === 'code-path' ? codePathEvidence(facts, history, doc, ref) : undefined;
  if (ref.kind === 'code-path' && evidence === undefined) return undefined;
  if (evidence !== undefined) data['evidence'] = evidence;
  if (evidence !== undefined && existedHere(history, doc, ref)) data['existed_here'] = true;
  // A symlink out of the root or to nothing is never followed (docs/scanner-and-classifiers.md).
  if (resolved.brokenLink !== undefined) data['symlink'] = resolved.brokenLink.reason;
  // A template's link is read on github.com: a path in the tree is not what it needs.
  const suggestion = judged.template === true ? undefined : suggest(doc, ref, resolved);
  if (suggestion !== undefined) {
    Object.assign(data, suggestion.data);
    const doubt = fixDoubt(views, judged, suggestion.path, String(suggestion.data['suggested_target']));
    if (doubt !== undefined) data['site_doubt'] = doubt;
  }
  return {
    doc,
    signal: {
      line: ref.line,
      detail: `${ref.kind} target "${ref.target}" does not resolve${brokenLinkNote(resolved.brokenLink)}${where}${
        suggestion !== undefined ? `; moved to "${suggestion.path}"?` : ''
      }`,
      data,
    },
    ...(data['suggested_by'] === 'rename-history'
      ? { moved: movedReference(history, doc, ref, resolved.path) }
      : {}),
  };
}

/**
 * Whether a missing link names a built page (`ch03-01-x.html`, `index.html#y`) from a doc no
 * modelled site builds, in a repository that builds a site: the doc is written for the output
 * folder of a build the scan does not model (a redirect stub published beside the pages), so
 * the tree cannot say whether the page is there.
 */
function linksBuiltPage(views: Views, judged: Judged): boolean {
  return (
    views.sites.length > 0 &&
    judged.site === undefined &&
    judged.template !== true &&
    judged.check.status === 'missing-path' &&
    /\.html?(?:[#?].*)?$/i.test(judged.ref.target.trim())
  );
}

/**
 * Why a suggested fix is not proved in every view the doc is read in (never auto then); undefined
 * when it is. The fixed link must resolve on the site that builds the doc, by the same resolver;
 * a link that already resolves there is never rewritten; in a repository whose site routing is
 * not settled, a `/`-rooted or static-asset link is never an auto fix.
 */
function fixDoubt(views: Views, judged: Judged, path: string, suggested: string): string | undefined {
  const { site, onSite, doc, ref } = judged;
  if (site !== undefined && ref.kind !== 'code-path') {
    if (onSite?.verdict === 'resolves') return `the link already resolves on the ${siteName(site)} site`;
    const fixed = siteView(site, views.files, views.docs, doc, suggested, ref.line);
    if (fixed?.verdict !== 'resolves') return `the fixed link does not resolve on the ${siteName(site)} site`;
  }
  if (views.unsettled !== undefined && (ref.target.startsWith('/') || !MARKDOWN_EXT.test(path)))
    return views.unsettled;
  return undefined;
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
