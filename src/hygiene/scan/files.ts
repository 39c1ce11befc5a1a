import { lstatSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { Deadline } from '../../core/deadline.js';
import { OperationalError } from '../../core/errors.js';
import { excludesFileArgs, git, splitNul, userExcludesFile } from '../../core/git.js';
import { describeOutcome } from '../../core/run.js';
import { noteProbe } from './probes.js';

/** Cap on the file listing: generous, but a listing that hits it is an error, never a partial scan. */
const LIST_MAX_BYTES = 512 * 1024 * 1024;

export interface FileListing {
  /** Every file in the project, root-relative and `/`-separated (git's view when in a repo). */
  files: string[];
  /** Ignored files and directories git reports (`dir/` for a directory), for the exclusion list. */
  ignored: string[];
  /** Directories the walk did not enter (outside a repository only). */
  skippedDirs: string[];
  /** The listed paths that are symbolic links (to a file or a folder, inside the root or not). */
  symlinks: string[];
  source: 'git' | 'walk';
}

/**
 * Lists the project's files. In a repository, one `git ls-files` applies git's exact
 * ignore rules (tracked plus untracked-not-ignored, the user's global excludes file included); outside one, a walk that never
 * descends into `skipDirs` and never follows a symlinked directory.
 */
export async function listFiles(
  root: string,
  inRepo: boolean,
  skipDirs: ReadonlySet<string>,
  deadline?: Deadline,
): Promise<FileListing> {
  if (!inRepo) {
    const skippedDirs: string[] = [];
    const symlinks: string[] = [];
    return {
      files: walk(root, skipDirs, skippedDirs, symlinks),
      ignored: [],
      skippedDirs,
      symlinks,
      source: 'walk',
    };
  }
  const options = { cwd: root, maxBytes: LIST_MAX_BYTES, ...(deadline ? { deadline } : {}) };
  // The user's global excludes file, as `git status` honours it (observation drops global config).
  const excludes = excludesFileArgs(await userExcludesFile(root, deadline));
  const [listed, ignored, staged] = await Promise.all([
    git(
      [...excludes, 'ls-files', '-z', '--cached', '--others', '--exclude-standard', '--deduplicate'],
      options,
    ),
    git(
      [
        ...excludes,
        'ls-files',
        '-z',
        '--others',
        '--ignored',
        '--exclude-standard',
        '--directory',
        '--no-empty-directory',
      ],
      options,
    ),
    // Modes of the tracked files: a symlink is mode 120000 (cheaper than an lstat per file).
    git(['ls-files', '-z', '--stage'], options),
  ]);
  if (listed.kind !== 'exited' || listed.code !== 0)
    throw new OperationalError('git-failed', describeOutcome(listed, 'git ls-files'));
  if (staged.kind !== 'exited' || staged.code !== 0)
    throw new OperationalError('git-failed', describeOutcome(staged, 'git ls-files --stage'));
  const files = splitNul(listed.stdout);
  return {
    files,
    ignored: ignored.kind === 'exited' && ignored.code === 0 ? splitNul(ignored.stdout) : [],
    skippedDirs: [],
    symlinks: listedSymlinks(root, files, splitNul(staged.stdout)),
    source: 'git',
  };
}

/**
 * The listed paths that are symlinks: tracked ones by their index mode, untracked ones by
 * an lstat (they are few). A tracked path whose work-tree file changed type is read by its
 * index mode; reading the doc checks the disk again.
 */
function listedSymlinks(root: string, files: readonly string[], staged: readonly string[]): string[] {
  const tracked = new Set<string>();
  const links = new Set<string>();
  for (const line of staged) {
    const tab = line.indexOf('\t');
    if (tab === -1) continue;
    const path = line.slice(tab + 1);
    tracked.add(path);
    if (line.startsWith('120000 ')) links.add(path);
  }
  for (const file of files) {
    if (tracked.has(file)) continue;
    try {
      if (lstatSync(join(root, file)).isSymbolicLink()) links.add(file);
    } catch {
      // Gone since the listing: nothing to resolve.
    }
  }
  return files.filter((file) => links.has(file));
}

function walk(root: string, skipDirs: ReadonlySet<string>, skipped: string[], symlinks: string[]): string[] {
  const out: string[] = [];
  const stack: string[] = [''];
  while (stack.length > 0) {
    const rel = stack.pop()!;
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(rel === '' ? root : join(root, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!skipDirs.has(entry.name)) stack.push(child);
        else if (entry.name !== '.git') skipped.push(child);
      } else if (entry.isFile()) out.push(child);
      else if (entry.isSymbolicLink()) {
        out.push(child);
        symlinks.push(child);
      }
    }
  }
  symlinks.sort();
  return out.sort();
}

/**
 * Why a listed path cannot appear in a report, or undefined when it can. Mirrors the
 * report schema's `relativePath` pattern `^(?!/)(?!.*(^|/)\.\.(/|$)).+$`, whose `.` (a
 * `u`-flag RegExp without `s`) matches everything except the four JavaScript line
 * terminators. Tabs, other controls, spaces and any other Unicode are acceptable there.
 */
export function unsafePathReason(path: string): string | undefined {
  if (path === '') return 'its name is empty';
  const terminator = /[\n\r\u2028\u2029]/.exec(path);
  if (terminator) {
    const code = terminator[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return `its name contains a line break (U+${code}), which a report path cannot carry`;
  }
  if (path.startsWith('/')) return 'its name starts with "/"';
  if (/(?:^|\/)\.\.(?:\/|$)/.test(path)) return 'its name has a ".." segment';
  return undefined;
}

/**
 * Why a listed path cannot be part of a lifecycle unit, or undefined when it can: what
 * `unsafePathReason` refuses, and what a proposal's path may not hold (a control character,
 * a `\\`; `isSafeRelativePath`). A unit is named by a proposal, so a file of such a name
 * matched by a rule would otherwise make every check fail its own proposals; it is left
 * out instead, as a line break is (docs/lifecycle.md).
 */
export function unsafeUnitPathReason(path: string): string | undefined {
  const reason = unsafePathReason(path);
  if (reason !== undefined) return reason;
  const control = /[\u0000-\u001f\u007f]/.exec(path);
  if (control) {
    const code = control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return `its name contains a control character (U+${code}), which a proposal path cannot carry`;
  }
  if (path.includes('\\')) return 'its name contains "\\", which a proposal path cannot carry';
  return undefined;
}

/** A listed path left out of every walk because a report could not carry its name. */
export interface UnsafeName {
  path: string;
  /** `unsafePathReason`'s words. */
  detail: string;
}

/**
 * Splits a listing by `unsafePathReason`, the one predicate every walker applies (the doc
 * walk, the lifecycle walk, apply's re-listing of a unit): what is kept, and what is left
 * out, to be reported as `unsafe-name` rather than carried into a report.
 */
export function withoutUnsafeNames<T>(
  items: readonly T[],
  pathOf: (item: T) => string,
  reasonOf: (path: string) => string | undefined = unsafePathReason,
): { kept: T[]; unsafe: UnsafeName[] } {
  const kept: T[] = [];
  const unsafe: UnsafeName[] = [];
  for (const item of items) {
    const detail = reasonOf(pathOf(item));
    if (detail === undefined) kept.push(item);
    else unsafe.push({ path: pathOf(item), detail });
  }
  return { kept, unsafe };
}

export type ReadOutcome =
  | { kind: 'text'; text: string; bytes: Buffer }
  | {
      kind: 'skip';
      reason: 'binary' | 'not-utf8' | 'symlink-outside-root' | 'not-a-file' | 'too-large' | 'unreadable';
      detail?: string;
    };

/** Claude Code skips context files over 4 MiB; a doc that big is not a doc. */
export const MAX_DOC_BYTES = 4 * 1024 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads one file safely: a symlink is followed only when it resolves inside the root;
 * binary (a NUL byte) and non-UTF-8 content are reported, never thrown.
 */
export function readDoc(root: string, realRoot: string, rel: string): ReadOutcome {
  const full = join(root, rel);
  noteProbe(full);
  let stat: import('node:fs').Stats;
  try {
    stat = lstatSync(full);
    if (stat.isSymbolicLink()) {
      const real = realpathSync(full);
      noteProbe(real);
      const inside = relative(realRoot, real);
      if (inside === '') return { kind: 'skip', reason: 'not-a-file' };
      if (inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside))
        return { kind: 'skip', reason: 'symlink-outside-root', detail: real };
      stat = lstatSync(real);
    }
  } catch (error) {
    // Tracked but deleted in the work tree: nothing to scan.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'skip', reason: 'not-a-file' };
    return { kind: 'skip', reason: 'unreadable', detail: (error as Error).message };
  }
  if (!stat.isFile()) return { kind: 'skip', reason: 'not-a-file' };
  if (stat.size > MAX_DOC_BYTES) return { kind: 'skip', reason: 'too-large', detail: `${stat.size} bytes` };
  let bytes: Buffer;
  try {
    bytes = readFileSync(full);
  } catch (error) {
    return { kind: 'skip', reason: 'unreadable', detail: (error as Error).message };
  }
  if (bytes.subarray(0, 8000).includes(0)) return { kind: 'skip', reason: 'binary' };
  try {
    let text = utf8.decode(bytes);
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    return { kind: 'text', text, bytes };
  } catch {
    return { kind: 'skip', reason: 'not-utf8' };
  }
}

/**
 * The text of a repository file the scan reads beside the docs (a site generator's config, a
 * module or layout it names), read as a doc is (`readDoc`): a committed symlink out of the
 * tree (to `/dev/zero`, `/dev/tty`, a file of the user's), something other than a regular
 * file, a file over `MAX_DOC_BYTES`, binary or not UTF-8 gives nothing.
 */
export function readTreeText(root: string, rel: string): string | undefined {
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    return undefined;
  }
  const read = readDoc(root, realRoot, rel);
  return read.kind === 'text' ? read.text : undefined;
}

/**
 * Each listed file that `isConfig` picks (a site generator's config), read and turned into a
 * value by `read`; a file that cannot be read (`readTreeText`), or that `read` declines, gives none.
 */
export function readConfigs<T>(
  root: string,
  files: readonly string[],
  isConfig: (file: string) => boolean,
  read: (file: string, text: string) => T | undefined,
): T[] {
  const out: T[] = [];
  for (const file of files) {
    if (!isConfig(file)) continue;
    const text = readTreeText(root, file);
    if (text === undefined) continue;
    const value = read(file, text);
    if (value !== undefined) out.push(value);
  }
  return out;
}
