/**
 * The task creation journal, `DIR/tasks/<task_id>.jsonl`: intent → created → completed
 * (or failed), one fsynced line per step, written by the creation run (`run.ts`) on the
 * engine's journaled run. It is read through the engine's bounded load
 * (`../tidy/engine/journal.ts`) with this kind's refusals (`tampered-task`) and bound,
 * and folded here: leniently, since its readers (`task list`, retirement planning) show
 * or refuse a creation that did not complete, and only a completed one proves ownership.
 */
import { RefusalError } from '../core/errors.js';
import { backendInfo } from '../tidy/backends/registry.js';
import { type JournalRefusals, readJournalBounded } from '../tidy/engine/journal.js';
import { TASK_JOURNAL_MAX_BYTES } from '../tidy/engine/limits.js';
import type { AnyTaskCreatedFacts, TaskCreationPlan, TaskJournalRecord } from './types.js';

/** What the creation journal proves. */
export interface TaskJournal<F extends AnyTaskCreatedFacts = AnyTaskCreatedFacts> {
  path: string;
  records: TaskJournalRecord[];
  /** intent → created → completed, in that order, for this task: creation finished. */
  complete: boolean;
  /** The facts recorded once the worktree existed; undefined when creation did not get that far. */
  created: F | undefined;
  /** Why the journal does not prove a completed creation; null when it does. */
  problem: string | null;
}

/** A task journal that cannot be read as one is a tampered task, like its record. */
export const TASK_JOURNAL_REFUSALS: JournalRefusals = {
  notAFile: (path, symlink) =>
    new RefusalError(
      'tampered-task',
      `task journal ${JSON.stringify(path)} ${symlink ? 'is a symbolic link' : 'is not a file'}`,
    ),
  tooLarge: (path, maxBytes) =>
    new RefusalError(
      'bound-exceeded',
      `task journal ${JSON.stringify(path)} is larger than ${maxBytes} bytes`,
    ),
  notJson: (path) =>
    new RefusalError('tampered-task', `task journal ${JSON.stringify(path)} is not valid JSON lines`),
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const EXPECTED = ['intent', 'created', 'completed'];

/** Folds the records of one task's creation; the first record that does not fit is the problem. */
export function foldTaskJournal(
  path: string,
  records: readonly unknown[],
  taskId: string,
  backend: TaskCreationPlan['backend'],
): TaskJournal {
  const typed: TaskJournalRecord[] = [];
  let created: AnyTaskCreatedFacts | undefined;
  let problem: string | null = null;
  records.forEach((raw, index) => {
    if (problem !== null) return;
    if (!isObject(raw) || raw['task_id'] !== taskId || typeof raw['type'] !== 'string') {
      problem = `line ${index + 1} is not a record of task ${taskId}`;
      return;
    }
    const record = raw as unknown as TaskJournalRecord;
    typed.push(record);
    if (record.type === 'failed') {
      problem = `creation failed: ${record.message}`;
      return;
    }
    if (record.type !== EXPECTED[index]) {
      problem = `line ${index + 1} is ${record.type}, expected ${EXPECTED[index] ?? 'nothing'}`;
      return;
    }
    if (record.type === 'created') {
      const facts = record as unknown as Record<string, unknown>;
      const native = backendInfo(backend).isCreatedFacts(facts);
      if (!isObject(facts['registration']) || !isObject(facts['destination_identity']) || !native) {
        problem = 'the created record lacks the registration or destination identity';
        return;
      }
      const { type: _type, task_id: _id, at: _at, ...rest } = record;
      created = rest;
    }
  });
  if (problem === null && typed.length < EXPECTED.length)
    problem =
      typed.length === 0
        ? 'the creation journal is empty or missing'
        : `the creation journal stops after ${typed[typed.length - 1]!.type}: creation did not complete`;
  return { path, records: typed, complete: problem === null, created, problem };
}

/**
 * Reads (bounded, `tampered-task` when it is not a journal) and folds one task's creation
 * journal. A torn final line means the last append never returned: creation did not
 * complete as far as the journal can prove. Readers never repair it.
 */
export async function loadTaskJournal(
  path: string,
  taskId: string,
  backend: TaskCreationPlan['backend'],
): Promise<TaskJournal> {
  const { records, tornTail } = await readJournalBounded(path, TASK_JOURNAL_MAX_BYTES, TASK_JOURNAL_REFUSALS);
  const journal = foldTaskJournal(path, records, taskId, backend);
  if (tornTail !== undefined && journal.complete) {
    journal.complete = false;
    journal.problem = 'the creation journal ends in a torn line';
  }
  return journal;
}
