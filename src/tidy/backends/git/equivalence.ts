/**
 * Squash and rebase evidence for Git branches that are not integrated (docs/tidy.md,
 * "Equivalence evidence"): whether a branch's changes are already in the base although its
 * commits are not. Evidence for a human, never permission: the decision stays `retain`
 * with reason `not-integrated`. Two methods, each proved by git, never by names or dates:
 *
 * - `patch-id`: the branch's cumulative change since its merge base (the tip diffed against
 *   the merge base) has the patch-id of one base commit since the merge base, whitespace
 *   kept (`git patch-id --verbatim`, patch-id.ts). That commit is the squash.
 * - `merge-tree`: merging the tip into the base (`git merge-tree --write-tree`) is clean and
 *   gives the base's own tree: merging the branch would change nothing.
 *
 * The checks are batched (equivalence-batch.ts: a constant number of git processes for all
 * branches); a branch the batch cannot prove is checked here on its own, with the same
 * answers. Neither route writes an object for patch-id; merge-tree writes the test merge's
 * trees and blobs, into a private temporary object directory that reads the repository's
 * objects through alternates, removed afterwards, so the repository gains no object. Bounded: at most
 * `maxChecks` branches per plan, at most half the remaining deadline, patch-id over at
 * most MAX_PATCH_ID_COMMITS base commits, native output under the output bound; beyond a
 * bound, or on any doubt, a branch's evidence is `skipped` with the reason, never guessed.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Deadline } from '../../../core/deadline.js';
import { isFullOid, scratchObjectEnv } from '../../../core/git.js';
import { describeOutcome } from '../../../core/run.js';
import {
  IncompleteObservationError,
  type ObjectFormat,
  type PlanEquivalence,
  type PlanTarget,
} from '../../types.js';
import {
  type BatchAnswer,
  batchEvidence,
  MAX_PATCH_ID_COMMITS,
  outsideMergeBase,
  type SquashAnswer,
} from './equivalence-batch.js';
import { type GitCallContext, observeGitOk, observeGitRaw } from './observe.js';
import { gitAtLeast, patchIds, pathsKey, rawChanges, whyNoVerbatimPatchId } from './patch-id.js';

/**
 * Branches checked per plan by default (`--equivalence-checks`). The checks are batched
 * (equivalence-batch.ts): a constant number of git processes, plus one `merge-tree` per
 * branch whose merge is not already proved to change the base.
 */
export const DEFAULT_EQUIVALENCE_CHECKS = 16;
/** Per-branch calls (merge-tree, or a whole per-branch check) run side by side. */
const CONCURRENCY = 2;

/**
 * The patch-id method diffs every base commit since the merge base; past this many it is
 * skipped (a long-lived branch off an old base would take the whole time share).
 */
export { MAX_PATCH_ID_COMMITS };

export interface EquivalenceRequest {
  /** The repository's common git dir: its `objects` are the test merges' alternates. */
  commonDir: string;
  objectFormat: ObjectFormat;
  baseOid: string;
  /** `git version` of the observation: the batched route needs 2.39 or later. */
  gitVersion: string | null;
  /**
   * At most this many `not-integrated` targets are checked, newest tips first (target
   * order if the times cannot be read); 0 checks none.
   */
  maxChecks: number;
  /** Committer time of each tip, by object id (GitObservation.tipTimes): the check order. */
  tipTimes?: ReadonlyMap<string, number> | undefined;
}

/**
 * A private object directory for the test merges' objects, reading the repository's through
 * alternates. It is made on first use: only a test merge writes objects, and a plan whose
 * checks need none makes none.
 */
class ScratchObjects {
  private made: Promise<{ root: string; objectDir: string }> | undefined;

  constructor(private readonly commonDir: string) {}

  /** The call context whose objects go to the scratch directory (made now if not yet). */
  async context(call: GitCallContext): Promise<GitCallContext> {
    this.made ??= ScratchObjects.make(this.commonDir);
    try {
      return { ...call, extraEnv: scratchObjectEnv((await this.made).objectDir) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === undefined) throw error;
      throw new NoScratchError(`no private object directory for the probe: ${(error as Error).message}`);
    }
  }

  private static async make(commonDir: string): Promise<{ root: string; objectDir: string }> {
    const repositoryObjects = await realpath(join(commonDir, 'objects'));
    const root = await mkdtemp(join(tmpdir(), 'stw-probe-objects-'));
    const objectDir = join(root, 'objects');
    try {
      await mkdir(join(objectDir, 'info'), { recursive: true, mode: 0o700 });
      await writeFile(join(objectDir, 'info', 'alternates'), `${repositoryObjects}\n`, { mode: 0o600 });
    } catch (error) {
      await rm(root, { recursive: true, force: true });
      throw error;
    }
    return { root, objectDir };
  }

  /** Removes the directory, if it was made. */
  async remove(): Promise<void> {
    const made = await this.made?.catch(() => undefined);
    if (made !== undefined) await rm(made.root, { recursive: true, force: true });
  }
}

/** No scratch object directory could be made: the check that needed one is not evaluated. */
class NoScratchError extends Error {}

/** The context of a call that writes objects: into the scratch directory, made on demand. */
type ProbeContext = () => Promise<GitCallContext>;

function firstLines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}

function skipped(detail: string, mergeBase: string | null = null): PlanEquivalence {
  return { status: 'skipped', method: null, base_commit: null, merge_base: mergeBase, detail };
}

/** Why a probe call could not answer, as one line (output bound, deadline, git failure, no scratch). */
function whyUnanswered(error: unknown): string {
  if (error instanceof IncompleteObservationError || error instanceof NoScratchError) return error.message;
  throw error;
}

/** The branch's one merge base with the base commit, or why there is none to use. */
async function mergeBaseOf(
  tip: string,
  request: EquivalenceRequest,
  ctx: GitCallContext,
): Promise<string | PlanEquivalence> {
  const result = await observeGitRaw(
    ['merge-base', '--all', '--end-of-options', request.baseOid, tip],
    ctx,
    'git merge-base',
  );
  const bases = firstLines(result.stdout.toString('utf8'));
  if (result.code === 1 && bases.length === 0)
    return {
      status: 'not-equivalent',
      method: null,
      base_commit: null,
      merge_base: null,
      detail: 'it shares no history with the base',
    };
  if (result.code !== 0) return skipped(describeOutcome(result, 'git merge-base'));
  if (!bases.every((oid) => isFullOid(oid, request.objectFormat)))
    return skipped('git merge-base: unexpected output');
  if (bases.length > 1)
    return skipped(`it has ${bases.length} merge bases with the base (criss-cross history); not evaluated`);
  return bases[0]!;
}

/**
 * The non-merge base commits of `mergeBase..base`, newest first, or why not (past the
 * bound). Counted first: a branch checked per branch is often one off an old base, past
 * the bound, and then one call answers.
 */
async function rangeCommits(
  mergeBase: string,
  request: EquivalenceRequest,
  ctx: GitCallContext,
): Promise<string[] | { unanswered: string }> {
  const range = [`${mergeBase}..${request.baseOid}`, '--'];
  const count = (
    await observeGitOk(['rev-list', '--count', '--no-merges', ...range], ctx, 'git rev-list --count')
  ).trim();
  if (!/^\d+$/.test(count)) return { unanswered: 'git rev-list --count: unexpected output' };
  if (Number(count) > MAX_PATCH_ID_COMMITS)
    return { unanswered: `${count} base commits since the merge base; the bound is ${MAX_PATCH_ID_COMMITS}` };
  if (Number(count) === 0) return [];
  const label = 'git rev-list --no-merges (base range)';
  const hex = request.objectFormat === 'sha256' ? 64 : 40;
  const commits = firstLines(
    await observeGitOk(
      ['rev-list', '--no-merges', `--max-count=${MAX_PATCH_ID_COMMITS}`, ...range],
      { ...ctx, bounds: { ...ctx.bounds, maxOutputBytes: MAX_PATCH_ID_COMMITS * (hex + 1) } },
      label,
    ),
  );
  if (!commits.every((oid) => isFullOid(oid, request.objectFormat)))
    return { unanswered: `${label}: unexpected output` };
  return commits;
}

/**
 * The commits that change exactly the paths the branch changes, in the given order: only
 * those can be its squash (see samePathCandidates in equivalence-batch.ts). Paths are
 * compared as git prints them, never passed back as arguments, so any byte is safe; a
 * lossy decoding can only keep a commit that patch-id then rejects, never drop a match.
 */
async function samePathCommits(
  tip: string,
  mergeBase: string,
  commits: readonly string[],
  request: EquivalenceRequest,
  ctx: GitCallContext,
): Promise<string[]> {
  const changes = await rawChanges(
    [`${tip} ${mergeBase}`, ...commits],
    'git diff-tree --stdin -r (changed paths)',
    request,
    ctx,
  );
  const wanted = pathsKey(changes.get(tip) ?? []);
  return commits.filter((commit) => {
    const changed = changes.get(commit);
    return changed !== undefined && pathsKey(changed) === wanted;
  });
}

/**
 * `patch-id`: the newest base commit of `mergeBase..base` whose patch-id (whitespace kept,
 * patch-id.ts) equals that of the branch's cumulative change. Writes no object.
 */
async function squashCommit(
  tip: string,
  mergeBase: string,
  request: EquivalenceRequest,
  ctx: GitCallContext,
): Promise<SquashAnswer> {
  const noVerbatim = whyNoVerbatimPatchId(request.gitVersion);
  if (noVerbatim !== null) return { unanswered: noVerbatim };
  try {
    const commits = await rangeCommits(mergeBase, request, ctx);
    if (!Array.isArray(commits)) return commits;
    const candidates =
      commits.length === 0 ? [] : await samePathCommits(tip, mergeBase, commits, request, ctx);
    if (candidates.length === 0) return { found: null };
    const ids = await patchIds([{ tip, mergeBase }], candidates, request, ctx);
    const id = ids.get(tip);
    // Newest first; a match is proved outside the branch's history by ancestry (a date-
    // ordered range walk can, with skewed dates, list an ancestor of the merge base).
    for (const commit of candidates)
      if (id !== undefined && ids.get(commit) === id && (await outsideMergeBase(commit, mergeBase, ctx)))
        return { found: commit };
    return { found: null };
  } catch (error) {
    return { unanswered: whyUnanswered(error) };
  }
}

type MergeAnswer = { unchanged: boolean; why: string } | { unanswered: string };
/** The base commit's tree, read once, when a merge-tree result is first compared with it. */
type BaseTree = () => Promise<string>;

/** `merge-tree`: whether merging the tip into the base is clean and leaves the base's tree. */
async function mergeChangesNothing(
  tip: string,
  readBaseTree: BaseTree,
  request: EquivalenceRequest,
  probe: ProbeContext,
): Promise<MergeAnswer> {
  if (request.gitVersion !== null && !gitAtLeast(request.gitVersion, 2, 38))
    return { unanswered: `git ${request.gitVersion} has no merge-tree --write-tree` };
  let result: Awaited<ReturnType<typeof observeGitRaw>>;
  let baseTree: string;
  try {
    baseTree = await readBaseTree();
    result = await observeGitRaw(
      ['merge-tree', '--write-tree', '--no-messages', request.baseOid, tip],
      await probe(),
      'git merge-tree',
    );
  } catch (error) {
    return { unanswered: whyUnanswered(error) };
  }
  if (result.code === 1) return { unchanged: false, why: 'merging it into the base conflicts' };
  if (result.code !== 0) return { unanswered: describeOutcome(result, 'git merge-tree') };
  const tree = firstLines(result.stdout.toString('utf8'))[0] ?? '';
  if (!isFullOid(tree, request.objectFormat)) return { unanswered: 'git merge-tree: unexpected output' };
  if (!isFullOid(baseTree, request.objectFormat))
    return { unanswered: 'git rev-parse (base tree): unexpected output' };
  return tree === baseTree
    ? { unchanged: true, why: '' }
    : { unchanged: false, why: "merging it into the base would change the base's tree" };
}

/** The evidence for one branch tip. */
async function checkOne(
  tip: string,
  baseTree: BaseTree,
  request: EquivalenceRequest,
  ctx: GitCallContext,
  probe: ProbeContext,
): Promise<PlanEquivalence> {
  let mergeBase: string | PlanEquivalence;
  let tipTree: string;
  let mergeBaseTree: string;
  try {
    mergeBase = await mergeBaseOf(tip, request, ctx);
    if (typeof mergeBase !== 'string') return mergeBase;
    [tipTree = '', mergeBaseTree = ''] = firstLines(
      await observeGitOk(
        // Both are full object ids (checked), so neither can be taken for an option.
        ['rev-parse', `${tip}^{tree}`, `${mergeBase}^{tree}`],
        ctx,
        'git rev-parse (trees)',
      ),
    );
  } catch (error) {
    return skipped(whyUnanswered(error));
  }
  if (!isFullOid(tipTree, request.objectFormat) || !isFullOid(mergeBaseTree, request.objectFormat))
    return skipped('git rev-parse (trees): unexpected output', mergeBase);
  if (tipTree === mergeBaseTree)
    return skipped(
      `it changes nothing since its merge base ${mergeBase}: an empty change proves no squash`,
      mergeBase,
    );

  const squash = await squashCommit(tip, mergeBase, request, ctx);
  if ('found' in squash && squash.found !== null) return squashEvidence(squash.found, mergeBase);
  return mergeEvidence(squash, await mergeChangesNothing(tip, baseTree, request, probe), mergeBase, request);
}

function squashEvidence(squash: string, mergeBase: string): PlanEquivalence {
  return {
    status: 'equivalent',
    method: 'patch-id',
    base_commit: squash,
    merge_base: mergeBase,
    detail: `its cumulative change since ${mergeBase} has the patch-id of base commit ${squash}`,
  };
}

/** The evidence once patch-id found no squash (or could not look) and merge-tree answered. */
function mergeEvidence(
  squash: SquashAnswer,
  merge: MergeAnswer,
  mergeBase: string,
  request: EquivalenceRequest,
): PlanEquivalence {
  if ('unchanged' in merge && merge.unchanged)
    return {
      status: 'equivalent',
      method: 'merge-tree',
      base_commit: request.baseOid,
      merge_base: mergeBase,
      detail: `merging it into base commit ${request.baseOid} is clean and changes nothing`,
    };
  const problems = [
    ...('unanswered' in squash ? [`patch-id not evaluated: ${squash.unanswered}`] : []),
    ...('unanswered' in merge ? [`merge-tree not evaluated: ${merge.unanswered}`] : []),
  ];
  // Conservative: "not found" only when both methods answered.
  if (problems.length > 0) return skipped(problems.join('; '), mergeBase);
  return {
    status: 'not-equivalent',
    method: null,
    base_commit: null,
    merge_base: mergeBase,
    detail: `no base commit since ${mergeBase} has its patch-id, and ${(merge as { why: string }).why}`,
  };
}

/** The evidence for one tip from its batched answer, with a merge-tree call where still needed. */
async function finishBatched(
  tip: string,
  answer: BatchAnswer | undefined,
  baseTree: BaseTree,
  request: EquivalenceRequest,
  ctx: GitCallContext,
  probe: ProbeContext,
): Promise<PlanEquivalence> {
  if (answer === undefined || answer.kind === 'per-branch')
    return checkOne(tip, baseTree, request, ctx, probe);
  if (answer.kind === 'final') return answer.evidence;
  const { squash, mergeBase } = answer;
  if ('found' in squash && squash.found !== null) return squashEvidence(squash.found, mergeBase);
  const merge: MergeAnswer =
    answer.mergeChanges !== null
      ? { unchanged: false, why: answer.mergeChanges }
      : await mergeChangesNothing(tip, baseTree, request, probe);
  return mergeEvidence(squash, merge, mergeBase, request);
}

/**
 * The candidates in the order they are checked: newest tip first (committer time, read by
 * the observation), then by ref name. A squash-merged branch is most often a recent one,
 * and a recent merge base keeps its checks short; when there are more candidates than
 * checks, the checks go there. The order is a priority, never evidence: without the times,
 * target order stands.
 */
function newestFirst<T extends PlanTarget & { oid: string }>(
  candidates: readonly T[],
  request: EquivalenceRequest,
): readonly T[] {
  const times = request.tipTimes;
  if (request.maxChecks === 0 || candidates.length <= request.maxChecks || times === undefined)
    return candidates;
  // A tip without a time (not a commit) goes last.
  const time = (target: T) => times.get(target.oid) ?? -1;
  return [...candidates].sort((a, b) => time(b) - time(a) || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
}

/**
 * Equivalence evidence for every `not-integrated` target, by ref (other targets get none).
 * Never throws for a git failure: a check that cannot answer is `skipped`. Uses at most half
 * of the deadline left, so that the plan can still be completed and stored.
 */
export async function readEquivalence(
  targets: readonly PlanTarget[],
  request: EquivalenceRequest,
  ctx: GitCallContext,
): Promise<Map<string, PlanEquivalence>> {
  const evidence = new Map<string, PlanEquivalence>();
  // A Git target always has its tip (only a conflicted jj bookmark has none).
  const candidates = targets.filter(
    (target): target is PlanTarget & { oid: string } =>
      target.oid !== null && target.reasons.includes('not-integrated'),
  );
  if (candidates.length === 0) return evidence;
  const share: Deadline = ctx.deadline.capped(ctx.deadline.remainingMs() / 2);
  const call: GitCallContext = { ...ctx, deadline: share };
  const ordered = newestFirst(candidates, request);
  const checked = ordered.slice(0, request.maxChecks);
  for (const target of ordered.slice(checked.length))
    evidence.set(
      target.ref,
      skipped(
        request.maxChecks === 0
          ? 'equivalence checks are off (--equivalence-checks 0)'
          : `beyond the bound of ${request.maxChecks} equivalence checks per plan (--equivalence-checks)`,
      ),
    );
  if (checked.length === 0) return evidence;

  let baseTreeRead: Promise<string> | undefined;
  const baseTree: BaseTree = () =>
    (baseTreeRead ??= observeGitOk(
      ['rev-parse', '--verify', '--end-of-options', `${request.baseOid}^{tree}`],
      call,
      'git rev-parse (base tree)',
    ).then((text) => text.trim()));
  const scratch = new ScratchObjects(request.commonDir);
  const probe: ProbeContext = () => scratch.context(call);
  try {
    const tips = [...new Set(checked.map((target) => target.oid))];
    let answers = new Map<string, BatchAnswer>();
    try {
      answers = await batchEvidence(tips, request, call);
    } catch (error) {
      // A batched call that cannot answer proves nothing: every tip is checked per branch.
      if (!(error instanceof IncompleteObservationError)) throw error;
    }
    const byTip = new Map<string, PlanEquivalence>();
    let next = 0;
    const worker = async () => {
      while (next < tips.length) {
        const tip = tips[next++]!;
        byTip.set(
          tip,
          ctx.signal?.aborted
            ? skipped('cancelled')
            : share.isExpired
              ? skipped('the time share for equivalence checks (half the planning deadline) ran out')
              : await finishBatched(tip, answers.get(tip), baseTree, request, call, probe),
        );
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, tips.length) }, worker));
    for (const target of checked) evidence.set(target.ref, byTip.get(target.oid)!);
  } finally {
    await scratch.remove();
  }
  return evidence;
}
