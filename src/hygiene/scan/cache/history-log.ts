import type { HistoryChange, HistoryOutcome } from '../history.js';

const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
const STATUS = /^[A-Z]$/;

/**
 * One history pass as it came out of `git log --raw -M` (commits newest first, each with its
 * file changes), held in columns so that it stays small and turns into JSON as it is. Blob
 * ids are kept only for the paths that may be docs, as the scan's own buffer keeps them
 * (`change-buffer.ts`): the only changes whose blobs are read.
 */
export class HistoryLog {
  times: number[] = [];
  ids: string[] = [];
  /** Index of each commit's first change; one more entry than commits once `close`d. */
  starts: number[] = [];
  paths: string[] = [];
  pathOf: number[] = [];
  statuses: string[] = [];
  fromOf: number[] = [];
  scores: number[] = [];
  oldOids: string[] = [];
  newOids: string[] = [];
  private readonly idOf = new Map<string, number>();

  constructor(private readonly keepsOids: (path: string) => boolean = () => true) {}

  get commits(): number {
    return this.times.length;
  }

  commit(time: number, id: string): void {
    this.starts.push(this.pathOf.length);
    this.times.push(time);
    // A copy: a slice of git's output would keep the whole chunk alive.
    this.ids.push(Buffer.from(id, 'latin1').toString('latin1'));
  }

  change(change: HistoryChange): void {
    const keep = this.keepsOids(change.path);
    this.pathOf.push(this.intern(change.path));
    this.statuses.push(change.status);
    this.fromOf.push(change.from === undefined ? -1 : this.intern(change.from));
    this.scores.push(change.score ?? -1);
    this.oldOids.push(keep ? (change.oldOid ?? '') : '');
    this.newOids.push(keep ? (change.newOid ?? '') : '');
  }

  /**
   * Hands every change to `onChange` as the pass did, numbering commits from `offset`;
   * returns the pass's outcome (its commits, and the ids of those with a rename).
   */
  replay(onChange: (change: HistoryChange) => void, offset = 0): HistoryOutcome & { ok: true } {
    const renameCommits = new Map<number, string>();
    const n = this.commits;
    for (let c = 0; c < n; c++) {
      const end = c + 1 < n ? this.starts[c + 1]! : this.pathOf.length;
      for (let k = this.starts[c]!; k < end; k++) {
        const change: HistoryChange = {
          time: this.times[c]!,
          commit: offset + c,
          path: this.paths[this.pathOf[k]!]!,
          status: this.statuses[k]!,
        };
        const from = this.fromOf[k]!;
        if (from >= 0) {
          change.from = this.paths[from]!;
          renameCommits.set(offset + c, this.ids[c]!);
        }
        if (this.oldOids[k] !== '') change.oldOid = this.oldOids[k]!;
        if (this.newOids[k] !== '') change.newOid = this.newOids[k]!;
        if (this.scores[k]! >= 0) change.score = this.scores[k]!;
        onChange(change);
      }
    }
    return { ok: true, commits: n, renameCommits };
  }

  /** This log followed by `older` (the commits before this log's oldest). */
  followedBy(older: HistoryLog): HistoryLog {
    const out = new HistoryLog(this.keepsOids);
    for (const log of [this, older]) {
      for (let c = 0; c < log.commits; c++) {
        out.starts.push(out.pathOf.length + (log.starts[c]! - log.starts[0]!));
        out.times.push(log.times[c]!);
        out.ids.push(log.ids[c]!);
      }
      for (let k = 0; k < log.pathOf.length; k++) {
        out.pathOf.push(out.intern(log.paths[log.pathOf[k]!]!));
        out.fromOf.push(log.fromOf[k]! < 0 ? -1 : out.intern(log.paths[log.fromOf[k]!]!));
        out.statuses.push(log.statuses[k]!);
        out.scores.push(log.scores[k]!);
        out.oldOids.push(log.oldOids[k]!);
        out.newOids.push(log.newOids[k]!);
      }
    }
    return out;
  }

  toJSON(): Record<string, unknown> {
    return {
      times: this.times,
      ids: this.ids,
      starts: this.starts,
      paths: this.paths,
      pathOf: this.pathOf,
      statuses: this.statuses.join(''),
      fromOf: this.fromOf,
      scores: this.scores,
      oldOids: this.oldOids,
      newOids: this.newOids,
    };
  }

  /** The log stored as `toJSON` made it; undefined for anything of another shape. */
  static fromJSON(value: unknown, keepsOids: (path: string) => boolean): HistoryLog | undefined {
    if (typeof value !== 'object' || value === null) return undefined;
    const v = value as Record<string, unknown>;
    const n = Array.isArray(v['times']) ? v['times'].length : -1;
    const m = Array.isArray(v['pathOf']) ? v['pathOf'].length : -1;
    const paths = v['paths'];
    if (n < 1 || m < 0 || !Array.isArray(paths) || !paths.every((p) => typeof p === 'string'))
      return undefined;
    const index = (i: unknown) => typeof i === 'number' && Number.isInteger(i) && i >= 0 && i < paths.length;
    const ok =
      column(v['times'], n, (t) => typeof t === 'number' && Number.isSafeInteger(t)) &&
      column(v['ids'], n, (id) => typeof id === 'string' && OID.test(id)) &&
      column(v['starts'], n, (s) => typeof s === 'number' && Number.isInteger(s) && s >= 0 && s <= m) &&
      (v['starts'] as number[]).every((s, c, all) => (c === 0 ? s === 0 : s >= all[c - 1]!)) &&
      column(v['pathOf'], m, index) &&
      column(v['fromOf'], m, (f) => f === -1 || index(f)) &&
      column(v['scores'], m, (s) => typeof s === 'number' && Number.isInteger(s) && s >= -1 && s <= 100) &&
      column(v['oldOids'], m, (o) => o === '' || (typeof o === 'string' && OID.test(o))) &&
      column(v['newOids'], m, (o) => o === '' || (typeof o === 'string' && OID.test(o))) &&
      typeof v['statuses'] === 'string' &&
      v['statuses'].length === m;
    if (!ok) return undefined;
    const statuses = [...(v['statuses'] as string)];
    if (!statuses.every((s) => STATUS.test(s))) return undefined;
    const log = new HistoryLog(keepsOids);
    // Assigned, not pushed: a spread of a long history overflows the call stack.
    log.times = v['times'] as number[];
    log.ids = v['ids'] as string[];
    log.starts = v['starts'] as number[];
    log.paths = paths as string[];
    log.paths.forEach((p, i) => {
      log.idOf.set(p, i);
    });
    log.pathOf = v['pathOf'] as number[];
    log.statuses = statuses;
    log.fromOf = v['fromOf'] as number[];
    log.scores = v['scores'] as number[];
    log.oldOids = v['oldOids'] as string[];
    log.newOids = v['newOids'] as string[];
    return log;
  }

  private intern(path: string): number {
    let id = this.idOf.get(path);
    if (id === undefined) {
      id = this.paths.length;
      // A copy: a slice of git's output would keep the whole chunk alive.
      this.paths.push(Buffer.from(path, 'utf8').toString('utf8'));
      this.idOf.set(path, id);
    }
    return id;
  }
}

function column(value: unknown, length: number, ok: (item: unknown) => boolean): boolean {
  if (!Array.isArray(value) || value.length !== length) return false;
  for (const item of value) if (!ok(item)) return false;
  return true;
}
