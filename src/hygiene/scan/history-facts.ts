import type { Deadline } from '../../core/deadline.js';
import { type HistoryChange, type HistoryOutcome, streamHistory } from './history.js';
import { dirOf } from './paths.js';
import type { Doc } from './walk.js';

/** Churn to the paths one doc references, since that doc's last commit. */
export interface ChurnSince {
  commits: number;
  lines: number;
  /** Index of the last commit counted (so a commit counts once). */
  lastCommit: number;
  paths: Set<string>;
}

/** The git facts the signals use, aggregated from the one history pass. */
export interface HistoryFacts {
  /** True when the whole history was read: the history signals may fire. */
  complete: boolean;
  /** Old path → new path, newest rename first (kept for a shallow clone, emptied on failure). */
  renames: ReadonlyMap<string, string>;
  /** Doc → its last commit time (seconds). */
  lastCommit: ReadonlyMap<string, number>;
  /** Doc → commits to it under its current name, and how many only appended lines. */
  growth: ReadonlyMap<string, { commits: number; appendOnly: number }>;
  churn: ReadonlyMap<string, ChurnSince>;
}

/** Follows a chain of renames from `path`; the last name, if it differs and is listed. */
export function renameTarget(
  renames: ReadonlyMap<string, string>,
  path: string,
  isListed: (path: string) => boolean,
): string | undefined {
  let current = path;
  for (let i = 0; i < 50; i++) {
    const next = renames.get(current);
    if (next === undefined) break;
    current = next;
  }
  return current !== path && isListed(current) ? current : undefined;
}

/**
 * The one history pass, started early so that it overlaps the Markdown pass. Changes read
 * before the docs are known wait as small records; the history text itself is never held.
 */
export class HistoryReader {
  private readonly early: HistoryChange[] = [];
  private consume: ((change: HistoryChange) => void) | undefined;
  private readonly run: Promise<HistoryOutcome>;

  constructor(toplevel: string, options: { deadline?: Deadline; signal?: AbortSignal }) {
    this.run = streamHistory(
      toplevel,
      (change) => {
        if (this.consume) this.consume(change);
        else this.early.push(change);
      },
      options,
    );
  }

  /** Changes read so far and not yet aggregated. */
  get buffered(): number {
    return this.early.length;
  }

  /**
   * Aggregates the whole stream for `docs` and the paths they reference. `prefix` is the
   * project root's path inside the repository ('' at the toplevel, else ending in `/`).
   */
  async aggregate(
    docs: ReadonlyMap<string, Doc>,
    referencedBy: ReadonlyMap<string, readonly string[]>,
    prefix: string,
  ): Promise<{ outcome: HistoryOutcome; facts: Omit<HistoryFacts, 'complete'> }> {
    const renames = new Map<string, string>();
    const lastCommit = new Map<string, number>();
    const growth = new Map<string, { commits: number; appendOnly: number }>();
    const churn = new Map<string, ChurnSince>();
    let batch: HistoryChange[] = [];
    let batchCommit = -1;
    // Referenced paths among a changed path and its folders; cached per distinct path.
    const refAncestors = new Map<string, string[]>();
    const ancestorsOf = (path: string): string[] => {
      let list = refAncestors.get(path);
      if (list === undefined) {
        list = [];
        for (let p = path; ; p = dirOf(p)) {
          if (referencedBy.has(p)) list.push(p);
          if (p === '') break;
        }
        refAncestors.set(path, list);
      }
      return list;
    };
    const flush = () => {
      // Close the docs this commit touched first: a change in the same commit is not "since".
      for (const c of batch) {
        if (docs.has(c.path) && !lastCommit.has(c.path)) lastCommit.set(c.path, c.time);
      }
      for (const c of batch) {
        const lines = (c.added ?? 0) + (c.deleted ?? 0);
        for (const p of ancestorsOf(c.path)) {
          for (const d of referencedBy.get(p)!) {
            if (lastCommit.has(d)) continue;
            let s = churn.get(d);
            if (!s) {
              s = { commits: 0, lines: 0, lastCommit: -1, paths: new Set() };
              churn.set(d, s);
            }
            if (s.lastCommit !== c.commit) {
              s.commits++;
              s.lastCommit = c.commit;
            }
            s.lines += lines;
            s.paths.add(p);
          }
        }
      }
      batch = [];
    };
    const onChange = (change: HistoryChange) => {
      let path = change.path;
      let from = change.from;
      if (prefix !== '') {
        if (!path.startsWith(prefix)) return;
        path = path.slice(prefix.length);
        from = from?.startsWith(prefix) ? from.slice(prefix.length) : undefined;
      }
      if (from !== undefined && !renames.has(from)) renames.set(from, path);
      if (change.commit !== batchCommit) {
        flush();
        batchCommit = change.commit;
      }
      change.path = path;
      batch.push(change);
      if (docs.has(path)) {
        // Growth counts commits to the doc under its current name.
        let g = growth.get(path);
        if (!g) {
          g = { commits: 0, appendOnly: 0 };
          growth.set(path, g);
        }
        g.commits++;
        if (change.deleted === 0 && (change.added ?? 0) > 0) g.appendOnly++;
      }
    };
    for (const change of this.early) onChange(change);
    this.early.length = 0;
    this.consume = onChange;
    const outcome = await this.run;
    flush();
    if (!outcome.ok) renames.clear();
    return { outcome, facts: { renames, lastCommit, growth, churn } };
  }
}

/** History facts when no history was read. */
export const NO_HISTORY: HistoryFacts = {
  complete: false,
  renames: new Map(),
  lastCommit: new Map(),
  growth: new Map(),
  churn: new Map(),
};
