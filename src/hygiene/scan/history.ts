import { StringDecoder } from 'node:string_decoder';
import type { Deadline } from '../../core/deadline.js';
import { git } from '../../core/git.js';
import { describeOutcome } from '../../core/run.js';

/** The explicit output cap for the one history pass (SPEC §1: larger caps for hygiene). */
export const HISTORY_MAX_BYTES = 4 * 1024 * 1024 * 1024;

/** One file change of one commit, as `git log --numstat -M -z` reports it. */
export interface HistoryChange {
  /** Commit time, seconds since the epoch. */
  time: number;
  /** Index of the commit in the stream, newest first (0 = HEAD). */
  commit: number;
  path: string;
  /** Set for a rename: the path before it. */
  from?: string;
  /** `undefined` for binary changes. */
  added: number | undefined;
  deleted: number | undefined;
}

export type HistoryOutcome = { ok: true; commits: number } | { ok: false; reason: string };

/**
 * Streams the whole history once, newest commit first, calling `onChange` for every
 * file change. Parsing is incremental over NUL-separated fields, so memory does not
 * grow with the history; only the caller's aggregates do.
 */
export async function streamHistory(
  root: string,
  onChange: (change: HistoryChange) => void,
  options: { deadline?: Deadline; signal?: AbortSignal } = {},
): Promise<HistoryOutcome> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let commit = -1;
  let time = 0;
  // A rename's numstat field ends in a tab and is followed by two path fields.
  let renameHead: { added: number | undefined; deleted: number | undefined } | undefined;
  let renameFrom: string | undefined;

  const field = (raw: string) => {
    let text = raw;
    if (renameHead !== undefined) {
      if (renameFrom === undefined) {
        renameFrom = text;
        return;
      }
      onChange({ time, commit, path: text, from: renameFrom, ...renameHead });
      renameHead = undefined;
      renameFrom = undefined;
      return;
    }
    if (text.startsWith('\n')) text = text.slice(1);
    if (text.startsWith('\x01')) {
      commit++;
      time = Number(text.slice(1));
      return;
    }
    if (text === '') return;
    const tab1 = text.indexOf('\t');
    const tab2 = tab1 === -1 ? -1 : text.indexOf('\t', tab1 + 1);
    if (tab2 === -1) return;
    const a = text.slice(0, tab1);
    const d = text.slice(tab1 + 1, tab2);
    const added = a === '-' ? undefined : Number(a);
    const deleted = d === '-' ? undefined : Number(d);
    const path = text.slice(tab2 + 1);
    if (path === '') renameHead = { added, deleted };
    else onChange({ time, commit, path, added, deleted });
  };

  const result = await git(['log', '-z', '--numstat', '-M', '--no-color', '--format=%x01%ct', 'HEAD', '--'], {
    cwd: root,
    maxBytes: HISTORY_MAX_BYTES,
    ...(options.deadline ? { deadline: options.deadline } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    onStdout: (chunk) => {
      const text = pending + decoder.write(chunk);
      let start = 0;
      for (let end = text.indexOf('\0'); end !== -1; end = text.indexOf('\0', start)) {
        field(text.slice(start, end));
        start = end + 1;
      }
      pending = text.slice(start);
    },
  });
  if (result.kind !== 'exited' || result.code !== 0) {
    return { ok: false, reason: describeOutcome(result, 'git log') };
  }
  const rest = pending + decoder.end();
  if (rest !== '') field(rest);
  return { ok: true, commits: commit + 1 };
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
