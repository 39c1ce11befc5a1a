/**
 * The batched route of the equivalence evidence (docs/tidy.md, "Equivalence evidence"):
 * the same answers as the per-branch route in equivalence.ts, from a constant number of
 * git processes for all checked branches instead of about six per branch.
 *
 * 1. One `rev-list --boundary` of every tip against the base: each tip's own commits and
 *    the base commits they stand on. A tip whose boundary is one commit has that commit as
 *    its only merge base (every merge base is a boundary commit, and every boundary commit
 *    is a common ancestor); no boundary means no shared history. Anything else (several
 *    boundary commits: criss-cross or a merge of the base) goes to the per-branch route.
 * 2. One `diff-tree --stdin -r -z` of every tip against its merge base (the cumulative
 *    change: its paths and blobs), and beside it one `rev-list --parents` of the base since
 *    the oldest merge base (the union of every branch's range, as a graph: each branch's
 *    own range `mergeBase..base` and its size are read from it, never from dates or names;
 *    past its bound, a prefix that still proves a lower bound on each range's size).
 * 3. As soon as the changes are known, one `rev-list --no-merges --full-history` of that
 *    range limited to the paths the branches change (a base commit with another patch-id
 *    changes the same paths), and one `ls-tree` of the base at those paths.
 * 4. One `diff-tree --stdin -p` of the probes (tip against merge base) and of those base
 *    commits, fed to one `patch-id --verbatim` (patch-id.ts, whitespace kept): a base commit
 *    in the branch's own range with the probe's patch-id is the squash. No object is
 *    written. Before it, one raw `diff-tree --stdin` of those base commits keeps only the
 *    ones changing exactly a probe's paths; after it, a squash found is checked by
 *    `merge-base --is-ancestor`.
 *
 * The tips' listing of step 1 is checked by `merge-base --independent` of the base and the
 * bottoms of each tip's own commits (see standingTips), beside steps 2 and 3.
 * 5. `merge-tree` stays one per branch, and runs only where step 3 did not already prove
 *    that a merge changes the base: the branch changes a path the base still has as at the
 *    merge base (or adds one the base still lacks, under directories the base still has),
 *    so the merge result differs there or conflicts.
 *
 * Any doubt — a bound, an unexpected line, a path git cannot be given back as an argument,
 * a git older than 2.39 (no `patch-id --verbatim`; the per-branch route then says patch-id
 * was not evaluated) — sends the branch to the per-branch route, with the same answers.
 */
import { isFullOid } from '../../../core/git.js';
import { settleAll } from '../../bounded.js';
import { IncompleteObservationError, type ObjectFormat, type PlanEquivalence } from '../../types.js';
import { type GitCallContext, observeGitOk, observeGitRaw } from './observe.js';
import {
  gitAtLeast,
  MAX_PATH_LISTING_BYTES,
  patchIds,
  pathsKey,
  type RawChange,
  rawChanges,
} from './patch-id.js';

/** The per-branch route's bound on base commits since the merge base (patch-id only). */
export const MAX_PATCH_ID_COMMITS = 1000;
/** The union of the branches' ranges is listed whole up to this many commits. */
const MAX_RANGE_COMMITS = 4 * MAX_PATCH_ID_COMMITS;

export type SquashAnswer = { found: string | null } | { unanswered: string };

/** What the batched route found for one tip. */
export type BatchAnswer =
  /** Decided: no further call for this tip. */
  | { kind: 'final'; evidence: PlanEquivalence }
  /** patch-id answered (not found, or not evaluated); the merge-tree method decides the rest. */
  | { kind: 'merge'; mergeBase: string; squash: SquashAnswer; mergeChanges: string | null }
  /** Outside what the batch can prove: the per-branch route answers. */
  | { kind: 'per-branch' };

export interface BatchRequest {
  baseOid: string;
  objectFormat: ObjectFormat;
  gitVersion: string | null;
}

interface ListedCommit {
  tree: string;
  time: number;
  parents: string[];
  boundary: boolean;
}

interface Probe {
  tip: string;
  tipTree: string;
  mergeBase: string;
  changes: RawChange[];
}

function unexpected(label: string): IncompleteObservationError {
  return new IncompleteObservationError('malformed-output', `${label}: unexpected output`);
}

function nonEmptyLines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}

/** Step 1: every tip's own commits and their boundary in the base, with trees and times. */
async function listTips(
  tips: readonly string[],
  request: BatchRequest,
  ctx: GitCallContext,
): Promise<Map<string, ListedCommit>> {
  const label = 'git rev-list --boundary (tips)';
  // Room for as many listed commits as the range may hold, each a `commit` line and a
  // formatted line with two parents; more sends every tip to the per-branch route.
  const hex = request.objectFormat === 'sha256' ? 64 : 40;
  const text = await observeGitOk(
    [
      'rev-list',
      '--boundary',
      '--format=%m %H %T %ct %P',
      '--end-of-options',
      ...tips,
      `^${request.baseOid}`,
    ],
    { ...ctx, bounds: { ...ctx.bounds, maxOutputBytes: MAX_RANGE_COMMITS * (6 * (hex + 1) + 16) } },
    label,
  );
  const listed = new Map<string, ListedCommit>();
  for (const line of nonEmptyLines(text)) {
    if (line.startsWith('commit ')) continue;
    const [mark = '', oid = '', tree = '', time = '', ...listedParents] = line.split(' ');
    // A root commit's `%P` is empty: the line ends in a space.
    const parents = listedParents.filter((parent) => parent !== '');
    if (
      (mark !== '>' && mark !== '-') ||
      !isFullOid(oid, request.objectFormat) ||
      !isFullOid(tree, request.objectFormat) ||
      !/^\d+$/.test(time) ||
      !parents.every((parent) => isFullOid(parent, request.objectFormat))
    )
      throw unexpected(label);
    listed.set(oid, { tree, time: Number(time), parents, boundary: mark === '-' });
  }
  return listed;
}

/**
 * A tip's boundary commits (its merge-base candidates) and its bottom commits (its own
 * commits none of whose parents is its own), or null if the listing lacks a commit.
 */
function boundaryOf(
  tip: string,
  listed: ReadonlyMap<string, ListedCommit>,
): { boundary: string[]; bottoms: string[] } | null {
  const seen = new Set<string>([tip]);
  const boundary = new Set<string>();
  const bottoms: string[] = [];
  const stack = [tip];
  while (stack.length > 0) {
    const oid = stack.pop()!;
    const commit = listed.get(oid);
    if (commit === undefined || commit.boundary) return null;
    let ownParent = false;
    for (const parent of commit.parents) {
      const listedParent = listed.get(parent);
      if (listedParent === undefined) return null;
      if (listedParent.boundary) boundary.add(parent);
      else {
        ownParent = true;
        if (!seen.has(parent)) {
          seen.add(parent);
          stack.push(parent);
        }
      }
    }
    if (!ownParent) bottoms.push(oid);
  }
  return { boundary: [...boundary], bottoms };
}

/** Step 2a: each probe's cumulative change (tip against merge base): paths and old blobs. */
async function readChanges(
  probes: readonly Probe[],
  request: BatchRequest,
  ctx: GitCallContext,
): Promise<Map<string, RawChange[] | null>> {
  const changes: Map<string, RawChange[] | null> = await rawChanges(
    probes.map((probe) => `${probe.tip} ${probe.mergeBase}`),
    'git diff-tree --stdin -r (probes)',
    request,
    ctx,
  );
  // A path that is not valid UTF-8 cannot be handed back to git as an argument unchanged:
  // that tip goes to the per-branch route.
  for (const [tip, list] of changes)
    if (list?.some((change) => change.path.includes('\uFFFD'))) changes.set(tip, null);
  return changes;
}

/**
 * Step 4a: the candidates that change exactly the paths of a probe whose range holds them.
 * A branch's squash changes exactly the branch's paths, so a commit with another set of
 * changed paths is left out before any patch text is made. That is also stricter than
 * patch-id alone, which can give one id to patches of different files (the file after a
 * binary diff counts by its blobs, not its name).
 */
async function samePathCandidates(
  candidates: readonly string[],
  evaluable: readonly { probe: Probe; bit: number }[],
  ancestry: RangeAncestry,
  request: BatchRequest,
  ctx: GitCallContext,
): Promise<{ commits: string[]; probes: Probe[] }> {
  const changes = await rawChanges(candidates, 'git diff-tree --stdin -r (candidates)', request, ctx);
  const keys = evaluable.map(({ probe }) => pathsKey(probe.changes));
  const wanted = new Set<number>();
  const commits = candidates.filter((oid) => {
    const key = pathsKey(changes.get(oid) ?? []);
    let kept = false;
    evaluable.forEach(({ bit }, at) => {
      if (keys[at] === key && !ancestry.isAncestor(oid, bit)) {
        wanted.add(at);
        kept = true;
      }
    });
    return kept;
  });
  return { commits, probes: [...wanted].sort((x, y) => x - y).map((at) => evaluable[at]!.probe) };
}

interface BaseRange {
  /** Parents of every commit in `base --not oldest`. */
  parents: Map<string, string[]>;
  /** The listed commits in topological order (children before parents). */
  order: string[];
}

/** Step 2b: the base's commits since the oldest merge base, with parents. */
async function listRange(oldest: string, request: BatchRequest, ctx: GitCallContext): Promise<BaseRange> {
  const label = 'git rev-list --parents (base range)';
  const hex = request.objectFormat === 'sha256' ? 64 : 40;
  // Room for the bound's commits with two parents each; one more commit is truncation.
  const text = await observeGitOk(
    [
      'rev-list',
      '--topo-order',
      '--parents',
      `--max-count=${MAX_RANGE_COMMITS + 1}`,
      '--end-of-options',
      request.baseOid,
      `^${oldest}`,
    ],
    { ...ctx, bounds: { ...ctx.bounds, maxOutputBytes: (MAX_RANGE_COMMITS + 1) * (3 * (hex + 1)) } },
    label,
  );
  const range: BaseRange = { parents: new Map(), order: [] };
  for (const line of nonEmptyLines(text)) {
    const [oid = '', ...parents] = line.split(' ');
    if (!isFullOid(oid, request.objectFormat) || !parents.every((p) => isFullOid(p, request.objectFormat)))
      throw unexpected(label);
    range.parents.set(oid, parents);
    range.order.push(oid);
  }
  return range;
}

function rangeTooLong(range: BaseRange): boolean {
  return range.order.length > MAX_RANGE_COMMITS;
}

interface RangeListing {
  range: BaseRange;
  /** Where the listed range ends ('' when nothing could be listed whole). */
  oldest: string;
  /**
   * Probes (by tip) whose own range a truncated listing already proves longer than the
   * patch-id bound: at least this many non-merge commits.
   */
  beyond: Map<string, number>;
}

const NO_RANGE: BaseRange = { parents: new Map(), order: [] };

/**
 * The base range for the probes, and where it ends. Past the bound (a branch off an old
 * base) the listing is a prefix of the topological order, and what it lists is still
 * exact: a listed commit is an ancestor of a merge base only through listed commits, so a
 * probe's range holds at least the listed commits outside its ancestry. A probe that this
 * proves beyond the patch-id bound is answered from it; for the others the range is listed
 * again, down to their oldest merge base, and if that is too long as well they are checked
 * per branch.
 */
async function rangeFor(
  probes: readonly Probe[],
  listed: ReadonlyMap<string, ListedCommit>,
  request: BatchRequest,
  ctx: GitCallContext,
): Promise<RangeListing> {
  const oldest = oldestMergeBase(probes, listed);
  const range = await listRange(oldest, request, ctx);
  const beyond = new Map<string, number>();
  if (!rangeTooLong(range)) return { range, oldest, beyond };
  const prefix = new RangeAncestry(
    range,
    probes.map((probe) => probe.mergeBase),
    oldest,
  );
  probes.forEach((probe, bit) => {
    const atLeast = prefix.countOwn(bit);
    if (atLeast > MAX_PATCH_ID_COMMITS) beyond.set(probe.tip, atLeast);
  });
  const reached = probes.filter((probe) => !beyond.has(probe.tip) && range.parents.has(probe.mergeBase));
  if (reached.length === 0) return { range: NO_RANGE, oldest: '', beyond };
  const nearer = oldestMergeBase(reached, listed);
  const again = await listRange(nearer, request, ctx);
  if (rangeTooLong(again)) return { range: NO_RANGE, oldest: '', beyond };
  return { range: again, oldest: nearer, beyond };
}

/**
 * For each merge base, which commits of the range are its ancestors (itself included) —
 * one pass over the topological order, a bit per merge base — and whether `oldest` is
 * among its ancestors (else the range does not hold its whole `mergeBase..base`).
 */
class RangeAncestry {
  private readonly words: number;
  private readonly bits: Uint32Array;
  private readonly index = new Map<string, number>();
  readonly reachesOldest: boolean[];
  /** Per merge base: the range's non-merge commits that are its ancestors. */
  private readonly ancestorNonMerges: Uint32Array;
  private readonly nonMerges: number;

  constructor(range: BaseRange, mergeBases: readonly string[], oldest: string) {
    this.words = Math.ceil(mergeBases.length / 32);
    this.bits = new Uint32Array(range.order.length * this.words);
    for (let i = 0; i < range.order.length; i++) this.index.set(range.order[i]!, i);
    this.reachesOldest = mergeBases.map((mergeBase) => mergeBase === oldest);
    mergeBases.forEach((mergeBase, bit) => {
      const at = this.index.get(mergeBase);
      if (at !== undefined) this.bits[at * this.words + (bit >> 5)]! |= 1 << (bit & 31);
    });
    // Children come before parents: by a commit's turn every child has passed its bits on.
    const words = this.words;
    const bits = this.bits;
    for (let i = 0; i < range.order.length; i++) {
      let any = 0;
      for (let w = 0; w < words; w++) any |= bits[i * words + w]!;
      if (any === 0) continue;
      for (const parent of range.parents.get(range.order[i]!)!) {
        const at = this.index.get(parent);
        if (at !== undefined) for (let w = 0; w < words; w++) bits[at * words + w]! |= bits[i * words + w]!;
        else if (parent === oldest) for (let w = 0; w < words; w++) this.markOldest(bits[i * words + w]!, w);
      }
    }
    this.ancestorNonMerges = new Uint32Array(mergeBases.length);
    let nonMerges = 0;
    for (let i = 0; i < range.order.length; i++) {
      if (range.parents.get(range.order[i]!)!.length > 1) continue;
      nonMerges += 1;
      for (let w = 0; w < words; w++)
        for (let word = bits[i * words + w]!; word !== 0; word &= word - 1)
          this.ancestorNonMerges[w * 32 + (31 - Math.clz32(word & -word))]! += 1;
    }
    this.nonMerges = nonMerges;
  }

  private markOldest(word: number, w: number): void {
    for (let bit = 0; bit < 32; bit++) if (word & (1 << bit)) this.reachesOldest[w * 32 + bit] = true;
  }

  /** Whether `oid` (a commit of the range) is an ancestor of merge base number `bit`. */
  isAncestor(oid: string, bit: number): boolean {
    const at = this.index.get(oid);
    return at !== undefined && (this.bits[at * this.words + (bit >> 5)]! & (1 << (bit & 31))) !== 0;
  }

  /** Non-merge commits of `mergeBase..base` for merge base number `bit`. */
  countOwn(bit: number): number {
    return this.nonMerges - this.ancestorNonMerges[bit]!;
  }
}

/** Step 3a: the range's non-merge commits that touch any of the paths, newest first. */
async function touchingCommits(
  oldest: string,
  paths: readonly string[],
  request: BatchRequest,
  ctx: GitCallContext,
): Promise<string[]> {
  const label = 'git rev-list --no-merges (paths)';
  const hex = request.objectFormat === 'sha256' ? 64 : 40;
  const text = await observeGitOk(
    [
      '--literal-pathspecs',
      'rev-list',
      '--no-merges',
      '--full-history',
      '--end-of-options',
      request.baseOid,
      `^${oldest}`,
      '--',
      ...paths,
    ],
    { ...ctx, bounds: { ...ctx.bounds, maxOutputBytes: (MAX_RANGE_COMMITS + 1) * (hex + 1) } },
    label,
  );
  const commits = nonEmptyLines(text);
  if (!commits.every((oid) => isFullOid(oid, request.objectFormat))) throw unexpected(label);
  return commits;
}

/** Step 3b: the base's entries at the paths (and the trees on the way), by path. */
async function baseEntries(
  paths: readonly string[],
  request: BatchRequest,
  ctx: GitCallContext,
): Promise<Map<string, { mode: string; oid: string }>> {
  const label = 'git ls-tree (base at the changed paths)';
  const text = await observeGitOk(
    ['--literal-pathspecs', 'ls-tree', '-r', '-t', '-z', '--full-tree', request.baseOid, '--', ...paths],
    { ...ctx, bounds: { ...ctx.bounds, maxOutputBytes: MAX_PATH_LISTING_BYTES } },
    label,
  );
  const entries = new Map<string, { mode: string; oid: string }>();
  for (const record of text.split('\0')) {
    if (record === '') continue;
    const tab = record.indexOf('\t');
    const [mode = '', , oid = ''] = record.slice(0, tab).split(' ');
    if (tab < 0 || !/^[0-7]{6}$/.test(mode) || !isFullOid(oid, request.objectFormat)) throw unexpected(label);
    entries.set(record.slice(tab + 1), { mode, oid });
  }
  return entries;
}

/**
 * Why merging the probe's branch cannot leave the base's tree, proved from the base's
 * entries, or null. A path the branch changed that the base still has exactly as at the
 * merge base resolves to the branch's side (or conflicts); a path the branch added that the
 * base still lacks, under directories the base still has (no directory rename can move it),
 * stays added. Either way the result is not the base's tree.
 */
function mergeChangesBase(
  probe: Probe,
  base: ReadonlyMap<string, { mode: string; oid: string }>,
  baseListing: readonly string[],
): string | null {
  const because = (path: string, how: string) =>
    `merging it into the base would change the base's tree (it ${how} ${JSON.stringify(path)}, which the base has not changed since the merge base)`;
  for (const change of probe.changes) {
    const entry = base.get(change.path);
    if (change.oldMode !== '000000') {
      if (entry !== undefined && entry.mode === change.oldMode && entry.oid === change.oldOid)
        return because(change.path, change.status === 'D' ? 'deletes' : 'changes');
      continue;
    }
    if (entry !== undefined || baseListing.some((path) => path.startsWith(`${change.path}/`))) continue;
    const parts = change.path.split('/');
    let dirsKept = true;
    for (let n = 1; n < parts.length && dirsKept; n++)
      dirsKept = base.get(parts.slice(0, n).join('/'))?.mode === '040000';
    if (dirsKept) return because(change.path, 'adds');
  }
  return null;
}

const notEquivalentNoHistory: PlanEquivalence = {
  status: 'not-equivalent',
  method: null,
  base_commit: null,
  merge_base: null,
  detail: 'it shares no history with the base',
};

function emptyChange(mergeBase: string): PlanEquivalence {
  return {
    status: 'skipped',
    method: null,
    base_commit: null,
    merge_base: mergeBase,
    detail: `it changes nothing since its merge base ${mergeBase}: an empty change proves no squash`,
  };
}

/** Step 1: the probes, and the tips already decided or left to the per-branch route. */
async function probesFor(
  tips: readonly string[],
  request: BatchRequest,
  ctx: GitCallContext,
  answers: Map<string, BatchAnswer>,
): Promise<{ probes: Probe[]; listed: Map<string, ListedCommit>; bottoms: Map<string, string[]> }> {
  const listed = await listTips(tips, request, ctx);
  const probes: Probe[] = [];
  const bottoms = new Map<string, string[]>();
  for (const tip of tips) {
    const found = boundaryOf(tip, listed);
    if (found === null || found.boundary.length > 1) continue;
    bottoms.set(tip, found.bottoms);
    if (found.boundary.length === 0) {
      answers.set(tip, { kind: 'final', evidence: notEquivalentNoHistory });
      continue;
    }
    const mergeBase = found.boundary[0]!;
    const tipTree = listed.get(tip)!.tree;
    if (tipTree === listed.get(mergeBase)!.tree)
      answers.set(tip, { kind: 'final', evidence: emptyChange(mergeBase) });
    else probes.push({ tip, tipTree, mergeBase, changes: [] });
  }
  return { probes, listed, bottoms };
}

/**
 * The tips whose listing stands. git stops the walk of `tips ^base` a few commits after
 * only base commits are left in its date-ordered queue, so with skewed committer dates it
 * can list base commits as a tip's own (and then name a wrong merge base, or none). If it
 * did, one of them is a bottom of the tip's own commits (the ancestors of a base commit are
 * base commits), so the listing stands exactly when no bottom is reachable from the base:
 * `merge-base --independent` of the base and the bottoms, which walks by ancestry, not by
 * date, keeps every bottom then (the bottoms of correct listings never reach one another).
 */
async function standingTips(
  bottoms: ReadonlyMap<string, readonly string[]>,
  request: BatchRequest,
  ctx: GitCallContext,
): Promise<Set<string>> {
  const label = 'git merge-base --independent (bottoms)';
  const unique = [...new Set([...bottoms.values()].flat())];
  if (unique.length === 0) return new Set();
  const independent = new Set(
    nonEmptyLines(
      await observeGitOk(['merge-base', '--independent', request.baseOid, ...unique], ctx, label),
    ),
  );
  if (![...independent].every((oid) => isFullOid(oid, request.objectFormat))) throw unexpected(label);
  const standing = new Set<string>();
  for (const [tip, own] of bottoms) if (own.every((oid) => independent.has(oid))) standing.add(tip);
  return standing;
}

/**
 * Whether a squash found by patch-id is outside the branch's history, asked by ancestry:
 * the date-ordered walk of the touching commits can, with skewed dates, list an ancestor of
 * the merge base. Anything but a clear "not an ancestor" sends the tip per branch.
 */
export async function outsideMergeBase(
  squash: string,
  mergeBase: string,
  ctx: GitCallContext,
): Promise<boolean> {
  const result = await observeGitRaw(
    ['merge-base', '--is-ancestor', '--end-of-options', squash, mergeBase],
    ctx,
    'git merge-base --is-ancestor (squash)',
  );
  return result.code === 1;
}

/**
 * Where the evaluated ranges end: the oldest evaluated merge base (by committer time) when
 * the range graph proves it an ancestor of the others, else the oldest merge base of all.
 */
function evaluatedRangeEnd(
  evaluable: readonly { probe: Probe; bit: number }[],
  ancestry: RangeAncestry,
  oldest: string,
  listed: ReadonlyMap<string, ListedCommit>,
): string {
  const end = oldestMergeBase(
    evaluable.map(({ probe }) => probe),
    listed,
  );
  const endsAll = evaluable.every(
    ({ probe, bit }) => probe.mergeBase === end || ancestry.isAncestor(end, bit),
  );
  return endsAll ? end : oldest;
}

/** The oldest merge base by committer time: a guess that the range graph then proves or refutes. */
function oldestMergeBase(probes: readonly Probe[], listed: ReadonlyMap<string, ListedCommit>): string {
  const time = (oid: string) => listed.get(oid)!.time;
  let oldest = probes[0]!.mergeBase;
  for (const probe of probes) if (time(probe.mergeBase) < time(oldest)) oldest = probe.mergeBase;
  return oldest;
}

interface ChangedPaths {
  /** The probes whose changes git could give (each with its changes), none of them empty. */
  probes: Probe[];
  /** The base's entries at the changed paths. */
  base: Map<string, { mode: string; oid: string }>;
  /** The base commits since the guessed end touching the changed paths; null if not read. */
  touching: string[] | null;
}

function changedPaths(probes: readonly Probe[]): string[] {
  return [...new Set(probes.flatMap((probe) => probe.changes.map((change) => change.path)))];
}

/** Steps 2a and 3: the probes' changes, then the base's entries and (guessed) touching commits. */
async function readChangedPaths(
  listed: readonly Probe[],
  request: BatchRequest,
  ctx: GitCallContext,
  guess: { end: string; ctx: GitCallContext },
): Promise<ChangedPaths> {
  const changes = await readChanges(listed, request, ctx);
  const probes = listed.filter((probe) => {
    const found = changes.get(probe.tip);
    if (!found) return false; // a path git cannot take back as an argument: per branch
    probe.changes = found;
    return found.length > 0;
  });
  if (probes.length === 0) return { probes, base: new Map(), touching: null };
  const paths = changedPaths(probes);
  const [base, touching] = await settleAll<[Map<string, { mode: string; oid: string }>, string[] | null]>([
    baseEntries(paths, request, ctx),
    // A guess that cannot be read (cancelled, over a bound) is only read again, narrower.
    touchingCommits(guess.end, paths, request, guess.ctx).catch((error: unknown) => {
      if (error instanceof IncompleteObservationError) return null;
      throw error;
    }),
  ]);
  return { probes, base, touching };
}

/**
 * Evidence for the tips (distinct `not-integrated` branch tips) from a constant number of
 * git calls. Tips absent from the answer, or answered `per-branch`, go to the per-branch
 * route. Throws IncompleteObservationError when a batched call cannot answer: the caller
 * then checks every tip per branch.
 */
export async function batchEvidence(
  tips: readonly string[],
  request: BatchRequest,
  ctx: GitCallContext,
): Promise<Map<string, BatchAnswer>> {
  const answers = new Map<string, BatchAnswer>();
  if (!gitAtLeast(request.gitVersion, 2, 39)) return answers;
  const listing = await probesFor(tips, request, ctx, answers);
  const { listed } = listing;
  // Nothing answered yet and nothing to probe: every tip goes per branch, no check needed.
  if (listing.probes.length === 0)
    return answers.size === 0
      ? answers
      : keepStanding(answers, await standingTips(listing.bottoms, request, ctx));
  // The base range is listed while the changes are read; once the changes are known, the
  // base's entries and the base commits touching the changed paths are read at once too,
  // over the range the listing most likely covers (down to the oldest merge base). That
  // guess is dropped, and its walk cancelled, when the listing ends elsewhere.
  const guessedEnd = oldestMergeBase(listing.probes, listed);
  const guess = new AbortController();
  const guessCtx: GitCallContext = {
    ...ctx,
    signal: ctx.signal === undefined ? guess.signal : AbortSignal.any([ctx.signal, guess.signal]),
  };
  // settleAll: no git process outlives the checks, and the first failure is reported.
  const [{ range, oldest, beyond }, changed, standing] = await settleAll<
    [RangeListing, ChangedPaths, Set<string>]
  >([
    rangeFor(listing.probes, listed, request, ctx).then(
      (found) => {
        if (found.oldest !== guessedEnd) guess.abort();
        return found;
      },
      (error: unknown) => {
        guess.abort();
        throw error;
      },
    ),
    readChangedPaths(listing.probes, request, ctx, { end: guessedEnd, ctx: guessCtx }),
    standingTips(listing.bottoms, request, ctx),
  ]);
  const { probes, base } = changed;
  if (probes.length === 0) return keepStanding(answers, standing);

  const ancestry = new RangeAncestry(
    range,
    probes.map((probe) => probe.mergeBase),
    oldest,
  );
  const evaluable: { probe: Probe; bit: number }[] = [];
  const squashOf = new Map<string, SquashAnswer>();
  probes.forEach((probe, bit) => {
    const atLeast = beyond.get(probe.tip);
    if (atLeast !== undefined) {
      squashOf.set(probe.tip, {
        unanswered: `at least ${atLeast} base commits since the merge base; the bound is ${MAX_PATCH_ID_COMMITS}`,
      });
      return;
    }
    if (!ancestry.reachesOldest[bit]) return; // its range is not inside the listing: per branch
    const count = ancestry.countOwn(bit);
    if (count > MAX_PATCH_ID_COMMITS)
      squashOf.set(probe.tip, {
        unanswered: `${count} base commits since the merge base; the bound is ${MAX_PATCH_ID_COMMITS}`,
      });
    else evaluable.push({ probe, bit });
  });
  // A squash changes the probe's paths, so it is among the base commits touching them. The
  // guessed walk holds every one when the listing ends where it did: each evaluated range
  // lies inside the listing, and the ancestry below is exact for every commit it lists.
  const touching =
    evaluable.length === 0
      ? []
      : oldest === guessedEnd && changed.touching !== null
        ? changed.touching
        : await touchingCommits(
            evaluatedRangeEnd(evaluable, ancestry, oldest, listed),
            changedPaths(evaluable.map(({ probe }) => probe)),
            request,
            ctx,
          );
  const baseListing = [...base.keys()];
  const inRange = touching.filter((oid) => evaluable.some(({ bit }) => !ancestry.isAncestor(oid, bit)));
  const candidates =
    inRange.length > 0
      ? await samePathCandidates(inRange, evaluable, ancestry, request, ctx)
      : { commits: [], probes: [] };
  const ids =
    candidates.commits.length > 0
      ? await patchIds(candidates.probes, candidates.commits, request, ctx)
      : new Map<string, string>();
  for (const { probe, bit } of evaluable) {
    const id = ids.get(probe.tip);
    // Newest first, as rev-list lists them: the latest squash is named.
    const found =
      id === undefined
        ? null
        : (candidates.commits.find((oid) => !ancestry.isAncestor(oid, bit) && ids.get(oid) === id) ?? null);
    // Proved by ancestry before it is named; else the tip is checked per branch.
    if (found === null || (await outsideMergeBase(found, probe.mergeBase, ctx)))
      squashOf.set(probe.tip, { found });
  }
  for (const probe of probes) {
    const squash = squashOf.get(probe.tip);
    if (squash === undefined) continue;
    answers.set(probe.tip, {
      kind: 'merge',
      mergeBase: probe.mergeBase,
      squash,
      mergeChanges: mergeChangesBase(probe, base, baseListing),
    });
  }
  return keepStanding(answers, standing);
}

/** The answers for the tips whose listing stands; the others go to the per-branch route. */
function keepStanding(
  answers: Map<string, BatchAnswer>,
  standing: ReadonlySet<string>,
): Map<string, BatchAnswer> {
  for (const tip of [...answers.keys()]) if (!standing.has(tip)) answers.delete(tip);
  return answers;
}
