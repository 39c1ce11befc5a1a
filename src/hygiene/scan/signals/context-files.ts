import type { WhoLoads } from '../context/who-loads.js';
import type { ScanFacts } from '../facts.js';

/**
 * True when `path` is another name (a symlink) for a real file the scan also read: its
 * findings belong to the real file, once, not to every name that leads to it.
 */
export function isAlias(path: string, facts: ScanFacts, whoLoads: WhoLoads): boolean {
  const real = whoLoads.realOf(path);
  return real !== path && facts.docs.has(real);
}
