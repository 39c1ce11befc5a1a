/**
 * Reads a small configuration file that a repository controls (`.dochygiene.yml`), or the
 * user's own. A committed symlink can aim the name at anything on the reader's machine:
 * `/dev/tty` would block the SessionStart reminder on the user's terminal, `/dev/zero`
 * would fill memory. So the file is opened without blocking, must be a regular file, and
 * is read up to `CONFIG_FILE_LIMIT` bytes and no further.
 */
import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { YAML_CONFIG_LIMIT } from './yaml-bounds.js';

/** The most a configuration file may hold: far above any real one, and YAML (`yaml-bounds.ts`). */
export const CONFIG_FILE_LIMIT = YAML_CONFIG_LIMIT;

/** Why a configuration file cannot be read as one (thrown as an `Error` with `code`). */
export class ConfigFileProblem extends Error {
  constructor(
    readonly code: 'not-a-regular-file' | 'too-large',
    message: string,
  ) {
    super(message);
  }
}

/**
 * The UTF-8 text of the regular file at `path`, or undefined when nothing is there
 * (ENOENT, ENOTDIR). Another kind of file (a device, a FIFO, a folder) or one over
 * `limit` bytes is a `ConfigFileProblem`; other errors are thrown as they come.
 */
export async function readConfigFile(path: string, limit = CONFIG_FILE_LIMIT): Promise<string | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new ConfigFileProblem('not-a-regular-file', 'not a regular file');
    if (stats.size > limit) throw new ConfigFileProblem('too-large', `larger than ${limit} bytes`);
    const text = await readAtMost(handle, limit);
    if (text === undefined) throw new ConfigFileProblem('too-large', `larger than ${limit} bytes`);
    return text;
  } finally {
    await handle.close();
  }
}

/**
 * The UTF-8 text of an open file, read to its end but never past `limit` bytes:
 * undefined when it holds more (a file that grows while it is read included).
 */
export async function readAtMost(handle: FileHandle, limit: number): Promise<string | undefined> {
  const buffer = Buffer.alloc(limit + 1);
  let length = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
    if (length > limit) return undefined;
  }
  return buffer.subarray(0, length).toString('utf8');
}
