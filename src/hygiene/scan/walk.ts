import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch';
import type { Deadline } from '../../core/deadline.js';
import { AGENT_CONTEXT_GLOBS, type ExcludedPath, type HygieneConfig } from '../types.js';
import type { ParseCache } from './cache/parse-cache.js';
import { listFiles, type ReadOutcome, readDoc, unsafePathReason } from './files.js';
import { globsMatcher } from './lifecycle-glob.js';
import { type ParsedDoc, parseMarkdown } from './markdown.js';
import { ParsePool } from './parse-pool.js';
import { baseOf, cmp, dirOf, toPosix } from './paths.js';
import { noteProbe } from './probes.js';
import type { PathLookup } from './resolve.js';
import { type RealPath, SymlinkMap } from './symlinks.js';

/** One scanned document: its text, parsed once, shared by every signal. */
export interface Doc {
  path: string;
  text: string;
  readonly lines: string[];
  parsed: ParsedDoc;
  /** It or one of its aliases matches an agent-context glob (loaded every session), as opposed to imported by one. */
  isAgentContext: boolean;
  importedBy?: string;
  /** The other paths (symlinks, paths through symlinked folders) that lead to this real file. */
  aliases: readonly string[];
}

/** A `Doc` whose lines are its parse's, split when asked for (`withLines`): a scan holds each doc's text, not its lines too. */
class ScannedDoc implements Doc {
  declare importedBy?: string;

  constructor(
    readonly path: string,
    readonly text: string,
    readonly parsed: ParsedDoc,
    readonly isAgentContext: boolean,
    readonly aliases: readonly string[],
  ) {}

  get lines(): string[] {
    return this.parsed.lines;
  }
}

/** The project's file tree as the scan sees it: every listed file and the folders above them. */
export class ProjectTree implements PathLookup {
  readonly fileSet: ReadonlySet<string>;
  readonly dirSet: ReadonlySet<string>;
  /** File name → the listed paths with that name. */
  readonly byName: ReadonlyMap<string, readonly string[]>;
  private readonly readmes = new Map<string, string>();

  constructor(
    readonly root: string,
    readonly files: readonly string[],
    /** Every listed symlink, resolved once (an empty map when there are none). */
    readonly symlinks: SymlinkMap = new SymlinkMap(root, root, [], files),
  ) {
    const dirs = new Set<string>(['']);
    const byName = new Map<string, string[]>();
    for (const file of files) {
      for (let d = dirOf(file); d !== '' && !dirs.has(d); d = dirOf(d)) dirs.add(d);
      const name = baseOf(file);
      const list = byName.get(name);
      if (list) list.push(file);
      else byName.set(name, [file]);
    }
    this.fileSet = new Set(files);
    this.dirSet = dirs;
    this.byName = byName;
    for (const file of files) {
      if (!README.test(baseOf(file))) continue;
      const dir = dirOf(file);
      const known = this.readmes.get(dir);
      // GitHub shows README.md first; among other spellings, the first in code-unit order.
      if (
        known === undefined ||
        (baseOf(known) !== 'README.md' && (baseOf(file) === 'README.md' || file < known))
      )
        this.readmes.set(dir, file);
    }
  }

  /** The path through symlinks to its real file inside the root, or the link that leads out or nowhere. */
  realPathOf(path: string): RealPath {
    return this.symlinks.realPathOf(path);
  }

  /** The README GitHub renders for `dir` ('' is the root). */
  readmeOf(dir: string): string | undefined {
    const readme = this.readmes.get(dir);
    if (readme === undefined) return undefined;
    const real = this.realPathOf(readme);
    return 'path' in real ? real.path : undefined;
  }

  isFile(path: string): boolean {
    return this.fileSet.has(path);
  }

  isDir(path: string): boolean {
    return this.dirSet.has(path);
  }

  /** Listed, a folder of listed files, or on disk (an ignored file a doc links to still exists). */
  exists(path: string): boolean {
    if (path === '' || this.fileSet.has(path) || this.dirSet.has(path)) return true;
    noteProbe(path, this.root);
    return existsSync(join(this.root, path));
  }
}

/** What was left out of the scan and why; folders are collapsed into one entry each. */
export class Exclusions {
  private readonly entries: ExcludedPath[] = [];
  private readonly collapsed = new Map<string, { reason: string; count: number; detail: string }>();

  add(entry: ExcludedPath): void {
    this.entries.push(entry);
  }

  /** Counts one more file under an excluded folder. */
  collapse(dir: string, reason: string, detail: string): void {
    const entry = this.collapsed.get(dir);
    if (entry) entry.count++;
    else this.collapsed.set(dir, { reason, count: 1, detail });
  }

  /** A folder the walk outside a repository never entered. */
  notEntered(dir: string, reason: string, detail: string): void {
    this.collapsed.set(dir, { reason, count: -1, detail });
  }

  /** The artifact's `excluded`, sorted. */
  list(): ExcludedPath[] {
    const out = [...this.entries];
    for (const [dir, entry] of this.collapsed) {
      out.push({
        path: dir,
        reason: entry.reason,
        detail:
          entry.count < 0
            ? `${entry.detail}; not entered`
            : `${entry.detail}; ${entry.count} matching file${entry.count === 1 ? '' : 's'}`,
      });
    }
    return out.sort((a, b) => cmp(a.path, b.path) || cmp(a.reason, b.reason));
  }
}

export interface WalkOptions {
  root: string;
  realRoot: string;
  inRepo: boolean;
  config: HygieneConfig;
  scopes?: string[];
  deadline?: Deadline;
  /** Parse facts by blob id (cache/parse-cache.ts): a doc read before is not parsed again. */
  parseCache?: ParseCache;
}

const README = /^readme\.(?:md|markdown|mdx)$/i;
/** A log by its name: `CHANGELOG.md`, `HISTORY.rst`, `NEWS`, `RELEASES.md`, `release-notes.md` (fastapi's), `deploy.log.md`. */
const APPEND_ONLY_NAME = /^(?:changelog|history|news|releases|release[-_]?notes)(?:[-_.]|$)|\.log\.md$/i;
/**
 * A folder whose files are release notes, one per version (`changelogs/0.1.x.md`): each is a
 * log. Not its README, which says what the folder is (or documents a changelog tool).
 */
const LOG_FOLDER = /(?:^|\/)(?:changelogs?|release[-_]?notes)\//i;

/**
 * The listing and the exclusion pipeline (docs/scanner-and-classifiers.md): which files are docs, which of them
 * are in scope, and `readDocument`, which reads and parses one doc unless it is excluded.
 */
export class ProjectWalk {
  readonly docs = new Map<string, Doc>();
  readonly exclusions = new Exclusions();
  /** Every doc-like file in the project, scope aside (siblings, archive counts). */
  readonly allDocs: string[] = [];
  /** The doc-like files in scope, in listing order: what the scan reads. */
  readonly candidates: string[] = [];
  readonly globs: string[];
  readonly scopes: string[];
  readonly inGlobs: (path: string) => boolean;
  /** Each path read so far → its doc, or null when it is not one (read once, excluded once). */
  private readonly settled = new Map<string, Doc | null>();
  /** Candidates read and parsed ahead (`readAhead`), until `readDocument` takes them. */
  private readonly ahead = new Map<string, { read: ReadOutcome; parsed?: ParsedDoc }>();
  private readonly isAgentContextPath: (path: string) => boolean;
  private readonly dirNames: ReadonlySet<string>;
  private readonly dirPaths: readonly string[];
  /** `.dochygiene-ignore`'s rules; undefined without the file (nothing is asked then). */
  private readonly ignore: Ignore | undefined;
  private readonly excludedByFolder = new Map<string, { dir: string; entry: string } | null>();

  private constructor(
    private readonly options: WalkOptions,
    readonly tree: ProjectTree,
  ) {
    const { config } = options;
    const excludedDirs = config.scan.excluded_dirs.map((d) => toPosix(d).replace(/^\.\/+|\/+$/g, ''));
    this.dirNames = new Set(excludedDirs.filter((d) => !d.includes('/')));
    this.dirPaths = excludedDirs.filter((d) => d.includes('/'));
    this.globs = docGlobs(config);
    this.inGlobs = globsMatcher(this.globs);
    this.isAgentContextPath = picomatch([...AGENT_CONTEXT_GLOBS], { dot: true });
    this.scopes = (options.scopes ?? []).map((s) => scopeGlob(options.root, s));
    const ignoreText = readDoc(options.root, options.realRoot, '.dochygiene-ignore');
    this.ignore = ignoreText.kind === 'text' ? ignore().add(ignoreText.text) : undefined;
  }

  /** Lists the project's files and sorts them into docs, candidates and exclusions. */
  static async list(options: WalkOptions): Promise<ProjectWalk> {
    const excludedNames = new Set(
      options.config.scan.excluded_dirs
        .map((d) => toPosix(d).replace(/^\.\/+|\/+$/g, ''))
        .filter((d) => !d.includes('/')),
    );
    const listing = await listFiles(
      options.root,
      options.inRepo,
      new Set([...excludedNames, '.git']),
      options.deadline,
    );
    const symlinks = new SymlinkMap(options.root, options.realRoot, listing.symlinks, listing.files);
    const walk = new ProjectWalk(options, new ProjectTree(options.root, listing.files, symlinks));
    const inScope = walk.scopes.length > 0 ? picomatch(walk.scopes, { dot: true }) : () => true;
    for (const file of listing.files) {
      if (!walk.inGlobs(file)) continue;
      // A name no report can carry is never a doc, a sibling or a suggestion (readDocument lists it);
      // a symlink is another path to a file already counted, or to none.
      if (unsafePathReason(file) === undefined && !symlinks.links.has(file)) walk.allDocs.push(file);
      if (inScope(file)) walk.candidates.push(file);
    }
    for (const dir of listing.skippedDirs) {
      if (dir === '.dochygiene') walk.exclusions.notEntered(dir, 'tool-state', 'the tool’s own state');
      else walk.exclusions.notEntered(dir, 'excluded-dir', `scan.excluded_dirs entry "${baseOf(dir)}"`);
    }
    for (const path of listing.ignored) {
      if (!path.endsWith('/') && walk.inGlobs(path) && inScope(path) && !walk.excludedDirOf(path))
        walk.exclusions.add({ path, reason: 'git-ignored' });
    }
    return walk;
  }

  /** The `scan.excluded_dirs` folder `path` lies under, if any (answered once per folder). */
  private excludedDirOf(path: string): { dir: string; entry: string } | undefined {
    const dir = dirOf(path);
    let answer = this.excludedByFolder.get(dir);
    if (answer === undefined) {
      answer = this.excludedDirOfFolder(dir) ?? null;
      this.excludedByFolder.set(dir, answer);
    }
    return answer ?? undefined;
  }

  /** `excludedDirOf` for a folder ('' is the root): the folder itself counts. */
  private excludedDirOfFolder(folder: string): { dir: string; entry: string } | undefined {
    if (folder === '') return undefined;
    const path = `${folder}/`;
    const segments = path.split('/');
    for (let i = 0; i < segments.length - 1; i++) {
      if (this.dirNames.has(segments[i]!))
        return { dir: segments.slice(0, i + 1).join('/'), entry: segments[i]! };
    }
    for (const d of this.dirPaths) if (path.startsWith(`${d}/`)) return { dir: d, entry: d };
    return undefined;
  }

  /**
   * Reads and parses one doc into `docs`, or records why it is excluded. A path through a
   * symlink is read once under its real path and becomes one of its aliases; a symlink out
   * of the root or to nothing is never followed.
   */
  readDocument(file: string, importedBy?: string): Doc | undefined {
    const settled = this.settled.get(file);
    if (settled !== undefined) {
      if (settled !== null && importedBy !== undefined) settled.importedBy ??= importedBy;
      return settled ?? undefined;
    }
    const doc = this.settle(file, importedBy);
    this.settled.set(file, doc ?? null);
    return doc;
  }

  /**
   * Reads and parses the candidates that are read as they are (no exclusion by name, no
   * symlink) ahead of `readDocument`, on `workers` parsing threads besides this one. The
   * threads parse while the rest is read (`ParsePool`), and start once `startAfter` characters
   * are waiting to be parsed (the cache serves the others).
   */
  async readAhead(workers: number, startAfter = 0): Promise<void> {
    const { parseCache } = this.options;
    const pool = new ParsePool(workers, startAfter);
    const queued: { path: string; read: ReadOutcome & { kind: 'text' }; at: number; oid?: string }[] = [];
    for (const file of this.candidates) {
      if (this.settled.has(file) || this.ahead.has(file) || this.exclusionByName(file) !== undefined)
        continue;
      const real = this.tree.realPathOf(file);
      if (!('path' in real) || real.path !== file) continue;
      const read = readDoc(this.options.root, this.options.realRoot, file);
      if (read.kind !== 'text') {
        this.ahead.set(file, { read });
        continue;
      }
      const cached = parseCache?.lookUpRead(read);
      if (cached?.parsed !== undefined) this.ahead.set(file, { read, parsed: cached.parsed });
      else queued.push({ path: file, read, at: pool.add(read.text), ...(cached ? { oid: cached.oid } : {}) });
      await pool.yieldIfDue();
    }
    const parsed = await pool.finish();
    for (const { path, read, at, oid } of queued) {
      const facts = parsed[at]!;
      this.ahead.set(path, { read, parsed: oid !== undefined ? parseCache!.keep(oid, facts) : facts });
    }
  }

  /** Why `file` is left out by its name or place alone, as an action on `exclusions`; undefined when it is not. */
  private exclusionByName(file: string): (() => void) | undefined {
    const { exclusions } = this;
    if (file === '.dochygiene' || file.startsWith('.dochygiene/'))
      return () => exclusions.collapse('.dochygiene', 'tool-state', 'the tool’s own state');
    const unsafe = unsafePathReason(file);
    if (unsafe !== undefined)
      return () => exclusions.add({ path: file, reason: 'unsafe-name', detail: unsafe });
    const ex = this.excludedDirOf(file);
    if (ex)
      return () => exclusions.collapse(ex.dir, 'excluded-dir', `scan.excluded_dirs entry "${ex.entry}"`);
    if (this.ignore?.ignores(file)) return () => exclusions.add({ path: file, reason: 'dochygiene-ignore' });
    if (APPEND_ONLY_NAME.test(baseOf(file)))
      return () => exclusions.add({ path: file, reason: 'append-only-log', detail: 'named like a log' });
    if (LOG_FOLDER.test(file) && !README.test(baseOf(file)))
      return () =>
        exclusions.add({ path: file, reason: 'append-only-log', detail: 'in a folder of release notes' });
    return undefined;
  }

  private settle(file: string, importedBy?: string): Doc | undefined {
    const { exclusions } = this;
    const byName = this.exclusionByName(file);
    if (byName !== undefined) {
      byName();
      return undefined;
    }
    const real = this.tree.realPathOf(file);
    if ('unresolved' in real) {
      const outside = real.unresolved === 'outside-root';
      const via = real.link === file ? '' : `through "${real.link}", `;
      exclusions.add({
        path: file,
        reason: outside ? 'symlink-outside-root' : 'dangling-symlink',
        detail: `${via}${outside ? real.target : `to "${real.target}"`}`,
      });
      return undefined;
    }
    if (real.path !== file) {
      const doc = this.readDocument(real.path, importedBy);
      if (doc === undefined && this.tree.isFile(real.path))
        exclusions.add({ path: file, reason: 'symlink-to-excluded', detail: real.path });
      return doc;
    }
    const ahead = this.ahead.get(file);
    this.ahead.delete(file);
    const read = ahead?.read ?? readDoc(this.options.root, this.options.realRoot, file);
    if (read.kind === 'skip') {
      if (read.reason === 'not-a-file') return undefined;
      exclusions.add({ path: file, reason: read.reason, ...(read.detail ? { detail: read.detail } : {}) });
      return undefined;
    }
    const parsed = ahead?.parsed ?? this.options.parseCache?.parse(read) ?? parseMarkdown(read.text);
    const hygiene = parsed.frontmatter.data?.['hygiene'];
    if (hygiene === 'frozen') {
      exclusions.add({ path: file, reason: 'frozen', detail: 'frontmatter hygiene: frozen' });
      return undefined;
    }
    if (hygiene === 'append-only') {
      exclusions.add({ path: file, reason: 'append-only-log', detail: 'frontmatter hygiene: append-only' });
      return undefined;
    }
    const aliases = this.tree.symlinks.aliasesOf(file);
    const doc = new ScannedDoc(
      file,
      read.text,
      parsed,
      this.isAgentContextPath(file) || aliases.some((alias) => this.isAgentContextPath(alias)),
      aliases,
    );
    if (importedBy !== undefined) doc.importedBy = importedBy;
    this.docs.set(file, doc);
    return doc;
  }
}

/** The globs a doc matches: the configured ones and every agent-context file's. */
export function docGlobs(config: HygieneConfig): string[] {
  return [...config.scan.globs, ...AGENT_CONTEXT_GLOBS.filter((g) => !config.scan.globs.includes(g))];
}

/** Normalises a scope (glob, directory or file, root-relative) into a glob. */
function scopeGlob(root: string, scope: string): string {
  const clean = toPosix(scope)
    .replace(/^\.\/+/, '')
    .replace(/\/+$/, '');
  if (clean === '' || clean === '.') return '**';
  if (picomatch.scan(clean).isGlob) return clean;
  noteProbe(clean, root);
  try {
    if (statSync(join(root, clean)).isDirectory()) return `${clean}/**`;
  } catch {
    // Not on disk: a literal path that matches nothing, or a file named like a glob.
  }
  return clean;
}
