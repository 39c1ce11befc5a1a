import { readlinkSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { toPosix } from './paths.js';
import { noteProbe } from './probes.js';

/** Where one listed symlink leads. */
export type LinkTarget =
  /** A file or folder inside the root, by its root-relative real path ('' is the root). */
  | { kind: 'file' | 'dir'; real: string }
  /** Out of the root: never followed. */
  | { kind: 'outside-root'; real: string }
  /** To nothing (or a loop): never followed. */
  | { kind: 'dangling'; written: string };

/** A root-relative path resolved through symlinks, or the link that stops it. */
export type RealPath =
  | { path: string }
  | {
      unresolved: 'outside-root' | 'dangling';
      /** The symlink on the way (the path itself, or a folder above it). */
      link: string;
      /** Where that link points: its real path out of the root, or its text when it dangles. */
      target: string;
    };

/** Symlinks chained further than this are taken as a loop. */
const MAX_HOPS = 40;

/**
 * The project's symlinks (docs/scanner-and-classifiers.md, "Symlinks"): every listed symlink
 * resolved once, so that a path through any of them is mapped to its real file inside the
 * root, and a real file knows the other paths that reach it (its aliases).
 */
export class SymlinkMap {
  readonly links: ReadonlyMap<string, LinkTarget>;
  private readonly cache = new Map<string, RealPath>();
  private aliases: Map<string, string[]> | undefined;

  constructor(
    root: string,
    realRoot: string,
    symlinks: readonly string[],
    private readonly files: readonly string[],
  ) {
    const links = new Map<string, LinkTarget>();
    for (const link of symlinks) links.set(link, resolveLink(root, realRoot, link));
    this.links = links;
  }

  get size(): number {
    return this.links.size;
  }

  /** `path` with every symlink on the way replaced by its real path, or the link that leads out or nowhere. */
  realPathOf(path: string): RealPath {
    if (this.links.size === 0) return { path };
    let known = this.cache.get(path);
    if (known === undefined) {
      known = this.resolve(path);
      this.cache.set(path, known);
    }
    return known;
  }

  private resolve(path: string): RealPath {
    let current = path;
    for (let hop = 0; hop < MAX_HOPS; hop++) {
      const found = this.firstLinkOn(current);
      if (found === undefined) return { path: current };
      const { link, target } = found;
      if (target.kind === 'outside-root') return { unresolved: 'outside-root', link, target: target.real };
      if (target.kind === 'dangling') return { unresolved: 'dangling', link, target: target.written };
      const rest = current.slice(link.length + 1);
      current = rest === '' ? target.real : target.real === '' ? rest : `${target.real}/${rest}`;
    }
    return { unresolved: 'dangling', link: path, target: 'a symlink loop' };
  }

  /** The shortest prefix of `path` (the path itself included) that is a listed symlink. */
  private firstLinkOn(path: string): { link: string; target: LinkTarget } | undefined {
    for (let slash = path.indexOf('/'); ; slash = path.indexOf('/', slash + 1)) {
      const prefix = slash === -1 ? path : path.slice(0, slash);
      const target = this.links.get(prefix);
      if (target !== undefined) return { link: prefix, target };
      if (slash === -1) return undefined;
    }
  }

  /**
   * The other paths that lead to the real file `real`, sorted: file symlinks to it, and its
   * path through each symlinked folder above it (never through a folder link into itself).
   */
  aliasesOf(real: string): readonly string[] {
    this.aliases ??= this.allAliases();
    return this.aliases.get(real) ?? [];
  }

  private allAliases(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    const add = (real: string, alias: string) => {
      const list = out.get(real);
      if (list) list.push(alias);
      else out.set(real, [alias]);
    };
    for (const [link, target] of this.links) {
      if (target.kind === 'file') {
        const resolved = this.realPathOf(link);
        if ('path' in resolved && resolved.path !== link) add(resolved.path, link);
      } else if (target.kind === 'dir') {
        const prefix = target.real === '' ? '' : `${target.real}/`;
        // A link to a folder above itself would alias every path without end: it gets none.
        if (prefix === '' || link.startsWith(prefix)) continue;
        for (const file of this.files) {
          if (!file.startsWith(prefix) || this.links.has(file)) continue;
          add(file, `${link}/${file.slice(prefix.length)}`);
        }
      }
    }
    for (const list of out.values()) list.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return out;
  }
}

function resolveLink(root: string, realRoot: string, link: string): LinkTarget {
  const full = join(root, link);
  noteProbe(full);
  let real: string;
  try {
    real = realpathSync(full);
    noteProbe(real);
  } catch {
    let written = '';
    try {
      written = readlinkSync(full);
    } catch {
      // Not readable as a link any more: it still leads nowhere.
    }
    return { kind: 'dangling', written };
  }
  const inside = relative(realRoot, real);
  if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside))
    return { kind: 'outside-root', real };
  let isDir = false;
  try {
    isDir = statSync(real).isDirectory();
  } catch {
    return { kind: 'dangling', written: '' };
  }
  return { kind: isDir ? 'dir' : 'file', real: toPosix(inside) };
}
