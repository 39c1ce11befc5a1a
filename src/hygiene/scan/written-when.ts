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
import { readBlobs } from './history.js';

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
export const movedKey = (r: Pick<MovedReference, 'doc' | 'line' | 'path'>): string =>
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
