import { realpathSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Deadline } from '../../core/deadline.js';
import { discoverRepo } from '../../core/git.js';
import { type ParsedDoc, parseMarkdown } from '../scan/markdown.js';
import type { ScanArtifact } from '../types.js';
import { referencedPath } from './dedupe.js';
import { findGeneratedDocs } from './generated.js';
import type { ReadText } from './rules.js';

/** What the rules classifier needs to know about the project beyond the scan's signals. */
export interface ClassifierFacts {
  /** The real file behind a path, root-relative (symlinks resolved); undefined when it cannot be read. */
  realPath: (path: string) => string | undefined;
  isGenerated: (path: string) => boolean;
  linksTo: (from: string, to: string) => boolean;
  /** `parseMarkdown(text)` of the doc at `path`: the scan's parse when it read the same text, else made once. */
  parse: (path: string, text: string) => ParsedDoc;
}

/**
 * Gathers the facts for `classifyWithRules` from the project on disk: generated docs
 * among the shortlist, real paths, and which doc links to which (read lazily, once per doc).
 * `scanned` holds the scan's parse of each doc it read: a doc whose text is still exactly
 * that text is not parsed again.
 */
export async function gatherClassifierFacts(
  artifact: ScanArtifact,
  readText: ReadText,
  deadline?: Deadline,
  scanned?: ReadonlyMap<string, { text: string; parsed: ParsedDoc }>,
): Promise<ClassifierFacts> {
  const root = artifact.project_root;
  const safeRead = (path: string) => {
    try {
      return readText(path);
    } catch {
      return undefined;
    }
  };
  const repo = await discoverRepo(root, deadline);
  // A generated-file marker is looked for in the text the scan read (a leading BOM, which the
  // scan drops, never decides it), so the shortlist is not read a second time for it.
  const generated = await findGeneratedDocs(
    root,
    artifact.shortlist,
    (path) => scanned?.get(path)?.text ?? safeRead(path),
    repo !== undefined,
    deadline,
  );
  let realRoot: string | undefined;
  const realPath = (path: string): string | undefined => {
    try {
      realRoot ??= realpathSync(root);
      const real = realpathSync(join(root, path));
      const rel = relative(realRoot, real);
      return rel.startsWith('..') ? undefined : rel.split(sep).join('/');
    } catch {
      return undefined;
    }
  };
  const parses = new Map<string, { text: string; parsed: ParsedDoc }>();
  const parse = (path: string, text: string): ParsedDoc => {
    const known = parses.get(path) ?? scanned?.get(path);
    if (known !== undefined && known.text === text) return known.parsed;
    const parsed = parseMarkdown(text);
    parses.set(path, { text, parsed });
    return parsed;
  };
  const targets = new Map<string, Set<string>>();
  const linksTo = (from: string, to: string): boolean => {
    let set = targets.get(from);
    if (set === undefined) {
      set = new Set();
      const text = safeRead(from);
      if (text !== undefined) {
        for (const ref of parse(from, text).refs) {
          if (ref.kind === 'code-path') continue;
          const path = referencedPath(from, ref.target);
          if (path !== undefined) set.add(path);
        }
      }
      targets.set(from, set);
    }
    return set.has(to);
  };
  return { realPath, isGenerated: (path) => generated.has(path), linksTo, parse };
}
