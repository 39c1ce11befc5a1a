/**
 * Filesystem access confined to directory handles, for reading and removing an owned
 * task destination without ever following a link.
 *
 * Node has no openat/unlinkat. On Linux, `/proc/self/fd/<fd>/<name>` names `<name>`
 * inside the very directory the descriptor was opened on — the kernel resolves the
 * descriptor's magic link to that inode, whatever happened to its path since — so a
 * held directory handle gives openat semantics: renaming or swapping an ancestor cannot
 * redirect a later lstat, open, unlink or rmdir. Every child is opened with O_NOFOLLOW
 * and checked against its recorded device and inode. Where that is not available
 * (no /proc), confinement is reported unavailable and nothing is removed.
 */
import { constants, realpathSync } from 'node:fs';
import { type FileHandle, lstat, open, readdir, rmdir, unlink } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';

export interface PhysicalId {
  dev: string;
  ino: string;
}

type BigStats = Awaited<ReturnType<typeof lstatBig>>;

function lstatBig(path: string) {
  return lstat(path, { bigint: true });
}

export function idOf(stats: { dev: bigint | number; ino: bigint | number }): PhysicalId {
  return { dev: String(stats.dev), ino: String(stats.ino) };
}

export function sameId(a: PhysicalId, b: PhysicalId): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

function errno(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
}

const PROC_FD = '/proc/self/fd';
let confinementProbe: Promise<boolean> | undefined;

/** True when directory handles can confine paths (`/proc/self/fd` resolves to the opened inode). */
export function isConfinementAvailable(): Promise<boolean> {
  confinementProbe ??= (async () => {
    let handle: FileHandle | undefined;
    try {
      handle = await open('/', constants.O_RDONLY | constants.O_DIRECTORY);
      const viaProc = await lstatBig(`${PROC_FD}/${handle.fd}/.`);
      const direct = await handle.stat({ bigint: true });
      return viaProc.ino === direct.ino && viaProc.dev === direct.dev;
    } catch {
      return false;
    } finally {
      await handle?.close();
    }
  })();
  return confinementProbe;
}

/**
 * Why an absolute canonical path cannot be trusted as a chain of real directories, or
 * null: every component from `/` is lstat'ed and must be a directory, not a link.
 * Returns the identity of the last component when it exists.
 */
export async function checkDirectoryChain(
  path: string,
): Promise<{ problem: string | null; id: PhysicalId | null; exists: boolean }> {
  const parts = path.split(sep).filter((part) => part !== '');
  let current = '';
  for (const [index, part] of parts.entries()) {
    current += `${sep}${part}`;
    let info: BigStats;
    try {
      info = await lstatBig(current);
    } catch (error) {
      const code = errno(error);
      if (code === 'ENOENT' && index === parts.length - 1) return { problem: null, id: null, exists: false };
      return { problem: `${current}: ${code}`, id: null, exists: false };
    }
    if (info.isSymbolicLink()) return { problem: `${current} is a symbolic link`, id: null, exists: false };
    if (!info.isDirectory()) return { problem: `${current} is not a directory`, id: null, exists: false };
    if (index === parts.length - 1) return { problem: null, id: idOf(info), exists: true };
  }
  return { problem: null, id: null, exists: true };
}

/** A held directory: names below it are resolved through its descriptor, never through its path. */
export class DirHandle {
  private constructor(
    private readonly handle: FileHandle,
    readonly id: PhysicalId,
    /** Permission bits (st_mode & 0o7777). */
    readonly mode: number,
  ) {}

  /** Opens an absolute directory path whose last component must not be a link. */
  static async openPath(path: string): Promise<DirHandle> {
    const handle = await open(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    try {
      const info = await handle.stat({ bigint: true });
      return new DirHandle(handle, idOf(info), Number(info.mode & 0o7777n));
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** The path naming `name` inside this directory's inode. */
  child(name: string): string {
    return `${PROC_FD}/${this.handle.fd}/${name}`;
  }

  /** lstat of a child (a link is reported as a link, never followed). */
  lstatChild(name: string): Promise<BigStats> {
    return lstatBig(this.child(name));
  }

  /** Opens a child directory (O_NOFOLLOW). */
  openDir(name: string): Promise<DirHandle> {
    return DirHandle.openPath(this.child(name));
  }

  /** Opens a child for reading; O_NOFOLLOW refuses a link, O_NONBLOCK keeps a FIFO from blocking. */
  openFile(name: string): Promise<FileHandle> {
    return open(this.child(name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  }

  /** The raw names in this directory (Buffers: a name that is not UTF-8 is seen as such). */
  async names(): Promise<Buffer[]> {
    return readdir(`${PROC_FD}/${this.handle.fd}`, { encoding: 'buffer' });
  }

  unlinkChild(name: string): Promise<void> {
    return unlink(this.child(name));
  }

  rmdirChild(name: string): Promise<void> {
    return rmdir(this.child(name));
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

/** A name read from a directory, as text, or undefined when it is not valid UTF-8. */
export function utf8Name(raw: Buffer): string | undefined {
  const text = raw.toString('utf8');
  return Buffer.from(text, 'utf8').equals(raw) ? text : undefined;
}

/** Where a path really leads once every symlink on the way is resolved (`realPathWithin`). */
export type RealPlace =
  | { kind: 'inside'; rel: string }
  | { kind: 'outside'; real: string }
  | { kind: 'missing' };

/**
 * Where `absolute` really leads, every symlink on the way resolved: `inside` with the real
 * path relative to `realRoot` (`/`-separated, '' for the root itself), `outside` when it
 * leaves `realRoot` (a link such as `outside -> /etc` on the way), `missing` when it, or a
 * link's target, does not exist. `realRoot` must itself be a real path.
 */
export function realPathWithin(realRoot: string, absolute: string): RealPlace {
  let real: string;
  try {
    real = realpathSync(absolute);
  } catch {
    return { kind: 'missing' };
  }
  const rel = relative(realRoot, real);
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return { kind: 'outside', real };
  return { kind: 'inside', rel: sep === '/' ? rel : rel.split(sep).join('/') };
}

/** Whether `child` is `parent` or inside it (paths compared as given, not resolved). */
export function isWithin(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}
