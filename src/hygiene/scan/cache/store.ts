/**
 * The cache's files (docs/scanner-and-classifiers.md, "The cache"): one folder under the
 * git dir, one file per entry named by the digest of its key. Each file is
 * `STWC1 <hmac>\n` and the gzipped JSON of its value; the HMAC (this user's key, over the
 * entry's name and bytes) makes an entry written anywhere else — another user, another
 * machine, a `.git/` from a tarball — or renamed, or cut short, fail like a missing one.
 * Values are plain data that the caller checks field by field. Writes are atomic (a temp
 * file renamed over the entry), reads refresh the entry's time, and writing past the size
 * bound removes the least recently used entries first.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  renameSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { isProcessAlive } from '../../../core/liveness.js';

const MAGIC = 'STWC1 ';
const HEADER_BYTES = MAGIC.length + 64 + 1;
/** An entry's name: the hex SHA-256 of its key. */
export const ENTRY_NAME = /^[0-9a-f]{64}$/;
const TEMP_NAME = /^\.tmp-(\d+)-[0-9a-f]{12}$/;
/** The default size bound, when `STW_CACHE_MAX_MIB` does not set one. */
export const DEFAULT_MAX_MIB = 256;
const MIB = 1024 * 1024;

/** The cache folder under a repository's common git dir. */
export function cacheDirOf(commonDir: string): string {
  return join(commonDir, 'sourcesteward-cache');
}

/**
 * True when the common git dir is this repository's own: the git dir itself, or the one whose
 * `worktrees/` holds it. A `commondir` file a repository ships can name any folder (another
 * repository's `.git`), and the cache must not write there nor share that one's entries.
 */
export function ownsCommonDir(gitDir: string, commonDir: string): boolean {
  try {
    const git = realpathSync(gitDir);
    const common = realpathSync(commonDir);
    return git === common || dirname(git) === join(common, 'worktrees');
  } catch {
    return false;
  }
}

/** What `clear` removed. */
export interface ClearResult {
  path: string;
  entries: number;
  bytes: number;
}

export class CacheStore {
  private constructor(
    readonly dir: string,
    private readonly key: Buffer,
    readonly maxBytes: number,
  ) {}

  /**
   * The store in `dir`, made if missing; undefined when it cannot be used (not writable, a
   * symlink or another user's folder on the way): the scan then runs without it.
   */
  static open(dir: string, key: Buffer, maxBytes: number): CacheStore | undefined {
    // The folder is checked before anything is made in it: a symlink (a `.git/` from a
    // tarball may hold one) is never followed.
    if (!isOwnDirectory(dir)) return undefined;
    return new CacheStore(dir, key, maxBytes);
  }

  /** The value stored under `name`, or undefined when it is missing, cut short, altered or not this user's. */
  read(name: string): unknown {
    const bytes = this.readFile(name);
    if (bytes === undefined || bytes.length < HEADER_BYTES) return undefined;
    if (bytes.toString('latin1', 0, MAGIC.length) !== MAGIC || bytes[HEADER_BYTES - 1] !== 0x0a)
      return undefined;
    const mac = Buffer.from(bytes.toString('latin1', MAGIC.length, HEADER_BYTES - 1), 'hex');
    const body = bytes.subarray(HEADER_BYTES);
    const expected = this.mac(name, body);
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) return undefined;
    try {
      const value: unknown = JSON.parse(
        gunzipSync(body, { maxOutputLength: this.maxBytes * 8 }).toString('utf8'),
      );
      const now = new Date();
      utimesSync(join(this.dir, name), now, now);
      return value;
    } catch {
      return undefined;
    }
  }

  /** Stores `value` under `name` atomically; false when it could not (the run goes on without). */
  write(name: string, value: unknown): boolean {
    if (!ENTRY_NAME.test(name)) return false;
    const body = gzipSync(JSON.stringify(value), { level: 1 });
    if (body.length + HEADER_BYTES > this.maxBytes) return false;
    const temp = join(this.dir, `.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
    try {
      // No fsync: a cache lost to a crash costs a cold run, and a torn entry fails its HMAC.
      writeFileSync(
        temp,
        Buffer.concat([Buffer.from(`${MAGIC}${this.mac(name, body).toString('hex')}\n`), body]),
        {
          mode: 0o600,
          flag: 'wx',
        },
      );
      renameSync(temp, join(this.dir, name));
      return true;
    } catch {
      try {
        unlinkSync(temp);
      } catch {}
      return false;
    }
  }

  /**
   * Removes the least recently used entries until the store fits its bound, and temp files
   * whose writer is gone.
   */
  evict(): void {
    const entries: { name: string; bytes: number; used: number }[] = [];
    let total = 0;
    for (const { name, bytes, used, stale } of this.list()) {
      if (stale) {
        this.remove(name);
        continue;
      }
      entries.push({ name, bytes, used });
      total += bytes;
    }
    if (total <= this.maxBytes) return;
    entries.sort((a, b) => a.used - b.used || (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (total <= this.maxBytes) break;
      if (this.remove(entry.name)) total -= entry.bytes;
    }
  }

  /** Removes every entry (and stale temp file); says how many and how many bytes. */
  clear(): ClearResult {
    let entries = 0;
    let bytes = 0;
    for (const file of this.list()) {
      if (!this.remove(file.name) || file.stale) continue;
      entries++;
      bytes += file.bytes;
    }
    return { path: this.dir, entries, bytes };
  }

  private list(): { name: string; bytes: number; used: number; stale: boolean }[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    const out: { name: string; bytes: number; used: number; stale: boolean }[] = [];
    for (const name of names) {
      const temp = TEMP_NAME.exec(name);
      if (!ENTRY_NAME.test(name) && temp === null) continue;
      try {
        const info = lstatSync(join(this.dir, name));
        const stale = temp !== null && !isProcessAlive(Number(temp[1]));
        if (temp !== null && !stale) continue;
        out.push({ name, bytes: info.size, used: info.mtimeMs, stale });
      } catch {}
    }
    return out;
  }

  private remove(name: string): boolean {
    try {
      unlinkSync(join(this.dir, name));
      return true;
    } catch {
      return false;
    }
  }

  private mac(name: string, body: Buffer): Buffer {
    return createHmac('sha256', this.key).update(`${name}\n`).update(body).digest();
  }

  /** The entry's bytes: a regular file read without following a link, at most the bound. */
  private readFile(name: string): Buffer | undefined {
    if (!ENTRY_NAME.test(name)) return undefined;
    let fd: number;
    try {
      fd = openSync(join(this.dir, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch {
      return undefined;
    }
    try {
      const info = fstatSync(fd);
      if (!info.isFile() || info.size > this.maxBytes) return undefined;
      const bytes = Buffer.alloc(info.size);
      let read = 0;
      while (read < bytes.length) {
        const n = readSync(fd, bytes, read, bytes.length - read, read);
        if (n === 0) break;
        read += n;
      }
      return read === bytes.length ? bytes : undefined;
    } catch {
      return undefined;
    } finally {
      closeSync(fd);
    }
  }
}

/** True when `path` is a real folder of this user's, made (0700) if missing. */
function isOwnDirectory(path: string): boolean {
  try {
    try {
      mkdirSync(path, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
    }
    const info = lstatSync(path);
    const uid = process.getuid?.();
    return info.isDirectory() && (uid === undefined || info.uid === uid);
  } catch {
    return false;
  }
}

/** The size bound from `STW_CACHE_MAX_MIB` (whole MiB), else the default; undefined when the value is not a whole number ≥ 1. */
export function maxBytesFrom(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env['STW_CACHE_MAX_MIB'];
  if (raw === undefined || raw === '') return DEFAULT_MAX_MIB * MIB;
  return /^[1-9][0-9]{0,6}$/.test(raw) ? Number(raw) * MIB : undefined;
}
