import { constants } from 'node:fs';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Deadline } from './deadline.js';
import { OperationalError } from './errors.js';
import { fsyncDir } from './fs-atomic.js';
import { gitText } from './git.js';

/**
 * The index saved byte for byte, so that a rollback puts back exactly what was there:
 * intent-to-add entries, assume-unchanged and skip-worktree bits, gitlinks and every
 * extension — all of which `write-tree` + `read-tree` would drop or reset.
 */
export interface SavedIndex {
  /** The index file's absolute path (`git rev-parse --git-path index`). */
  path: string;
  /** Its bytes; undefined when there was no index file yet. */
  bytes: Buffer | undefined;
}

export async function indexFilePath(root: string, deadline: Deadline): Promise<string> {
  const out = await gitText(['rev-parse', '--path-format=absolute', '--git-path', 'index'], {
    cwd: root,
    deadline,
  });
  return out.replace(/\n$/, '');
}

export async function saveIndex(root: string, deadline: Deadline): Promise<SavedIndex> {
  const path = await indexFilePath(root, deadline);
  try {
    return { path, bytes: await readFile(path) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { path, bytes: undefined };
    throw error;
  }
}

/**
 * Puts a saved index back the way git itself replaces one: create `index.lock`
 * exclusively (so a concurrent git command is never overwritten — it holds that lock
 * while it works), write and fsync it, rename it over the index.
 */
export async function restoreIndex(saved: SavedIndex): Promise<void> {
  const lock = `${saved.path}.lock`;
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new OperationalError(
        'index-locked',
        `${lock} exists: another git process is using the index, so it was not restored`,
      );
    throw error;
  }
  try {
    try {
      if (saved.bytes !== undefined) await handle.writeFile(saved.bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (saved.bytes === undefined) {
      await unlink(saved.path).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
      await unlink(lock);
    } else await rename(lock, saved.path);
  } catch (error) {
    await unlink(lock).catch(() => {});
    throw error;
  }
  await fsyncDir(dirname(saved.path));
}
