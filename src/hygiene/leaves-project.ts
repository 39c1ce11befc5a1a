/**
 * References that leave the project (docs/trust.md, "References out of the project"): an
 * agent-context file that says `@~/.ssh/id_rsa` or `@../../etc/passwd` makes Claude Code
 * load that file into every session. No edit the tool writes — a distill, or an exact edit
 * whoever proposed it (rules, a model, a `--proposals` file) — may add one.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, join, posix, relative, sep } from 'node:path';
import { type DocRef, importTokens, parseMarkdown, type RefKind } from './scan/markdown.js';
import { dirOf, safeDecode } from './scan/paths.js';
import { EXTERNAL } from './scan/resolve.js';

/**
 * Why a reference written in `docPath` leads out of the project, or undefined when it stays
 * in (or is a URL): a `~` path, an absolute path to an `@import` (Claude Code reads both on
 * the user's disk), a path climbing above the root, or one a symlink leads out of it.
 */
export function leavesProject(
  root: string,
  docPath: string,
  target: string,
  kind: RefKind,
): string | undefined {
  const written = target.trim();
  if (written.startsWith('~')) return 'a path in a home folder';
  if (/^file:/i.test(written)) return 'a file: URL';
  if (kind === 'import' && written.startsWith('/')) return 'an absolute path';
  if (written === '' || EXTERNAL.test(written)) return undefined;
  const path = safeDecode(kind === 'import' ? written : written.replace(/[?#].*$/, ''));
  const joined = posix.normalize(path.startsWith('/') ? path.slice(1) : posix.join(dirOf(docPath), path));
  if (joined === '..' || joined.startsWith('../')) return 'a path above the project root';
  let real: string;
  try {
    real = realpathSync(join(root, joined));
  } catch {
    return undefined; // Nothing there: whether it resolves is the resolver's question.
  }
  const inside = relative(realpathSync(root), real);
  if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside))
    return 'a path a symlink leads out of the project';
  return undefined;
}

/** Links, images, definitions, HTML links, `@imports` and backticked paths written in `text`. */
export function referencesIn(text: string): DocRef[] {
  const parsed = parseMarkdown(text);
  return [...parsed.refs, ...parsed.imports];
}

/**
 * Why `after` (text that replaces `before` in `docPath`) references something out of the
 * project that `before` did not, or undefined: an `@import` token anywhere, or a link, an
 * image, a definition, an HTML link or a backticked path.
 */
export function newReferenceOutOfProject(
  root: string,
  docPath: string,
  before: string,
  after: string,
): string | undefined {
  const hadImports = new Set(importTokens(before));
  for (const token of importTokens(after)) {
    if (hadImports.has(token)) continue;
    const out = leavesProject(root, docPath, token, 'import');
    if (out !== undefined) return `@${token} leads out of the project (${out})`;
  }
  const had = new Set(referencesIn(before).map((ref) => `${ref.kind}\0${ref.target}`));
  for (const ref of referencesIn(after)) {
    if (had.has(`${ref.kind}\0${ref.target}`)) continue;
    const out = leavesProject(root, docPath, ref.target, ref.kind);
    if (out !== undefined)
      return `${ref.kind} target ${JSON.stringify(ref.target)} leads out of the project (${out})`;
  }
  return undefined;
}
