/**
 * The references of a project's docs, and what a set of edits would do to them. This is how
 * an edit is proved before it lands (docs/hygiene: a link fix must resolve; a cleanup must
 * never turn a resolving reference into a broken one): the edits are applied in memory, and
 * every reference of every doc is resolved again, with the scanner's own resolver, against
 * the tree as it would be.
 */
import { readlinkSync, realpathSync } from 'node:fs';
import { isAbsolute, join, posix, relative, resolve, sep } from 'node:path';
import type { Deadline } from '../core/deadline.js';
import { discoverRepo } from '../core/git.js';
import { Overlay } from '../core/overlay-map.js';
import { applyEditsToText, sha256Hex } from './apply/text-edits.js';
import { listFiles, readDoc, unsafePathReason } from './scan/files.js';
import { globsMatcher } from './scan/lifecycle-glob.js';
import { type DocRef, type ParsedDoc, parseMarkdown } from './scan/markdown.js';
import { ARCHIVE_SEGMENTS, dirOf, toPosix } from './scan/paths.js';
import { noteProbe } from './scan/probes.js';
import { checkReference, type PathLookup, type ReferenceCheck, resolveReference } from './scan/resolve.js';
import { readOnGitHub, readSites, type Site, type SiteFiles, siteOf, siteView } from './scan/site/index.js';
import { AGENT_CONTEXT_GLOBS, type Entry, type HygieneConfig } from './types.js';

/** The docs and files of a project, as references see them. */
export interface DocWorld {
  /** Every listed file (root-relative). */
  files: ReadonlySet<string>;
  /** Every doc whose references are guarded: path → text. */
  docs: ReadonlyMap<string, string>;
  /** Whether `path` exists outside the listing (an ignored file a doc links to). */
  onDisk: (path: string) => boolean;
  /** Docs already parsed (by the scan), each parse of exactly the text in `docs`. */
  parsed?: ReadonlyMap<string, ParsedDoc>;
  /** Parses a text the scan did not, through the scan's cache (scan/cache/parse-cache.ts). */
  parseText?: (text: string) => ParsedDoc;
  /** The documentation sites the project builds (scan/site/): their pages' links are read as the site reads them. */
  sites?: readonly Site[];
  /**
   * Each listed symlink → the root-relative paths it leads through, hop by hop, ending at its
   * real file: a symlink is a reference to each of them (removing one leaves it dangling).
   */
  symlinks?: ReadonlyMap<string, readonly string[]>;
}

/**
 * What a scan already read, handed to `readDocWorld` so that check neither lists nor reads
 * nor parses those docs again, and the world is the tree the scan saw.
 */
export interface ScannedDocuments {
  /** The scan's `git ls-files` listing (in a repository): the listing the world would make. */
  gitListing?: readonly string[];
  /** Each doc the scan read under its own path → its text and its parse. */
  docs: ReadonlyMap<string, { text: string; parsed: ParsedDoc }>;
  /** Parses any other text through the scan's cache (none: `parseMarkdown`). */
  parseText?: (text: string) => ParsedDoc;
}

/**
 * Reads the world from disk: the listing the scan uses, and every doc-like file (the scan
 * globs) except the tool's state and folders `scan.excluded_dirs` names — but archive folders
 * are read too: they yield no candidates, yet their links out must keep working. Docs in
 * `scanned` are taken from it instead of being read and parsed again (the apply paths, which
 * run later on a tree that may have changed, read everything afresh).
 */
export async function readDocWorld(
  root: string,
  config: HygieneConfig,
  deadline?: Deadline,
  scanned?: ScannedDocuments,
): Promise<DocWorld> {
  const realRoot = realpathSync(root);
  const excluded = config.scan.excluded_dirs.map((d) => d.replace(/^\.\/+|\/+$/g, ''));
  const skip = new Set(excluded.filter((d) => !d.includes('/') && !ARCHIVE_SEGMENTS.has(d.toLowerCase())));
  // In a repository the listing is git's, whatever folders are skipped: the scan's is the same.
  const listing =
    scanned?.gitListing !== undefined
      ? undefined
      : await listFiles(root, await isInRepo(root, realRoot, deadline), new Set([...skip, '.git']), deadline);
  const listed = scanned?.gitListing ?? listing!.files;
  const symlinks = new Map((listing?.symlinks ?? []).map((link) => [link, linkHops(root, realRoot, link)]));
  const globs = [...config.scan.globs, ...AGENT_CONTEXT_GLOBS];
  const inGlobs = globsMatcher(globs);
  const excludedPaths = excluded.filter((d) => d.includes('/'));
  const docs = new Map<string, string>();
  const parsed = new Map<string, ParsedDoc>();
  for (const file of listed) {
    if (!inGlobs(file) || file.startsWith('.dochygiene/') || unsafePathReason(file) !== undefined) continue;
    const segments = file.split('/');
    if (segments.slice(0, -1).some((s) => skip.has(s))) continue;
    if (
      excludedPaths.some(
        (d) => file.startsWith(`${d}/`) && !d.split('/').some((s) => ARCHIVE_SEGMENTS.has(s)),
      )
    )
      continue;
    const known = scanned?.docs.get(file);
    if (known !== undefined) {
      docs.set(file, known.text);
      parsed.set(file, known.parsed);
      continue;
    }
    const read = readDoc(root, realRoot, file);
    if (read.kind === 'text') docs.set(file, read.text);
  }
  const absolute = resolve(root);
  // Proofs ask about the same missing targets again and again; the disk is asked once each.
  const probed = new Map<string, boolean>();
  const sites = readSites(root, listed);
  return {
    files: new Set(listed),
    docs,
    ...(parsed.size > 0 ? { parsed } : {}),
    ...(scanned?.parseText ? { parseText: scanned.parseText } : {}),
    ...(sites.length > 0 ? { sites } : {}),
    ...(symlinks.size > 0 ? { symlinks } : {}),
    onDisk: (path) => {
      let found = probed.get(path);
      if (found === undefined) {
        noteProbe(`${absolute}/${path}`);
        try {
          realpathSync(`${absolute}/${path}`);
          found = true;
        } catch {
          found = false;
        }
        probed.set(path, found);
      }
      return found;
    },
  };
}

/**
 * The root-relative paths a symlink leads through: each link's target in turn (written
 * relative to the link, or absolute inside the root), then the real file. A hop out of the
 * root ends the list (nothing there is the project's to remove).
 */
function linkHops(root: string, realRoot: string, link: string): string[] {
  const hops: string[] = [];
  const inRoot = (absolute: string) => {
    const rel = relative(realRoot, absolute);
    return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? undefined : toPosix(rel);
  };
  let current = link;
  for (let hop = 0; hop < 40; hop++) {
    let written: string;
    noteProbe(current, root);
    try {
      written = readlinkSync(join(root, current));
    } catch {
      break; // Not a symlink (the real file) or gone.
    }
    const next = isAbsolute(written) ? inRoot(written) : posix.join(dirOf(current), toPosix(written));
    if (next === undefined || next === '..' || next.startsWith('../')) return hops;
    hops.push(next);
    current = next;
  }
  try {
    const real = inRoot(realpathSync(join(root, link)));
    if (real !== undefined && !hops.includes(real)) hops.push(real);
  } catch {
    // Dangling already: nothing more it leads to.
  }
  return hops;
}

/** Whether `root` lies inside a git work tree. */
async function isInRepo(root: string, realRoot: string, deadline?: Deadline): Promise<boolean> {
  const repo = await discoverRepo(root, deadline);
  const toplevel = repo?.toplevel ? realpathSync(repo.toplevel) : undefined;
  return toplevel !== undefined && (realRoot === toplevel || realRoot.startsWith(`${toplevel}${sep}`));
}

/**
 * Where a world takes parses from instead of parsing again (each only for a doc whose text
 * there is the text here), and its folder set when its file set is the very same.
 */
interface Reuse {
  docs: ReadonlyMap<string, string>;
  parse: (path: string) => ParsedDoc | undefined;
  /** How a text not parsed there is parsed (the scan's cache), when not `parseMarkdown`. */
  parseText?: (text: string) => ParsedDoc;
  files?: ReadonlySet<string>;
  dirs?: ReadonlySet<string>;
}

/** A world with parsed docs and a path lookup: what references resolve against. */
class ResolvedWorld implements PathLookup {
  private readonly dirs: ReadonlySet<string>;
  private readonly parsed = new Map<string, ParsedDoc>();

  constructor(
    readonly files: ReadonlySet<string>,
    readonly docs: ReadonlyMap<string, string>,
    private readonly onDisk: (path: string) => boolean,
    /** Paths that were removed (moved away or deleted): never found on disk either. */
    private readonly removed: ReadonlySet<string>,
    readonly sites: readonly Site[],
    /** Each symlink → the paths it leads through (`DocWorld.symlinks`). */
    readonly symlinks: ReadonlyMap<string, readonly string[]>,
    private readonly reuse?: Reuse,
  ) {
    if (reuse?.dirs !== undefined && reuse.files === files) this.dirs = reuse.dirs;
    else {
      const dirs = new Set<string>(['']);
      for (const file of files) for (let d = dirOf(file); d !== '' && !dirs.has(d); d = dirOf(d)) dirs.add(d);
      this.dirs = dirs;
    }
  }

  doc(path: string): ParsedDoc | undefined {
    let parsed = this.parsed.get(path);
    if (parsed === undefined) {
      const text = this.docs.get(path);
      if (text === undefined) return undefined;
      const reused = this.reuse?.docs.get(path) === text ? this.reuse.parse(path) : undefined;
      parsed = reused ?? this.reuse?.parseText?.(text) ?? parseMarkdown(text);
      this.parsed.set(path, parsed);
    }
    return parsed;
  }

  exists(path: string): boolean {
    if (path === '' || this.files.has(path) || this.dirs.has(path)) return true;
    if (this.removed.has(path) || [...this.removed].some((r) => path.startsWith(`${r}/`))) return false;
    return this.onDisk(path);
  }

  isDir(path: string): boolean {
    return this.dirs.has(path);
  }

  readonly anchorsOf = (path: string) => this.doc(path)?.anchors;

  private siteFilesOf: SiteFiles | undefined;

  /** The world as a site model reads it (built once per world). */
  get siteFiles(): SiteFiles {
    this.siteFilesOf ??= {
      files: [...this.files],
      isFile: (path) => this.exists(path) && !this.isDir(path),
      frontmatter: (path) => this.doc(path)?.frontmatter.data,
      lines: (path) => this.doc(path)?.lines,
    };
    return this.siteFilesOf;
  }

  readonly siteDocs = {
    anchorsOf: (path: string) => this.anchorsOf(path),
    linesOf: (path: string) => this.doc(path)?.lines,
  };
}

/** One reference of one doc, with whether it resolves. */
export interface CheckedRef {
  doc: string;
  ref: DocRef;
  /** Where it resolved to (path, fragment), when it was checked. */
  target?: { path: string; fragment: string | undefined };
  resolves: boolean;
}

function refsOf(world: ResolvedWorld, path: string): DocRef[] {
  const doc = world.doc(path);
  if (doc === undefined) return [];
  // Imports count everywhere here: a moved file an agent file imports is as broken as a link.
  return [...doc.refs, ...doc.imports];
}

/**
 * One reference checked as readers reach it: in the tree (GitHub), and, for a page a site
 * builds, as the site reads it (scan/site/): it resolves only where it resolves in every view
 * it is read in, so a change that breaks it on the site is blamed as one that breaks it on
 * GitHub. A link the site cannot settle is read as the tree reads it.
 */
function checkOnSite(world: ResolvedWorld, path: string, ref: DocRef): ReferenceCheck {
  const check = checkReference(world, world.anchorsOf, path, ref);
  if (ref.kind === 'code-path' || world.sites.length === 0) return check;
  const site = siteOf(world.sites, world.siteFiles, path);
  if (site === undefined) return check;
  const view = siteView(site, world.siteFiles, world.siteDocs, path, ref.target, ref.line);
  if (view === undefined || view.verdict === 'unverifiable') return check;
  const onGitHub = readOnGitHub(site, path, false);
  if (onGitHub && check.status !== 'resolves') return check;
  const resolved =
    check.status === 'not-checked'
      ? { path, fragment: undefined, exists: true, base: 'doc' as const }
      : check.resolved;
  if (view.verdict === 'resolves')
    return { status: 'resolves', resolved: { ...resolved, path: view.path, exists: true } };
  return { status: 'missing-path', resolved: { ...resolved, path: view.path ?? resolved.path } };
}

/** The file a site's file link reaches (a translation's fallback), where the tree lacks it. */
function siteFileTarget(world: ResolvedWorld, doc: string, ref: DocRef): string | undefined {
  if (world.sites.length === 0 || ref.target.startsWith('/')) return undefined;
  const site = siteOf(world.sites, world.siteFiles, doc);
  if (site === undefined || !site.fileLinks) return undefined;
  const view = siteView(site, world.siteFiles, world.siteDocs, doc, ref.target, ref.line);
  return view?.verdict === 'resolves' ? view.path : undefined;
}

/** Every checked reference of every doc in the world (external and unchecked ones left out). */
function checkAll(world: ResolvedWorld): CheckedRef[] {
  const out: CheckedRef[] = [];
  for (const path of [...world.docs.keys()].sort()) {
    for (const ref of refsOf(world, path)) {
      const check = checkOnSite(world, path, ref);
      if (check.status === 'not-checked') continue;
      out.push({
        doc: path,
        ref,
        target: { path: check.resolved.path, fragment: check.resolved.fragment },
        resolves: check.status === 'resolves',
      });
    }
  }
  return out;
}

/** A planned change to the tree: text edits per file, and moves. */
export interface PlannedChange {
  /** Entries (text edits) per file, as the applier would apply them. */
  edits: ReadonlyMap<string, readonly Entry[]>;
  /** Moves: from → to. */
  moves: ReadonlyMap<string, string>;
  /** Lifecycle deletions: each path is removed, and a folder with everything under it. */
  deletes?: ReadonlySet<string>;
}

/** Whether `path` is `unit` or lies under it. */
export const isUnder = (path: string, unit: string): boolean => path === unit || path.startsWith(`${unit}/`);

/** What applying a change in memory gives: the new world, and the files whose edits cannot apply. */
export interface SimulatedChange {
  after: ResolvedWorld;
  /** Files whose text edits the applier would skip (with its reason). */
  unappliable: Map<string, string>;
  /** New path of each doc (moved ones), old → new. */
  renamed: Map<string, string>;
}

/** A world's texts, parses and folders, for the world after a change to keep. */
const reusable = (world: ResolvedWorld): Reuse => ({
  docs: world.docs,
  parse: (path) => world.doc(path),
  ...(world['reuse']?.parseText ? { parseText: world['reuse'].parseText } : {}),
  files: world.files,
  dirs: world['dirs'],
});

/** The in-memory result of a change: edited texts, moved paths, removed files. */
export function simulate(before: ResolvedWorld, change: PlannedChange): SimulatedChange {
  // The file set is copied only when a file goes or moves: a text edit keeps the same set
  // (and with it the folder set of the world before).
  let changedFiles: Set<string> | undefined;
  const files = () => {
    changedFiles ??= new Set(before.files);
    return changedFiles;
  };
  const docs = new Overlay(before.docs);
  const removed = new Set<string>();
  const unappliable = new Map<string, string>();
  const renamed = new Map<string, string>();
  for (const [path, entries] of change.edits) {
    const text = before.docs.get(path);
    if (text === undefined) continue;
    const withHash = entries.map((e) =>
      e.exact_edit?.anchor !== undefined
        ? { ...e, exact_edit: { ...e.exact_edit, expected_sha256: sha256Hex(Buffer.from(text, 'utf8')) } }
        : e,
    );
    const result = applyEditsToText(text, withHash);
    if ('skip' in result) {
      unappliable.set(path, result.skip);
      continue;
    }
    const removesFile =
      result.text.replace(/^\uFEFF/, '') === '' && entries.some((e) => e.exact_edit?.kind === 'delete-range');
    if (removesFile) {
      files().delete(path);
      docs.delete(path);
      removed.add(path);
    } else docs.set(path, result.text);
  }
  for (const unit of change.deletes ?? []) {
    for (const file of [...(changedFiles ?? before.files)])
      if (isUnder(file, unit)) {
        files().delete(file);
        docs.delete(file);
        removed.add(file);
      }
  }
  for (const [from, to] of change.moves) {
    files().delete(from);
    removed.add(from);
    files().add(to);
    const text = docs.get(from);
    docs.delete(from);
    if (text !== undefined) docs.set(to, text);
    renamed.set(from, to);
  }
  return {
    after: new ResolvedWorld(
      changedFiles ?? before.files,
      docs,
      before['onDisk'],
      removed,
      before.sites,
      before.symlinks,
      reusable(before),
    ),
    unappliable,
    renamed,
  };
}

/** The world with some docs' texts replaced (a generative rewrite's result), nothing moved. */
export function withTexts(before: ResolvedWorld, texts: ReadonlyMap<string, string>): SimulatedChange {
  const docs = new Overlay(before.docs);
  for (const [path, text] of texts) docs.set(path, text);
  return {
    after: new ResolvedWorld(
      before.files,
      docs,
      before['onDisk'],
      new Set(),
      before.sites,
      before.symlinks,
      reusable(before),
    ),
    unappliable: new Map(),
    renamed: new Map(),
  };
}

export function worldOf(world: DocWorld): ResolvedWorld {
  return new ResolvedWorld(
    world.files,
    world.docs,
    world.onDisk,
    new Set(),
    world.sites ?? [],
    world.symlinks ?? new Map(),
    world.parsed !== undefined || world.parseText !== undefined
      ? {
          docs: world.docs,
          parse: (path) => world.parsed?.get(path),
          ...(world.parseText ? { parseText: world.parseText } : {}),
        }
      : undefined,
  );
}

export type { ResolvedWorld };

/** A reference that resolved before a change and would not after it. */
export interface BrokenByChange {
  /** The doc holding the reference, where it was before the change. */
  doc: string;
  line: number;
  target: string;
  /** The file whose change broke it (the one to leave alone). */
  blame: string;
  /** Set when `doc` is a symlink the change would leave dangling (`target`: the path it leads through; `line` 0). */
  symlink?: true;
}

const keyOf = (doc: string, ref: DocRef) => `${doc}\0${ref.kind}\0${ref.target}`;

/**
 * The references a change breaks: every reference that resolved before and, written the same
 * in the same doc, no longer resolves — or a reference the change wrote (a rewritten link) that
 * does not resolve. Each names the file whose change is to blame.
 */
export function referencesBroken(
  before: ResolvedWorld,
  sim: SimulatedChange,
  change: PlannedChange,
): BrokenByChange[] {
  const beforeRefs = checkAll(before);
  const resolving = new Map<string, CheckedRef[]>();
  const brokenBefore = new Map<string, number>();
  for (const c of beforeRefs) {
    const key = keyOf(c.doc, c.ref);
    if (c.resolves) resolving.set(key, [...(resolving.get(key) ?? []), c]);
    else brokenBefore.set(key, (brokenBefore.get(key) ?? 0) + 1);
  }
  const oldPathOf = new Map([...sim.renamed].map(([from, to]) => [to, from]));
  const brokenAfter = new Map<string, CheckedRef[]>();
  for (const c of checkAll(sim.after)) {
    if (c.resolves) continue;
    const key = keyOf(oldPathOf.get(c.doc) ?? c.doc, c.ref);
    brokenAfter.set(key, [...(brokenAfter.get(key) ?? []), c]);
  }
  // A doc's broken count, before and after: a changed broken link is no new breakage, but a
  // rewritten link that breaks where none was broken is.
  const perDoc = (m: Map<string, number | CheckedRef[]>) => {
    const totals = new Map<string, number>();
    for (const [key, v] of m) {
      const doc = key.split('\0', 1)[0]!;
      totals.set(doc, (totals.get(doc) ?? 0) + (typeof v === 'number' ? v : v.length));
    }
    return totals;
  };
  const docBrokenBefore = perDoc(brokenBefore);
  const growth = perDoc(brokenAfter);
  for (const [doc, n] of growth) growth.set(doc, n - (docBrokenBefore.get(doc) ?? 0));
  const out: BrokenByChange[] = [];
  for (const [key, list] of brokenAfter) {
    let excess = list.length - (brokenBefore.get(key) ?? 0);
    if (!resolving.has(key)) {
      const doc = key.split('\0', 1)[0]!;
      const left = growth.get(doc) ?? 0;
      excess = Math.min(excess, left);
      growth.set(doc, left - Math.max(excess, 0));
    }
    if (excess <= 0) continue;
    for (const c of list.slice(list.length - excess)) {
      const doc = oldPathOf.get(c.doc) ?? c.doc;
      const was = resolving.get(key)?.[0]?.target;
      let blame = doc;
      if (was !== undefined && !change.moves.has(doc)) {
        const targetGone = change.moves.has(was.path) || !sim.after.exists(was.path);
        const targetEdited = change.edits.has(was.path);
        if (targetGone || (targetEdited && was.path !== doc)) blame = was.path;
      }
      out.push({ doc, line: c.ref.line, target: c.ref.target, blame });
    }
  }
  out.push(...symlinksBroken(before, sim));
  return out.sort((a, b) => (a.doc < b.doc ? -1 : a.doc > b.doc ? 1 : a.line - b.line));
}

/**
 * Symlinks a change would leave dangling (docs/hygiene-clean.md, "The reference invariant"):
 * a link that stays while a path it leads through goes (moved, deleted, or in a deleted
 * unit). The path that goes is to blame; a link that goes itself breaks nothing.
 */
function symlinksBroken(before: ResolvedWorld, sim: SimulatedChange): BrokenByChange[] {
  const out: BrokenByChange[] = [];
  for (const [link, hops] of before.symlinks) {
    if (!sim.after.files.has(link)) continue;
    const gone = hops.find((hop) =>
      before.isDir(hop) ? !sim.after.isDir(hop) : before.exists(hop) && !sim.after.exists(hop),
    );
    if (gone !== undefined) out.push({ doc: link, line: 0, target: gone, blame: gone, symlink: true });
  }
  return out;
}

/** Every reference in the world that resolves to `path` (a file), with its doc. */
export function inboundReferences(world: ResolvedWorld, path: string): { doc: string; ref: DocRef }[] {
  const out: { doc: string; ref: DocRef }[] = [];
  for (const doc of [...world.docs.keys()].sort()) {
    if (doc === path) continue;
    for (const ref of refsOf(world, doc)) {
      const r = resolveReference(world, doc, ref);
      if (r === undefined) continue;
      const reached = r.exists || ref.kind === 'code-path' ? r.path : siteFileTarget(world, doc, ref);
      if (reached === path) out.push({ doc, ref });
    }
  }
  return out;
}

/** `posix.relative` that never returns '' (a link to itself is its own name). */
export function relativeLink(fromDoc: string, to: string): string {
  return posix.relative(dirOf(fromDoc), to) || posix.basename(to);
}

/** The checked references of one doc. */
export function checkDoc(world: ResolvedWorld, path: string): CheckedRef[] {
  const out: CheckedRef[] = [];
  for (const ref of refsOf(world, path)) {
    const check = checkOnSite(world, path, ref);
    if (check.status === 'not-checked') continue;
    out.push({ doc: path, ref, resolves: check.status === 'resolves' });
  }
  return out;
}

/**
 * Proves an in-place fix of broken references in one doc: applied in memory, it leaves the
 * doc with fewer broken references, breaks none that resolved, and keeps the doc's anchors
 * (so no fragment pointing into it breaks). Returns why not, or undefined when proved.
 */
export function disproveLinkFix(
  world: ResolvedWorld,
  path: string,
  entries: readonly Entry[],
): string | undefined {
  const sim = simulate(world, { edits: new Map([[path, entries]]), moves: new Map() });
  const skipped = sim.unappliable.get(path);
  if (skipped !== undefined) return `the edit does not apply (${skipped})`;
  const before = checkDoc(world, path);
  const after = checkDoc(sim.after, path);
  const beforeAnchors = world.anchorsOf(path) ?? new Set<string>();
  const afterAnchors = sim.after.anchorsOf(path) ?? new Set<string>();
  if (beforeAnchors.size !== afterAnchors.size || [...beforeAnchors].some((a) => !afterAnchors.has(a)))
    return 'the edit changes the headings other links point at';
  const resolvingBefore = new Set(before.filter((c) => c.resolves).map((c) => keyOf(path, c.ref)));
  const newlyBroken = after.find((c) => !c.resolves && resolvingBefore.has(keyOf(path, c.ref)));
  if (newlyBroken !== undefined) return `the edit breaks ${newlyBroken.ref.target}`;
  const brokenAfter = after.filter((c) => !c.resolves);
  if (brokenAfter.length >= before.filter((c) => !c.resolves).length) {
    const still = brokenAfter.find((c) => !before.some((b) => !b.resolves && b.ref.target === c.ref.target));
    return `the new target ${still?.ref.target ?? ''} does not resolve`.replace('  ', ' ');
  }
  return undefined;
}
