/**
 * The retirement journal: `DIR/journals/<plan_id>.jsonl`, one fsynced JSON line per step,
 * written before the step it announces. Per effect: `intent` → (native effect or confined
 * removal) → `outcome` (from an inspection, not from an exit status) → `verified`. Read
 * strictly: a record that does not fit the plan or the protocol refuses.
 *
 * Outcomes: `done` (the effect happened), `not-done` (inspection found it had not
 * happened — a later run may try again, after a full recheck), `partial` (some of a
 * removal happened: manual review, never retried), `refused`/`failed` (nothing happened).
 */
import { applyJournalRefusals, journalCorrupt as corrupt, readJournalBounded } from '../engine/journal.js';
import type { RetainedEntry } from './manifest.js';
import type { RetirementEffect, RetirementEffectType } from './types.js';

export type RetirementOutcome = 'done' | 'not-done' | 'partial' | 'refused' | 'failed';

export type RetirementJournalRecord =
  | { type: 'intent'; effect_id: number; effect: RetirementEffectType; at: string }
  | {
      type: 'outcome';
      effect_id: number;
      result: RetirementOutcome;
      reason?: string;
      removed?: string[];
      retained?: RetainedEntry[];
      recovered?: boolean;
      at: string;
    }
  /** `operation`: jj only, the operation the verified effect ended at (128 hex). */
  | { type: 'verified'; effect_id: number; operation?: string; at: string }
  | { type: 'torn-tail-discarded'; bytes: number; text: string; at: string };

export type EffectPhase = 'none' | 'open' | 'settled' | 'verified';

export interface EffectJournalState {
  effect_id: number;
  phase: EffectPhase;
  last: { result: RetirementOutcome; reason: string | undefined } | undefined;
  attempts: number;
  /** jj: the operation recorded when the effect was verified. */
  operation: string | undefined;
}

const OUTCOMES = new Set(['done', 'not-done', 'partial', 'refused', 'failed']);
/** After these outcomes nothing happened, so a later run may start the effect again. */
const RETRYABLE = new Set(['not-done', 'refused', 'failed']);

/**
 * A done effect found, before its verification, to have come with another change: the one
 * outcome that may follow an outcome (partial, for review; never retried).
 */
function isUnexpectedAfterDone(state: EffectJournalState, record: Record<string, unknown>): boolean {
  return (
    state.phase === 'settled' &&
    state.last?.result === 'done' &&
    record['result'] === 'partial' &&
    record['reason'] === 'unexpected-change'
  );
}

/** Folds the records into per-effect states, checking every record against the plan and the protocol. */
export function foldRetirementJournal(
  path: string,
  records: readonly unknown[],
  effects: readonly RetirementEffect[],
): Map<number, EffectJournalState> {
  const byId = new Map(effects.map((effect) => [effect.effect_id, effect]));
  const states = new Map<number, EffectJournalState>();
  for (const effect of effects)
    states.set(effect.effect_id, {
      effect_id: effect.effect_id,
      phase: 'none',
      last: undefined,
      attempts: 0,
      operation: undefined,
    });
  records.forEach((raw, index) => {
    const line = index + 1;
    const record = raw as Record<string, unknown>;
    if (
      typeof record !== 'object' ||
      record === null ||
      typeof record['type'] !== 'string' ||
      typeof record['at'] !== 'string'
    )
      throw corrupt(path, line, 'not a journal record');
    if (record['type'] === 'torn-tail-discarded') return;
    const id = record['effect_id'];
    const effect = typeof id === 'number' ? byId.get(id) : undefined;
    const state = typeof id === 'number' ? states.get(id) : undefined;
    if (effect === undefined || state === undefined)
      throw corrupt(path, line, `effect ${String(id)} is not in the plan`);
    switch (record['type']) {
      case 'intent':
        if (record['effect'] !== effect.type)
          throw corrupt(path, line, `intent for effect ${effect.effect_id} does not match the plan`);
        if (
          state.phase === 'open' ||
          state.phase === 'verified' ||
          (state.last !== undefined && !RETRYABLE.has(state.last.result))
        )
          throw corrupt(path, line, `unexpected intent for effect ${effect.effect_id}`);
        if (
          [...states.values()].some(
            (other) => other.effect_id < effect.effect_id && other.phase !== 'verified',
          )
        )
          throw corrupt(
            path,
            line,
            `intent for effect ${effect.effect_id} before the effects ahead of it were verified`,
          );
        state.phase = 'open';
        state.attempts += 1;
        break;
      case 'outcome':
        if (
          !(state.phase === 'open' || isUnexpectedAfterDone(state, record)) ||
          !OUTCOMES.has(String(record['result']))
        )
          throw corrupt(path, line, `unexpected outcome for effect ${effect.effect_id}`);
        state.phase = 'settled';
        state.last = {
          result: record['result'] as RetirementOutcome,
          reason: record['reason'] as string | undefined,
        };
        break;
      case 'verified':
        if (state.phase !== 'settled' || state.last?.result !== 'done')
          throw corrupt(path, line, `verification without a completed effect ${effect.effect_id}`);
        if (record['operation'] !== undefined && !/^[0-9a-f]{128}$/.test(String(record['operation'])))
          throw corrupt(path, line, `verification of effect ${effect.effect_id} names a malformed operation`);
        state.phase = 'verified';
        state.operation = record['operation'] as string | undefined;
        break;
      default:
        throw corrupt(path, line, `unknown record type ${JSON.stringify(record['type'])}`);
    }
  });
  return states;
}

/** Reads and folds the journal (the engine's bounded load); a missing journal is empty. */
export async function loadRetirementJournal(
  path: string,
  effects: readonly RetirementEffect[],
  maxBytes: number,
): Promise<{ states: Map<number, EffectJournalState>; tornTail: string | undefined }> {
  const contents = await readJournalBounded(path, maxBytes, applyJournalRefusals(false));
  return { states: foldRetirementJournal(path, contents.records, effects), tornTail: contents.tornTail };
}
