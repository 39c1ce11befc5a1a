import {
  closeSync,
  constants,
  fsyncSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { lstat, open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { RefusalError } from '../core/errors.js';
import { ensureDir, fsyncDir, Journal, readJournal } from '../core/fs-atomic.js';

/**
 * The apply journal: `DIR/journals/<plan_id>.jsonl`, one JSON record per line, each
 * fsynced before the step it announces is taken. It is the only durable memory of what an
 * interrupted apply may have done, so it is read strictly: a record that does not fit
 * the plan or the protocol refuses rather than being guessed at.
 *
 * Protocol per delete action: `intent` (before the transaction) → `outcome` (after it,
 * from an inspection of the repository) → `verified` (after the postcondition check).
 * A `refused`/`failed` outcome means the repository was inspected and no effect had
 * happened; a later run may try that action again, with a fresh `intent`, only after
 * full revalidation.
 */

export interface IntentRecord {
  type: 'intent';
  action_id: number;
  ref: string;
  old_oid: string;
  recovery_ref: string;
  /** jj: the operation the action was revalidated at (its effects must descend from it). */
  operation?: string;
  at: string;
}

export type OutcomeResult = 'deleted' | 'refused' | 'failed';

export interface OutcomeRecord {
  type: 'outcome';
  action_id: number;
  result: OutcomeResult;
  reason?: string;
  /** True when the outcome was established by inspecting the repository after an interruption. */
  recovered?: boolean;
  /** jj: the operation after the action's effects. */
  operation?: string;
  at: string;
}

export interface VerifiedRecord {
  type: 'verified';
  action_id: number;
  /** jj: the operation at which the postcondition was verified. */
  operation?: string;
  at: string;
}

/** Evidence kept when a torn final line (a write cut by a crash) is removed before appending. */
export interface TornTailRecord {
  type: 'torn-tail-discarded';
  bytes: number;
  /** The torn text, at most TORN_TEXT_LIMIT characters of it. */
  text: string;
  at: string;
}

export type JournalRecord = IntentRecord | OutcomeRecord | VerifiedRecord | TornTailRecord;

/** The effect a journal record must agree with: one `delete-ref` action of the stored plan. */
export interface JournalAction {
  action_id: number;
  ref: string;
  old_oid: string;
  recovery_ref: string;
}

/**
 * Where one action stands according to the journal.
 * - `none`: never started.
 * - `open`: an intent without an outcome — the transaction may or may not have committed.
 * - `settled`: an outcome was recorded (`lastOutcome`), no verification (yet or ever).
 * - `verified`: deleted and its postcondition verified.
 */
export type ActionPhase = 'none' | 'open' | 'settled' | 'verified';

export interface ActionJournalState {
  action_id: number;
  phase: ActionPhase;
  lastOutcome: { result: OutcomeResult; reason: string | undefined } | undefined;
  /** How many intents were recorded: more than one means earlier attempts found no effect. */
  attempts: number;
}

export interface LoadedJournal {
  path: string;
  records: JournalRecord[];
  states: Map<number, ActionJournalState>;
  /** A final line without its newline: never trusted, only reported and discarded on append. */
  tornTail: string | undefined;
}

const TORN_TEXT_LIMIT = 512;

export function journalDir(stateDir: string): string {
  return join(stateDir, 'journals');
}

export function journalPath(stateDir: string, planId: string): string {
  return join(journalDir(stateDir), `${planId}.jsonl`);
}

function corrupt(path: string, line: number, why: string): RefusalError {
  return new RefusalError(
    'journal-corrupt',
    `journal ${path} line ${line}: ${why}; review it manually, it is never repaired automatically`,
    { journal: path, line },
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkRecord(raw: unknown, path: string, line: number): JournalRecord {
  if (!isObject(raw) || typeof raw['type'] !== 'string') throw corrupt(path, line, 'not a journal record');
  const at = raw['at'];
  if (typeof at !== 'string') throw corrupt(path, line, 'record without "at"');
  if (raw['type'] === 'torn-tail-discarded') {
    if (typeof raw['bytes'] !== 'number' || typeof raw['text'] !== 'string')
      throw corrupt(path, line, 'malformed torn-tail record');
    return raw as unknown as TornTailRecord;
  }
  const id = raw['action_id'];
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1)
    throw corrupt(path, line, 'record without a valid action_id');
  const operation = raw['operation'];
  if (operation !== undefined && (typeof operation !== 'string' || !/^[0-9a-f]{128}$/.test(operation)))
    throw corrupt(path, line, 'malformed jj operation id');
  switch (raw['type']) {
    case 'intent':
      if (
        typeof raw['ref'] !== 'string' ||
        typeof raw['old_oid'] !== 'string' ||
        typeof raw['recovery_ref'] !== 'string'
      )
        throw corrupt(path, line, 'malformed intent record');
      return raw as unknown as IntentRecord;
    case 'outcome': {
      const result = raw['result'];
      if (result !== 'deleted' && result !== 'refused' && result !== 'failed')
        throw corrupt(path, line, 'malformed outcome record');
      if (raw['reason'] !== undefined && typeof raw['reason'] !== 'string')
        throw corrupt(path, line, 'malformed outcome reason');
      return raw as unknown as OutcomeRecord;
    }
    case 'verified':
      return raw as unknown as VerifiedRecord;
    default:
      throw corrupt(path, line, `unknown record type ${JSON.stringify(raw['type'])}`);
  }
}

/**
 * Folds the records into per-action states, enforcing the protocol order and that every
 * record names an action of this plan with exactly the plan's ref, old OID and pin.
 */
export function foldJournal(
  path: string,
  records: readonly JournalRecord[],
  actions: readonly JournalAction[],
): Map<number, ActionJournalState> {
  const byId = new Map(actions.map((action) => [action.action_id, action]));
  const states = new Map<number, ActionJournalState>();
  for (const action of actions)
    states.set(action.action_id, {
      action_id: action.action_id,
      phase: 'none',
      lastOutcome: undefined,
      attempts: 0,
    });
  records.forEach((record, index) => {
    const line = index + 1;
    if (record.type === 'torn-tail-discarded') return;
    const action = byId.get(record.action_id);
    const state = states.get(record.action_id);
    if (action === undefined || state === undefined)
      throw corrupt(path, line, `action ${record.action_id} is not in the plan`);
    switch (record.type) {
      case 'intent':
        if (
          record.ref !== action.ref ||
          record.old_oid !== action.old_oid ||
          record.recovery_ref !== action.recovery_ref
        )
          throw corrupt(path, line, `intent for action ${record.action_id} does not match the plan`);
        // A new intent is legitimate only when no attempt is open and nothing was deleted.
        if (state.phase === 'open' || state.phase === 'verified' || state.lastOutcome?.result === 'deleted')
          throw corrupt(path, line, `unexpected intent for action ${record.action_id}`);
        state.phase = 'open';
        state.attempts += 1;
        break;
      case 'outcome':
        if (state.phase !== 'open')
          throw corrupt(path, line, `outcome without intent for action ${record.action_id}`);
        state.phase = 'settled';
        state.lastOutcome = { result: record.result, reason: record.reason };
        break;
      case 'verified':
        if (state.phase !== 'settled' || state.lastOutcome?.result !== 'deleted')
          throw corrupt(path, line, `verification without a deletion for action ${record.action_id}`);
        state.phase = 'verified';
        break;
    }
  });
  return states;
}

/**
 * Reads and checks the journal of one plan. A missing journal is an empty one; a journal
 * larger than `maxBytes`, a symlink, or a malformed complete line refuses.
 */
export async function loadJournal(
  path: string,
  actions: readonly JournalAction[],
  maxBytes: number,
): Promise<LoadedJournal> {
  let size = 0;
  try {
    const info = await lstat(path);
    if (!info.isFile())
      throw new RefusalError('journal-corrupt', `journal ${path} is not a regular file`, { journal: path });
    size = info.size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (size > maxBytes)
    throw new RefusalError('bound-exceeded', `journal ${path} is larger than ${maxBytes} bytes`, {
      journal: path,
    });
  let contents: Awaited<ReturnType<typeof readJournal>>;
  try {
    contents = await readJournal(path);
  } catch (error) {
    const match = /line (\d+)/.exec((error as Error).message);
    throw corrupt(path, match ? Number(match[1]) : 0, 'not valid JSON');
  }
  const records = contents.records.map((raw, index) => checkRecord(raw, path, index + 1));
  return { path, records, states: foldJournal(path, records, actions), tornTail: contents.tornTail };
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
  const dir = journalDir(stateDir);
  await ensureDir(dir, 0o700);
  const info = await lstat(dir);
  if (!info.isDirectory() || info.isSymbolicLink())
    throw new RefusalError('state-dir-symlink', `${dir} is not a real directory`, { path: dir });
  return Journal.open(journalPath(stateDir, planId));
}

/**
 * One apply at a time per plan: `journals/<plan_id>.lock`, created exclusively and holding
 * the owner's pid. A lock whose pid no longer exists was left by a killed run and is taken
 * over; a live one refuses. (A recycled pid can make a dead owner look alive: the refusal
 * then names the lock file to remove by hand.)
 */
export class ApplyLock {
  private constructor(readonly path: string) {}

  static async acquire(stateDir: string, planId: string): Promise<ApplyLock> {
    const dir = journalDir(stateDir);
    await ensureDir(dir, 0o700);
    const info = await lstat(dir);
    if (!info.isDirectory() || info.isSymbolicLink())
      throw new RefusalError('state-dir-symlink', `${dir} is not a real directory`, { path: dir });
    const path = join(dir, `${planId}.lock`);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
        try {
          writeSync(fd, `${process.pid}\n`);
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
        await fsyncDir(dir);
        return new ApplyLock(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const owner = readLockOwner(path);
      if (owner !== undefined && isAlive(owner))
        throw new RefusalError(
          'apply-in-progress',
          `another apply of this plan is running (pid ${owner}); if it is not, remove ${path}`,
          { lock: path, pid: owner },
        );
      // The owner is gone (or the file is unreadable): take the stale lock over once.
      await unlink(path).catch(() => {});
    }
    throw new RefusalError('apply-in-progress', `could not take the apply lock ${path}`, { lock: path });
  }

  release(): void {
    try {
      const owner = readLockOwner(this.path);
      if (owner === process.pid) unlinkSync(this.path);
    } catch {
      // Already gone: nothing to release.
    }
  }
}

function readLockOwner(path: string): number | undefined {
  try {
    if (statSync(path).size > 64) return undefined;
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
