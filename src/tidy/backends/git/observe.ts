/**
 * The Git observation behind `tidy plan` (and apply's revalidation): repository layout,
 * base, branch tips, object types, native ancestry and worktrees, read with a bounded
 * number of hardened git calls (never one per branch), each capped at the output bound
 * and sharing one deadline. Each worktree's rebase/bisect state is read from its git dir
 * (small files, bounded). Tips and base are read twice, and the worktree evidence is
 * bracketed by two file fingerprints (or read twice where there are none); anything that
 * changed between the reads is reported so that the decision retains it as uncertain.
 */
import { constants } from 'node:fs';
import { type FileHandle, open, readdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { RefusalError } from '../../../core/errors.js';
import { discoverRepo, isFullOid, parseWorktreeList, type WorktreeRecord } from '../../../core/git.js';
import { describeOutcome, type RunResult } from '../../../core/run.js';
import { checkTextBound, chunkByCost, settleAll, utf8Bytes } from '../../bounded.js';
import { type GitCallContext, observeGitOk, observeGitRaw } from '../../git-call.js';
import {
  IncompleteObservationError,
  type ObjectFormat,
  type ObserveContext,
  type ObserveRequest,
  type PlanWorktreeOperation,
  type TidyBounds,
} from '../../types.js';

export interface GitLayout {
  /** PATH resolved through symlinks. */
  path: string;
  toplevel: string | undefined;
  gitDir: string;
  commonDir: string;
  isBare: boolean;
  isShallow: boolean;
  objectFormat: ObjectFormat;
}

export interface ResolvedBase {
  selector: string;
  /** Full ref name, or null when the selector is an object id. */
  ref: string | null;
  /** The base commit (a tag base is peeled to its commit). */
  oid: string;
  /** The ref's own value (the tag object for an annotated tag); null for an object id selector. */
  refOid: string | null;
}

export interface BranchTip {
  ref: string;
  oid: string;
  /** Target of a symbolic branch ref, or null. */
  symref: string | null;
}

export interface ObservedBranch extends BranchTip {
  /** Object type of the tip; null when the object is missing. */
  objectType: string | null;
  /** Listed by `for-each-ref --merged=<base>`: the tip is reachable from the base commit. */
  isMerged: boolean;
  /** The tip (or its existence) differed between the first and the second read. */
  changed: boolean;
}

export interface GitObservation {
  layout: GitLayout;
  /** e.g. "2.39.5"; null when `git version` printed something unexpected. */
  gitVersion: string | null;
  base: ResolvedBase;
  selection: { mode: 'explicit' | 'all-local-branches'; refs: string[] };
  worktrees: WorktreeRecord[];
  /** Selected branches in target order (explicit order, or refname order for all). */
  branches: ObservedBranch[];
  /** The base resolved to a different commit on the second read. */
  baseChanged: boolean;
  /** Rebase/bisect state per worktree git dir (main first, then linked by admin dir name). */
  worktreeStates: WorktreeGitState[];
  /** The worktree list, or a worktree's rebase/bisect state, differed between the two reads. */
  worktreesChanged: boolean;
  /** Number of git processes this observation ran. */
  gitCalls: number;
  /**
   * Committer time (seconds) of each tip, by object id, when the request asked for it and
   * the times could be read; an order for the evidence, never a decision's input.
   */
  tipTimes?: ReadonlyMap<string, number>;
}

/** Facts observed so far, filled in as the observation proceeds (for refused/incomplete plans). */
export interface PartialGitObservation {
  layout?: GitLayout;
  gitVersion?: string | null;
  base?: ResolvedBase;
  worktrees?: WorktreeRecord[];
}

// The bounded git call is shared with every backend that reads a Git store (src/tidy/git-call.ts).
export type { GitCallContext };
export { observeGitOk, observeGitRaw };

function lines(text: string): string[] {
  const out = text.split('\n');
  if (out[out.length - 1] === '') out.pop();
  return out;
}

function malformed(label: string, detail: string): IncompleteObservationError {
  return new IncompleteObservationError('malformed-output', `${label}: unexpected output (${detail})`);
}

// ---------------------------------------------------------------------------
// Selection checks (pure)

const FORBIDDEN_REF_CHARS = /[\u0000-\u0020\u007f~^:?*[\\]/;

/**
 * A full ref name that git would accept (the rules of `git check-ref-format`), checked
 * in-process so that a glob, revset or option-like text never reaches git.
 */
export function isValidFullRefName(name: string): boolean {
  if (!name.startsWith('refs/')) return false;
  if (FORBIDDEN_REF_CHARS.test(name)) return false;
  if (name.includes('..') || name.includes('@{') || name.includes('//')) return false;
  if (name.endsWith('/') || name.endsWith('.') || name.endsWith('.lock')) return false;
  for (const component of name.split('/')) {
    if (component === '' || component.startsWith('.') || component.endsWith('.lock')) return false;
  }
  return true;
}

/**
 * Validates explicit `--ref` values: full `refs/heads/…` names, literal, no duplicates.
 * Existence is checked against the repository later (`unknown-ref`).
 */
export function checkExplicitRefs(refs: readonly string[]): void {
  const seen = new Set<string>();
  for (const ref of refs) {
    if (!ref.startsWith('refs/'))
      throw new RefusalError(
        'short-selector',
        `--ref ${JSON.stringify(ref)} is not a full ref name (names are never guessed)`,
        { hint: `give it as ${JSON.stringify(`refs/heads/${ref}`)}` },
      );
    if (!isValidFullRefName(ref))
      throw new RefusalError(
        'invalid-ref',
        `--ref ${JSON.stringify(ref)} is not a valid literal ref name (globs, revsets and patterns are not accepted)`,
      );
    if (!ref.startsWith('refs/heads/') || ref === 'refs/heads/')
      throw new RefusalError(
        'not-a-branch',
        `--ref ${JSON.stringify(ref)} is not a local branch (refs/heads/…)`,
      );
    if (seen.has(ref))
      throw new RefusalError('duplicate-ref', `--ref ${JSON.stringify(ref)} is given more than once`);
    seen.add(ref);
  }
}

// ---------------------------------------------------------------------------
// Observation steps (each exported for apply's revalidation)

/** Resolves PATH and locates the repository around it. */
export async function discoverGitLayout(path: string, ctx: ObserveContext): Promise<GitLayout> {
  let resolved: string;
  try {
    resolved = await realpath(path);
    if (!(await stat(resolved)).isDirectory())
      throw new RefusalError('not-a-repository', `${JSON.stringify(path)} is not a directory`);
  } catch (error) {
    if (error instanceof RefusalError) throw error;
    throw new RefusalError('path-not-found', `${JSON.stringify(path)} does not exist`);
  }
  let layout: Awaited<ReturnType<typeof discoverRepo>>;
  if (ctx.deadline.isExpired)
    throw new IncompleteObservationError('deadline', 'the deadline passed before the repository was read');
  try {
    layout = await discoverRepo(resolved, ctx.deadline);
  } catch (error) {
    throw new IncompleteObservationError('git-failed', (error as Error).message);
  }
  if (layout === undefined)
    throw new RefusalError('not-a-repository', `${JSON.stringify(resolved)} is not inside a git repository`);
  if (!layout.gitDir || !layout.commonDir) throw malformed('git rev-parse', 'no git dir');
  return { path: resolved, ...layout };
}

/** `git version` → "2.39.5" (null if unrecognised). */
export async function readGitVersion(ctx: GitCallContext): Promise<string | null> {
  const text = await observeGitOk(['version'], ctx, 'git version');
  const match = /^git version (\S+)/.exec(text);
  return match?.[1] ?? null;
}

/**
 * Resolves `--base`: a full ref name or a full object id of the repository's format,
 * peeled to a commit. Short names, abbreviated ids and revsets are refused, never guessed.
 */
export async function resolveBase(
  selector: string,
  objectFormat: ObjectFormat,
  ctx: GitCallContext,
): Promise<ResolvedBase> {
  let ref: string | null = null;
  let refOid: string | null = null;
  let oid: string;
  if (selector.startsWith('refs/')) {
    if (!isValidFullRefName(selector))
      throw new RefusalError(
        'invalid-selector',
        `--base ${JSON.stringify(selector)} is not a valid literal ref name`,
      );
    // One call: the ref's object, its type, and (for an annotated tag) what it peels to.
    const text = await observeGitOk(
      [
        'for-each-ref',
        '--format=%(objectname)%00%(objecttype)%00%(*objectname)%00%(*objecttype)%00%(refname)',
        '--',
        selector,
      ],
      ctx,
      'git for-each-ref (base)',
    );
    const row = lines(text)
      .map((line) => line.split('\0'))
      .find((fields) => fields.length === 5 && fields[4] === selector);
    if (row === undefined)
      throw new RefusalError('base-unresolved', `--base ${JSON.stringify(selector)} does not exist`);
    ref = selector;
    const [object, type, peeled, peeledType] = row as [string, string, string, string, string];
    if (!isFullOid(object, objectFormat)) throw malformed('git for-each-ref (base)', 'object id');
    if (type === 'commit') return { selector, ref, oid: object, refOid: object };
    if (type === 'tag' && peeledType === 'commit' && isFullOid(peeled, objectFormat))
      return { selector, ref, oid: peeled, refOid: object };
    refOid = object;
    oid = object; // a tag of a tag, or not a commit at all: let rev-parse peel or refuse
  } else if (isFullOid(selector, objectFormat)) {
    oid = selector;
  } else if (/^[0-9a-fA-F]+$/.test(selector)) {
    throw new RefusalError(
      'short-selector',
      `--base ${JSON.stringify(selector)} is not a full ${objectFormat} object id (${objectFormat === 'sha1' ? 40 : 64} lowercase hex digits); abbreviations are not accepted`,
    );
  } else {
    const matches = await fullRefsNamed(selector, ctx);
    throw new RefusalError(
      'short-selector',
      `--base ${JSON.stringify(selector)} is not a full ref name or object id (names are never guessed)`,
      {
        hint:
          matches.length > 0
            ? `full refs named ${JSON.stringify(selector)}: ${matches.join(', ')}`
            : `no ref is named ${JSON.stringify(selector)}; give a full name such as refs/heads/${selector}`,
      },
    );
  }
  const peeled = await observeGitRaw(
    ['rev-parse', '--verify', '--quiet', '--end-of-options', `${oid}^{commit}`],
    ctx,
    'git rev-parse (base)',
  );
  if (peeled.code !== 0)
    throw new RefusalError(
      'base-unresolved',
      `--base ${JSON.stringify(selector)} does not resolve to a commit in this repository`,
    );
  const commit = peeled.stdout.toString('utf8').trim();
  if (!isFullOid(commit, objectFormat)) throw malformed('git rev-parse (base)', 'object id');
  return { selector, ref, oid: commit, refOid };
}

/** The existing refs a short name could mean (refs/NAME, refs/heads|tags|remotes/NAME), for a hint. */
async function fullRefsNamed(name: string, ctx: GitCallContext): Promise<string[]> {
  const candidates = ['refs/', 'refs/heads/', 'refs/tags/', 'refs/remotes/'].map(
    (prefix) => `${prefix}${name}`,
  );
  if (!candidates.every(isValidFullRefName)) return [];
  const text = await observeGitOk(
    ['for-each-ref', '--format=%(refname)', '--', ...candidates],
    ctx,
    'git for-each-ref (names)',
  );
  return lines(text).filter((ref) => candidates.includes(ref));
}

/**
 * The entry-bound refusal for a repository with too many local branches: how many there
 * are (one cheap count, itself bounded), and how to select a subset.
 */
async function tooManyBranches(ctx: GitCallContext): Promise<RefusalError> {
  let count = `more than ${ctx.bounds.maxEntries}`;
  try {
    const dots = await observeGitOk(
      ['for-each-ref', '--format=.', 'refs/heads/'],
      ctx,
      'git for-each-ref (count)',
    );
    count = String(lines(dots).length);
  } catch (error) {
    if (!(error instanceof IncompleteObservationError && error.code === 'output-bound-exceeded')) throw error;
  }
  const limit = Math.max(1, ctx.bounds.maxEntries - 24);
  return new RefusalError(
    'bound-exceeded',
    `the repository has ${count} local branches; a plan covers at most ${ctx.bounds.maxEntries} entries (branches and worktrees)`,
    {
      hint: `select a subset by full name with --ref or --refs-from, e.g. git for-each-ref --merged=<base> --format='%(refname)' refs/heads/ | head -n ${limit} | stw tidy plan --refs-from - --base <base>`,
    },
  );
}

/**
 * Every local branch's full name, in refname order. `--count` stops git one past the
 * entry bound, so too many branches refuse instead of overflowing the output bound.
 */
export async function listLocalBranchNames(ctx: GitCallContext): Promise<string[]> {
  const text = await observeGitOk(
    ['for-each-ref', `--count=${ctx.bounds.maxEntries + 1}`, '--format=%(refname)', 'refs/heads/'],
    ctx,
    'git for-each-ref (branches)',
  );
  const names = lines(text);
  for (const name of names)
    if (!name.startsWith('refs/heads/')) throw malformed('git for-each-ref', 'ref name');
  if (names.length > ctx.bounds.maxEntries) throw await tooManyBranches(ctx);
  return names;
}

export interface LocalTips {
  /** Every local branch, in refname order. */
  names: string[];
  tips: Map<string, BranchTip>;
  /** Object types by tip oid, when the listing could carry them (see readAllLocalTips). */
  types?: Map<string, string | null>;
}

/**
 * Every local branch with its tip. One `for-each-ref` call with short fields when the
 * listing fits the output bound (≈50 bytes a branch with SHA-1); when it does not, the
 * names are listed alone and the tips read in chunks, so a long listing costs more calls
 * but never a truncated read. With `withTypes`, the one call also carries each tip's
 * object type (saving the `cat-file` call); git refuses that listing when a tip's object
 * is missing, and then the tips are listed without types, as before.
 */
export async function readAllLocalTips(
  objectFormat: ObjectFormat,
  ctx: GitCallContext,
  options: { withTypes?: boolean } = {},
): Promise<LocalTips> {
  if (options.withTypes === true) {
    const typed = await listLocalTips(objectFormat, ctx, true);
    if (typed !== undefined) return typed;
  }
  const listed = await listLocalTips(objectFormat, ctx, false);
  if (listed !== undefined) return listed;
  const names = await listLocalBranchNames(ctx);
  return { names, tips: await readBranchTips(names, objectFormat, ctx) };
}

/**
 * The one-call listing of readAllLocalTips; undefined when it does not fit the output
 * bound or (with types) when git refuses it for a missing object.
 */
async function listLocalTips(
  objectFormat: ObjectFormat,
  ctx: GitCallContext,
  withTypes: boolean,
): Promise<LocalTips | undefined> {
  const label = 'git for-each-ref (branch tips)';
  const fields = withTypes
    ? '%(objectname)%00%(objecttype)%00%(symref)%00%(refname:lstrip=2)'
    : '%(objectname)%00%(symref)%00%(refname:lstrip=2)';
  let result: RunResult & { kind: 'exited' };
  try {
    result = await observeGitRaw(
      ['for-each-ref', `--count=${ctx.bounds.maxEntries + 1}`, `--format=${fields}`, 'refs/heads/'],
      ctx,
      label,
    );
  } catch (error) {
    if (error instanceof IncompleteObservationError && error.code === 'output-bound-exceeded')
      return undefined;
    throw error;
  }
  if (result.code !== 0) {
    if (withTypes) return undefined;
    throw new IncompleteObservationError('git-failed', describeOutcome(result, label));
  }
  const names: string[] = [];
  const tips = new Map<string, BranchTip>();
  const types = new Map<string, string | null>();
  for (const line of lines(result.stdout.toString('utf8'))) {
    const row = line.split('\0');
    if (row.length !== (withTypes ? 4 : 3)) throw malformed(label, 'field count');
    const [oid, type, symref, short] = (withTypes ? row : [row[0], undefined, row[1], row[2]]) as [
      string,
      string | undefined,
      string,
      string,
    ];
    if (!isFullOid(oid, objectFormat) || short === '' || type === '') throw malformed(label, 'row');
    const ref = `refs/heads/${short}`;
    names.push(ref);
    tips.set(ref, { ref, oid, symref: symref === '' ? null : symref });
    if (type !== undefined) types.set(oid, type);
  }
  if (names.length > ctx.bounds.maxEntries) throw await tooManyBranches(ctx);
  return withTypes ? { names, tips, types } : { names, tips };
}

function oidLength(format: ObjectFormat): number {
  return format === 'sha1' ? 40 : 64;
}

/**
 * Reads the tips of the named refs with `for-each-ref` (exact names as patterns), in
 * chunks sized to keep each call's output under the bound. Names that do not exist
 * are absent from the result.
 */
export async function readBranchTips(
  names: readonly string[],
  objectFormat: ObjectFormat,
  ctx: GitCallContext,
): Promise<Map<string, BranchTip>> {
  const tips = new Map<string, BranchTip>();
  const wanted = new Set(names);
  // A row is oid, symref target, name; the symref target is unknown in advance, so budget
  // for a name-sized one and keep half the bound as headroom.
  const budget = Math.max(1, Math.floor(ctx.bounds.maxOutputBytes / 2));
  const chunks = chunkByCost(names, (name) => oidLength(objectFormat) + 4 + 2 * utf8Bytes(name), budget);
  for (const chunk of chunks) {
    const text = await observeGitOk(
      ['for-each-ref', '--format=%(objectname)%00%(symref)%00%(refname)', '--', ...chunk],
      ctx,
      'git for-each-ref (tips)',
    );
    for (const line of lines(text)) {
      const fields = line.split('\0');
      if (fields.length !== 3) throw malformed('git for-each-ref (tips)', 'field count');
      const [oid, symref, ref] = fields as [string, string, string];
      if (!wanted.has(ref)) continue; // a pattern also matches names below it
      if (!isFullOid(oid, objectFormat)) throw malformed('git for-each-ref (tips)', 'object id');
      tips.set(ref, { ref, oid, symref: symref === '' ? null : symref });
    }
  }
  return tips;
}

/** Object types of the given ids via `cat-file --batch-check`; a missing object maps to null. */
export async function readObjectTypes(
  oids: readonly string[],
  objectFormat: ObjectFormat,
  ctx: GitCallContext,
): Promise<Map<string, string | null>> {
  const types = new Map<string, string | null>();
  const unique = [...new Set(oids)];
  const budget = Math.max(1, Math.floor(ctx.bounds.maxOutputBytes / 2));
  for (const chunk of chunkByCost(unique, () => oidLength(objectFormat) + 16, budget)) {
    const text = await observeGitOk(
      ['cat-file', '--batch-check=%(objectname) %(objecttype)'],
      ctx,
      'git cat-file --batch-check',
      `${chunk.join('\n')}\n`,
    );
    const rows = lines(text);
    if (rows.length !== chunk.length) throw malformed('git cat-file', 'row count');
    rows.forEach((row, index) => {
      const [oid, type] = row.split(' ');
      if (oid === undefined || oid !== chunk[index] || type === undefined)
        throw malformed('git cat-file', 'row');
      types.set(oid, type === 'missing' ? null : type);
    });
  }
  return types;
}

/**
 * Each tip's committer time, one `rev-list --no-walk --timestamp --stdin`, beside the
 * ancestry read (it is not on the way to a decision). Undefined when the times cannot be
 * read (a missing object, unexpected output): the times are a priority, never evidence.
 * Its own output bound, sized from the tips: one line a tip of at most 20 digits, a space,
 * its id and a newline.
 */
export async function readTipTimes(
  oids: readonly string[],
  objectFormat: ObjectFormat,
  ctx: GitCallContext,
): Promise<Map<string, number> | undefined> {
  const tips = [...new Set(oids)];
  if (tips.length === 0) return new Map();
  const label = 'git rev-list --no-walk --timestamp (tips)';
  let text: string;
  try {
    text = await observeGitOk(
      ['rev-list', '--no-walk', '--timestamp', '--stdin'],
      { ...ctx, bounds: { ...ctx.bounds, maxOutputBytes: tips.length * (oidLength(objectFormat) + 22) } },
      label,
      tips.map((tip) => `${tip}\n`).join(''),
    );
  } catch (error) {
    if (error instanceof IncompleteObservationError) return undefined;
    throw error;
  }
  const times = new Map<string, number>();
  for (const line of lines(text)) {
    const [time = '', oid = ''] = line.split(' ');
    if (!/^\d+$/.test(time) || !isFullOid(oid, objectFormat)) return undefined;
    times.set(oid, Number(time));
  }
  return times;
}

/**
 * The names among the selected refs whose tips are reachable from the base commit, by
 * native ancestry (`for-each-ref --merged`, one traversal per call; replace objects and
 * grafts are off in the hardened environment). `names` undefined → all local branches.
 */
export async function readMergedNames(
  baseOid: string,
  names: readonly string[] | undefined,
  ctx: GitCallContext,
): Promise<Set<string>> {
  const merged = new Set<string>();
  const patterns =
    names === undefined
      ? [['refs/heads/']]
      : chunkByCost(names, (n) => utf8Bytes(n) + 1, ctx.bounds.maxOutputBytes / 2);
  const wanted = names === undefined ? undefined : new Set(names);
  for (const chunk of patterns) {
    const text = await observeGitOk(
      ['for-each-ref', `--merged=${baseOid}`, '--format=%(refname:lstrip=2)', '--', ...chunk],
      ctx,
      'git for-each-ref --merged',
    );
    for (const short of lines(text)) {
      const name = `refs/heads/${short}`;
      if (wanted !== undefined && !wanted.has(name)) continue;
      merged.add(name);
    }
  }
  return merged;
}

/**
 * `git worktree list --porcelain -z`, bounded. A bare repository's entry carries no HEAD,
 * yet its HEAD names a branch that deleting would leave dangling: that branch (or, when
 * HEAD is detached, its commit) is read and recorded on the bare entry, so that the
 * decision holds it as `checked-out` (or `worktree-head`) like any worktree's.
 */
export async function readWorktrees(ctx: GitCallContext): Promise<WorktreeRecord[]> {
  const result = await observeGitRaw(['worktree', 'list', '--porcelain', '-z'], ctx, 'git worktree list');
  if (result.code !== 0)
    throw new IncompleteObservationError('git-failed', describeOutcome(result, 'git worktree list'));
  const worktrees = parseWorktreeList(result.stdout);
  const main = worktrees[0];
  if (main?.isBare === true) Object.assign(main, await readBareHead(ctx));
  return worktrees;
}

/** A bare repository's HEAD: the branch it names, or the commit of a detached HEAD. */
async function readBareHead(
  ctx: GitCallContext,
): Promise<Pick<WorktreeRecord, 'branch' | 'head' | 'isDetached'>> {
  const symbolic = await observeGitRaw(['symbolic-ref', '--quiet', 'HEAD'], ctx, 'git symbolic-ref HEAD');
  const ref = symbolic.stdout.toString('utf8').replace(/\n$/, '');
  if (symbolic.code === 0) {
    if (!isValidFullRefName(ref)) throw malformed('git symbolic-ref HEAD', 'ref name');
    return { branch: ref, head: undefined, isDetached: false };
  }
  if (symbolic.code !== 1)
    throw new IncompleteObservationError('git-failed', describeOutcome(symbolic, 'git symbolic-ref HEAD'));
  // Exit 1: HEAD is not symbolic, so it is detached at a commit.
  const detached = await observeGitRaw(
    ['rev-parse', '--verify', '--quiet', 'HEAD'],
    ctx,
    'git rev-parse HEAD',
  );
  const oid = detached.stdout.toString('utf8').trim();
  if (detached.code !== 0 || !isFullOid(oid))
    throw new IncompleteObservationError(
      'git-failed',
      "the bare repository's HEAD is neither a branch nor a commit",
    );
  return { branch: undefined, head: oid, isDetached: true };
}

// ---------------------------------------------------------------------------
// Rebase and bisect state (read from files: no git process per worktree)

/**
 * The rebase/bisect state of one worktree's git dir. During a rebase or bisect git
 * lists the worktree as detached, yet treats the branch the operation started from as
 * checked out there (git's `is_worktree_being_rebased`/`_bisected`, which read these
 * same files), so the decision blocks that branch like a checkout.
 */
export interface WorktreeGitState {
  /** The worktree's git dir: the common dir for the main worktree, `<common>/worktrees/<id>` for a linked one. */
  gitDir: string;
  /** The worktree's path as `git worktree list` shows it; null when it could not be read. */
  worktree: string | null;
  operations: PlanWorktreeOperation[];
  /** Why the state could not be read completely (then every target is uncertain); null when read. */
  unreadable: string | null;
}

type SmallFile = { kind: 'absent' } | { kind: 'text'; text: string } | { kind: 'unreadable'; why: string };

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

/**
 * Reads a small state file, at most `limit` bytes. Absent (ENOENT/ENOTDIR) is a fact;
 * anything else — not a regular file, too large, unreadable — is reported, never guessed.
 * O_NONBLOCK keeps a FIFO planted at the path from blocking the open.
 */
export async function readSmallFile(path: string, limit: number): Promise<SmallFile> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent' };
    return { kind: 'unreadable', why: code };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { kind: 'unreadable', why: 'not a regular file' };
    if (info.size > limit) return { kind: 'unreadable', why: `larger than ${limit} bytes` };
    const buffer = Buffer.alloc(limit + 1);
    const { bytesRead } = await handle.read(buffer, 0, limit + 1, 0);
    if (bytesRead > limit) return { kind: 'unreadable', why: `larger than ${limit} bytes` };
    return { kind: 'text', text: buffer.subarray(0, bytesRead).toString('utf8') };
  } catch (error) {
    return { kind: 'unreadable', why: errorCode(error) };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

async function exists(path: string): Promise<boolean | string> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    const code = errorCode(error);
    return code === 'ENOENT' || code === 'ENOTDIR' ? false : code;
  }
}

/**
 * The branch a rebase head-name or BISECT_START names, the way git's `get_branch` reads
 * it: trailing newlines dropped; `detached HEAD` (rebase) or an object id (bisect) is no
 * branch; `refs/…` as is; anything else is a short branch name. Undefined: not a ref name.
 */
export function stateFileBranch(text: string): string | null | undefined {
  const value = text.replace(/\n+$/, '');
  if (value === 'detached HEAD' || isFullOid(value)) return null;
  const ref = value.startsWith('refs/') ? value : `refs/heads/${value}`;
  return isValidFullRefName(ref) ? ref : undefined;
}

/** Reads the rebase (merge and apply backends) and bisect state in one worktree git dir. */
export async function readOperations(
  gitDir: string,
  limit: number,
): Promise<{ operations: PlanWorktreeOperation[]; problems: string[] }> {
  const operations: PlanWorktreeOperation[] = [];
  const problems: string[] = [];
  const record = (kind: PlanWorktreeOperation['kind'], file: string, read: SmallFile): void => {
    if (read.kind === 'unreadable') problems.push(`${file}: ${read.why}`);
    else if (read.kind === 'text') {
      const branch = stateFileBranch(read.text);
      if (branch === undefined) problems.push(`${file}: does not name a branch`);
      else operations.push({ kind, file, branch });
    }
  };
  for (const dir of ['rebase-merge', 'rebase-apply']) {
    const file = `${dir}/head-name`;
    const read = await readSmallFile(join(gitDir, file), limit);
    if (read.kind !== 'absent') {
      record('rebase', file, read);
      continue;
    }
    const present = await exists(join(gitDir, dir));
    if (present === false) continue;
    if (present !== true) {
      problems.push(`${dir}: ${present}`);
      continue;
    }
    // rebase-apply without head-name is `git am` when it says so; otherwise a rebase
    // being set up or torn down, whose branch is not known: never assume there is none.
    if (dir === 'rebase-apply' && (await exists(join(gitDir, dir, 'applying'))) === true) continue;
    problems.push(`${dir} exists without head-name`);
  }
  record('bisect', 'BISECT_START', await readSmallFile(join(gitDir, 'BISECT_START'), limit));
  return { operations, problems };
}

function checkStillRunning(ctx: ObserveContext): void {
  if (ctx.signal?.aborted)
    throw new IncompleteObservationError('cancelled', 'worktree state read was cancelled');
  if (ctx.deadline.isExpired)
    throw new IncompleteObservationError(
      'deadline',
      'reading worktree state ran past the deadline; evidence is incomplete',
    );
}

/** The worktree path a linked admin dir's `gitdir` file names, as `git worktree list` derives it. */
async function linkedWorktreePath(adminDir: string, limit: number): Promise<string | null> {
  const read = await readSmallFile(join(adminDir, 'gitdir'), limit);
  if (read.kind !== 'text') return null;
  let path = read.text.replace(/\s+$/, '');
  if (path.endsWith('/.git')) path = path.slice(0, -'/.git'.length);
  if (path === '') return null;
  if (isAbsolute(path)) return path;
  const joined = resolve(adminDir, path);
  return realpath(joined).catch(() => joined);
}

/**
 * The rebase/bisect state of every worktree git dir: the common dir (main worktree) and
 * every entry of `<common>/worktrees/` — all of them, as git checks, whether or not the
 * entry's worktree is listed or its files still exist. Plain file reads, bounded in size
 * and count; no git process.
 */
export async function readWorktreeStates(
  layout: Pick<GitLayout, 'commonDir'>,
  worktrees: readonly WorktreeRecord[],
  ctx: ObserveContext,
): Promise<WorktreeGitState[]> {
  const limit = ctx.bounds.maxTextBytes + 1; // a ref name or path, and its newline
  const states: WorktreeGitState[] = [];
  const main = worktrees.find((worktree) => worktree.isMain);
  const add = async (gitDir: string, worktree: string | null) => {
    checkStillRunning(ctx);
    const { operations, problems } = await readOperations(gitDir, limit);
    states.push({
      gitDir,
      worktree,
      operations,
      unreadable: problems.length > 0 ? problems.join('; ') : null,
    });
  };
  await add(layout.commonDir, main?.path ?? null);

  const adminRoot = join(layout.commonDir, 'worktrees');
  let ids: string[];
  try {
    ids = (await readdir(adminRoot)).sort();
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return states;
    states.push({ gitDir: adminRoot, worktree: null, operations: [], unreadable: `${adminRoot}: ${code}` });
    return states;
  }
  if (ids.length > ctx.bounds.maxEntries)
    throw new RefusalError(
      'bound-exceeded',
      `${ids.length} worktree registrations; the bound is ${ctx.bounds.maxEntries} entries`,
    );
  for (const id of ids) {
    const adminDir = join(adminRoot, id);
    if ((await exists(adminDir)) === false) continue; // removed while listed
    await add(adminDir, await linkedWorktreePath(adminDir, limit));
  }
  return states;
}

/**
 * A cheap fingerprint of everything that decides which branches worktrees hold, read from
 * files with no git process: the HEAD of the common dir and of every `worktrees/<id>` entry,
 * each entry's `gitdir` and `locked`, every rebase/bisect state (as readWorktreeStates
 * reads it) and the `shallow` file. A plan reads it before and after its observation;
 * apply compares it before each batch of deletions with
 * the one read before its last full observation: equal means the worktree evidence has not
 * changed, so the full observation stands; different means observe again. Null when the
 * refs are not files (reftable keeps HEADs elsewhere): then apply observes fully each time.
 */
export async function readWorktreeFingerprint(
  layout: Pick<GitLayout, 'commonDir'>,
  ctx: ObserveContext,
): Promise<string | null> {
  const limit = ctx.bounds.maxTextBytes + 1;
  if ((await exists(join(layout.commonDir, 'reftable'))) !== false) return null;
  const read = async (path: string) => {
    const file = await readSmallFile(path, limit);
    return file.kind === 'text' ? file.text : file.kind === 'absent' ? null : `unreadable: ${file.why}`;
  };
  const parts: unknown[] = [
    await read(join(layout.commonDir, 'HEAD')),
    await exists(join(layout.commonDir, 'shallow')),
  ];
  for (const state of await readWorktreeStates(layout, [], ctx)) {
    const isMain = state.gitDir === layout.commonDir;
    parts.push(
      state.gitDir,
      state.operations,
      state.unreadable,
      isMain ? null : await read(join(state.gitDir, 'HEAD')),
      isMain ? null : await read(join(state.gitDir, 'gitdir')),
      isMain ? null : await read(join(state.gitDir, 'locked')),
    );
  }
  return JSON.stringify(parts);
}

/**
 * The base read from the first branch listing: a plain (not symbolic) branch whose tip
 * the listing shows to be a commit. Undefined otherwise — absent, symbolic, another
 * object type, or a listing without types — and then resolveBase decides, with its own
 * refusals.
 */
function baseFromListing(selector: string, listing: LocalTips): ResolvedBase | undefined {
  const tip = listing.tips.get(selector);
  if (tip === undefined || tip.symref !== null || listing.types?.get(tip.oid) !== 'commit') return undefined;
  return { selector, ref: selector, oid: tip.oid, refOid: tip.oid };
}

/** The base commit in the second listing: the same plain branch's tip, or undefined. */
function baseAgainFromListing(selector: string, tips: ReadonlyMap<string, BranchTip>): string | undefined {
  const tip = tips.get(selector);
  return tip === undefined || tip.symref !== null ? undefined : tip.oid;
}

function sameWorktrees(a: readonly WorktreeRecord[], b: readonly WorktreeRecord[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

// ---------------------------------------------------------------------------
// The whole observation

/** The request's own bounds and form, before any git call: text sizes, explicit names, entry count. */
function checkRequest(request: ObserveRequest, bounds: TidyBounds): void {
  checkTextBound('PATH', request.path, bounds.maxTextBytes);
  checkTextBound('--base', request.baseSelector, bounds.maxTextBytes);
  for (const ref of request.refs ?? []) checkTextBound('--ref', ref, bounds.maxTextBytes);
  if (request.refs === undefined) return;
  checkExplicitRefs(request.refs);
  if (request.refs.length > bounds.maxEntries)
    throw new RefusalError(
      'bound-exceeded',
      `${request.refs.length} refs selected; the bound is ${bounds.maxEntries} entries`,
    );
}

/**
 * Observes a Git repository for a tidy plan. Throws RefusalError for selection
 * problems (unknown/duplicate/short/non-branch refs, unresolved base, bounds) and
 * IncompleteObservationError when evidence could not be read completely.
 */
export async function observeGit(
  request: ObserveRequest,
  ctx: ObserveContext & {
    counter?: { calls: number };
    partial?: PartialGitObservation;
    /** Test seam: runs between the first and the second read (to simulate a concurrent change). */
    betweenReads?: () => void | Promise<void>;
  },
): Promise<GitObservation> {
  const partial = ctx.partial ?? {};
  const { bounds } = ctx;
  checkRequest(request, bounds);

  const counter = ctx.counter ?? { calls: 0 };
  counter.calls += 1; // discoverRepo
  // `git version` reads no repository: it runs beside the discovery, in PATH as every other
  // call does (a version manager's shim picks its git by the directory it runs in).
  const [layout, gitVersion] = await settleAll([
    discoverGitLayout(request.path, ctx),
    readGitVersion({ ...ctx, cwd: resolve(request.path), counter }).then(
      (version) => (partial.gitVersion = version),
    ),
  ]);
  partial.layout = layout;
  const call: GitCallContext = { ...ctx, cwd: layout.path, counter };
  const format = layout.objectFormat;
  // The worktree evidence is bracketed by two fingerprints (files only, no git process):
  // equal ones mean the worktree list read in between stands. Null (reftable): the list
  // and the rebase/bisect states are read a second time instead.
  const fingerprintBefore = await readWorktreeFingerprint(layout, ctx);

  // Every local branch selected and a base under refs/heads/ (the usual case): the base is
  // one of the listed tips, so the listing resolves it and no call of its own is needed.
  const baseIsListed =
    request.refs === undefined &&
    request.baseSelector.startsWith('refs/heads/') &&
    isValidFullRefName(request.baseSelector);
  const [resolvedBase, worktrees, allTips] = await settleAll([
    baseIsListed
      ? Promise.resolve(undefined)
      : resolveBase(request.baseSelector, format, call).then((resolved) => (partial.base = resolved)),
    readWorktrees(call).then((list) => (partial.worktrees = list)),
    request.refs === undefined
      ? readAllLocalTips(format, call, { withTypes: true })
      : Promise.resolve(undefined),
  ]);
  const listedBase = baseIsListed ? baseFromListing(request.baseSelector, allTips!) : undefined;
  const base = resolvedBase ?? listedBase ?? (await resolveBase(request.baseSelector, format, call));
  partial.base = base;
  // After the list, so that every worktree it names is there to be read.
  const worktreeStates = await readWorktreeStates(layout, worktrees, ctx);
  const names = allTips?.names ?? [...(request.refs ?? [])];
  if (names.length + worktrees.length > bounds.maxEntries)
    throw new RefusalError(
      'bound-exceeded',
      `${names.length} branches and ${worktrees.length} worktrees observed; the bound is ${bounds.maxEntries} entries`,
    );

  const tips = allTips?.tips ?? (await readBranchTips(names, format, call));
  if (request.refs !== undefined && request.omitMissingRefs !== true) {
    const unknown = names.find((name) => !tips.has(name));
    if (unknown !== undefined)
      throw new RefusalError(
        'unknown-ref',
        `--ref ${JSON.stringify(unknown)} does not exist in this repository`,
      );
  }
  const present = names.filter((name) => tips.has(name));

  const wantsTimes = request.tipTimesAbove !== undefined && present.length > request.tipTimesAbove;
  const typesRead =
    allTips?.types !== undefined
      ? Promise.resolve(allTips.types)
      : readObjectTypes(
          present.map((name) => tips.get(name)!.oid),
          format,
          call,
        );
  const [types, merged, tipTimes] = await settleAll([
    typesRead,
    readMergedNames(base.oid, request.refs === undefined ? undefined : present, call),
    wantsTimes
      ? typesRead.then((known) =>
          readTipTimes(
            // Commits only: a missing object fails the read, and a tag is peeled to another id.
            present.map((name) => tips.get(name)!.oid).filter((oid) => known.get(oid) === 'commit'),
            format,
            call,
          ),
        )
      : Promise.resolve(undefined),
  ]);

  await ctx.betweenReads?.();
  // Second read: anything that moved while we looked is retained as uncertain. A base
  // resolved from the listing is read again from the second listing.
  const [tipsAgain, baseAgain, worktreesAgain] = await settleAll([
    request.refs === undefined
      ? readAllLocalTips(format, call).then((again) => again.tips)
      : readBranchTips(present, format, call),
    listedBase !== undefined
      ? Promise.resolve(undefined)
      : resolveBase(request.baseSelector, format, call).catch(() => undefined),
    fingerprintBefore === null ? readWorktrees(call) : Promise.resolve(undefined),
  ]);
  const worktreesChanged =
    fingerprintBefore === null
      ? !sameWorktrees(worktrees, worktreesAgain!) ||
        JSON.stringify(worktreeStates) !==
          JSON.stringify(await readWorktreeStates(layout, worktreesAgain!, ctx))
      : (await readWorktreeFingerprint(layout, ctx)) !== fingerprintBefore;
  const baseOidAgain =
    listedBase !== undefined ? baseAgainFromListing(request.baseSelector, tipsAgain) : baseAgain?.oid;

  const branches: ObservedBranch[] = present.map((name) => {
    const tip = tips.get(name)!;
    const again = tipsAgain.get(name);
    return {
      ...tip,
      objectType: types.get(tip.oid) ?? null,
      isMerged: merged.has(name),
      changed: again === undefined || again.oid !== tip.oid || again.symref !== tip.symref,
    };
  });

  return {
    layout,
    gitVersion,
    base,
    selection: {
      mode: request.refs === undefined ? 'all-local-branches' : 'explicit',
      refs: present,
    },
    worktrees,
    branches,
    baseChanged: baseOidAgain === undefined || baseOidAgain !== base.oid,
    worktreeStates,
    worktreesChanged,
    gitCalls: counter.calls,
    ...(tipTimes !== undefined ? { tipTimes } : {}),
  };
}
