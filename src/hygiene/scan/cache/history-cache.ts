/**
 * The history pass, kept per commit (seam (b) of the cache). What the history fold makes
 * depends on the work tree (which docs there are, what they reference), so what is kept is
 * the fold's input: the pass's commits and changes for HEAD, from which the fold is made
 * again in memory. A later run whose HEAD has the entry replays it; one whose HEAD descends
 * from the last run's (PREV) reads only `git log PREV..HEAD` and replays the rest — when
 * git's walk of HEAD is provably those new commits and then PREV's walk (every new commit
 * newer than PREV, and none with a parent older than PREV but PREV itself); anything else
 * reads the whole history again.
 */
import { createHash } from 'node:crypto';
import type { Deadline } from '../../../core/deadline.js';
import { git } from '../../../core/git.js';
import {
  type HistoryChange,
  type HistoryOutcome,
  type HistoryPassOptions,
  streamHistory,
} from '../history.js';
import { HistoryLog } from './history-log.js';
import { type CacheStore, ENTRY_NAME } from './store.js';

const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

export class HistoryCache {
  /** The log to store for `head` once the pass is done. */
  private pending: { head: string; log: HistoryLog } | undefined;
  /** How the last pass was served: `hit` (replayed), `incremental` (PREV..HEAD read), `full`. */
  served: 'hit' | 'incremental' | 'full' | undefined;

  constructor(
    private readonly store: CacheStore,
    private readonly settings: string,
    /** The pointer entry's name (one per work tree): the last HEAD stored. */
    private readonly pointer: string,
    private readonly keepsOids: (path: string) => boolean,
  ) {}

  /** `streamHistory(toplevel, 'changes', …)`, served from the cache where it can be. */
  async stream(
    toplevel: string,
    onChange: (change: HistoryChange) => void,
    options: Pick<HistoryPassOptions, 'deadline' | 'signal'>,
  ): Promise<HistoryOutcome> {
    const head = await revParseHead(toplevel, options.deadline);
    if (head === undefined) return streamHistory(toplevel, 'changes', onChange, options);
    const exact = this.load(head);
    if (exact !== undefined) {
      this.served = 'hit';
      this.pending = { head, log: exact };
      return exact.replay(onChange);
    }
    const prev = this.lastHead();
    const older = prev !== undefined && prev !== head ? this.load(prev) : undefined;
    if (prev !== undefined && older !== undefined) {
      const newer = await this.readSince(toplevel, prev, head, older.times[0]!, options);
      if (newer !== undefined) {
        this.served = 'incremental';
        const log = newer.followedBy(older);
        this.pending = { head, log };
        return log.replay(onChange);
      }
    }
    this.served = 'full';
    const log = new HistoryLog(this.keepsOids);
    const outcome = await streamHistory(
      toplevel,
      'changes',
      (change) => {
        log.change(change);
        onChange(change);
      },
      { ...options, onCommit: (time, id) => log.commit(time, id) },
    );
    // HEAD may have moved since it was read: the log is kept only for the commit it walked from.
    if (outcome.ok && log.ids[0] === head) this.pending = { head, log };
    return outcome;
  }

  /** Stores the pass for HEAD (unless it came from there) and points the work tree at it. */
  save(): void {
    if (this.pending === undefined) return;
    const { head, log } = this.pending;
    this.pending = undefined;
    if (
      this.served !== 'hit' &&
      !this.store.write(this.entryName(head), { settings: this.settings, head, log })
    )
      return;
    if (this.lastHead() !== head) this.store.write(this.pointer, { settings: this.settings, head });
  }

  private entryName(head: string): string {
    return createHash('sha256').update(`history\0${this.settings}\0${head}`).digest('hex');
  }

  private lastHead(): string | undefined {
    const value = this.store.read(this.pointer) as Record<string, unknown> | undefined;
    const head = value?.['head'];
    return value?.['settings'] === this.settings && typeof head === 'string' && OID.test(head)
      ? head
      : undefined;
  }

  private load(head: string): HistoryLog | undefined {
    const name = this.entryName(head);
    if (!ENTRY_NAME.test(name)) return undefined;
    const value = this.store.read(name) as Record<string, unknown> | undefined;
    if (value?.['settings'] !== this.settings || value['head'] !== head) return undefined;
    const log = HistoryLog.fromJSON(value['log'], this.keepsOids);
    return log?.ids[0] === head ? log : undefined;
  }

  /**
   * The pass over `prev..head`, when `prev` is an ancestor of `head` and git's walk of
   * `head` is these commits followed by `prev`'s own walk; undefined otherwise.
   */
  private async readSince(
    toplevel: string,
    prev: string,
    head: string,
    prevTime: number,
    options: Pick<HistoryPassOptions, 'deadline' | 'signal'>,
  ): Promise<HistoryLog | undefined> {
    const run = (args: string[]) =>
      git(args, { cwd: toplevel, ...(options.deadline ? { deadline: options.deadline } : {}) });
    const ancestor = await run(['merge-base', '--is-ancestor', prev, head]);
    if (ancestor.kind !== 'exited' || ancestor.code !== 0) return undefined;
    const listed = await run(['rev-list', '--timestamp', '--parents', `${prev}..${head}`]);
    if (listed.kind !== 'exited' || listed.code !== 0) return undefined;
    const order: string[] = [];
    const parents: string[][] = [];
    for (const line of listed.stdout.toString('utf8').split('\n')) {
      if (line === '') continue;
      const [time = '', id = '', ...of] = line.split(' ');
      // Strictly newer than PREV: git's date-ordered walk then shows every new commit first.
      if (!(Number(time) > prevTime)) return undefined;
      order.push(id);
      parents.push(of);
    }
    const fresh = new Set(order);
    // A new commit whose parent is older than PREV (an old branch merged) would put old
    // commits into the walk before PREV's: their order is not PREV's walk.
    if (!parents.every((of) => of.every((p) => p === prev || fresh.has(p)))) return undefined;
    const log = new HistoryLog(this.keepsOids);
    const outcome = await streamHistory(toplevel, 'changes', (change) => log.change(change), {
      ...options,
      range: `${prev}..${head}`,
      onCommit: (time, id) => log.commit(time, id),
    });
    if (!outcome.ok || log.commits !== order.length || !log.ids.every((id, i) => id === order[i]))
      return undefined;
    return log;
  }
}

async function revParseHead(toplevel: string, deadline?: Deadline): Promise<string | undefined> {
  const result = await git(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], {
    cwd: toplevel,
    ...(deadline ? { deadline } : {}),
  });
  if (result.kind !== 'exited' || result.code !== 0) return undefined;
  const head = result.stdout.toString('utf8').trim();
  return OID.test(head) ? head : undefined;
}
