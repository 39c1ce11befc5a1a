import type { DocRef } from './markdown.js';
import { isExamplePath } from './paths.js';
import { type AnchorLookup, type Resolved, resolveReference } from './resolve.js';
import { THRESHOLDS } from './thresholds.js';
import type { Doc, ProjectTree, ProjectWalk } from './walk.js';

/** A reference of a doc with what it resolved to (undefined: not checked). */
export interface ResolvedRef {
  ref: DocRef;
  r: Resolved | undefined;
}

/**
 * What several signals need, computed once per scan (as markdownlint's shared cache):
 * the parsed docs, the agent-context set, every reference resolved, and who links to what.
 */
export interface ScanFacts {
  tree: ProjectTree;
  /** Every scanned doc by path, in reading order. */
  docs: ReadonlyMap<string, Doc>;
  /** Every doc-like file in the project, scope aside. */
  allDocs: readonly string[];
  /** Agent-context files and what they `@import`, scanned or not. */
  agentContext: ReadonlySet<string>;
  /** Doc → its references (and, in agent context, imports) resolved, in source order. */
  resolvedRefs: ReadonlyMap<string, readonly ResolvedRef[]>;
  /** Path → the docs whose references resolve to it (itself excluded). */
  inbound: ReadonlyMap<string, ReadonlySet<string>>;
  /** Existing non-doc paths a doc references → docs referencing them (for churn). */
  referencedBy: ReadonlyMap<string, readonly string[]>;
  anchorsOf: AnchorLookup;
}

/**
 * Follows `@imports` from the agent-context files (`THRESHOLDS.importHops`, as Claude Code expands
 * them), reading imported docs the walk did not read, and returns the agent-context set.
 */
export function expandAgentContext(walk: ProjectWalk): Set<string> {
  const { docs, tree } = walk;
  const agentContext = new Set<string>();
  let frontier = [...docs.values()].filter((d) => d.isAgentContext).map((d) => d.path);
  for (const p of frontier) agentContext.add(p);
  for (let hop = 0; hop < THRESHOLDS.importHops && frontier.length > 0; hop++) {
    const next: string[] = [];
    for (const from of frontier) {
      const doc = docs.get(from);
      if (!doc) continue;
      for (const imp of doc.parsed.imports) {
        const r = resolveReference(tree, from, imp);
        if (!r?.exists || agentContext.has(r.path) || !tree.isFile(r.path)) continue;
        agentContext.add(r.path);
        const imported = docs.get(r.path);
        if (!imported) walk.readDocument(r.path, from);
        else imported.importedBy ??= from;
        next.push(r.path);
      }
    }
    frontier = next;
  }
  return agentContext;
}

/** Resolves every doc's references once and derives the link graph. */
export function collectFacts(walk: ProjectWalk, agentContext: ReadonlySet<string>): ScanFacts {
  const { docs, tree } = walk;
  const inbound = new Map<string, Set<string>>();
  const referencedBy = new Map<string, string[]>();
  const resolvedRefs = new Map<string, ResolvedRef[]>();
  // A resolved path is a new string each time; the listing's own string for it is kept
  // instead (≈ 24 MB of copies of paths at 40,000 docs linking to each other).
  const listed = new Map<string, string>();
  for (const file of tree.files) listed.set(file, file);
  for (const doc of docs.values()) {
    const refs = agentContext.has(doc.path) ? [...doc.parsed.refs, ...doc.parsed.imports] : doc.parsed.refs;
    const list: ResolvedRef[] = [];
    const seenTargets = new Set<string>();
    for (const ref of refs) {
      const r = resolveReference(tree, doc.path, ref);
      if (r !== undefined) r.path = listed.get(r.path) ?? r.path;
      list.push({ ref, r });
      if (!r?.exists || r.path === doc.path) continue;
      let set = inbound.get(r.path);
      if (!set) {
        set = new Set();
        inbound.set(r.path, set);
      }
      set.add(doc.path);
      // An example project's file (a book's `listings/…/src/lib.rs`) is not the repository's
      // own code: its churn says nothing about the doc (edit_recency_vs_churn).
      if (!walk.inGlobs(r.path) && r.path !== '' && !seenTargets.has(r.path) && !isExamplePath(r.path)) {
        seenTargets.add(r.path);
        const docsFor = referencedBy.get(r.path);
        if (docsFor) docsFor.push(doc.path);
        else referencedBy.set(r.path, [doc.path]);
      }
    }
    resolvedRefs.set(doc.path, list);
  }
  return {
    tree,
    docs,
    allDocs: walk.allDocs,
    agentContext,
    resolvedRefs,
    inbound,
    referencedBy,
    anchorsOf: (path) => docs.get(path)?.parsed.anchors,
  };
}
