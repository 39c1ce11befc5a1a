/**
 * Reviewing what tidy stored and left behind, without changing anything: a stored plan
 * (`stw tidy show`), and the recovery pins in a repository (`stw tidy pins`) with the
 * plan, branch and time behind each and the command that restores it. See docs/tidy.md.
 */
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type Clock, formatInstant, systemClock } from '../core/clock.js';
import { Deadline } from '../core/deadline.js';
import { RefusalError } from '../core/errors.js';
import { readJournal } from '../core/fs-atomic.js';
import { isFullOid } from '../core/git.js';
import { restoreCommand } from './backends/git/effects.js';
import { discoverGitLayout, type GitCallContext, observeGitOk } from './backends/git/observe.js';
import { journalPath } from './engine/journal.js';
import { branchFromPinNote } from './pin-note.js';
import { loadPlanKey, planKeyPath } from './plan-key.js';
import { checkStateDirPrivate, readPlanRecord } from './store.js';
import { DEFAULT_PLAN_BOUNDS, PLAN_ID_PATTERN, RECOVERY_REF_PREFIX, type TidyPlanV1 } from './types.js';

export interface ShowOptions {
  planId: string;
  stateDir: string;
  keyFile?: string | undefined;
  cwd?: string;
}

/** A stored plan, authenticated exactly as apply would load it. Throws RefusalError. */
export async function showTidyPlan(options: ShowOptions): Promise<TidyPlanV1> {
  const stateDir = resolve(options.cwd ?? process.cwd(), options.stateDir);
  await checkStateDirPrivate(stateDir);
  const key = await loadPlanKey(options.keyFile ?? planKeyPath(), stateDir);
  return (await readPlanRecord(stateDir, options.planId, key)).plan;
}

export interface RecoveryPin {
  recovery_ref: string;
  /** The plan and action the pin names; null for a ref under the prefix tidy did not name. */
  plan_id: string | null;
  action_id: number | null;
  oid: string;
  /** The branch it preserves: from the stored plan, else from the pin's reflog (pin-note.ts); null when neither says. */
  branch: string | null;
  /** When apply journaled the pinning transaction, else the pin's reflog time, else the loose ref file's; null when unknown. */
  pinned_at: string | null;
  age_seconds: number | null;
  /** The command that restores the branch (null when the branch is unknown). */
  restore_command: string | null;
}

export interface PinsListing {
  repository: string;
  /** The state directory consulted for branches and times, or null. */
  state_dir: string | null;
  pins: RecoveryPin[];
}

export interface PinsOptions {
  path: string;
  stateDir?: string | undefined;
  keyFile?: string | undefined;
  cwd?: string;
  clock?: Clock;
}

/** A listing can be longer than one plan: up to this many bytes of ref output. */
const PINS_OUTPUT_BYTES = 4 * 1_048_576;

/** Lists `refs/stw-recovery/*`. Reads only; removes nothing. */
export async function listRecoveryPins(options: PinsOptions): Promise<PinsListing> {
  const cwd = options.cwd ?? process.cwd();
  const clock = options.clock ?? systemClock;
  const bounds = { ...DEFAULT_PLAN_BOUNDS, maxOutputBytes: PINS_OUTPUT_BYTES };
  const deadline = Deadline.after(bounds.deadlineMs);
  const layout = await discoverGitLayout(resolve(cwd, options.path), { deadline, bounds });
  const call: GitCallContext = { deadline, bounds, cwd: layout.path };
  const text = await observeGitOk(
    ['for-each-ref', '--format=%(refname)%00%(objectname)', '--', RECOVERY_REF_PREFIX],
    call,
    'git for-each-ref (pins)',
  );
  const stateDir = options.stateDir === undefined ? null : resolve(cwd, options.stateDir);
  const plans = new Map<string, Promise<PlanFacts | null>>();
  const now = clock.now().getTime();
  const pins: RecoveryPin[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const [ref, oid] = line.split('\0') as [string, string | undefined];
    if (oid === undefined || !isFullOid(oid))
      throw new RefusalError('malformed-output', 'git for-each-ref (pins): unexpected row');
    const [planId, action, ...rest] = ref.slice(RECOVERY_REF_PREFIX.length).split('/');
    const actionId = Number(action);
    const named =
      planId !== undefined &&
      PLAN_ID_PATTERN.test(planId) &&
      rest.length === 0 &&
      Number.isSafeInteger(actionId) &&
      actionId > 0;
    let facts: PlanFacts | null = null;
    if (named && stateDir !== null) {
      if (!plans.has(planId)) plans.set(planId, readPlanFacts(stateDir, planId, options.keyFile));
      facts = await plans.get(planId)!;
    }
    const effect = facts?.plan.effects.find((e) => e.action_id === actionId && e.recovery_ref === ref);
    const journaled = facts?.pinnedAt.get(actionId) ?? null;
    const note = named ? await readPinNote(layout.commonDir, ref) : null;
    const pinnedAt = journaled ?? note?.at ?? (await looseRefTime(layout.commonDir, ref));
    const branch = effect?.ref ?? note?.branch ?? null;
    pins.push({
      recovery_ref: ref,
      plan_id: named ? planId : null,
      action_id: named ? actionId : null,
      oid,
      branch,
      pinned_at: pinnedAt === null ? null : formatInstant(pinnedAt),
      age_seconds: pinnedAt === null ? null : Math.max(0, Math.floor((now - pinnedAt.getTime()) / 1000)),
      restore_command: branch === null ? null : restoreCommand(branch, ref),
    });
  }
  return { repository: layout.path, state_dir: stateDir, pins };
}

interface PlanFacts {
  plan: TidyPlanV1;
  /** Per action: when its last intent (the transaction that made the pin) was journaled. */
  pinnedAt: Map<number, Date>;
}

/** The stored plan (authenticated) and its journal's intent times; null when there is no such plan. */
async function readPlanFacts(
  stateDir: string,
  planId: string,
  keyFile: string | undefined,
): Promise<PlanFacts | null> {
  await checkStateDirPrivate(stateDir);
  const key = await loadPlanKey(keyFile ?? planKeyPath(), stateDir);
  let plan: TidyPlanV1;
  try {
    plan = (await readPlanRecord(stateDir, planId, key)).plan;
  } catch (error) {
    if (error instanceof RefusalError && error.code === 'unknown-plan') return null;
    throw error;
  }
  const pinnedAt = new Map<number, Date>();
  const journal = await readJournal<{ type?: unknown; action_id?: unknown; at?: unknown }>(
    journalPath(stateDir, planId),
  );
  for (const record of journal.records)
    if (record.type === 'intent' && typeof record.action_id === 'number' && typeof record.at === 'string') {
      const at = new Date(record.at);
      if (!Number.isNaN(at.getTime())) pinnedAt.set(record.action_id, at);
    }
  return { plan, pinnedAt };
}

/** A reflog is read up to this many bytes: its first entry is the pin's creation. */
const PIN_REFLOG_BYTES = 65_536;

/**
 * The branch and time a pin's reflog records (its first entry: the transaction that made
 * it, pin-note.ts); null without a reflog (a pin made before pins described themselves, or
 * a ref backend without reflog files) or without a note in it.
 */
async function readPinNote(commonDir: string, ref: string): Promise<{ branch: string; at: Date } | null> {
  let text: string;
  try {
    const handle = await open(
      join(commonDir, 'logs', ...ref.split('/')),
      constants.O_RDONLY | constants.O_NOFOLLOW,
    );
    try {
      const buffer = Buffer.alloc(PIN_REFLOG_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
  const newline = text.indexOf('\n');
  if (newline < 0) return null;
  // <old> SP <new> SP <name> <<email>> SP <seconds> SP <tz> TAB <message>
  const entry = /^[0-9a-f]+ [0-9a-f]+ [^\n]*> (\d+) [+-]\d{4}\t(.*)$/.exec(text.slice(0, newline));
  if (entry === null) return null;
  const branch = branchFromPinNote(entry[2]!, ref);
  return branch === null ? null : { branch, at: new Date(Number(entry[1]) * 1000) };
}

/** The modification time of a loose ref file; null when the ref is packed. */
async function looseRefTime(commonDir: string, ref: string): Promise<Date | null> {
  try {
    const info = await stat(join(commonDir, ...ref.split('/')));
    return info.isFile() ? info.mtime : null;
  } catch {
    return null;
  }
}
