/**
 * Whether a reference to a moved path was written before the move: what makes the move in
 * history the one the reference was left behind by (docs/scanner-and-classifiers.md, "link
 * fix"). A rename shows where a file went; it says where a link meant only if the link stood
 * in the doc while the file was there. A reference written after the move named the old path
 * for a reason history cannot tell (on microsoft/playwright, `docs/src/intro-csharp.md` links
 * `./library.md`, renamed to `library-js.md` three years before the line was written: the docs
 * generator resolves it to the page of the reader's language, and the "fix" would send C#
 * readers to the JavaScript one). One process for all: the doc as it was in the move's parent
 * commit, through one `git cat-file --batch`.
 */
import type { Signal } from '../types.js';
import type { ScanFacts } from './facts.js';
import { readBlobs } from './history.js';
import { baseOf, escapeRegExp, writtenPath } from './paths.js';

/** One reference to a moved path: the doc, its line, the target as written, and the move's commit. */
export interface MovedReference {
  doc: string;
  line: number;
  /** The target as the doc writes it (its occurrences are counted). */
  written: string;
  /** The root-relative path that moved (references to it are judged together). */
  path: string;
  /** The commit that moved `path`. */
  commit: string;
}

/** The key `writtenBeforeMove` answers by. */
const movedKey = (r: Pick<MovedReference, 'doc' | 'line' | 'path'>): string =>
  `${r.doc}\0${r.line}\0${r.path}`;

/**
 * The references (by `movedKey`) left behind by their move: the doc, in the move's parent
 * commit, already wrote the target as often as it does now. Where any doc writes a moved path
 * more often than it did before the move (or did not exist then under its name), that path
 * is still written on purpose, and none of its references counts. A doc git cannot read
 * then, or any failure, proves nothing.
 */
export async function writtenBeforeMove(
  root: string,
  references: readonly MovedReference[],
  textOf: (doc: string) => string | undefined,
  signal?: AbortSignal,
): Promise<Set<string>> {
  const asked = references.filter((r) => !/[\n\r]/.test(r.doc) && /^[0-9a-f]+$/.test(r.commit));
  if (asked.length === 0) return new Set();
  const specs = [...new Set(asked.map((r) => specOf(r)))];
  const before = await readSpecs(root, specs, signal);
  if (before === undefined) return new Set();
  const leftBehind = new Set<string>();
  const stillWritten = new Set<string>();
  for (const r of asked) {
    const now = occurrences(textOf(r.doc) ?? '', r.written);
    const then = occurrences(before.get(specOf(r)) ?? '', r.written);
    if (now > 0 && then >= now) leftBehind.add(movedKey(r));
    else stillWritten.add(r.path);
  }
  for (const r of asked) if (stillWritten.has(r.path)) leftBehind.delete(movedKey(r));
  return leftBehind;
}

const specOf = (r: MovedReference) => `${r.commit}^:./${r.doc}`;

function occurrences(text: string, written: string): number {
  if (written === '') return 0;
  let count = 0;
  for (let at = text.indexOf(written); at !== -1; at = text.indexOf(written, at + written.length)) count++;
  return count;
}

/** Each spec's blob as text (absent: git has no such object); undefined when git failed. */
async function readSpecs(
  root: string,
  specs: readonly string[],
  signal?: AbortSignal,
): Promise<Map<string, string> | undefined> {
  const texts = new Map<string, string>();
  let next = 0;
  // One answer per spec, in order: the spec is known by its place, a found blob by its id.
  const outcome = await readBlobs(
    root,
    specs,
    (_oid, bytes, type) => {
      const spec = specs[next++];
      // Only a file's text counts: a folder then (a tree) wrote nothing.
      if (spec !== undefined && bytes !== undefined && type === 'blob')
        texts.set(spec, bytes.toString('utf8'));
    },
    signal ? { signal } : {},
  );
  return outcome.ok && next === specs.length ? texts : undefined;
}

/** One reported reference: its line and the target as the doc writes it. */
export interface WrittenReference {
  line: number;
  target: string;
  /** The fix's new target: when it renames the file, the old file name is looked for too. */
  suggested?: string;
}

/**
 * For each reference (by index), the first line on which the doc names its old path where no
 * fix reaches: more often on a line than the references reported there write it (the link's
 * own text, prose, a fenced block, a quoted transcript). A link fix rewrites only the link's
 * syntax, so the doc would go on naming the old place beside the new one: on astral-sh/ruff,
 * `` [`invalid_assignment_details.md`](./invalid_assignment_details.md) `` keeps its label; on
 * Aider-AI/aider, a chat transcript's backticked `tests/test_main.py` sits among the same path in
 * its quoted edit blocks, which record what was typed then. The path is matched as written
 * (leading `./`, `../` and `/` and any fragment dropped), whole (no name character either side);
 * for a fix that renames the file, its old file name is looked for too (in the link's label).
 */
export function namedElsewhere(
  lines: readonly string[],
  references: readonly WrittenReference[],
): (number | undefined)[] {
  const counts = new Map<string, Map<number, number>>();
  const countsOf = (path: string): Map<number, number> => {
    let byLine = counts.get(path);
    if (byLine !== undefined) return byLine;
    byLine = new Map();
    const pattern = new RegExp(`(?<![\\w-])${escapeRegExp(path)}(?![\\w-])`, 'g');
    // The plain search first: a doc of thousands of lines and many fixes runs the pattern
    // only on the lines that hold the name.
    lines.forEach((line, i) => {
      if (!line.includes(path)) return;
      const n = line.match(pattern)?.length ?? 0;
      if (n > 0) byLine!.set(i + 1, n);
    });
    counts.set(path, byLine);
    return byLine;
  };
  const reported = new Map<string, Map<number, number>>();
  const report = (key: string, line: number): void => {
    const byLine = reported.get(key) ?? new Map<number, number>();
    byLine.set(line, (byLine.get(line) ?? 0) + 1);
    reported.set(key, byLine);
  };
  // A path is counted whole; a file name (`base:` key) in every reference that ends in it.
  for (const r of references) {
    const path = writtenPath(r.target);
    if (path === '') continue;
    report(path, r.line);
    report(`base:${baseOf(path)}`, r.line);
  }
  const firstUnreached = (key: string, name: string): number | undefined => {
    const fixed = reported.get(key) ?? new Map<number, number>();
    for (const [line, n] of countsOf(name)) if (n > (fixed.get(line) ?? 0)) return line;
    return undefined;
  };
  return references.map((r) => {
    const path = writtenPath(r.target);
    if (path === '') return undefined;
    const whole = firstUnreached(path, path);
    // A fix that renames the file leaves a label or prose naming the old file name wrong too
    // (`` [`old.md`](dir/old.md) `` pointed at dir/new.md).
    const base = baseOf(path);
    const renamed = r.suggested !== undefined && base !== path && baseOf(writtenPath(r.suggested)) !== base;
    const named = renamed ? firstUnreached(`base:${base}`, base) : undefined;
    return whole === undefined ? named : named === undefined ? whole : Math.min(whole, named);
  });
}

/** A signal about to be emitted, with the move its suggested fix follows, if any. */
export interface MovedSignal {
  doc: string;
  signal: Omit<Signal, 'name'>;
  moved?: MovedReference;
}

/**
 * What the doc says of each suggested fix's move, marked on its signal: `written_before_move`
 * (writtenBeforeMove) and `old_path_named_elsewhere` (namedElsewhere). One pass for the link
 * fixes and the backticked paths alike.
 */
export async function markMoveEvidence(
  root: string,
  facts: ScanFacts,
  found: readonly MovedSignal[],
  abort?: AbortSignal,
): Promise<void> {
  const moved = found.flatMap((f) => (f.moved !== undefined ? [f.moved] : []));
  const leftBehind = await writtenBeforeMove(root, moved, (doc) => facts.docs.get(doc)?.text, abort);
  for (const { signal, moved } of found)
    if (moved !== undefined && leftBehind.has(movedKey(moved)))
      signal.data = { ...signal.data, written_before_move: true };
  markNamedElsewhere(facts, found);
}

/**
 * Marks each suggested fix whose doc also names the old path where the fix does not reach
 * (`old_path_named_elsewhere`: the first such line, from `namedElsewhere`): the
 * edit would leave the doc naming both places, so it is a person's call.
 */
function markNamedElsewhere(facts: ScanFacts, found: readonly MovedSignal[]): void {
  const byDoc = new Map<string, Omit<Signal, 'name'>[]>();
  for (const { doc, signal } of found) {
    if (signal.line === undefined || typeof signal.data?.['suggested_target'] !== 'string') continue;
    const list = byDoc.get(doc) ?? [];
    list.push(signal);
    byDoc.set(doc, list);
  }
  for (const [doc, signals] of byDoc) {
    const lines = facts.docs.get(doc)?.lines;
    if (lines === undefined) continue;
    const named = namedElsewhere(
      lines,
      signals.map((s) => ({
        line: s.line!,
        target: String(s.data!['target']),
        suggested: String(s.data!['suggested_target']),
      })),
    );
    signals.forEach((s, i) => {
      if (named[i] !== undefined) s.data = { ...s.data, old_path_named_elsewhere: named[i] };
    });
  }
}
