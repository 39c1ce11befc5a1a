import type { WhoLoads } from '../context/who-loads.js';
import type { ScanFacts } from '../facts.js';
import type { Doc } from '../walk.js';

/**
 * True when `path` is another name (a symlink) for a real file the scan also read: its
 * findings belong to the real file, once, not to every name that leads to it.
 */
export function isAlias(path: string, facts: ScanFacts, whoLoads: WhoLoads): boolean {
  const real = whoLoads.realOf(path);
  return real !== path && facts.docs.has(real);
}

/** The scanned docs some agent loads (or an agent-context file imports), each real file once. */
export function contextDocs(facts: ScanFacts, whoLoads: WhoLoads): Doc[] {
  return [...facts.docs.values()].filter(
    (doc) =>
      (whoLoads.isLoaded(doc.path) || facts.agentContext.has(doc.path)) &&
      !isAlias(doc.path, facts, whoLoads),
  );
}
