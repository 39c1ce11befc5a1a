import type { Deadline } from '../../core/deadline.js';
import type { HistoryCache } from './cache/history-cache.js';
import { ChangeBuffer } from './change-buffer.js';
import {
  type HistoryChange,
  type HistoryOutcome,
  missingObjects,
  readBlobs,
  streamHistory,
} from './history.js';
import { lineCount } from './markdown.js';
import { baseOf, dirOf } from './paths.js';
import { THRESHOLDS } from './thresholds.js';
import type { Doc } from './walk.js';

/** Churn to the paths one doc references, since that doc's last commit. */
export interface ChurnSince {
  commits: number;
  /** Index of the last commit counted (so a commit counts once). */
  lastCommit: number;
  paths: Set<string>;
}

/** Commits to a doc and how it grew. */
export interface DocGrowth {
  commits: number;
  /** Commits whose new version only added lines to the old one. */
  appendOnly: number;
  /**
   * Line counts after each commit, oldest first, when the versions were read (docs with
   * enough commits and lines; agent-context files from a lower line floor).
   */
  lineCounts?: number[];
}

/** A path whose history could not be read whole, and why (the artifact's `history_incomplete`). */
export interface IncompleteHistory {
  path: string;
  reason: string;
}

/** The git facts the signals use, aggregated from the history pass. */
export interface HistoryFacts {
  /** True when history was read: the history signals may fire (except on `incomplete` paths). */
  complete: boolean;
  /** Old path → new path, newest rename first (kept for a shallow clone, emptied on failure). */
  renames: ReadonlyMap<string, string>;
  /**
   * Old paths of `renames` whose rename may have split the file: git scored it below
   * `WHOLE_RENAME_SCORE` and the same commit added files of its kind (extension) beside the
   * new name, so part of the content may have gone to those (a module split in two keeps one
   * name). Also every rename whose commit added another file of the new name's file name
   * (any score): the file was copied to several places (pola-rs/polars moved
   * `py-polars/runtime/Cargo.toml` to `polars-runtime-32/Cargo.toml` in the commit that
   * added `polars-runtime-64/Cargo.toml` and two more), and git paired the old path with one
   * of them. Also every low-scored rename read by a pass that saw no additions.
   */
  splitRenames: ReadonlySet<string>;
  /** Old path → the commit that renamed it (the rename `renames` holds), when git named it. */
  renamedIn: ReadonlyMap<string, string>;
  /** Doc → its last commit time (seconds). */
  lastCommit: ReadonlyMap<string, number>;
  /** Doc → commits to it under its current name, and how many only added lines. */
  growth: ReadonlyMap<string, DocGrowth>;
  churn: ReadonlyMap<string, ChurnSince>;
  /** Paths with an object missing from the clone: their history signals are not computed. */
  incomplete: readonly IncompleteHistory[];
  /** The asked-about paths (unresolved link targets and backticked paths) that history shows existed here. */
  existed: ReadonlySet<string>;
}

/** The names on the chain of renames from `path`, `path` first (at most 50 renames followed). */
function renameChain(renames: ReadonlyMap<string, string>, path: string): string[] {
  const chain = [path];
  for (let i = 0; i < 50; i++) {
    const next = renames.get(chain[chain.length - 1]!);
    if (next === undefined) break;
    chain.push(next);
  }
  return chain;
}

/** Follows a chain of renames from `path`; the last name, if it differs and is listed. */
export function renameTarget(
  renames: ReadonlyMap<string, string>,
  path: string,
  isListed: (path: string) => boolean,
): string | undefined {
  const last = renameChain(renames, path).pop()!;
  return last !== path && isListed(last) ? last : undefined;
}

/** Whether a rename on the chain from `path` (as `renameTarget` follows it) may have split the file. */
export function renameMayBeSplit(
  history: Pick<HistoryFacts, 'renames' | 'splitRenames'>,
  path: string,
): boolean {
  return renameChain(history.renames, path).some((name) => history.splitRenames.has(name));
}

/** What the aggregation is about: the docs, the non-doc paths they reference, where the root is. */
interface Subject {
  docs: ReadonlyMap<string, Doc>;
  referencedBy: ReadonlyMap<string, readonly string[]>;
  /** The project root inside the repository ('' at the toplevel, else ending in `/`). */
  prefix: string;
  /** Paths to look out for in history (root-relative). */
  wanted: ReadonlySet<string>;
}

/** One change to a doc under its current name: the blobs a line comparison reads. */
interface DocVersion {
  oldOid: string | undefined;
  newOid: string | undefined;
}

/** A rename scored at least this (percent) kept the file whole, unless the commit added copies of it (its name). */
export const WHOLE_RENAME_SCORE = 90;

/** The file name's extension ('' for none): the content of a split file goes to files of its kind. */
function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/**
 * Folds one pass's changes, newest commit first, into last commits, renames, the versions of
 * each doc, and churn (in commits) to what each doc references since that doc's last commit.
 */
class Aggregate {
  readonly renames = new Map<string, string>();
  readonly splitRenames = new Set<string>();
  /** This commit's low-scored renames, judged when the commit ends (its additions all seen). */
  private partialRenames: { from: string; to: string }[] = [];
  /** This commit's renames of any score, judged when the commit ends (copies added beside). */
  private commitRenames: { from: string; to: string }[] = [];
  /** Old path → index of the commit of its rename in `renames`. */
  readonly renamedAt = new Map<string, number>();
  readonly lastCommit = new Map<string, number>();
  /** Doc → its changes under its current name, newest first. */
  readonly versions = new Map<string, DocVersion[]>();
  readonly churn = new Map<string, ChurnSince>();
  /** The wanted paths seen in history. */
  readonly existed = new Set<string>();
  /** Blob ids of added or deleted paths (what rename scoring reads), when asked for. */
  readonly addedOrDeleted = new Map<string, Set<string>>();
  private batch: HistoryChange[] = [];
  private batchCommit = -1;
  private readonly refAncestors = new Map<string, string[]>();

  constructor(
    private readonly subject: Subject,
    private readonly collectAddedOrDeleted = false,
    /** False for a renames-only pass: no addition is seen, so every low-scored rename may be a split. */
    private readonly seesAdditions = true,
  ) {}

  /** Referenced paths among a changed path and its folders; cached per distinct path. */
  private ancestorsOf(path: string): string[] {
    let list = this.refAncestors.get(path);
    if (list === undefined) {
      list = [];
      for (let p = path; ; p = dirOf(p)) {
        if (this.subject.referencedBy.has(p)) list.push(p);
        if (p === '') break;
      }
      this.refAncestors.set(path, list);
    }
    return list;
  }

  private flush(): void {
    const { docs, referencedBy } = this.subject;
    if (this.partialRenames.length > 0) {
      // The folders and kinds this commit added files of, once per commit: a commit that
      // moves and edits thousands of files would otherwise scan its changes once per rename.
      const added = new Set<string>();
      if (this.seesAdditions)
        for (const c of this.batch)
          if (c.status === 'A') added.add(`${dirOf(c.path)}\0${extensionOf(c.path)}`);
      for (const { from, to } of this.partialRenames)
        if (!this.seesAdditions || added.has(`${dirOf(to)}\0${extensionOf(to)}`)) this.splitRenames.add(from);
      this.partialRenames = [];
    }
    if (this.commitRenames.length > 0 && this.seesAdditions) {
      // A file copied to several places in the commit that moved it: the rename names
      // one of the copies, which is not the one every reference meant.
      const addedNames = new Set<string>();
      for (const c of this.batch) if (c.status === 'A') addedNames.add(baseOf(c.path));
      for (const { from, to } of this.commitRenames)
        if (addedNames.has(baseOf(to))) this.splitRenames.add(from);
    }
    this.commitRenames = [];
    // Close the docs this commit touched first: a change in the same commit is not "since".
    for (const c of this.batch) {
      if (docs.has(c.path) && !this.lastCommit.has(c.path)) this.lastCommit.set(c.path, c.time);
    }
    for (const c of this.batch) {
      for (const p of this.ancestorsOf(c.path)) {
        for (const d of referencedBy.get(p)!) {
          if (this.lastCommit.has(d)) continue;
          let s = this.churn.get(d);
          if (!s) {
            s = { commits: 0, lastCommit: -1, paths: new Set() };
            this.churn.set(d, s);
          }
          if (s.lastCommit !== c.commit) {
            s.commits++;
            s.lastCommit = c.commit;
          }
          s.paths.add(p);
        }
      }
    }
    this.batch = [];
  }

  add(change: HistoryChange): void {
    const { prefix, docs } = this.subject;
    let path = change.path;
    let from = change.from;
    if (prefix !== '') {
      if (!path.startsWith(prefix)) return;
      path = path.slice(prefix.length);
      from = from?.startsWith(prefix) ? from.slice(prefix.length) : undefined;
    }
    if (this.subject.wanted.has(path)) this.existed.add(path);
    if (from !== undefined && this.subject.wanted.has(from)) this.existed.add(from);
    if (change.commit !== this.batchCommit) {
      this.flush();
      this.batchCommit = change.commit;
    }
    if (from !== undefined && !this.renames.has(from)) {
      this.renames.set(from, path);
      this.renamedAt.set(from, change.commit);
      this.commitRenames.push({ from, to: path });
      if ((change.score ?? 0) < WHOLE_RENAME_SCORE) this.partialRenames.push({ from, to: path });
    }
    change.path = path;
    this.batch.push(change);
    if (docs.has(path)) {
      const list = this.versions.get(path);
      const version = { oldOid: change.oldOid, newOid: change.newOid };
      if (list) list.push(version);
      else this.versions.set(path, [version]);
    }
    if (this.collectAddedOrDeleted && (change.status === 'A' || change.status === 'D')) {
      const oid = change.newOid ?? change.oldOid;
      if (oid === undefined) return;
      let set = this.addedOrDeleted.get(path);
      if (!set) {
        set = new Set();
        this.addedOrDeleted.set(path, set);
      }
      set.add(oid);
    }
  }

  finish(): void {
    this.flush();
  }
}

/**
 * The history (docs/scanner-and-classifiers.md: one pass over the whole history; a missing object costs the paths it
 * touches, never the whole pass). One `git log --raw -M` pass, started early so that it overlaps
 * the Markdown pass, gives renames, last commits, each doc's versions and churn in commits; it
 * reads no blob except to score a rename. Line counts are read only where a signal needs them:
 * the versions of docs that may be append-only, through one `cat-file --batch`. If the pass
 * meets a missing object, it is read again without rename detection (which reads no blob), and
 * renames come from a rename pass that leaves out the unreadable paths.
 */
export class HistoryReader {
  private readonly early: ChangeBuffer;
  private consume: ((change: HistoryChange) => void) | undefined;
  private readonly run: Promise<HistoryOutcome>;

  /** `mayBeDoc`: a toplevel-relative path that may be a doc (its blob ids are kept until aggregation). */
  constructor(
    private readonly toplevel: string,
    private readonly options: { deadline?: Deadline; signal?: AbortSignal },
    mayBeDoc: (path: string) => boolean = () => true,
    /** Serves the pass from the history cache where it can (cache/history-cache.ts). */
    cache?: HistoryCache,
  ) {
    this.early = new ChangeBuffer(mayBeDoc);
    const onChange = (change: HistoryChange) => {
      if (this.consume) this.consume(change);
      else this.early.push(change);
    };
    this.run = cache
      ? cache.stream(toplevel, onChange, options)
      : streamHistory(toplevel, 'changes', onChange, options);
  }

  /** Changes read so far and not yet aggregated. */
  get buffered(): number {
    return this.early.length;
  }

  /**
   * Reads the rest of history for `docs` and the paths they reference. The versions of docs
   * that may be append-only are read afterwards, through another git process: `growth`
   * settles once they are, and with it the paths whose history is incomplete, so that the
   * caller can do what needs neither meanwhile.
   */
  async aggregate(
    docs: ReadonlyMap<string, Doc>,
    referencedBy: ReadonlyMap<string, readonly string[]>,
    prefix: string,
    options: {
      /** False where the history signals cannot fire anyway (a shallow clone). */
      lineCounts?: boolean;
      /** Paths to look out for: `existed` says which of them history shows. */
      wanted?: ReadonlySet<string>;
    } = {},
  ): Promise<{
    outcome: HistoryOutcome;
    facts: Omit<HistoryFacts, 'complete' | 'growth' | 'incomplete'>;
    growth: Promise<Pick<HistoryFacts, 'growth' | 'incomplete'>>;
  }> {
    const subject: Subject = { docs, referencedBy, prefix, wanted: options.wanted ?? new Set() };
    const wantLineCounts = options.lineCounts ?? true;
    let changes = new Aggregate(subject);
    this.early.drain((change) => changes.add(change));
    this.consume = (change) => changes.add(change);
    let outcome = await this.run;
    changes.finish();
    const incomplete = new Map<string, string>();
    let renamedIn = outcome.ok
      ? commitsOf(changes.renamedAt, outcome.renameCommits)
      : new Map<string, string>();
    if (!outcome.ok && outcome.missingObject !== undefined) {
      const recovered = await this.withoutRenameScoring(subject, incomplete);
      if (recovered) {
        changes = recovered.changes;
        outcome = recovered.outcome;
        renamedIn = recovered.renamedIn;
      }
    }
    if (!outcome.ok) {
      changes.renames.clear();
      changes.splitRenames.clear();
      renamedIn.clear();
    }
    const read = outcome.ok && wantLineCounts;
    const growth = (
      read ? this.growthOf(subject, changes.versions, incomplete) : Promise.resolve(new Map())
    ).then((byDoc) => ({
      growth: byDoc,
      incomplete: [...incomplete]
        .map(([path, reason]) => ({ path, reason }))
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    }));
    return {
      outcome,
      facts: {
        renames: changes.renames,
        splitRenames: changes.splitRenames,
        renamedIn,
        lastCommit: changes.lastCommit,
        churn: changes.churn,
        existed: changes.existed,
      },
      growth,
    };
  }

  /** The pass again without rename scoring, then renames from a pass that skips unreadable paths. */
  private async withoutRenameScoring(
    subject: Subject,
    incomplete: Map<string, string>,
  ): Promise<{ changes: Aggregate; outcome: HistoryOutcome; renamedIn: Map<string, string> } | undefined> {
    const changes = new Aggregate(subject, true);
    const outcome = await streamHistory(
      this.toplevel,
      'changes-no-renames',
      (c) => changes.add(c),
      this.options,
    );
    changes.finish();
    if (!outcome.ok) return undefined;
    const missing = await missingObjects(
      this.toplevel,
      [...changes.addedOrDeleted.values()].flatMap((s) => [...s]),
    );
    const unreadable = new Map<string, string>();
    for (const [path, oids] of changes.addedOrDeleted) {
      const oid = [...oids].find((o) => missing?.has(o));
      if (oid !== undefined) unreadable.set(path, oid);
    }
    changes.addedOrDeleted.clear();
    for (const [path, oid] of unreadable) {
      const at =
        subject.prefix === '' || path.startsWith(subject.prefix)
          ? path.slice(subject.prefix.length)
          : undefined;
      if (at !== undefined && at !== '')
        incomplete.set(at, `object ${oid} is missing from this clone, so renames of this path are not known`);
    }
    const renames = new Aggregate(subject, false, false);
    const renamePass = await streamHistory(this.toplevel, 'changes', (c) => renames.add(c), {
      ...this.options,
      diffFilter: 'R',
      pathspecs: [...unreadable.keys()].map((p) => `:(exclude,literal)${p}`),
    });
    renames.finish();
    if (!renamePass.ok) return { changes, outcome, renamedIn: new Map() };
    for (const [from, to] of renames.renames) changes.renames.set(from, to);
    for (const from of renames.splitRenames) changes.splitRenames.add(from);
    return { changes, outcome, renamedIn: commitsOf(renames.renamedAt, renamePass.renameCommits) };
  }

  /**
   * Commits to each doc that may be append-only, and how many of them only added lines: the
   * old version's lines are a subsequence of the new one's (what `--numstat` calls 0 deleted).
   * Only docs with enough commits and lines are read; a doc with a missing version is incomplete.
   */
  private async growthOf(
    subject: Subject,
    versions: ReadonlyMap<string, DocVersion[]>,
    incomplete: Map<string, string>,
  ): Promise<Map<string, DocGrowth>> {
    const growth = new Map<string, DocGrowth>();
    const order: string[] = [];
    const pairs: { doc: string; oldOid: string | undefined; newOid: string | undefined }[] = [];
    for (const [doc, list] of versions) {
      growth.set(doc, { commits: list.length, appendOnly: 0 });
      if (list.length < THRESHOLDS.appendMinCommits) continue;
      // Counted, not split: splitting every doc with history cost ≈ 0.3 s on tldr-pages/tldr.
      const { text, isAgentContext } = subject.docs.get(doc)!;
      const floor = isAgentContext ? THRESHOLDS.contextGrowthMinLines : THRESHOLDS.appendMinLines;
      if (lineCount(text) < floor) continue;
      growth.get(doc)!.lineCounts = [];
      let last: string | undefined;
      // Oldest first, so that each version is read once and compared with the one before it.
      for (let i = list.length - 1; i >= 0; i--) {
        const v = list[i]!;
        if (v.oldOid !== undefined && v.oldOid !== last) order.push(v.oldOid);
        if (v.newOid !== undefined) order.push(v.newOid);
        last = v.newOid;
        pairs.push({ doc, ...v });
      }
    }
    if (pairs.length === 0) return growth;
    let previous: { oid: string; lines: string[] } | undefined;
    let current: { oid: string; lines: string[] } | undefined;
    let next = 0;
    const missingOf = new Map<string, string>();
    const settle = () => {
      // Compare every pair whose blobs are the last two read.
      while (next < pairs.length) {
        const pair = pairs[next]!;
        const have = (oid: string | undefined) =>
          oid === undefined
            ? []
            : oid === current?.oid
              ? current.lines
              : oid === previous?.oid
                ? previous.lines
                : undefined;
        const before = have(pair.oldOid);
        const after = have(pair.newOid);
        if (before === undefined || after === undefined) return;
        next++;
        if (missingOf.has(pair.doc)) continue;
        const g = growth.get(pair.doc)!;
        if (pair.newOid !== undefined) g.lineCounts?.push(after.length);
        if (after.length > before.length && isSubsequence(before, after)) g.appendOnly++;
      }
    };
    const owner = new Map<string, string>();
    for (const p of pairs) {
      if (p.oldOid !== undefined && !owner.has(p.oldOid)) owner.set(p.oldOid, p.doc);
      if (p.newOid !== undefined && !owner.has(p.newOid)) owner.set(p.newOid, p.doc);
    }
    const outcome = await readBlobs(
      this.toplevel,
      order,
      (oid, bytes) => {
        previous = current;
        current = { oid, lines: bytes === undefined ? [] : splitLines(bytes.toString('utf8')) };
        if (bytes === undefined) {
          const doc = pairs[next]?.doc ?? owner.get(oid);
          if (doc !== undefined && !missingOf.has(doc)) missingOf.set(doc, oid);
        }
        settle();
      },
      this.options,
    );
    for (const [doc, oid] of missingOf) {
      incomplete.set(doc, `object ${oid} is missing from this clone, so its growth is not known`);
    }
    if (!outcome.ok) {
      for (const p of pairs)
        if (!incomplete.has(p.doc))
          incomplete.set(p.doc, `its versions could not be read: ${outcome.reason}`);
    }
    return growth;
  }
}

/** Lines with their terminators, as git compares them (a missing final newline is a difference). */
function splitLines(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', start)) {
    out.push(text.slice(start, i + 1));
    start = i + 1;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

/** True when `a` is a subsequence of `b`: `b` only adds lines to `a`. */
function isSubsequence(a: readonly string[], b: readonly string[]): boolean {
  let i = 0;
  for (let j = 0; j < b.length && i < a.length; j++) if (a[i] === b[j]) i++;
  return i === a.length;
}

/** Old path → the id of the commit that renamed it, from the commit indices of one pass. */
function commitsOf(
  renamedAt: ReadonlyMap<string, number>,
  ids: ReadonlyMap<number, string> | undefined,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const [from, commit] of renamedAt) {
    const id = ids?.get(commit);
    if (id !== undefined) out.set(from, id);
  }
  return out;
}

/** History facts when no history was read. */
export const NO_HISTORY: HistoryFacts = {
  complete: false,
  renames: new Map(),
  splitRenames: new Set(),
  renamedIn: new Map(),
  lastCommit: new Map(),
  growth: new Map(),
  churn: new Map(),
  incomplete: [],
  existed: new Set(),
};
