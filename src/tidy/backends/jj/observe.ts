/**
 * jj observation for tidy (docs/tidy.md, "jj"): the current operation id is read first,
 * then every other command runs with `--ignore-working-copy --at-op=<that id>`, so the
 * whole observation is one consistent view and nothing is snapshotted or imported. The
 * working copy on disk is therefore not observed at all.
 */
import { readFile, realpath, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { RefusalError } from '../../../core/errors.js';
import { jj, jjExact } from '../../../core/jj.js';
import { chunkByCost, settleAll, utf8Bytes } from '../../bounded.js';
import {
  IncompleteObservationError,
  incompleteCall,
  JJ_RECOVERY_PREFIX,
  type ObserveContext,
} from '../../types.js';
import {
  type JjBookmarks,
  type JjWorkspace,
  parseBookmarkList,
  parseCommitState,
  parseOperationId,
  parseWorkspaceList,
  WORKSPACE_LIST_TEMPLATE,
} from './observe-parse.js';

export interface JjCallContext extends ObserveContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Incremented per jj process. */
  counter?: { calls: number };
  /** Shared by the reads of one run: set once a bookmark listing was past the output bound. */
  bookmarkListing?: { byName: boolean };
}

/** The pseudo-remote under which a colocated repository shows the Git refs jj exported. */
export const GIT_PSEUDO_REMOTE = 'git';

/** Runs one bounded jj call; anything but exit 0 with complete output is incomplete evidence. */
export async function jjOk(args: readonly string[], ctx: JjCallContext, label: string): Promise<string> {
  if (ctx.counter) ctx.counter.calls += 1;
  const result = await jj(args, {
    cwd: ctx.cwd,
    env: ctx.env,
    deadline: ctx.deadline,
    maxBytes: ctx.bounds.maxOutputBytes,
    signal: ctx.signal,
  });
  if (result.kind === 'exited' && result.code === 0) return result.stdout.toString('utf8');
  throw incompleteCall(result, label, 'jj');
}

/** Reads the current operation id (the one jj call without `--at-op`). */
export async function readCurrentOperation(ctx: JjCallContext): Promise<string> {
  const out = await jjOk(
    ['--ignore-working-copy', 'op', 'log', '--no-graph', '-n1', '-T', 'id ++ "\\n"'],
    ctx,
    'jj op log',
  );
  return parseOperationId(out);
}

/** `jj op log` of one operation: its parents' ids (to check that an operation is ours). */
export async function readOperationParents(op: string, ctx: JjCallContext): Promise<string[]> {
  const out = await jjOk(
    [
      '--ignore-working-copy',
      `--at-op=${op}`,
      'op',
      'log',
      '--no-graph',
      '-n1',
      '-T',
      'json(parents.map(|p| p.id())) ++ "\\n"',
    ],
    ctx,
    'jj op log (parents)',
  );
  let parents: unknown;
  try {
    parents = JSON.parse(out);
  } catch {
    parents = undefined;
  }
  if (!Array.isArray(parents) || !parents.every((p) => typeof p === 'string' && /^[0-9a-f]{128}$/.test(p)))
    throw new IncompleteObservationError('malformed-output', 'jj op log: unexpected parent list');
  return parents as string[];
}

const pinned = (op: string, args: readonly string[]) => ['--ignore-working-copy', `--at-op=${op}`, ...args];

const BOOKMARK_ENTRY = 'json(self) ++ "\\n"';

/**
 * Every bookmark entry (local, and each remote's, the git pseudo-remote's included). One
 * call when the listing fits the output bound; past it (a few hundred bookmarks in a
 * colocated repository) the entries are listed alone, as name and remote, and then read in
 * chunks of exact names, in the same order. The chunks must give back exactly the entries
 * that listing named, or the evidence is incomplete. Once a listing has been too long, the
 * context's `bookmarkListing` remembers it and later reads go by name at once.
 */
export async function readBookmarks(op: string, ctx: JjCallContext): Promise<JjBookmarks> {
  if (ctx.bookmarkListing?.byName !== true) {
    let out: string | undefined;
    try {
      out = await jjOk(
        pinned(op, ['bookmark', 'list', '--all-remotes', '-T', BOOKMARK_ENTRY]),
        ctx,
        'jj bookmark list',
      );
    } catch (error) {
      if (!(error instanceof IncompleteObservationError && error.code === 'output-bound-exceeded'))
        throw error;
      if (ctx.bookmarkListing !== undefined) ctx.bookmarkListing.byName = true;
    }
    if (out !== undefined) return parseBookmarkList(out, ctx.bounds.maxEntries);
  }
  const entries = await readBookmarkEntries(op, ctx);
  const perName = new Map<string, number>();
  for (const [name] of entries) perName.set(name, (perName.get(name) ?? 0) + 1);
  // An entry is its name, a remote's name, two commit ids and the JSON around them; more
  // (a conflicted bookmark's targets) and the chunk is split.
  const cost = (name: string) => perName.get(name)! * (utf8Bytes(name) + 256) + utf8Bytes(jjExact(name));
  const texts: string[] = [];
  for (const chunk of chunkByCost([...perName.keys()], cost, ctx.bounds.maxOutputBytes))
    texts.push(...(await readBookmarkChunk(op, chunk, ctx)));
  const bookmarks = parseBookmarkList(texts.join(''), ctx.bounds.maxEntries);
  const key = (name: string, remote: string | null) => JSON.stringify([name, remote]);
  const read = [
    ...bookmarks.local.map((entry) => key(entry.name, null)),
    ...bookmarks.remote.map((entry) => key(entry.name, entry.remote)),
  ].sort();
  const listed = entries.map(([name, remote]) => key(name, remote)).sort();
  if (read.length !== listed.length || read.some((entry, at) => entry !== listed[at]))
    throw new IncompleteObservationError(
      'malformed-output',
      'jj bookmark list: the entries read by name differ from the entries listed',
    );
  return bookmarks;
}

/** Room for a line of the entries' listing: a name of up to about 1,000 bytes and a remote's. */
const ENTRY_LINE_BYTES = 1024;

/**
 * One line an entry, as `[name, remote]` (remote null for the local bookmark), in listing
 * order. Its own output bound, sized from the entry bound, so that 1,024 entries fit
 * whatever their names' length, within reason.
 */
async function readBookmarkEntries(op: string, ctx: JjCallContext): Promise<[string, string | null][]> {
  const label = 'jj bookmark list (names)';
  const out = await jjOk(
    pinned(op, [
      'bookmark',
      'list',
      '--all-remotes',
      '-T',
      '"[" ++ json(name) ++ "," ++ json(remote) ++ "]\\n"',
    ]),
    { ...ctx, bounds: { ...ctx.bounds, maxOutputBytes: (ctx.bounds.maxEntries + 1) * ENTRY_LINE_BYTES } },
    label,
  );
  if (out !== '' && !out.endsWith('\n'))
    throw new IncompleteObservationError('malformed-output', `${label}: unterminated`);
  const lines = out === '' ? [] : out.slice(0, -1).split('\n');
  if (lines.length > ctx.bounds.maxEntries)
    throw new IncompleteObservationError(
      'output-bound-exceeded',
      `${label}: more than ${ctx.bounds.maxEntries} entries`,
    );
  return lines.map((line) => {
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      entry = undefined;
    }
    const [name, remote] = Array.isArray(entry) && entry.length === 2 ? entry : [];
    if (
      typeof name !== 'string' ||
      name === '' ||
      (remote !== null && (typeof remote !== 'string' || remote === ''))
    )
      throw new IncompleteObservationError('malformed-output', `${label}: unexpected output`);
    return [name, remote];
  });
}

/** The entries of the named bookmarks; a chunk past the output bound is read in halves. */
async function readBookmarkChunk(
  op: string,
  names: readonly string[],
  ctx: JjCallContext,
): Promise<string[]> {
  try {
    return [
      await jjOk(
        pinned(op, ['bookmark', 'list', '--all-remotes', '-T', BOOKMARK_ENTRY, ...names.map(jjExact)]),
        ctx,
        'jj bookmark list (by name)',
      ),
    ];
  } catch (error) {
    const tooLong = error instanceof IncompleteObservationError && error.code === 'output-bound-exceeded';
    if (!tooLong || names.length < 2) throw error;
    const half = Math.ceil(names.length / 2);
    return [
      ...(await readBookmarkChunk(op, names.slice(0, half), ctx)),
      ...(await readBookmarkChunk(op, names.slice(half), ctx)),
    ];
  }
}

export async function readWorkspaces(op: string, ctx: JjCallContext): Promise<JjWorkspace[]> {
  const out = await jjOk(
    pinned(op, ['workspace', 'list', '-T', WORKSPACE_LIST_TEMPLATE]),
    ctx,
    'jj workspace list',
  );
  return parseWorkspaceList(out, ctx.bounds.maxEntries);
}

/** A revset union of bookmarks named exactly (never globs). */
export function bookmarksRevset(names: readonly string[]): string {
  return names.map((name) => `bookmarks(${jjExact(name)})`).join(' | ');
}

/** Keeps every revset argument well inside the kernel's per-argument limit. */
const REVSET_BUDGET = 32 * 1024;

/**
 * Runs `jj log -r REVSET` over chunks of `names` and returns the `commit_id change_id`
 * pairs it lists. `wrap` turns each chunk's union into the revset.
 */
async function logCommits(
  op: string,
  names: readonly string[],
  wrap: (union: string) => string,
  ctx: JjCallContext,
  label: string,
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const chunks = chunkByCost(names, (name) => utf8Bytes(bookmarksRevset([name])) + 3, REVSET_BUDGET);
  for (const chunk of chunks) {
    if (chunk.length === 0) continue;
    const out = await jjOk(
      pinned(op, [
        'log',
        '--no-graph',
        '-r',
        wrap(bookmarksRevset(chunk)),
        '-T',
        'commit_id ++ " " ++ change_id ++ "\\n"',
      ]),
      ctx,
      label,
    );
    if (out !== '' && !out.endsWith('\n'))
      throw new IncompleteObservationError('malformed-output', `${label}: the last line is not terminated`);
    for (const line of out === '' ? [] : out.slice(0, -1).split('\n')) {
      const match = /^([0-9a-f]{40}) ([k-z]{32})$/.exec(line);
      if (match === null)
        throw new IncompleteObservationError('malformed-output', `${label}: unexpected line`);
      found.set(match[1] as string, match[2] as string);
    }
    if (found.size > ctx.bounds.maxEntries)
      throw new IncompleteObservationError(
        'output-bound-exceeded',
        `${label}: more than ${ctx.bounds.maxEntries} commits`,
      );
  }
  return found;
}

/** The change id of each listed bookmark's target commit (resolved bookmarks only). */
export function readTargetChanges(op: string, names: readonly string[], ctx: JjCallContext) {
  return logCommits(op, names, (union) => union, ctx, 'jj log (bookmark targets)');
}

/** The commits among the bookmarks' targets that are ancestors of (or equal to) the base. */
export async function readIntegrated(
  op: string,
  names: readonly string[],
  base: string,
  ctx: JjCallContext,
): Promise<Set<string>> {
  const found = await logCommits(
    op,
    names,
    (union) => `(${union}) & ::bookmarks(${jjExact(base)})`,
    ctx,
    'jj log (ancestry)',
  );
  return new Set(found.keys());
}

/** The root commits of the base's history (jj's virtual root excluded), for the plan binding. */
export async function readBaseRoots(op: string, base: string, ctx: JjCallContext): Promise<string[]> {
  const found = await logCommits(
    op,
    [base],
    (union) => `roots(::(${union}) ~ root())`,
    ctx,
    'jj log (root commits)',
  );
  return [...found.keys()].sort();
}

/** The workspace root around PATH (jj's own answer, not a guess from the directory tree). */
export async function readWorkspaceRoot(op: string, ctx: JjCallContext): Promise<string> {
  const out = await jjOk(pinned(op, ['workspace', 'root']), ctx, 'jj workspace root');
  const root = out.endsWith('\n') ? out.slice(0, -1) : '';
  if (root === '' || root.includes('\n'))
    throw new IncompleteObservationError('malformed-output', 'jj workspace root: expected one path');
  return root;
}

/** The backing Git repository (`jj git root`). */
export async function readGitRoot(op: string, ctx: JjCallContext): Promise<string> {
  const out = await jjOk(pinned(op, ['git', 'root']), ctx, 'jj git root');
  const root = out.endsWith('\n') ? out.slice(0, -1) : '';
  if (root === '' || root.includes('\n'))
    throw new IncompleteObservationError('malformed-output', 'jj git root: expected one path');
  return root;
}

/**
 * The repository directory every workspace shares: `.jj/repo` in the main workspace, or
 * the directory named by the `.jj/repo` file of a secondary one. Returned through symlinks.
 */
export async function readRepoDir(workspaceRoot: string): Promise<string> {
  const pointer = join(workspaceRoot, '.jj', 'repo');
  try {
    const info = await stat(pointer);
    if (info.isDirectory()) return await realpath(pointer);
    const text = await readFile(pointer, 'utf8');
    if (text.length > 4096 || text.trim() === '') throw new Error('unexpected .jj/repo pointer');
    return await realpath(resolve(join(workspaceRoot, '.jj'), text.trim()));
  } catch (error) {
    throw new IncompleteObservationError(
      'jj-failed',
      `the jj repository directory at ${JSON.stringify(pointer)} could not be read: ${(error as Error).message}`,
    );
  }
}

export interface JjObservation {
  version: string;
  operationId: string;
  /** PATH through symlinks. */
  path: string;
  workspaceRoot: string;
  /** The name of the workspace PATH is in. */
  workspace: string;
  repoDir: string;
  gitDir: string;
  isShallow: boolean;
  bookmarks: JjBookmarks;
  workspaces: JjWorkspace[];
  base: { name: string; commit: string };
  /** Selected local bookmark names, in target order. */
  selected: string[];
  mode: 'explicit' | 'all-local-branches';
  /** Change id of each resolved selected bookmark's commit. */
  changes: Map<string, string>;
  /** Resolved selected bookmarks' commits that are ancestors of (or equal to) the base. */
  integrated: Set<string>;
}

/** A local bookmark that exists now: `[null]` is a deleted bookmark jj keeps for its remote. */
function present(targets: readonly (string | null)[]): boolean {
  return !(targets.length === 1 && targets[0] === null);
}

/** Picks the targets: every present local bookmark, or exactly the names given. */
function selectBookmarks(
  bookmarks: JjBookmarks,
  names: readonly string[] | undefined,
  max: number,
): string[] {
  const local = new Map(bookmarks.local.map((b) => [b.name, b.targets]));
  if (names === undefined) {
    // Recovery bookmarks are never selected implicitly: they are what apply leaves behind.
    const all = bookmarks.local
      .filter((b) => present(b.targets) && !b.name.startsWith(JJ_RECOVERY_PREFIX))
      .map((b) => b.name);
    if (all.length > max)
      throw new RefusalError(
        'bound-exceeded',
        `the repository has ${all.length} local bookmarks; at most ${max} are planned at once`,
        { hint: 'select bookmarks with --ref NAME or --refs-from FILE' },
      );
    return all;
  }
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name))
      throw new RefusalError('duplicate-ref', `--ref ${JSON.stringify(name)} is given more than once`);
    seen.add(name);
    const targets = local.get(name);
    if (targets === undefined || !present(targets))
      throw new RefusalError('unknown-ref', `--ref ${JSON.stringify(name)} is not a local jj bookmark`, {
        hint: 'jj selections are literal bookmark names, e.g. --ref finished-task',
      });
  }
  return [...names];
}

/** The base: a present, resolved local bookmark. */
export function resolveJjBase(bookmarks: JjBookmarks, name: string): { name: string; commit: string } {
  const base = bookmarks.local.find((b) => b.name === name);
  if (base === undefined || !present(base.targets))
    throw new RefusalError('base-unresolved', `--base ${JSON.stringify(name)} is not a local jj bookmark`, {
      hint: 'on jj the base is a bookmark name, e.g. --base main',
    });
  if (base.targets.length !== 1)
    throw new RefusalError('base-conflicted', `--base ${JSON.stringify(name)} is a conflicted bookmark`);
  return { name, commit: base.targets[0] as string };
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** What every jj observation reads first: the current operation, then everything at it. */
export interface JjRepositoryAtOperation {
  operationId: string;
  workspaceRoot: string;
  gitDir: string;
  bookmarks: JjBookmarks;
  workspaces: JjWorkspace[];
}

/** The operation id first; then the workspace root, git dir, bookmarks and workspaces pinned to it. */
export async function readRepositoryAtCurrentOperation(ctx: JjCallContext): Promise<JjRepositoryAtOperation> {
  const operationId = await readCurrentOperation(ctx);
  const [workspaceRoot, gitDir, bookmarks, workspaces] = await settleAll([
    readWorkspaceRoot(operationId, ctx),
    readGitRoot(operationId, ctx),
    readBookmarks(operationId, ctx),
    readWorkspaces(operationId, ctx),
  ]);
  return { operationId, workspaceRoot, gitDir, bookmarks, workspaces };
}

/** Observes one jj repository at its current operation. */
export async function observeJj(
  request: { path: string; base: string; names: readonly string[] | undefined; version: string },
  ctx: JjCallContext,
): Promise<JjObservation> {
  const { operationId, workspaceRoot, gitDir, bookmarks, workspaces } =
    await readRepositoryAtCurrentOperation(ctx);
  if (bookmarks.local.length + bookmarks.remote.length + workspaces.length > ctx.bounds.maxEntries)
    throw new IncompleteObservationError(
      'output-bound-exceeded',
      `more than ${ctx.bounds.maxEntries} bookmarks and workspaces observed`,
    );
  const current = workspaces.find((w) => w.root === workspaceRoot);
  if (current === undefined)
    throw new RefusalError(
      'unsupported',
      `no jj workspace records the root ${JSON.stringify(workspaceRoot)}; the current workspace cannot be identified`,
    );
  const base = resolveJjBase(bookmarks, request.base);
  const selected = selectBookmarks(bookmarks, request.names, ctx.bounds.maxEntries);
  const resolved = selected.filter(
    (name) => bookmarks.local.find((b) => b.name === name)?.targets.length === 1,
  );
  const [changes, integrated] = await settleAll([
    readTargetChanges(operationId, resolved, ctx),
    readIntegrated(operationId, resolved, base.name, ctx),
  ]);
  return {
    version: request.version,
    operationId,
    path: await realpath(request.path),
    workspaceRoot,
    workspace: current.name,
    repoDir: await readRepoDir(workspaceRoot),
    gitDir,
    isShallow: await exists(join(gitDir, 'shallow')),
    bookmarks,
    workspaces,
    base,
    selected,
    mode: request.names === undefined ? 'all-local-branches' : 'explicit',
    changes,
    integrated,
  };
}

/** The root commits of one commit's history (jj's virtual root excluded), for a task's binding. */
export async function readCommitRoots(op: string, commit: string, ctx: JjCallContext): Promise<string[]> {
  const out = await jjOk(
    pinned(op, [
      'log',
      '--no-graph',
      '-r',
      `roots(::commit_id(${commitIdForRevset(commit)}) ~ root())`,
      '-T',
      'commit_id ++ "\\n"',
    ]),
    ctx,
    'jj log (root commits)',
  );
  const roots = out === '' ? [] : out.endsWith('\n') ? out.slice(0, -1).split('\n') : ['?'];
  if (!roots.every((line) => /^[0-9a-f]{40}$/.test(line)))
    throw new IncompleteObservationError('malformed-output', 'jj log (root commits): unexpected line');
  return roots.sort();
}

/** What jj's commit template says of one commit: empty (no change against its parents) and conflicted. */
export interface JjCommitState {
  commit_id: string;
  change_id: string;
  empty: boolean;
  conflict: boolean;
  parents: string[];
}

export const COMMIT_STATE_TEMPLATE =
  '"{\\"commit_id\\":" ++ json(commit_id) ++ ",\\"change_id\\":" ++ json(change_id) ++ ",\\"empty\\":" ++ json(empty) ++ ",\\"conflict\\":" ++ json(conflict) ++ ",\\"parents\\":" ++ json(parents.map(|c| c.commit_id())) ++ "}\\n"';

/**
 * The revset of one commit while it is visible. `present(commit_id(X))` alone still
 * resolves a hidden (abandoned) commit on jj 0.45, so visibility is ancestry of the
 * visible heads. The id is checked first: only 40 hex digits ever enter a revset.
 */
export function visibleCommitRevset(commit: string): string {
  return `present(commit_id(${commitIdForRevset(commit)})) & ::visible_heads()`;
}

/** A commit id as it may enter a revset: exactly 40 hex digits, nothing a revset would parse. */
function commitIdForRevset(commit: string): string {
  if (!/^[0-9a-f]{40}$/.test(commit))
    throw new IncompleteObservationError('malformed-output', `not a commit id: ${JSON.stringify(commit)}`);
  return commit;
}

/** Reads one commit's state at a pinned operation; null when it is not visible there (absent or abandoned). */
export async function readCommitState(
  op: string,
  commit: string,
  ctx: JjCallContext,
): Promise<JjCommitState | null> {
  const out = await jjOk(
    pinned(op, ['log', '--no-graph', '-r', visibleCommitRevset(commit), '-T', COMMIT_STATE_TEMPLATE]),
    ctx,
    'jj log (commit state)',
  );
  return parseCommitState(out, commit);
}

/** Whether `commit` is in `::BASE` (the base bookmark named exactly), at a pinned operation. */
export async function isAncestorOfBookmark(
  op: string,
  commit: string,
  base: string,
  ctx: JjCallContext,
): Promise<boolean> {
  const out = await jjOk(
    pinned(op, [
      'log',
      '--no-graph',
      '-r',
      `commit_id(${commitIdForRevset(commit)}) & ::bookmarks(${jjExact(base)})`,
      '-T',
      'commit_id ++ "\\n"',
    ]),
    ctx,
    'jj log (ancestry)',
  );
  if (out === '') return false;
  if (out === `${commit}\n`) return true;
  throw new IncompleteObservationError('malformed-output', 'jj log (ancestry): unexpected output');
}
