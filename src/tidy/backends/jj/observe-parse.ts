/**
 * Parsers for the pinned jj's template output (`json(self) ++ "\n"`), one JSON object a
 * line. Anything unexpected is malformed output (incomplete evidence), never a guess.
 * Commit, change and operation ids are kept as separate, separately validated fields.
 */
import { IncompleteObservationError } from '../../types.js';

const COMMIT_ID = /^[0-9a-f]{40}$/;
const CHANGE_ID = /^[k-z]{32}$/;
const OPERATION_ID = /^[0-9a-f]{128}$/;

function malformed(what: string, detail: string): never {
  throw new IncompleteObservationError('malformed-output', `jj ${what}: ${detail}`);
}

/** `jj op log --no-graph -n1 -T 'id ++ "\n"'`: exactly one operation id. */
export function parseOperationId(stdout: string): string {
  const match = /^([0-9a-f]+)\n$/.exec(stdout);
  if (match === null || !OPERATION_ID.test(match[1] as string))
    malformed('op log', 'expected one 128-hex-digit operation id line');
  return match[1] as string;
}

function lines(stdout: string, what: string, maxEntries: number): unknown[] {
  if (stdout !== '' && !stdout.endsWith('\n')) malformed(what, 'the last line is not terminated');
  const raw = stdout === '' ? [] : stdout.slice(0, -1).split('\n');
  if (raw.length > maxEntries)
    throw new IncompleteObservationError(
      'output-bound-exceeded',
      `jj ${what}: more than ${maxEntries} entries`,
    );
  return raw.map((line, index) => {
    try {
      return JSON.parse(line) as unknown;
    } catch {
      return malformed(what, `line ${index + 1} is not JSON`);
    }
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A ref target: resolved has one commit; conflicted has several sides (absent sides are null). */
function parseTargets(value: unknown, what: string): (string | null)[] {
  if (!Array.isArray(value) || value.length === 0) return malformed(what, 'a target is not a non-empty list');
  for (const side of value)
    if (side !== null && (typeof side !== 'string' || !COMMIT_ID.test(side)))
      malformed(what, 'a target side is not a commit id');
  return value as (string | null)[];
}

export interface JjLocalBookmark {
  name: string;
  /** Length 1 is resolved; longer is conflicted. */
  targets: (string | null)[];
}

export interface JjRemoteBookmark {
  name: string;
  remote: string;
  targets: (string | null)[];
  /** The local bookmark's target this remote bookmark is tracked against; null when untracked. */
  tracking_targets: (string | null)[] | null;
}

export interface JjBookmarks {
  local: JjLocalBookmark[];
  remote: JjRemoteBookmark[];
}

/** One JSON object per workspace: name, recorded root, and the working-copy commit's ids and parents. */
export const WORKSPACE_LIST_TEMPLATE =
  '"{\\"name\\":" ++ json(self.name()) ++ ",\\"root\\":" ++ json(self.root()) ++ ",\\"target\\":{\\"commit_id\\":" ++ json(self.target().commit_id()) ++ ",\\"change_id\\":" ++ json(self.target().change_id()) ++ ",\\"parents\\":" ++ json(self.target().parents().map(|c| c.commit_id())) ++ "}}\\n"';

/** `jj bookmark list --all-remotes -T 'json(self) ++ "\n"'`. */
export function parseBookmarkList(stdout: string, maxEntries: number): JjBookmarks {
  const what = 'bookmark list';
  const result: JjBookmarks = { local: [], remote: [] };
  const seen = new Set<string>();
  for (const entry of lines(stdout, what, maxEntries)) {
    if (!isRecord(entry) || typeof entry['name'] !== 'string' || entry['name'] === '')
      malformed(what, 'an entry has no name');
    const name = entry['name'] as string;
    const targets = parseTargets(entry['target'], what);
    const remote = entry['remote'];
    if (remote === undefined) {
      if (seen.has(name)) malformed(what, `local bookmark ${JSON.stringify(name)} listed twice`);
      seen.add(name);
      result.local.push({ name, targets });
      continue;
    }
    if (typeof remote !== 'string' || remote === '') malformed(what, 'a remote name is not a string');
    const tracking = entry['tracking_target'];
    result.remote.push({
      name,
      remote,
      targets,
      tracking_targets: tracking === undefined ? null : parseTargets(tracking, what),
    });
  }
  return result;
}

export interface JjWorkspace {
  name: string;
  /** The recorded root directory; null when jj has none (absent from `json(self)`). */
  root: string | null;
  commit_id: string;
  change_id: string;
  parents: string[];
}

/**
 * `jj workspace list` with `json(self)` or WORKSPACE_LIST_TEMPLATE (which adds each
 * workspace's recorded root and leaves out descriptions, whose size is unbounded).
 */
export function parseWorkspaceList(stdout: string, maxEntries: number): JjWorkspace[] {
  const what = 'workspace list';
  return lines(stdout, what, maxEntries).map((entry) => {
    if (!isRecord(entry) || typeof entry['name'] !== 'string') return malformed(what, 'an entry has no name');
    const root = entry['root'];
    if (root !== undefined && root !== null && (typeof root !== 'string' || root === ''))
      return malformed(what, 'a root is not a path');
    const target = entry['target'];
    if (!isRecord(target)) return malformed(what, 'an entry has no target commit');
    const { commit_id, change_id, parents } = target;
    if (typeof commit_id !== 'string' || !COMMIT_ID.test(commit_id)) return malformed(what, 'bad commit id');
    if (typeof change_id !== 'string' || !CHANGE_ID.test(change_id)) return malformed(what, 'bad change id');
    if (!Array.isArray(parents) || !parents.every((p) => typeof p === 'string' && COMMIT_ID.test(p)))
      return malformed(what, 'bad parent list');
    return {
      name: entry['name'] as string,
      root: typeof root === 'string' ? root : null,
      commit_id,
      change_id,
      parents: parents as string[],
    };
  });
}

/** One line of COMMIT_STATE_TEMPLATE (observe.ts) for exactly `commit`; '' is a commit jj does not list. */
export function parseCommitState(
  stdout: string,
  commit: string,
): {
  commit_id: string;
  change_id: string;
  empty: boolean;
  conflict: boolean;
  parents: string[];
} | null {
  const what = 'log (commit state)';
  const entries = lines(stdout, what, 1);
  if (entries.length === 0) return null;
  const entry = entries[0];
  if (!isRecord(entry)) return malformed(what, 'not an object');
  const { commit_id, change_id, empty, conflict, parents } = entry;
  if (commit_id !== commit) return malformed(what, 'another commit was listed');
  if (typeof change_id !== 'string' || !CHANGE_ID.test(change_id)) return malformed(what, 'bad change id');
  if (typeof empty !== 'boolean' || typeof conflict !== 'boolean') return malformed(what, 'bad flags');
  if (!Array.isArray(parents) || !parents.every((p) => typeof p === 'string' && COMMIT_ID.test(p)))
    return malformed(what, 'bad parent list');
  return { commit_id, change_id, empty, conflict, parents: parents as string[] };
}
