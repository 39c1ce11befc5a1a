/**
 * The one apply journal of every journaled action run: `DIR/journals/<plan_id>.jsonl`, one
 * JSON record per line, each fsynced before the step it announces is taken. It is the only
 * durable memory of what an interrupted run may have done, so it is read strictly: a
 * record that does not fit the plan or the protocol refuses rather than being guessed at.
 * This module holds what the protocols share — where the journal lives, its bounded load,
 * torn-tail handling and the refusal for a corrupt line; each protocol checks and folds its
 * own records (branch deletion: `../journal.ts`, task retirement: `../retire/journal.ts`).
 */
import { constants } from 'node:fs';
import { type FileHandle, lstat, open } from 'node:fs/promises';
import { join } from 'node:path';
import { RefusalError, StwError } from '../../core/errors.js';
import { ensureDir, Journal, parseJournal } from '../../core/fs-atomic.js';
import { readAtMost } from '../../core/read-config-file.js';
import { TORN_TEXT_LIMIT } from './limits.js';

/** Evidence kept when a torn final line (a write cut by a crash) is removed before appending. */
export interface TornTailRecord {
  type: 'torn-tail-discarded';
  bytes: number;
  /** The torn text, at most TORN_TEXT_LIMIT characters of it. */
  text: string;
  at: string;
}

export function journalDir(stateDir: string): string {
  return join(stateDir, 'journals');
}

export function journalPath(stateDir: string, planId: string): string {
  return join(journalDir(stateDir), `${planId}.jsonl`);
}

/** `journals/` as a real directory (mode 0700), created when needed; a symlink refuses. */
export async function realJournalDir(stateDir: string): Promise<string> {
  const dir = journalDir(stateDir);
  await ensureDir(dir, 0o700);
  const info = await lstat(dir);
  if (!info.isDirectory() || info.isSymbolicLink())
    throw new RefusalError('state-dir-symlink', `${dir} is not a real directory`, { path: dir });
  return dir;
}

/** The refusal for a journal line that does not fit the protocol: never repaired automatically. */
export function journalCorrupt(path: string, line: number, why: string): RefusalError {
  return new RefusalError(
    'journal-corrupt',
    `journal ${path} line ${line}: ${why}; review it manually, it is never repaired automatically`,
    { journal: path, line },
  );
}

/** How one kind of journal refuses when it cannot be read as one: its codes and wording. */
export interface JournalRefusals {
  /** A symbolic link or a special file where the journal should be. */
  notAFile(path: string, symlink: boolean): RefusalError;
  /** A journal larger than its kind's bound. */
  tooLarge(path: string, maxBytes: number): RefusalError;
  /** A complete line (1-based) that is not JSON. */
  notJson(path: string, line: number): RefusalError;
}

/**
 * The apply journal's refusals (`journal-corrupt`, `bound-exceeded`). `details`: whether
 * the size and file-type refusals name the journal in their details.
 */
export function applyJournalRefusals(details = true): JournalRefusals {
  const facts = (path: string) => (details ? { journal: path } : undefined);
  return {
    notAFile: (path) =>
      new RefusalError('journal-corrupt', `journal ${path} is not a regular file`, facts(path)),
    tooLarge: (path, maxBytes) =>
      new RefusalError('bound-exceeded', `journal ${path} is larger than ${maxBytes} bytes`, facts(path)),
    notJson: (path, line) => journalCorrupt(path, line, 'not valid JSON'),
  };
}

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/** At most `maxBytes` of an open regular file, read through its handle; more refuses. */
async function readHandleBounded(
  path: string,
  maxBytes: number,
  refusals: JournalRefusals,
): Promise<string | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined;
    if (errnoOf(error) === 'ELOOP') throw refusals.notAFile(path, true);
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile()) throw refusals.notAFile(path, false);
    const text = await readAtMost(handle, maxBytes);
    if (text === undefined) throw refusals.tooLarge(path, maxBytes);
    return text;
  } finally {
    await handle.close();
  }
}

/**
 * Reads a journal's lines, unchecked. A missing journal is an empty one; a journal larger
 * than `maxBytes`, a symlink or special file, or a complete line that is not JSON refuses
 * as the journal's kind words it (`refusals`; the apply journal's by default). The file
 * is checked before it is opened (no special file is opened) and read through a handle
 * that follows no link, so what was checked is what is read.
 */
export async function readJournalBounded(
  path: string,
  maxBytes: number,
  refusals: JournalRefusals = applyJournalRefusals(),
): Promise<{ records: unknown[]; tornTail: string | undefined }> {
  try {
    const info = await lstat(path);
    if (!info.isFile()) throw refusals.notAFile(path, info.isSymbolicLink());
    if (info.size > maxBytes) throw refusals.tooLarge(path, maxBytes);
  } catch (error) {
    if (errnoOf(error) !== 'ENOENT') throw error;
  }
  const text = await readHandleBounded(path, maxBytes, refusals);
  if (text === undefined) return { records: [], tornTail: undefined };
  try {
    return parseJournal<unknown>(text, path);
  } catch (error) {
    const match = /line (\d+)/.exec((error as Error).message);
    throw refusals.notJson(path, match ? Number(match[1]) : 0);
  }
}

/**
 * Removes a torn final line so the next record starts on a line of its own, and returns
 * the torn text for the journal's `torn-tail-discarded` record. Dropping it loses nothing
 * the protocol relies on: `append` never returned for that record, so no step was taken
 * on the strength of it; whatever it announced is re-established by inspection.
 */
export async function discardTornTail(path: string, tornTail: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    const { size } = await handle.stat();
    const tornBytes = Buffer.byteLength(tornTail, 'utf8');
    // Re-check under the open handle: the file must still end with exactly that text.
    const tail = Buffer.alloc(Math.min(tornBytes + 1, size));
    await handle.read(tail, 0, tail.length, size - tail.length);
    const expected = Buffer.from(tornTail, 'utf8');
    const endsWithTorn =
      tail.subarray(tail.length - expected.length).equals(expected) &&
      (tail.length === expected.length || tail[0] === 0x0a);
    if (!endsWithTorn)
      throw new RefusalError('journal-corrupt', `journal ${path} changed while it was being read`, {
        journal: path,
      });
    await handle.truncate(size - tornBytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export function tornTailRecord(tornTail: string, at: string): TornTailRecord {
  return {
    type: 'torn-tail-discarded',
    bytes: Buffer.byteLength(tornTail, 'utf8'),
    text: tornTail.slice(0, TORN_TEXT_LIMIT),
    at,
  };
}

/** Opens the plan's journal for appending, creating `journals/` (mode 0700) when needed. */
export async function openJournal(stateDir: string, planId: string): Promise<Journal> {
  await realJournalDir(stateDir);
  return Journal.open(journalPath(stateDir, planId));
}

/** A filesystem error (not one of the tool's own): the journal could not be read or written. */
export function isIoError(error: unknown): error is NodeJS.ErrnoException {
  return (
    error instanceof Error &&
    typeof (error as NodeJS.ErrnoException).code === 'string' &&
    !(error instanceof StwError)
  );
}

/** What a run reports when its journal cannot be loaded: the refusal, an I/O error as `journal-unreadable`; anything else is rethrown. */
export function journalRefusal(error: unknown, path: string): RefusalError {
  const refusal = isIoError(error)
    ? new RefusalError('journal-unreadable', `journal ${path}: ${error.message}`)
    : error;
  if (!(refusal instanceof RefusalError)) throw refusal;
  return refusal;
}

/**
 * A torn final line at load: its append never returned, so nothing was done on its
 * strength; whatever it announced is re-established by inspection. Its text is kept as
 * evidence (`append`, which writes after the line is dropped), then dropped.
 */
export async function settleTornTail(
  path: string,
  tornTail: string | undefined,
  at: string,
  append: (record: TornTailRecord) => Promise<void>,
): Promise<void> {
  if (tornTail === undefined) return;
  await discardTornTail(path, tornTail);
  await append(tornTailRecord(tornTail, at));
}
