import { randomBytes } from 'node:crypto';
import { closeSync, constants, fsyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { link, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** fsync a directory so that a rename or create inside it survives a crash. */
export async function fsyncDir(dir: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch (error) {
    // Some filesystems refuse fsync on a directory (EINVAL/EISDIR); the rename still happened.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'EPERM') throw error;
  } finally {
    await handle?.close();
  }
}

function tempNameFor(path: string, dir = dirname(path)): string {
  return join(dir, `.${basename(path)}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
}

/** `.NAME.tmp-PID-HEX`, the temp name `writeFileAtomic` uses: the PID, or undefined for any other name. */
export function tempFileOwner(name: string): number | undefined {
  const match = /^\..+\.tmp-(\d+)-[0-9a-f]{12}$/.exec(name);
  return match === null ? undefined : Number(match[1]);
}

export interface WriteOptions {
  mode?: number;
  /**
   * Where the temp file is written instead of beside `path`: a folder no scan or
   * `git add` looks at (e.g. inside the git dir), so a crash leaves nothing in the
   * worktree. It must be on the same filesystem; if the rename crosses filesystems
   * (EXDEV), the write falls back to a temp file beside `path`.
   */
  tempDir?: string;
  /** Test-only fault injection: called after the temp file is written, before the rename. */
  beforeRename?: () => void | Promise<void>;
}

/**
 * Replaces `path` atomically: write a temp file in the same directory, fsync it,
 * rename it over the target, fsync the directory. A failure at any point leaves the
 * previous content in place and removes the temp file. The file gets exactly `mode`
 * (default 0644), whatever the umask.
 * The rename replaces the inode: hard links to the old file keep the old content.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: WriteOptions = {},
): Promise<void> {
  if (options.tempDir !== undefined) {
    try {
      await writeVia(tempNameFor(path, options.tempDir), path, data, options);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    }
  }
  await writeVia(tempNameFor(path), path, data, options);
}

async function writeVia(temp: string, path: string, data: string | Uint8Array, options: WriteOptions) {
  const mode = options.mode ?? 0o644;
  const handle = await open(temp, 'wx', mode);
  try {
    try {
      // open() applies the umask; the caller asked for this exact mode (e.g. to keep a 0666 file 0666).
      await handle.chmod(mode);
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await options.beforeRename?.();
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
  await fsyncDir(dirname(path));
}

/**
 * Creates `path` exclusively (fails with EEXIST if it exists), fsyncs it and its
 * directory. For immutable records such as stored plans and the plan key: written once,
 * never rewritten. The content is written and fsynced in a temp file first and then
 * hard-linked to `path`, so `path` appears complete or not at all: a reader racing the
 * writer never sees it empty or short, and a crash leaves at most a `.NAME.tmp-…` file.
 */
export async function writeFileExclusive(
  path: string,
  data: string | Uint8Array,
  mode = 0o600,
): Promise<void> {
  const temp = tempNameFor(path);
  const handle = await open(temp, 'wx', mode);
  try {
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await link(temp, path);
  } finally {
    await unlink(temp).catch(() => {});
  }
  await fsyncDir(dirname(path));
}

export async function ensureDir(dir: string, mode?: number): Promise<void> {
  await mkdir(dir, { recursive: true, ...(mode === undefined ? {} : { mode }) });
}

/**
 * An append-only JSON-lines journal. Each record is one line written with O_APPEND and
 * fsynced before `append` returns, so a record that was acknowledged survives a crash.
 */
export class Journal {
  private constructor(
    readonly path: string,
    private fd: number | undefined,
  ) {}

  /** Opens (creating if needed) the journal for appending; fsyncs the directory on create. */
  static async open(path: string, mode = 0o600): Promise<Journal> {
    let created = false;
    let fd: number;
    try {
      fd = openSync(
        path,
        constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL,
        mode,
      );
      created = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      fd = openSync(path, constants.O_WRONLY | constants.O_APPEND);
    }
    if (created) await fsyncDir(dirname(path));
    return new Journal(path, fd);
  }

  append(record: unknown): void {
    this.appendAll([record]);
  }

  /** Appends records in one write and one fsync (a group commit): all are durable on return. */
  appendAll(records: readonly unknown[]): void {
    if (this.fd === undefined) throw new Error('journal is closed');
    if (records.length === 0) return;
    const text = records.map((record) => `${JSON.stringify(record)}\n`).join('');
    const bytes = Buffer.from(text, 'utf8');
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(this.fd, bytes, offset);
    fsyncSync(this.fd);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

export interface JournalContents<T = unknown> {
  records: T[];
  /** A final line without its newline: a write torn by a crash. It is reported, never trusted. */
  tornTail: string | undefined;
}

/** Reads a journal. A missing file is an empty journal; a malformed complete line throws. */
export async function readJournal<T = unknown>(path: string): Promise<JournalContents<T>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], tornTail: undefined };
    throw error;
  }
  return parseJournal<T>(text, path);
}

/**
 * A journal's text as its records: every complete line must be JSON; a final line
 * without its newline is the torn tail of a write cut short.
 */
export function parseJournal<T = unknown>(text: string, path: string): JournalContents<T> {
  const lines = text.split('\n');
  const last = lines.pop() ?? '';
  const records = lines.map((line, index) => {
    try {
      return JSON.parse(line) as T;
    } catch {
      throw new Error(`journal ${path}: line ${index + 1} is not valid JSON`);
    }
  });
  return { records, tornTail: last === '' ? undefined : last };
}

/** Synchronous best-effort removal used only on cleanup paths. */
export function unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}
