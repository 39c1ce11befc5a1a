import { journalCorrupt as corrupt, readJournalBounded, type TornTailRecord } from './engine/journal.js';

/**
 * The branch-deletion protocol's records in the engine's journal (`engine/journal.ts`:
 * `DIR/journals/<plan_id>.jsonl`, read strictly, bounded, torn tail discarded).
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

export type { TornTailRecord };

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
  const contents = await readJournalBounded(path, maxBytes);
  const records = contents.records.map((raw, index) => checkRecord(raw, path, index + 1));
  return { path, records, states: foldJournal(path, records, actions), tornTail: contents.tornTail };
}
