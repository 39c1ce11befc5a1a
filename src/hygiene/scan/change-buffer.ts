import type { HistoryChange } from './history.js';

const INITIAL = 4096;

/**
 * The history changes read before anything can aggregate them (the pass starts while the
 * docs are parsed), packed so that memory stays small as history grows: a few typed-array
 * columns per change, each distinct path stored once (copied out of git's output, which a
 * slice would keep alive), and blob ids only for the paths that may be docs (the only
 * changes whose blobs are read).
 */
export class ChangeBuffer {
  private size = 0;
  private pathIds = new Int32Array(INITIAL);
  private fromIds = new Int32Array(INITIAL);
  private commits = new Int32Array(INITIAL);
  private statuses = new Uint8Array(INITIAL);
  private readonly times: number[] = [];
  private readonly paths: string[] = [];
  private readonly idOf = new Map<string, number>();
  private readonly oids = new Map<number, { oldOid?: string; newOid?: string }>();
  /** Rename and copy scores by change index (few changes have one). */
  private readonly scores = new Map<number, number>();
  /** `keepsBlobIds` of each interned path, asked once per path rather than once per change. */
  private readonly keeps: boolean[] = [];

  constructor(private readonly keepsBlobIds: (path: string) => boolean) {}

  get length(): number {
    return this.size;
  }

  push(change: HistoryChange): void {
    if (this.size === this.pathIds.length) this.grow();
    const i = this.size++;
    const pathId = this.intern(change.path);
    this.pathIds[i] = pathId;
    this.fromIds[i] = change.from === undefined ? -1 : this.intern(change.from);
    this.commits[i] = change.commit;
    this.statuses[i] = change.status.charCodeAt(0);
    this.times[change.commit] = change.time;
    if (change.score !== undefined) this.scores.set(i, change.score);
    if ((change.oldOid !== undefined || change.newOid !== undefined) && this.keepsBlobIdsOf(pathId)) {
      const oids: { oldOid?: string; newOid?: string } = {};
      if (change.oldOid !== undefined) oids.oldOid = change.oldOid;
      if (change.newOid !== undefined) oids.newOid = change.newOid;
      this.oids.set(i, oids);
    }
  }

  /** Hands every change to `onChange`, in the order pushed, and empties the buffer. */
  drain(onChange: (change: HistoryChange) => void): void {
    for (let i = 0; i < this.size; i++) {
      const from = this.fromIds[i]!;
      const commit = this.commits[i]!;
      const change: HistoryChange = {
        time: this.times[commit]!,
        commit,
        path: this.paths[this.pathIds[i]!]!,
        status: String.fromCharCode(this.statuses[i]!),
      };
      if (from !== -1) change.from = this.paths[from]!;
      const score = this.scores.get(i);
      if (score !== undefined) change.score = score;
      const oids = this.oids.get(i);
      if (oids?.oldOid !== undefined) change.oldOid = oids.oldOid;
      if (oids?.newOid !== undefined) change.newOid = oids.newOid;
      onChange(change);
    }
    this.size = 0;
    this.oids.clear();
    this.scores.clear();
  }

  private keepsBlobIdsOf(pathId: number): boolean {
    let keeps = this.keeps[pathId];
    if (keeps === undefined) {
      keeps = this.keepsBlobIds(this.paths[pathId]!);
      this.keeps[pathId] = keeps;
    }
    return keeps;
  }

  private intern(path: string): number {
    let id = this.idOf.get(path);
    if (id === undefined) {
      id = this.paths.length;
      const own = Buffer.from(path, 'utf8').toString('utf8');
      this.paths.push(own);
      this.idOf.set(own, id);
    }
    return id;
  }

  private grow(): void {
    const bigger = <T extends Int32Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(a.length * 2);
      b.set(a);
      return b;
    };
    this.pathIds = bigger(this.pathIds, (n) => new Int32Array(n));
    this.fromIds = bigger(this.fromIds, (n) => new Int32Array(n));
    this.commits = bigger(this.commits, (n) => new Int32Array(n));
    this.statuses = bigger(this.statuses, (n) => new Uint8Array(n));
  }
}
