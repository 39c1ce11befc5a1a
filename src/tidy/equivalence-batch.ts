/**
 * The batched route of the equivalence evidence (docs/tidy.md, "Equivalence evidence"):
 * the same answers as the per-branch route in equivalence-git.ts, from a constant number of
 * git processes for all checked branches instead of about six per branch.
 *
 * 1. One `rev-list --boundary` of every tip against the base: each tip's own commits and
 *    the base commits they stand on. A tip whose boundary is one commit has that commit as
 *    its only merge base (every merge base is a boundary commit, and every boundary commit
 *    is a common ancestor); no boundary means no shared history. Anything else (several
 *    boundary commits: criss-cross or a merge of the base) goes to the per-branch route.
 * 2. One `diff-tree --stdin -r -z` of every tip against its merge base (the cumulative
 *    change: its paths and blobs), and one `rev-list --parents` of the base since the
 *    oldest merge base (the union of every branch's range, as a graph: each branch's own
 *    range `mergeBase..base` and its size are read from it, never from dates or names).
 * 3. One `rev-list --no-merges --full-history` of that range limited to the paths the
 *    branches change (a base commit with another patch-id changes the same paths), and one
 *    `ls-tree` of the base at those paths.
 * 4. One `diff-tree --stdin -p` of the probes (tip against merge base) and of those base
 *    commits, fed to one `patch-id --verbatim` (patch-id.ts, whitespace kept): a base commit
 *    in the branch's own range with the probe's patch-id is the squash. No object is written.
 * 5. `merge-tree` stays one per branch, and runs only where step 3 did not already prove
 *    that a merge changes the base: the branch changes a path the base still has as at the
 *    merge base (or adds one the base still lacks, under directories the base still has),
 *    so the merge result differs there or conflicts.
 *
 * Any doubt — a bound, an unexpected line, a path git cannot be given back as an argument,
 * a git older than 2.39 (no `patch-id --verbatim`; the per-branch route then says patch-id
 * was not evaluated) — sends the branch to the per-branch route, with the same answers.
 */
import { isFullOid } from '../core/git.js';
import { type GitCallContext, observeGitOk, settleAll } from './observe-git.js';
import { gitAtLeast, patchIds } from './patch-id.js';
import { IncompleteObservationError, type ObjectFormat, type PlanEquivalence } from './types.js';

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

interface RawChange {
  path: string;
  status: string;
  oldMode: string;
  oldOid: string;
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
  const text = await observeGitOk(
    [
      'rev-list',
      '--boundary',
      '--format=%m %H %T %ct %P',
      '--end-of-options',
      ...tips,
      `^${request.baseOid}`,
    ],
    ctx,
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
 * A tip's boundary commits (its merge-base candidates), or null if the listing lacks a
 * commit or the tip's own commit is older (committer time) than a parent. git's
 * `rev-list tips ^base` stops walking by date, a few commits past the point where all it
 * has left are the base's: with skewed dates it can list a commit the base does reach as a
 * tip's own, and so give a wrong boundary (merge base). The tip's own dates are checked
 * here, the base's in its range (`BaseRange.skewed`); on a skew `merge-base --all` decides.
 */
function boundaryOf(tip: string, listed: ReadonlyMap<string, ListedCommit>): string[] | null {
  const seen = new Set<string>([tip]);
  const boundary = new Set<string>();
  const stack = [tip];
  while (stack.length > 0) {
    const commit = listed.get(stack.pop()!);
    if (commit === undefined || commit.boundary) return null;
    for (const parent of commit.parents) {
      const listedParent = listed.get(parent);
      if (listedParent === undefined || listedParent.time > commit.time) return null;
      if (listedParent.boundary) boundary.add(parent);
      else if (!seen.has(parent)) {
        seen.add(parent);
        stack.push(parent);
      }
    }
  }
  return [...boundary];
}

/** Step 2a: each probe's cumulative change (tip against merge base): paths and old blobs. */
async function readChanges(
  probes: readonly Probe[],
  request: BatchRequest,
  ctx: GitCallContext,
): Promise<Map<string, RawChange[] | null>> {
  const label = 'git diff-tree --stdin -r (probes)';
  const input = probes.map((probe) => `${probe.tip} ${probe.mergeBase}\n`).join('');
  const result = await observeGitOk(
    ['diff-tree', '--stdin', '-r', '-z', '--no-renames', '--no-ext-diff'],
    ctx,
    label,
    input,
  );
  const fields = result.split('\0');
  if (fields[fields.length - 1] === '') fields.pop();
  const changes = new Map<string, RawChange[] | null>();
  let tip: string | null = null;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    if (!field.startsWith(':')) {
      if (!isFullOid(field, request.objectFormat) || changes.has(field)) throw unexpected(label);
      tip = field;
      changes.set(tip, []);
      continue;
    }
    const [oldMode = '', , oldOid = '', , status = ''] = field.slice(1).split(' ');
    const path = fields[++i];
    if (tip === null || path === undefined || !/^[0-7]{6}$/.test(oldMode) || !/^[ADMT]$/.test(status))
      throw unexpected(label);
    // A path that is not valid UTF-8 cannot be handed back to git as an argument unchanged:
    // that tip goes to the per-branch route.
    if (path.includes('\uFFFD')) changes.set(tip, null);
    changes.get(tip)?.push({ path, status, oldMode, oldOid });
  }
  return changes;
}

interface BaseRange {
  /** Parents of every commit in `base --not oldest`. */
  parents: Map<string, string[]>;
  /** The listed commits in topological order (children before parents). */
  order: string[];
  /** Listed commits older (committer time) than a listed parent: skewed dates. */
  skewed: string[];
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
      '--timestamp',
      `--max-count=${MAX_RANGE_COMMITS + 1}`,
      '--end-of-options',
      request.baseOid,
      `^${oldest}`,
    ],
    { ...ctx, bounds: { ...ctx.bounds, maxOutputBytes: (MAX_RANGE_COMMITS + 1) * (3 * (hex + 1) + 21) } },
    label,
  );
  const range: BaseRange = { parents: new Map(), order: [], skewed: [] };
  const times = new Map<string, number>();
  for (const line of nonEmptyLines(text)) {
    const [time = '', oid = '', ...parents] = line.split(' ');
    if (
      !/^\d+$/.test(time) ||
      !isFullOid(oid, request.objectFormat) ||
      !parents.every((p) => isFullOid(p, request.objectFormat))
    )
      throw unexpected(label);
    range.parents.set(oid, parents);
    range.order.push(oid);
    times.set(oid, Number(time));
  }
  for (const oid of range.order)
    if (range.parents.get(oid)!.some((parent) => (times.get(parent) ?? -1) > times.get(oid)!))
      range.skewed.push(oid);
  return range;
}

function rangeTooLong(range: BaseRange): boolean {
  return range.order.length > MAX_RANGE_COMMITS;
}

/**
 * The base range for the probes, and where it ends. Past the bound (a branch off an old
 * base), the range is listed again down to the oldest merge base the first listing reached:
 * the branches off older bases are then checked per branch, the others stay batched.
 */
async function rangeFor(
  probes: readonly Probe[],
  listed: ReadonlyMap<string, ListedCommit>,
  request: BatchRequest,
  ctx: GitCallContext,
): Promise<{ range: BaseRange; oldest: string }> {
  const oldest = oldestMergeBase(probes, listed);
  const range = await listRange(oldest, request, ctx);
  if (!rangeTooLong(range)) return { range, oldest };
  const reached = probes.filter((probe) => range.parents.has(probe.mergeBase));
  if (reached.length === 0) throw tooLong();
  const nearer = oldestMergeBase(reached, listed);
  const again = await listRange(nearer, request, ctx);
  if (rangeTooLong(again)) throw tooLong();
  return { range: again, oldest: nearer };
}

function tooLong(): IncompleteObservationError {
  return new IncompleteObservationError(
    'output-bound-exceeded',
    `more than ${MAX_RANGE_COMMITS} base commits since the merge bases`,
  );
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

  constructor(
    private readonly range: BaseRange,
    mergeBases: readonly string[],
    oldest: string,
  ) {
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
    let count = 0;
    this.range.order.forEach((oid, i) => {
      const set = (this.bits[i * this.words + (bit >> 5)]! & (1 << (bit & 31))) !== 0;
      if (!set && this.range.parents.get(oid)!.length <= 1) count += 1;
    });
    return count;
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
    ctx,
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
): Promise<{ probes: Probe[]; listed: Map<string, ListedCommit> }> {
  const listed = await listTips(tips, request, ctx);
  const probes: Probe[] = [];
  for (const tip of tips) {
    const boundary = boundaryOf(tip, listed);
    if (boundary === null || boundary.length > 1) continue;
    if (boundary.length === 0) {
      answers.set(tip, { kind: 'final', evidence: notEquivalentNoHistory });
      continue;
    }
    const mergeBase = boundary[0]!;
    const tipTree = listed.get(tip)!.tree;
    if (tipTree === listed.get(mergeBase)!.tree)
      answers.set(tip, { kind: 'final', evidence: emptyChange(mergeBase) });
    else probes.push({ tip, tipTree, mergeBase, changes: [] });
  }
  return { probes, listed };
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
  if (listing.probes.length === 0) return answers;
  // settleAll: no git process outlives the checks, and the first failure is reported.
  const [changes, { range, oldest }] = await settleAll<
    [Map<string, RawChange[] | null>, { range: BaseRange; oldest: string }]
  >([readChanges(listing.probes, request, ctx), rangeFor(listing.probes, listed, request, ctx)]);
  const probes = listing.probes.filter((probe) => {
    const found = changes.get(probe.tip);
    if (!found) return false; // a path git cannot take back as an argument: per branch
    probe.changes = found;
    return found.length > 0;
  });
  if (probes.length === 0) return answers;
  const paths = [...new Set(probes.flatMap((probe) => probe.changes.map((change) => change.path)))];

  const ancestry = new RangeAncestry(
    range,
    probes.map((probe) => probe.mergeBase),
    oldest,
  );
  const evaluable: { probe: Probe; bit: number }[] = [];
  const squashOf = new Map<string, SquashAnswer>();
  probes.forEach((probe, bit) => {
    if (!ancestry.reachesOldest[bit]) return; // its range is not inside the listing: per branch
    // A base commit in its own range older than its parent: the tips' listing may have
    // given a commit the base reaches as the branch's own (boundaryOf), so its merge base
    // is not proved. Per branch, where `merge-base --all` decides.
    if (range.skewed.some((oid) => !ancestry.isAncestor(oid, bit))) return;
    const count = ancestry.countOwn(bit);
    if (count > MAX_PATCH_ID_COMMITS)
      squashOf.set(probe.tip, {
        unanswered: `${count} base commits since the merge base; the bound is ${MAX_PATCH_ID_COMMITS}`,
      });
    else evaluable.push({ probe, bit });
  });
  // A squash changes the probe's paths, so it is among the base commits touching them,
  // listed only over the ranges of the branches patch-id evaluates.
  const [base, touching] = await settleAll<[Map<string, { mode: string; oid: string }>, string[]]>([
    baseEntries(paths, request, ctx),
    evaluable.length === 0
      ? Promise.resolve<string[]>([])
      : touchingCommits(
          evaluatedRangeEnd(evaluable, ancestry, oldest, listed),
          [...new Set(evaluable.flatMap(({ probe }) => probe.changes.map((change) => change.path)))],
          request,
          ctx,
        ),
  ]);
  const baseListing = [...base.keys()];
  const candidates = touching.filter((oid) => evaluable.some(({ bit }) => !ancestry.isAncestor(oid, bit)));
  const ids =
    candidates.length > 0
      ? await patchIds(
          evaluable.map(({ probe }) => probe),
          candidates,
          request,
          ctx,
        )
      : new Map<string, string>();
  for (const { probe, bit } of evaluable) {
    const id = ids.get(probe.tip);
    // Newest first, as rev-list lists them: the latest squash is named.
    const found =
      id === undefined
        ? null
        : (candidates.find((oid) => !ancestry.isAncestor(oid, bit) && ids.get(oid) === id) ?? null);
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
  return answers;
}
