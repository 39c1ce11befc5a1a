import type { Deadline } from '../../core/deadline.js';
import { git } from '../../core/git.js';
import { describeOutcome } from '../../core/run.js';

/** The explicit output cap for a history pass (hygiene reads whole histories, so its cap is larger than tidy's). */
export const HISTORY_MAX_BYTES = 4 * 1024 * 1024 * 1024;

/** One file change of one commit. */
export interface HistoryChange {
  /** Commit time, seconds since the epoch. */
  time: number;
  /** Index of the commit in the stream, newest first (0 = the newest commit shown). */
  commit: number;
  path: string;
  /** Set for a rename: the path before it. */
  from?: string;
  /** git's status letter (A, M, D, R, …). */
  status: string;
  /** A rename's or copy's similarity score, in percent (git's `R062` → 62). */
  score?: number;
  /** The blob before and after the change; undefined for the side that does not exist. */
  oldOid?: string;
  newOid?: string;
}

/**
 * Both passes read paths, statuses and blob ids, never line counts (which would make git diff
 * every blob of the history):
 * - `changes`: `--raw -M`: reads a blob only to score an inexact rename;
 * - `changes-no-renames`: `--raw --no-renames`: reads no blob at all, so no missing object stops it.
 */
export type HistoryPassKind = 'changes' | 'changes-no-renames';

export type HistoryOutcome =
  /** `renameCommits`: commit index → commit id, for the commits with a rename in them. */
  | { ok: true; commits: number; renameCommits?: ReadonlyMap<number, string> }
  /** `missingObject`: the object id git could not read, when that is why the pass stopped. */
  | { ok: false; reason: string; missingObject?: string };

export interface HistoryPassOptions {
  deadline?: Deadline;
  signal?: AbortSignal;
  /** Toplevel-relative pathspecs (with magic) limiting the pass; read from stdin, so any number. */
  pathspecs?: readonly string[];
  /** Only these statuses (git's `--diff-filter`). */
  diffFilter?: string;
  /** What to walk instead of `HEAD` (a range such as `PREV..HEAD`; the history cache's). */
  range?: string;
  /** Told of each commit as the stream reaches it, before its changes (the history cache records them). */
  onCommit?: (time: number, id: string) => void;
}

const ARGS: Record<HistoryPassKind, string[]> = {
  changes: ['--raw', '--no-abbrev', '-M'],
  'changes-no-renames': ['--raw', '--no-abbrev', '--no-renames'],
};
const ZERO_OID = /^0+$/;

/**
 * Streams one history pass, newest commit first, calling `onChange` for every file change.
 * Parsing is incremental over NUL-separated fields, so memory does not grow with the
 * history; only the caller's aggregates do.
 */
export async function streamHistory(
  root: string,
  kind: HistoryPassKind,
  onChange: (change: HistoryChange) => void,
  options: HistoryPassOptions = {},
): Promise<HistoryOutcome> {
  const parse = rawParser(onChange, options.onCommit);
  /** The bytes of a field the last chunk began (a NUL byte is never inside a UTF-8 character). */
  let pending: Buffer | undefined;
  const args = ['log', '-z', ...ARGS[kind], '--no-color', '--format=%x01%ct %H'];
  if (options.diffFilter) args.push(`--diff-filter=${options.diffFilter}`);
  const limited = options.pathspecs !== undefined;
  args.push(...(limited ? ['--stdin'] : [options.range ?? 'HEAD', '--']));
  const result = await git(args, {
    cwd: root,
    maxBytes: HISTORY_MAX_BYTES,
    ...(limited ? { input: `HEAD\n--\n${options.pathspecs!.join('\n')}\n` } : {}),
    ...(options.deadline ? { deadline: options.deadline } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    // Each field is decoded on its own: a slice of a decoded chunk would keep the whole chunk
    // alive for as long as the aggregates keep the path or blob id (≈ 17 MB of git's output
    // held to the end of a scan of tldr-pages/tldr).
    onStdout: (chunk) => {
      const bytes = pending === undefined ? chunk : Buffer.concat([pending, chunk]);
      let start = 0;
      for (let end = bytes.indexOf(0); end !== -1; end = bytes.indexOf(0, start)) {
        parse.field(bytes.toString('utf8', start, end));
        start = end + 1;
      }
      pending = start < bytes.length ? bytes.subarray(start) : undefined;
    },
  });
  if (result.kind !== 'exited' || result.code !== 0) {
    const missing =
      result.kind === 'exited'
        ? /unable to read(?: sha1 file of .*?\()? ?([0-9a-f]{40,64})/.exec(result.stderr.toString('utf8'))
        : null;
    return {
      ok: false,
      reason: describeOutcome(result, 'git log'),
      ...(missing ? { missingObject: missing[1]! } : {}),
    };
  }
  if (pending !== undefined) parse.field(pending.toString('utf8'));
  return { ok: true, commits: parse.commits(), renameCommits: parse.renameCommits };
}

interface FieldParser {
  field(raw: string): void;
  commits(): number;
  /** Commit index → commit id, for the commits that renamed a path. */
  renameCommits: ReadonlyMap<number, string>;
}

/** `--raw -z`: `:modes oids status` NUL path NUL (two paths for a rename or copy). */
function rawParser(
  onChange: (change: HistoryChange) => void,
  onCommit?: (time: number, id: string) => void,
): FieldParser {
  let commit = -1;
  let time = 0;
  let id = '';
  const renameCommits = new Map<number, string>();
  let head:
    | {
        status: string;
        oldOid: string | undefined;
        newOid: string | undefined;
        paths: number;
        score: number | undefined;
      }
    | undefined;
  let from: string | undefined;
  return {
    commits: () => commit + 1,
    renameCommits,
    field(raw) {
      let text = raw;
      if (head !== undefined) {
        if (head.paths === 2 && from === undefined) {
          from = text;
          return;
        }
        // Optional fields set one by one: object spreads here cost more than the rest of the parse.
        const change: HistoryChange = { time, commit, path: text, status: head.status };
        if (from !== undefined) {
          change.from = from;
          // A copy: a slice of git's output would keep the whole chunk alive.
          if (!renameCommits.has(commit))
            renameCommits.set(commit, Buffer.from(id, 'latin1').toString('latin1'));
        }
        if (head.oldOid !== undefined) change.oldOid = head.oldOid;
        if (head.newOid !== undefined) change.newOid = head.newOid;
        if (head.score !== undefined) change.score = head.score;
        onChange(change);
        head = undefined;
        from = undefined;
        return;
      }
      if (text.startsWith('\n')) text = text.slice(1);
      if (text.startsWith('\x01')) {
        commit++;
        const space = text.indexOf(' ');
        time = Number(text.slice(1, space));
        id = text.slice(space + 1);
        onCommit?.(time, id);
        return;
      }
      if (!text.startsWith(':')) return;
      const parts = text.split(' ');
      const status = parts[4] ?? '';
      const oldOid = parts[2] ?? '';
      const newOid = parts[3] ?? '';
      const paired = status.startsWith('R') || status.startsWith('C');
      const score = paired ? Number.parseInt(status.slice(1), 10) : Number.NaN;
      head = {
        status: status.charAt(0),
        oldOid: ZERO_OID.test(oldOid) ? undefined : oldOid,
        newOid: ZERO_OID.test(newOid) ? undefined : newOid,
        paths: paired ? 2 : 1,
        score: Number.isFinite(score) ? score : undefined,
      };
    },
  };
}

/** The objects among `oids` this clone does not have (one `git cat-file --batch-check`). */
export async function missingObjects(
  root: string,
  oids: Iterable<string>,
  deadline?: Deadline,
): Promise<Set<string> | undefined> {
  const list = [...new Set(oids)];
  if (list.length === 0) return new Set();
  const result = await git(['cat-file', '--batch-check=%(objectname)'], {
    cwd: root,
    input: `${list.join('\n')}\n`,
    maxBytes: 128 * 1024 * 1024,
    ...(deadline ? { deadline } : {}),
  });
  if (result.kind !== 'exited' || result.code !== 0) return undefined;
  const missing = new Set<string>();
  for (const line of result.stdout.toString('utf8').split('\n')) {
    if (line.endsWith(' missing')) missing.add(line.slice(0, line.indexOf(' ')));
  }
  return missing;
}

/**
 * Streams the contents of `oids` (object ids, or any name cat-file takes, such as
 * `<commit>^:./path`), in order, through one `git cat-file --batch`: `onBlob` gets each
 * object's bytes and type, or undefined when there is no such object. Memory holds one blob
 * at a time.
 */
export async function readBlobs(
  root: string,
  oids: readonly string[],
  onBlob: (oid: string, bytes: Buffer | undefined, type: string | undefined) => void,
  options: { deadline?: Deadline; signal?: AbortSignal } = {},
): Promise<HistoryOutcome> {
  if (oids.length === 0) return { ok: true, commits: 0 };
  let pending: Buffer = Buffer.alloc(0);
  // Chunks of a body not yet whole, joined once it is: joining each chunk onto the last
  // copied a large blob once per chunk, and that garbage (outside the JS heap, so collected
  // late) raised the scan's peak RSS by ~20 MB on kubernetes/community.
  let waiting: Buffer[] = [];
  let waitingBytes = 0;
  let body: { oid: string; type: string; size: number } | undefined;
  const drain = () => {
    for (;;) {
      if (body) {
        if (pending.length < body.size + 1) return;
        onBlob(body.oid, pending.subarray(0, body.size), body.type);
        pending = pending.subarray(body.size + 1);
        body = undefined;
        continue;
      }
      const eol = pending.indexOf(0x0a);
      if (eol === -1) return;
      const header = pending.subarray(0, eol).toString('utf8');
      pending = pending.subarray(eol + 1);
      // "<name> missing" names what was asked, which may hold spaces (`<commit>^:./a b.md`);
      // a found object's header is "<oid> <type> <size>".
      if (header.endsWith(' missing')) {
        onBlob(header.slice(0, -' missing'.length), undefined, undefined);
        continue;
      }
      const [oid = '', type = '', size = ''] = header.split(' ');
      body = { oid, type, size: Number(size) };
    }
  };
  const result = await git(['cat-file', '--batch'], {
    cwd: root,
    input: `${oids.join('\n')}\n`,
    maxBytes: HISTORY_MAX_BYTES,
    ...(options.deadline ? { deadline: options.deadline } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    onStdout: (chunk) => {
      if (body !== undefined && pending.length + waitingBytes + chunk.length < body.size + 1) {
        waiting.push(chunk);
        waitingBytes += chunk.length;
        return;
      }
      pending =
        pending.length === 0 && waiting.length === 0 ? chunk : Buffer.concat([pending, ...waiting, chunk]);
      waiting = [];
      waitingBytes = 0;
      drain();
    },
  });
  if (result.kind !== 'exited' || result.code !== 0)
    return { ok: false, reason: describeOutcome(result, 'git cat-file') };
  return { ok: true, commits: 0 };
}

/**
 * True in a partial (e.g. blobless) clone: reading history with line counts would make git
 * fetch missing contents from the promisor remote, so the scan does not read it.
 */
export async function isPartialClone(root: string, deadline?: Deadline): Promise<boolean> {
  // Older git marks the promisor remote; newer git also sets extensions.partialClone.
  const result = await git(
    ['config', '--get-regexp', '^(extensions\\.partialclone|remote\\..*\\.promisor)$'],
    {
      cwd: root,
      ...(deadline ? { deadline } : {}),
    },
  );
  if (result.kind !== 'exited' || result.code !== 0) return false;
  return result.stdout
    .toString('utf8')
    .split('\n')
    .some((line) => {
      const [key = '', value = ''] = line.split(' ', 2);
      return key.startsWith('extensions.') ? value.trim() !== '' : value.trim() === 'true';
    });
}
