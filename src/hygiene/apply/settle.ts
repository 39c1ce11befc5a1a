import type { Deadline } from '../../core/deadline.js';
import { headOid, readGit } from './git-steps.js';
import type { RunRecord } from './run-record.js';
import { WIP_MESSAGE } from './steps/checkpoint.js';
import { CLEANUP_SUBJECT_PREFIX } from './steps/commit.js';
import { releaseHold } from './steps/release.js';
import { rollBack } from './unwind.js';

/**
 * The one verdict on a run that did not finish (docs/hygiene-clean.md, "Rollback" and "Lock
 * and journal"): a run that failed in-process before its commit (`transaction.ts`) and a run
 * a crash left behind (`recovery.ts`) are both settled here, from their record, the fold of
 * the same journal events (`run-record.ts`). A cleanup commit that exists stands; anything
 * else is rolled back from the record, or left alone where that is not safe.
 */

export type RunVerdict =
  /** The cleanup commit exists: it stands, and what lifecycle deletions held is final. */
  | { outcome: 'committed'; commit: string; restored: []; left_alone: [] }
  /** Undone: the repository is as it was before the run. */
  | { outcome: 'rolled-back'; restored: string[]; left_alone: [] }
  /** Not (entirely) undone: `problem` says why, `left_alone` what was not touched. */
  | { outcome: 'left-alone'; problem: string; restored: string[]; left_alone: string[] };

async function subjectAndParent(
  root: string,
  rev: string,
  deadline: Deadline,
): Promise<{ subject: string; parent: string }> {
  const out = await readGit(['show', '-s', '--format=%P%x00%s', rev], root, deadline);
  const [parents = '', subject = ''] = out.replace(/\n$/, '').split('\0');
  return { subject, parent: parents.split(' ')[0] ?? '' };
}

/**
 * Completes the record with what git made but the journal never heard of (a run stopped
 * between a commit and its note): the WIP checkpoint and the cleanup commit, each
 * recognised by its parent and its subject.
 */
async function recogniseUnjournaled(root: string, record: RunRecord, deadline: Deadline): Promise<void> {
  const head = await headOid(root, deadline);
  if (record.wip === undefined && head !== record.head) {
    const top = await subjectAndParent(root, head, deadline);
    if (top.parent === record.head && top.subject === WIP_MESSAGE) record.wip = head;
  }
  const baseline = record.wip ?? record.head;
  if (record.commit === undefined && record.commitStarted && head !== baseline) {
    const top = await subjectAndParent(root, head, deadline);
    if (top.parent === baseline && top.subject.startsWith(CLEANUP_SUBJECT_PREFIX)) record.commit = head;
  }
}

/**
 * Settles a run from its record. `indexTrusted`: the saved index may be put back once the
 * index is again what the checkpoint left (false when a crashed run's saved copy is gone).
 */
export async function settleRun(
  root: string,
  env: NodeJS.ProcessEnv | undefined,
  deadline: Deadline,
  record: RunRecord,
  indexTrusted = true,
): Promise<RunVerdict> {
  await recogniseUnjournaled(root, record, deadline);
  if (record.commit !== undefined) {
    await releaseHold(record);
    return { outcome: 'committed', commit: record.commit, restored: [], left_alone: [] };
  }
  const undone = await rollBack(root, env, deadline, record, indexTrusted);
  if (undone.ok) return { outcome: 'rolled-back', restored: undone.restored, left_alone: [] };
  return {
    outcome: 'left-alone',
    problem: undone.problem,
    restored: undone.restored,
    left_alone: undone.left_alone,
  };
}
