/**
 * The key that authenticates cache entries (docs/scanner-and-classifiers.md, "The cache"):
 * 32 random bytes in `$XDG_CACHE_HOME/sourcesteward/cache-key` (else
 * `~/.cache/sourcesteward/cache-key`), mode 0600, created on first use. It lives outside
 * every repository, so a git dir shipped in a tarball (or written by another user or
 * machine) carries entries this user's runs never accept.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { xdgToolDir } from '../../../core/xdg.js';

const KEY_BYTES = 32;

/** Where the cache key lives. */
export function cacheKeyPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(xdgToolDir(env, 'XDG_CACHE_HOME', '.cache'), 'cache-key');
}

/**
 * This user's cache key, created when there is none; undefined when it cannot be read or
 * made, or is not a 0600 regular file of this user holding exactly 32 bytes (then the scan
 * runs without a cache).
 */
export function readOrCreateCacheKey(path: string): Buffer | undefined {
  const key = readKey(path);
  if (key !== 'absent') return key;
  try {
    mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
    // Published whole by a hard link, so a concurrent run never reads half a key: the
    // first link wins and every run reads that one.
    const temp = `${path}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
    writeFileSync(temp, randomBytes(KEY_BYTES), { mode: 0o600, flag: 'wx' });
    try {
      linkSync(temp, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      unlinkSync(temp);
    }
  } catch {
    return undefined;
  }
  const made = readKey(path);
  return made === 'absent' ? undefined : made;
}

function readKey(path: string): Buffer | undefined | 'absent' {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'absent' : undefined;
  }
  try {
    const info = fstatSync(fd);
    const uid = process.getuid?.();
    if (!info.isFile() || (info.mode & 0o7777) !== 0o600 || (uid !== undefined && info.uid !== uid))
      return undefined;
    const key = Buffer.alloc(KEY_BYTES + 1);
    return readSync(fd, key, 0, key.length, 0) === KEY_BYTES ? key.subarray(0, KEY_BYTES) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
