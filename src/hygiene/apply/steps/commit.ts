import type { Deadline } from '../../../core/deadline.js';
import { OperationalError } from '../../../core/errors.js';
import { describeOutcome } from '../../../core/run.js';
import type { Entry, SafetyTier } from '../../types.js';
import type { ApplyResult } from '../applier.js';
import { type CleanPlan, kindOf } from '../clean-plan.js';
import { headOid, outputOf, userGit } from '../git-steps.js';
import type { RunRecorder } from '../run-record.js';

/**
 * Step 8 of clean, commit once: the message in the docs/hygiene-clean.md shape, made as
 * `git commit` makes it. `commit-started` is journaled first: a crash during the commit is
 * recognised afterwards by the commit's parent and subject (`settle.ts`).
 */

/** How every cleanup commit's subject begins: how a crashed run's commit is recognised (`settle.ts`). */
export const CLEANUP_SUBJECT_PREFIX = 'docs: hygiene cleanup (';

// Labels in the commit message, in the order docs/hygiene-clean.md gives them: each line
// names every kind that can be in its tier, so its parts add up to its count. A move and a
// dedupe are always confirm (a move breaks links from outside; the canonical copy is a
// judgment); a link fix, a freeze or a delete is confirm when its evidence is judged.
const MOVE: [string, (entry: Entry) => boolean] = ['move-to-archive', (e) => kindOf(e) === 'move-to-archive'];
const REPLACE: [string, (entry: Entry) => boolean] = ['replace-text', (e) => kindOf(e) === 'replace-text'];
const FREEZE: [string, (entry: Entry) => boolean] = ['freeze', (e) => kindOf(e) === 'insert-frontmatter'];
const DELETE: [string, (entry: Entry) => boolean] = ['delete', (e) => kindOf(e) === 'delete-path'];
const AUTO_LABELS: [string, (entry: Entry) => boolean][] = [REPLACE, FREEZE, DELETE];
const CONFIRMED_LABELS: [string, (entry: Entry) => boolean][] = [
  MOVE,
  REPLACE,
  FREEZE,
  DELETE,
  ['delete-range', (e) => kindOf(e) === 'delete-range'],
  ['dedupe', (e) => kindOf(e) === 'dedupe'],
  ['distill', (e) => kindOf(e) === 'generative' && e.category.subtype === 'distill'],
  ['split', (e) => kindOf(e) === 'generative' && e.category.subtype === 'split'],
];

/** The cleanup commit message, exactly in the docs/hygiene-clean.md shape (no trailers, no attribution). */
export function cleanupMessage(applied: readonly Entry[], files: number, skipped: number): string {
  const line = (title: string, labels: [string, (entry: Entry) => boolean][], tier: SafetyTier) => {
    const ofTier = applied.filter((entry) => entry.safety_tier === tier);
    const parts = labels.map(([label, test]) => `${label} ×${ofTier.filter(test).length}`);
    return `${title}: ${ofTier.length} (${parts.join(', ')})`;
  };
  const n = applied.length;
  return [
    `${CLEANUP_SUBJECT_PREFIX}${n} edit${n === 1 ? '' : 's'} across ${files} file${files === 1 ? '' : 's'})`,
    '',
    line('Auto', AUTO_LABELS, 'auto'),
    line('Confirmed', CONFIRMED_LABELS, 'confirm'),
    ...lifecycleLine(applied),
    `Skipped (re-analysis recommended): ${skipped}`,
    '',
  ].join('\n');
}

/** `Lifecycle: 3 deleted (runs ×2, scratch ×1)`, rules in first-seen order; nothing when none ran. */
function lifecycleLine(applied: readonly Entry[]): string[] {
  const byRule = new Map<string, number>();
  for (const entry of applied)
    if (entry.lifecycle !== undefined && kindOf(entry) === 'delete-path')
      byRule.set(entry.lifecycle.rule, (byRule.get(entry.lifecycle.rule) ?? 0) + 1);
  if (byRule.size === 0) return [];
  const total = [...byRule.values()].reduce((sum, n) => sum + n, 0);
  return [`Lifecycle: ${total} deleted (${[...byRule].map(([rule, n]) => `${rule} ×${n}`).join(', ')})`];
}

/**
 * The cleanup commit, made as `git commit` makes it: the user's identity, signing and
 * hooks (`noVerify`: without pre-commit and commit-msg). A refusal carries everything the
 * command printed (a hook's output) as `tool_output`.
 */
export async function commitCleanup(
  recorder: RunRecorder,
  root: string,
  env: NodeJS.ProcessEnv | undefined,
  deadline: Deadline,
  dates: NodeJS.ProcessEnv,
  message: string,
  noVerify: boolean,
): Promise<string> {
  recorder.note({ type: 'commit-started' });
  const result = await userGit(
    ['commit', '-q', ...(noVerify ? ['--no-verify'] : []), '--cleanup=whitespace', '-F', '-'],
    root,
    env,
    deadline,
    dates,
    message,
    'commit',
  );
  if (result.kind !== 'exited' || result.code !== 0) {
    const output = outputOf(result);
    throw new OperationalError('commit-failed', describeOutcome(result, 'git commit'), {
      ...(output === '' ? {} : { tool_output: output }),
    });
  }
  const commit = await headOid(root, deadline);
  recorder.note({ type: 'committed', commit });
  return commit;
}

/** The ids of `applied` that are the plan's own entries (a link rewrite belongs to its move). */
const ownApplied = (applied: ApplyResult, plan: CleanPlan): string[] => {
  const own = new Set(plan.report.entries.map((entry) => entry.id));
  return applied.entries.filter((e) => e.status === 'applied' && own.has(e.id)).map((e) => e.id);
};

/** The message of this run's cleanup commit: its own applied entries, the files the commit holds, the skipped count. */
export function messageFor(applied: ApplyResult, plan: CleanPlan, skipped: number): string {
  const byId = new Map(plan.report.entries.map((entry) => [entry.id, entry]));
  // A lifecycle unit (a folder, say) counts as the files its `git rm` put in the commit.
  const units = new Set(applied.entries.filter((e) => e.kind === 'delete-path').map((e) => e.path));
  const committedFiles =
    applied.files.filter((file) => file.status === 'applied' && !units.has(file.path)).length +
    applied.staged_by_rm.length;
  return cleanupMessage(
    ownApplied(applied, plan).map((id) => byId.get(id)!),
    committedFiles,
    skipped,
  );
}
