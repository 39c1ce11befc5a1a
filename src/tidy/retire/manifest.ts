/**
 * The physical manifest of an owned task destination, and its removal.
 *
 * The walk records every entry below the destination — path, type, permission bits,
 * device/inode, and for files size and git blob id (content identity, in the
 * repository's hash) — through held directory handles that never follow a link. Links,
 * special files, names that are not UTF-8, files over the per-file bound and more
 * entries than the aggregate bound are reported as problems, never recorded as
 * removable.
 *
 * Removal deletes only entries whose type, mode, identity and content still match the
 * manifest, deepest first, each through its parent's handle; anything unexpected — a new
 * file, a changed one, a link planted since — is retained, and so is every folder on
 * its way (a folder is removed with rmdir, which fails unless it is empty).
 */
import { createHash } from 'node:crypto';
import { basename, dirname } from 'node:path';
import {
  checkDirectoryChain,
  DirHandle,
  idOf,
  type PhysicalId,
  sameId,
  utf8Name,
} from '../../core/confined-fs.js';
import type { ObjectFormat } from '../types.js';

export type ManifestEntryType = 'directory' | 'file';

export interface ManifestEntry {
  /** POSIX path relative to the destination; "." is the destination itself. */
  path: string;
  type: ManifestEntryType;
  /** Permission bits as four octal digits, e.g. "0644" (executable bits included). */
  mode: string;
  dev: string;
  ino: string;
  /** Files: size in bytes; null for directories. */
  size: number | null;
  /** Files: the git blob id of the content (the repository's hash); null for directories. */
  blob_oid: string | null;
}

export type ManifestProblemCode =
  | 'symlink'
  | 'special-file'
  | 'unsupported-metadata'
  | 'bound-exceeded'
  | 'uncertain';

export interface ManifestProblem {
  code: ManifestProblemCode;
  /** Relative path of the entry, "." for the destination. */
  path: string;
  message: string;
}

export interface ManifestWalk {
  entries: ManifestEntry[];
  problems: ManifestProblem[];
  /** Every entry was read within the bounds (no bound problem, no unreadable entry). */
  complete: boolean;
}

export interface ManifestBounds {
  maxEntries: number;
  maxFileBytes: number;
}

export const MAX_MANIFEST_FILE_BYTES = 65_536;

/** The git blob id of content, as `git hash-object` computes it (no filters). */
export function blobOid(content: Buffer, format: ObjectFormat): string {
  const hash = createHash(format === 'sha256' ? 'sha256' : 'sha1');
  hash.update(`blob ${content.length}\0`, 'utf8');
  hash.update(content);
  return hash.digest('hex');
}

function modeText(mode: number | bigint): string {
  return (Number(mode) & 0o7777).toString(8).padStart(4, '0');
}

function join(parent: string, name: string): string {
  return parent === '.' ? name : `${parent}/${name}`;
}

function errnoOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

/** Reads one file through its parent handle: identity from the open descriptor, content bounded. */
async function readFileEntry(
  dir: DirHandle,
  name: string,
  limit: number,
): Promise<
  { id: PhysicalId; mode: string; size: number; content: Buffer } | { problem: string; tooLarge?: true }
> {
  let handle: Awaited<ReturnType<DirHandle['openFile']>>;
  try {
    handle = await dir.openFile(name);
  } catch (error) {
    return { problem: errnoOf(error) === 'ELOOP' ? 'became a symbolic link' : errnoOf(error) };
  }
  try {
    const info = await handle.stat({ bigint: true });
    if (!info.isFile()) return { problem: 'is not a regular file' };
    if (info.size > BigInt(limit)) return { problem: `is larger than ${limit} bytes`, tooLarge: true };
    const buffer = Buffer.alloc(limit + 1);
    const { bytesRead } = await handle.read(buffer, 0, limit + 1, 0);
    if (bytesRead !== Number(info.size)) return { problem: 'changed size while it was read' };
    return {
      id: idOf(info),
      mode: modeText(info.mode),
      size: bytesRead,
      content: buffer.subarray(0, bytesRead),
    };
  } finally {
    await handle.close();
  }
}

/**
 * Walks the destination (an absolute canonical path of real directories). Entries are in
 * depth-first, byte-sorted name order, the destination first.
 */
export async function walkManifest(
  root: string,
  format: ObjectFormat,
  bounds: ManifestBounds,
  isStopped: () => boolean = () => false,
): Promise<ManifestWalk> {
  const walk: ManifestWalk = { entries: [], problems: [], complete: true };
  const problem = (code: ManifestProblemCode, path: string, message: string) => {
    walk.problems.push({ code, path, message });
    if (code === 'bound-exceeded' || code === 'uncertain') walk.complete = false;
  };
  const chain = await checkDirectoryChain(root);
  if (chain.problem !== null || !chain.exists) {
    problem('uncertain', '.', chain.problem ?? 'the destination does not exist');
    return walk;
  }
  let top: DirHandle;
  try {
    top = await DirHandle.openPath(root);
  } catch (error) {
    problem('uncertain', '.', `cannot open the destination: ${errnoOf(error)}`);
    return walk;
  }
  const full = () => walk.entries.length >= bounds.maxEntries;
  // The walk goes on past a file it cannot record (so every problem is reported) but
  // halts at the entry bound and when stopped.
  let halted = false;

  const visit = async (dir: DirHandle, path: string): Promise<void> => {
    walk.entries.push({
      path,
      type: 'directory',
      mode: modeText(dir.mode),
      ...dir.id,
      size: null,
      blob_oid: null,
    });
    const names = (await dir.names()).sort(Buffer.compare);
    for (const raw of names) {
      if (halted) return;
      if (isStopped()) {
        problem('uncertain', path, 'stopped (deadline or signal) before the walk finished');
        halted = true;
        return;
      }
      const name = utf8Name(raw);
      if (name === undefined) {
        problem('unsupported-metadata', join(path, raw.toString('utf8')), 'a file name that is not UTF-8');
        continue;
      }
      const rel = join(path, name);
      if (full()) {
        problem('bound-exceeded', rel, `more than ${bounds.maxEntries} entries in the destination`);
        halted = true;
        return;
      }
      let info: Awaited<ReturnType<DirHandle['lstatChild']>>;
      try {
        info = await dir.lstatChild(name);
      } catch (error) {
        problem('uncertain', rel, `cannot be read: ${errnoOf(error)}`);
        continue;
      }
      if (info.isSymbolicLink()) problem('symlink', rel, 'a symbolic link (never followed or removed)');
      else if (info.isDirectory()) {
        let child: DirHandle;
        try {
          child = await dir.openDir(name);
        } catch (error) {
          problem('uncertain', rel, `cannot be opened: ${errnoOf(error)}`);
          continue;
        }
        try {
          if (!sameId(child.id, idOf(info))) problem('uncertain', rel, 'changed while it was read');
          else await visit(child, rel);
        } finally {
          await child.close();
        }
      } else if (info.isFile()) {
        const read = await readFileEntry(dir, name, bounds.maxFileBytes);
        if ('problem' in read) problem(read.tooLarge ? 'bound-exceeded' : 'uncertain', rel, read.problem);
        else
          walk.entries.push({
            path: rel,
            type: 'file',
            mode: read.mode,
            ...read.id,
            size: read.size,
            blob_oid: blobOid(read.content, format),
          });
      } else problem('special-file', rel, 'a special file (device, FIFO or socket)');
    }
  };
  try {
    await visit(top, '.');
  } catch (error) {
    problem('uncertain', '.', `the walk failed: ${errnoOf(error)}`);
  } finally {
    await top.close();
  }
  return walk;
}

/** Two manifests describe the same physical tree: same entries, in order, field by field. */
export function sameManifest(a: readonly ManifestEntry[], b: readonly ManifestEntry[]): boolean {
  return (
    a.length === b.length && a.every((entry, index) => JSON.stringify(entry) === JSON.stringify(b[index]))
  );
}

/** The first difference between a planned and an observed manifest, for a one-line message. */
export function manifestDifference(
  planned: readonly ManifestEntry[],
  observed: readonly ManifestEntry[],
): string | null {
  const now = new Map(observed.map((entry) => [entry.path, entry]));
  for (const entry of planned) {
    const seen = now.get(entry.path);
    if (seen === undefined) return `${entry.path} is gone`;
    for (const key of ['type', 'mode', 'dev', 'ino', 'size', 'blob_oid'] as const)
      if (seen[key] !== entry[key]) return `${entry.path}: ${key} changed from ${entry[key]} to ${seen[key]}`;
  }
  const before = new Set(planned.map((entry) => entry.path));
  const extra = observed.find((entry) => !before.has(entry.path));
  return extra === undefined ? null : `${extra.path} is new`;
}

// ---------------------------------------------------------------------------
// Removal

export interface RetainedEntry {
  path: string;
  why: string;
}

export interface RemovalReport {
  /** Relative paths removed, in removal order ("." last when the destination went). */
  removed: string[];
  retained: RetainedEntry[];
  /** The destination itself was removed. */
  destinationRemoved: boolean;
  /** Removal stopped early (deadline or signal) or hit an error: the state needs review. */
  interrupted: boolean;
}

export interface RemovalContext {
  format: ObjectFormat;
  maxFileBytes: number;
  /** Identity of the destination's parent (the folder the destination is removed from). */
  parentId: PhysicalId;
  isStopped: () => boolean;
  /** TEST-ONLY: called after each removed entry (crash injection inside the removal). */
  afterEntry?: (path: string) => void | Promise<void>;
}

function childrenOf(entries: readonly ManifestEntry[]): Map<string, ManifestEntry[]> {
  const children = new Map<string, ManifestEntry[]>();
  for (const entry of entries) {
    if (entry.path === '.') continue;
    const parent = entry.path.includes('/') ? entry.path.slice(0, entry.path.lastIndexOf('/')) : '.';
    const list = children.get(parent) ?? [];
    list.push(entry);
    children.set(parent, list);
  }
  return children;
}

function matchesFile(
  entry: ManifestEntry,
  read: Awaited<ReturnType<typeof readFileEntry>>,
  format: ObjectFormat,
): string | null {
  if ('problem' in read) return read.problem;
  if (!sameId(read.id, entry)) return 'replaced by another file (device/inode differ)';
  if (read.mode !== entry.mode) return `mode changed from ${entry.mode} to ${read.mode}`;
  if (read.size !== entry.size || blobOid(read.content, format) !== entry.blob_oid) return 'content changed';
  return null;
}

/**
 * Removes the manifest's entries below `root` and then `root` itself, verifying each
 * one just before removing it. Never throws for filesystem conditions: what could not
 * be removed is listed as retained.
 */
export async function removeManifest(
  root: string,
  entries: readonly ManifestEntry[],
  ctx: RemovalContext,
): Promise<RemovalReport> {
  const report: RemovalReport = { removed: [], retained: [], destinationRemoved: false, interrupted: false };
  const rootEntry = entries.find((entry) => entry.path === '.');
  const retain = (path: string, why: string) => report.retained.push({ path, why });
  if (rootEntry === undefined) {
    retain('.', 'the manifest has no destination entry');
    return report;
  }
  const chain = await checkDirectoryChain(dirname(root));
  if (chain.problem !== null || chain.id === null || !sameId(chain.id, ctx.parentId)) {
    retain(
      '.',
      `the destination's parent is not the recorded directory${chain.problem ? `: ${chain.problem}` : ''}`,
    );
    return report;
  }
  let parent: DirHandle;
  try {
    parent = await DirHandle.openPath(dirname(root));
  } catch (error) {
    retain('.', `cannot open the destination's parent: ${errnoOf(error)}`);
    return report;
  }
  const children = childrenOf(entries);
  const stop = () => {
    if (!ctx.isStopped()) return false;
    report.interrupted = true;
    return true;
  };

  /** Removes the children of `dir`; returns true when every planned child went. */
  const clear = async (dir: DirHandle, path: string): Promise<boolean> => {
    let allGone = true;
    // The worktree's `.git` file goes last: a removal stopped half-way leaves a worktree
    // git still recognises, for the person who reviews it.
    const planned = [...(children.get(path) ?? [])].sort(
      (a, b) => Number(a.path === '.git') - Number(b.path === '.git'),
    );
    for (const entry of planned) {
      if (stop()) return false;
      if (entry.path === '.git' && !allGone) {
        retain('.git', 'kept because other entries were kept: the worktree stays recognisable to git');
        continue;
      }
      const name = basename(entry.path);
      if (entry.type === 'directory') {
        let child: DirHandle;
        try {
          child = await dir.openDir(name);
        } catch (error) {
          retain(
            entry.path,
            errnoOf(error) === 'ENOTDIR' ? 'no longer a directory' : `cannot be opened: ${errnoOf(error)}`,
          );
          allGone = false;
          continue;
        }
        let cleared = false;
        try {
          if (!sameId(child.id, entry) || modeText(child.mode) !== entry.mode) {
            retain(entry.path, 'replaced or changed since planning (device/inode or mode differ)');
          } else cleared = await clear(child, entry.path);
        } finally {
          await child.close();
        }
        if (!cleared) {
          if (!report.interrupted) retain(entry.path, 'holds kept entries (kept)');
          allGone = false;
        } else if (!(await removeDir(dir, name, entry))) allGone = false;
      } else {
        const why = matchesFile(entry, await readFileEntry(dir, name, ctx.maxFileBytes), ctx.format);
        if (why !== null) {
          retain(entry.path, why);
          allGone = false;
          continue;
        }
        // The name must still be bound to the verified inode at the moment of removal.
        try {
          const now = await dir.lstatChild(name);
          if (!now.isFile() || !sameId(idOf(now), entry)) {
            retain(entry.path, 'replaced while it was being verified');
            allGone = false;
            continue;
          }
          await dir.unlinkChild(name);
          report.removed.push(entry.path);
          await ctx.afterEntry?.(entry.path);
        } catch (error) {
          retain(entry.path, `cannot be removed: ${errnoOf(error)}`);
          allGone = false;
        }
      }
    }
    if (allGone) await noteUnexpected(dir, path, report);
    return allGone;
  };

  const removeDir = async (dir: DirHandle, name: string, entry: ManifestEntry): Promise<boolean> => {
    try {
      const now = await dir.lstatChild(name);
      if (!now.isDirectory() || !sameId(idOf(now), entry)) {
        retain(entry.path, 'replaced while it was being emptied');
        return false;
      }
      await dir.rmdirChild(name);
      report.removed.push(entry.path);
      await ctx.afterEntry?.(entry.path);
      return true;
    } catch (error) {
      const code = errnoOf(error);
      retain(
        entry.path,
        code === 'ENOTEMPTY' || code === 'EEXIST'
          ? 'holds unexpected entries (kept)'
          : `cannot be removed: ${code}`,
      );
      return false;
    }
  };

  try {
    let top: DirHandle;
    try {
      top = await parent.openDir(basename(root));
    } catch (error) {
      retain('.', `cannot open the destination: ${errnoOf(error)}`);
      return report;
    }
    let cleared = false;
    try {
      if (!sameId(top.id, rootEntry) || modeText(top.mode) !== rootEntry.mode)
        retain('.', 'the destination was replaced (device/inode or mode differ)');
      else cleared = await clear(top, '.');
    } finally {
      await top.close();
    }
    if (cleared && !stop()) report.destinationRemoved = await removeDir(parent, basename(root), rootEntry);
    else if (!cleared && !report.interrupted && !report.retained.some((r) => r.path === '.'))
      retain('.', 'holds kept entries (kept)');
  } finally {
    await parent.close();
  }
  return report;
}

/** Lists what is left in a directory whose planned entries are all gone: none of it is in the manifest, all of it is kept. */
async function noteUnexpected(dir: DirHandle, path: string, report: RemovalReport): Promise<void> {
  let names: Buffer[];
  try {
    names = await dir.names();
  } catch {
    return;
  }
  for (const raw of names.sort(Buffer.compare)) {
    report.retained.push({ path: join(path, raw.toString('utf8')), why: 'not in the manifest (kept)' });
  }
}
