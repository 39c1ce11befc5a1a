import { existsSync, realpathSync, statSync } from 'node:fs';
import { join, posix, relative, resolve, sep } from 'node:path';
import ignore from 'ignore';
import picomatch from 'picomatch';
import { formatInstant } from '../../core/clock.js';
import type { Deadline } from '../../core/deadline.js';
import { discoverRepo } from '../../core/git.js';
import {
  AGENT_CONTEXT_GLOBS,
  COMPLETED_STATUSES,
  type ExcludedPath,
  type HygieneConfig,
  type ScanArtifact,
  type Signal,
  type SignalName,
  SUPERSEDED_STATUSES,
} from '../types.js';
import { listFiles, readDoc, unsafePathReason } from './files.js';
import { type HistoryChange, isPartialClone, streamHistory } from './history.js';
import { scanLifecycle } from './lifecycle.js';
import { readVersionFacts, VersionMatcher } from './manifests.js';
import { type DocRef, type ParsedDoc, parseMarkdown } from './markdown.js';

export interface ScanOptions {
  /** The project root (git toplevel, else cwd). */
  root: string;
  config: HygieneConfig;
  /** Root-relative globs, directories or files narrowing the scan. */
  scopes?: string[];
  deadline?: Deadline;
  onProgress?: (message: string) => void;
  /** Cancels the git calls. */
  signal?: AbortSignal;
  /** "Now" in epoch ms, for lifecycle ages (the injectable clock's instant). */
  nowMs?: number;
}

/** Thresholds of the history signals (exported so tests and docs can name them). */
export const THRESHOLDS = {
  /** `edit_recency_vs_churn`: commits to referenced paths since the doc's last commit. */
  churnCommits: 10,
  /** … or lines changed in them. */
  churnLines: 500,
  appendMinCommits: 5,
  appendMinRatio: 0.8,
  appendMinLines: 200,
  /** Claude Code expands `@imports` up to four hops. */
  importHops: 4,
} as const;

/** Reasons a history signal is unavailable that describe the repository, not a failure. */
export const EXPECTED_UNAVAILABLE = {
  notRepo: 'not a git repository',
  shallow: 'shallow clone: history is truncated',
  noCommits: 'no commits yet',
  partialClone: 'partial clone: file contents are fetched on demand, so history is not read',
} as const;

/** True when a history signal is missing because reading history failed (timeout, truncation, git error). */
export function isPartialScan(artifact: ScanArtifact): boolean {
  const expected: readonly string[] = Object.values(EXPECTED_UNAVAILABLE);
  return (artifact.unavailable ?? []).some((u) => !expected.includes(u.reason));
}

/** History-based signals: unavailable without a full history. */
export const HISTORY_SIGNALS: readonly SignalName[] = ['edit_recency_vs_churn', 'append_only_growth'];

const STALE_FOLDERS = new Set(['plans', 'proposals', 'drafts', 'wip', 'tmp', 'scratch', 'old', 'deprecated']);
const ARCHIVE_SEGMENTS = new Set(['archive', 'archived', '_archive', '.archive', 'attic']);
/** Every `status:` value the frontmatter_marker signal fires on. */
const DONE_STATUSES: ReadonlySet<string> = new Set([...COMPLETED_STATUSES, ...SUPERSEDED_STATUSES]);
const APPEND_ONLY_NAME = /^(?:changelog|history|news|releases)(?:[-_.]|$)|\.log\.md$/i;
const DATE_IN_NAME =
  /(?:^|[^0-9])((?:19|20)\d{2})[-_.]?(0[1-9]|1[0-2])(?:[-_.]?(0[1-9]|[12]\d|3[01]))?(?![0-9])/;
const VERSIONED_NAME = /^(.*?)[-_.]?v(\d+(?:\.\d+)*)$/i;
const EXTERNAL = /^[a-z][a-z0-9+.-]*:|^\/\//i;
const LINE_FRAGMENT = /^L\d+(?:C\d+)?(?:-L\d+(?:C\d+)?)?$/;
const MARKDOWN_EXT = /\.(?:md|mdc|markdown|mdx)$/i;

interface Doc {
  path: string;
  text: string;
  lines: string[];
  parsed: ParsedDoc;
  isAgentContext: boolean;
  importedBy?: string;
}

interface Resolved {
  /** Root-relative, normalised; '' is the root itself. */
  path: string;
  fragment: string | undefined;
  exists: boolean;
  base: 'root' | 'doc';
}

function dirOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

function baseOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

/** Normalises a scope (glob, directory or file, root-relative) into a glob. */
function scopeGlob(root: string, scope: string): string {
  const clean = toPosix(scope)
    .replace(/^\.\/+/, '')
    .replace(/\/+$/, '');
  if (clean === '' || clean === '.') return '**';
  if (picomatch.scan(clean).isGlob) return clean;
  try {
    if (statSync(join(root, clean)).isDirectory()) return `${clean}/**`;
  } catch {
    // Not on disk: a literal path that matches nothing, or a file named like a glob.
  }
  return clean;
}

/**
 * Scans the project's docs and agent-context files and returns the intermediate
 * artifact (SPEC §2.4): the shortlist, per-path signals and exclusions. Deterministic,
 * no model; git facts come from one streamed history pass.
 */
export async function scan(options: ScanOptions): Promise<ScanArtifact> {
  const root = resolve(options.root);
  const realRoot = realpathSync(root);
  const { config } = options;
  const progress = options.onProgress ?? (() => {});
  const gitOpts = { ...(options.deadline ? { deadline: options.deadline } : {}) };

  // ── Repository facts ──────────────────────────────────────────────────────
  const repo = await discoverRepo(root, options.deadline);
  const toplevel = repo?.toplevel ? realpathSync(repo.toplevel) : undefined;
  const inRepo =
    toplevel !== undefined && (realRoot === toplevel || realRoot.startsWith(`${toplevel}${sep}`));
  // Paths git log prints are toplevel-relative; the artifact's are root-relative.
  const prefix = inRepo && toplevel !== realRoot ? `${toPosix(relative(toplevel!, realRoot))}/` : '';
  const unavailable: NonNullable<ScanArtifact['unavailable']> = [];
  const markUnavailable = (reason: string) => {
    for (const signal of HISTORY_SIGNALS) unavailable.push({ signal, reason });
  };

  // ── Walk ──────────────────────────────────────────────────────────────────
  const excludedDirs = config.scan.excluded_dirs.map((d) => toPosix(d).replace(/^\.\/+|\/+$/g, ''));
  const dirNames = new Set(excludedDirs.filter((d) => !d.includes('/')));
  const dirPaths = excludedDirs.filter((d) => d.includes('/'));
  progress('listing files');
  const [listing, partialClone] = await Promise.all([
    listFiles(root, inRepo, new Set([...dirNames, '.git']), options.deadline),
    inRepo ? isPartialClone(root, options.deadline) : Promise.resolve(false),
  ]);
  const files = listing.files;
  const fileSet = new Set(files);
  const dirSet = new Set<string>(['']);
  const byName = new Map<string, string[]>();
  for (const file of files) {
    for (let d = dirOf(file); d !== '' && !dirSet.has(d); d = dirOf(d)) dirSet.add(d);
    const name = baseOf(file);
    const list = byName.get(name);
    if (list) list.push(file);
    else byName.set(name, [file]);
  }

  const globs = [...config.scan.globs, ...AGENT_CONTEXT_GLOBS.filter((g) => !config.scan.globs.includes(g))];
  const inGlobs = picomatch(globs, { dot: true });
  const isAgentContextPath = picomatch([...AGENT_CONTEXT_GLOBS], { dot: true });
  const scopes = (options.scopes ?? []).map((s) => scopeGlob(root, s));
  const inScope = scopes.length > 0 ? picomatch(scopes, { dot: true }) : () => true;
  const ignoreText = readDoc(root, realRoot, '.dochygiene-ignore');
  const ig = ignore();
  if (ignoreText.kind === 'text') ig.add(ignoreText.text);

  const excluded: ExcludedPath[] = [];
  const collapsed = new Map<string, { reason: string; count: number; detail: string }>();
  const collapse = (dir: string, reason: string, detail: string) => {
    const entry = collapsed.get(dir);
    if (entry) entry.count++;
    else collapsed.set(dir, { reason, count: 1, detail });
  };
  const excludedDirOf = (path: string): { dir: string; entry: string } | undefined => {
    const segments = path.split('/');
    for (let i = 0; i < segments.length - 1; i++) {
      if (dirNames.has(segments[i]!)) return { dir: segments.slice(0, i + 1).join('/'), entry: segments[i]! };
    }
    for (const d of dirPaths) if (path.startsWith(`${d}/`)) return { dir: d, entry: d };
    return undefined;
  };

  /** Every doc-like file in the project (scope aside), for siblings and archive counts. */
  const allDocs: string[] = [];
  const docs = new Map<string, Doc>();
  const candidates: string[] = [];
  for (const file of files) {
    if (!inGlobs(file)) continue;
    // A name no report can carry is never a doc, a sibling or a suggestion (considerDoc lists it).
    if (unsafePathReason(file) === undefined) allDocs.push(file);
    if (!inScope(file)) continue;
    candidates.push(file);
  }
  for (const dir of listing.skippedDirs) {
    if (dir === '.dochygiene')
      collapsed.set(dir, { reason: 'tool-state', count: -1, detail: 'the tool’s own state' });
    else {
      const name = dir.slice(dir.lastIndexOf('/') + 1);
      collapsed.set(dir, { reason: 'excluded-dir', count: -1, detail: `scan.excluded_dirs entry "${name}"` });
    }
  }
  for (const path of listing.ignored) {
    if (!path.endsWith('/') && inGlobs(path) && inScope(path) && !excludedDirOf(path))
      excluded.push({ path, reason: 'git-ignored' });
  }

  progress(`reading ${candidates.length} docs`);
  const considerDoc = (file: string, importedBy?: string): Doc | undefined => {
    if (file === '.dochygiene' || file.startsWith('.dochygiene/')) {
      collapse('.dochygiene', 'tool-state', 'the tool’s own state');
      return undefined;
    }
    const unsafe = unsafePathReason(file);
    if (unsafe !== undefined) {
      excluded.push({ path: file, reason: 'unsafe-name', detail: unsafe });
      return undefined;
    }
    const ex = excludedDirOf(file);
    if (ex) {
      collapse(ex.dir, 'excluded-dir', `scan.excluded_dirs entry "${ex.entry}"`);
      return undefined;
    }
    if (ig.ignores(file)) {
      excluded.push({ path: file, reason: 'dochygiene-ignore' });
      return undefined;
    }
    if (APPEND_ONLY_NAME.test(baseOf(file))) {
      excluded.push({ path: file, reason: 'append-only-log', detail: 'named like a log' });
      return undefined;
    }
    const read = readDoc(root, realRoot, file);
    if (read.kind === 'skip') {
      if (read.reason === 'not-a-file') return undefined;
      excluded.push({ path: file, reason: read.reason, ...(read.detail ? { detail: read.detail } : {}) });
      return undefined;
    }
    const parsed = parseMarkdown(read.text);
    const hygiene = parsed.frontmatter.data?.['hygiene'];
    if (hygiene === 'frozen') {
      excluded.push({ path: file, reason: 'frozen', detail: 'frontmatter hygiene: frozen' });
      return undefined;
    }
    if (hygiene === 'append-only') {
      excluded.push({ path: file, reason: 'append-only-log', detail: 'frontmatter hygiene: append-only' });
      return undefined;
    }
    const doc: Doc = {
      path: file,
      text: read.text,
      lines: parsed.lines,
      parsed,
      isAgentContext: isAgentContextPath(file),
      ...(importedBy !== undefined ? { importedBy } : {}),
    };
    docs.set(file, doc);
    return doc;
  };
  // The history pass starts now and overlaps the Markdown pass. Changes read before the docs
  // are known wait in `early` as small records; the history text itself is never held.
  const early: HistoryChange[] = [];
  let consume: ((change: HistoryChange) => void) | undefined;
  const historyRun =
    inRepo && !partialClone
      ? streamHistory(
          toplevel!,
          (change) => {
            if (consume) consume(change);
            else early.push(change);
          },
          { ...gitOpts, ...(options.signal ? { signal: options.signal } : {}) },
        )
      : undefined;
  for (let i = 0; i < candidates.length; i++) {
    considerDoc(candidates[i]!);
    // Yield now and then so that the history stream is read while the docs are parsed.
    if (historyRun && i % 64 === 63) await new Promise<void>((resolve) => setImmediate(resolve));
  }

  // ── Resolution ────────────────────────────────────────────────────────────
  const exists = (path: string): boolean =>
    path === '' || fileSet.has(path) || dirSet.has(path) || existsSync(join(root, path));
  const resolveRef = (docPath: string, ref: DocRef): Resolved | undefined => {
    const written = ref.target.trim();
    if (written === '' || EXTERNAL.test(written)) return undefined;
    const hash = written.indexOf('#');
    const beforeHash = hash === -1 ? written : written.slice(0, hash);
    const fragment = hash === -1 ? undefined : written.slice(hash + 1);
    const query = beforeHash.indexOf('?');
    const rawPath = safeDecode(query === -1 ? beforeHash : beforeHash.slice(0, query));
    if (rawPath === '') return { path: docPath, fragment, exists: true, base: 'doc' };
    const candidatesFor: { path: string; base: 'root' | 'doc' }[] = [];
    if (rawPath.startsWith('/'))
      candidatesFor.push({ path: posix.normalize(rawPath.slice(1)), base: 'root' });
    else if (ref.kind === 'code-path' && !rawPath.startsWith('./') && !rawPath.startsWith('../')) {
      candidatesFor.push({ path: posix.normalize(rawPath), base: 'root' });
      candidatesFor.push({ path: posix.join(dirOf(docPath), rawPath), base: 'doc' });
    } else candidatesFor.push({ path: posix.join(dirOf(docPath), rawPath), base: 'doc' });
    let first: Resolved | undefined;
    for (const c of candidatesFor) {
      let path = c.path.replace(/\/+$/, '');
      if (path === '.') path = '';
      if (path === '..' || path.startsWith('../')) continue;
      const r: Resolved = { path, fragment, exists: exists(path), base: c.base };
      if (r.exists) return r;
      first ??= r;
    }
    if (first && ref.kind === 'code-path') {
      // Only a path whose first folder exists is taken for a repo path (not an example or a URL path).
      const top = first.path.split('/')[0]!;
      const docTop = posix.join(dirOf(docPath), rawPath.split('/')[0]!);
      if (!dirSet.has(top) && !dirSet.has(docTop)) return undefined;
    }
    return first;
  };

  // ── Agent context and imports (up to four hops, as Claude Code expands them) ──
  const agentContext = new Set<string>();
  let frontier = [...docs.values()].filter((d) => d.isAgentContext).map((d) => d.path);
  for (const p of frontier) agentContext.add(p);
  for (let hop = 0; hop < THRESHOLDS.importHops && frontier.length > 0; hop++) {
    const next: string[] = [];
    for (const from of frontier) {
      const doc = docs.get(from);
      if (!doc) continue;
      for (const imp of doc.parsed.imports) {
        const r = resolveRef(from, imp);
        if (!r?.exists || agentContext.has(r.path) || !fileSet.has(r.path)) continue;
        agentContext.add(r.path);
        if (!docs.has(r.path)) considerDoc(r.path, from);
        else docs.get(r.path)!.importedBy ??= from;
        next.push(r.path);
      }
    }
    frontier = next;
  }

  const signals = new Map<string, Signal[]>();
  const add = (path: string, signal: Signal) => {
    const list = signals.get(path);
    if (list) list.push(signal);
    else signals.set(path, [signal]);
  };

  // ── Renames need history; broken references are resolved after it ────────
  const renames = new Map<string, string>();
  const lastCommit = new Map<string, number>();
  const growth = new Map<string, { commits: number; appendOnly: number }>();
  /** Existing non-doc paths a doc references → docs referencing them (for churn). */
  const referencedBy = new Map<string, string[]>();
  const churn = new Map<string, { commits: number; lines: number; lastCommit: number; paths: Set<string> }>();
  const inbound = new Map<string, Set<string>>();
  const resolvedRefs = new Map<string, { ref: DocRef; r: Resolved | undefined }[]>();

  for (const doc of docs.values()) {
    const refs = agentContext.has(doc.path) ? [...doc.parsed.refs, ...doc.parsed.imports] : doc.parsed.refs;
    const list: { ref: DocRef; r: Resolved | undefined }[] = [];
    const seenTargets = new Set<string>();
    for (const ref of refs) {
      const r = resolveRef(doc.path, ref);
      list.push({ ref, r });
      if (!r?.exists || r.path === doc.path) continue;
      let set = inbound.get(r.path);
      if (!set) {
        set = new Set();
        inbound.set(r.path, set);
      }
      set.add(doc.path);
      if (!inGlobs(r.path) && r.path !== '' && !seenTargets.has(r.path)) {
        seenTargets.add(r.path);
        const docsFor = referencedBy.get(r.path);
        if (docsFor) docsFor.push(doc.path);
        else referencedBy.set(r.path, [doc.path]);
      }
    }
    resolvedRefs.set(doc.path, list);
  }

  // ── One history pass ──────────────────────────────────────────────────────
  let historyOk = false;
  if (!inRepo) markUnavailable(EXPECTED_UNAVAILABLE.notRepo);
  else if (partialClone) markUnavailable(EXPECTED_UNAVAILABLE.partialClone);
  else {
    const head = repo?.isShallow ? 'shallow' : 'full';
    progress(`reading history (${early.length} file changes already read)`);
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
    for (const change of early) onChange(change);
    early.length = 0;
    consume = onChange;
    const outcome = await historyRun!;
    flush();
    if (!outcome.ok) {
      // An unborn branch has no history to read; anything else is a failure to read it.
      markUnavailable(
        /unknown revision|bad revision|does not have any commits/i.test(outcome.reason)
          ? EXPECTED_UNAVAILABLE.noCommits
          : outcome.reason,
      );
      renames.clear();
    } else if (head === 'shallow') markUnavailable(EXPECTED_UNAVAILABLE.shallow);
    else historyOk = true;
  }

  // ── Signals ───────────────────────────────────────────────────────────────
  progress('computing signals');
  const renameTarget = (path: string): string | undefined => {
    let current = path;
    for (let i = 0; i < 50; i++) {
      const next = renames.get(current);
      if (next === undefined) break;
      current = next;
    }
    return current !== path && fileSet.has(current) ? current : undefined;
  };
  const writeLike = (doc: string, ref: DocRef, r: Resolved, path: string): string => {
    const written = ref.target;
    const cut = written.search(/[?#]/);
    const suffix = cut === -1 ? '' : written.slice(cut);
    const before = cut === -1 ? written : written.slice(0, cut);
    let out: string;
    if (before.startsWith('/')) out = `/${path}`;
    else if (r.base === 'root') out = path;
    else {
      out = posix.relative(dirOf(doc), path);
      if (before.startsWith('./') && !out.startsWith('../')) out = `./${out}`;
    }
    if (before !== safeDecode(before)) out = encodeURI(out);
    return out + suffix;
  };

  for (const doc of docs.values()) {
    for (const { ref, r } of resolvedRefs.get(doc.path) ?? []) {
      if (!r) continue;
      if (!r.exists) {
        const data: Record<string, unknown> = { target: ref.target, kind: ref.kind };
        const renamed = renameTarget(r.path);
        const sameName = byName.get(baseOf(r.path))?.filter((p) => p !== r.path) ?? [];
        // A suggestion becomes a link in the doc and a path in the report: never an unsafe name.
        const found = renamed ?? (sameName.length === 1 ? sameName[0] : undefined);
        const suggestion = found !== undefined && unsafePathReason(found) === undefined ? found : undefined;
        if (suggestion !== undefined) {
          data['suggested_target'] = writeLike(doc.path, ref, r, suggestion);
          data['suggested_path'] = suggestion;
          data['suggested_by'] = renamed !== undefined ? 'rename-history' : 'unique-name';
        }
        add(doc.path, {
          name: 'broken_reference',
          line: ref.line,
          detail: `${ref.kind} target "${ref.target}" does not resolve${
            suggestion !== undefined ? `; moved to "${suggestion}"?` : ''
          }`,
          data,
        });
        continue;
      }
      if (r.fragment === undefined || r.fragment === '' || LINE_FRAGMENT.test(r.fragment)) continue;
      const target = docs.get(r.path);
      if (!target || !MARKDOWN_EXT.test(r.path)) continue;
      const wanted = safeDecode(r.fragment)
        .toLowerCase()
        .replace(/^user-content-/, '');
      if (target.parsed.anchors.has(wanted)) continue;
      add(doc.path, {
        name: 'broken_reference',
        line: ref.line,
        detail: `fragment "#${r.fragment}" matches no heading in "${r.path}"`,
        data: { target: ref.target, kind: 'fragment' },
      });
    }
  }

  // version_skew
  const matcher = new VersionMatcher(readVersionFacts(root));
  for (const doc of docs.values()) {
    const start = doc.parsed.frontmatter.endLine;
    for (let i = start; i < doc.lines.length; i++) {
      for (const claim of matcher.claims(doc.lines[i]!)) {
        add(doc.path, {
          name: 'version_skew',
          line: i + 1,
          detail: `states ${claim.subject} ${claim.stated}; ${claim.fact.manifest} has ${claim.fact.actual}`,
          data: {
            subject: claim.subject,
            stated: claim.stated,
            actual: claim.fact.actual,
            manifest: claim.fact.manifest,
            match: claim.match,
          },
        });
      }
    }
  }

  // History signals
  if (historyOk) {
    for (const [path, s] of churn) {
      const last = lastCommit.get(path);
      if (last === undefined) continue;
      if (s.commits < THRESHOLDS.churnCommits && s.lines < THRESHOLDS.churnLines) continue;
      add(path, {
        name: 'edit_recency_vs_churn',
        detail: `last edited ${formatInstant(new Date(last * 1000))}; ${s.commits} commits (${s.lines} lines) to what it references since`,
        data: {
          last_commit: formatInstant(new Date(last * 1000)),
          commits_since: s.commits,
          lines_churned: s.lines,
          referenced_paths: [...s.paths].sort(),
        },
      });
    }
    for (const [path, g] of growth) {
      const doc = docs.get(path)!;
      const lines = doc.text.endsWith('\n') ? doc.lines.length - 1 : doc.lines.length;
      const ratio = g.commits === 0 ? 0 : g.appendOnly / g.commits;
      if (g.commits < THRESHOLDS.appendMinCommits || ratio < THRESHOLDS.appendMinRatio) continue;
      if (lines < THRESHOLDS.appendMinLines) continue;
      add(path, {
        name: 'append_only_growth',
        detail: `${g.appendOnly} of ${g.commits} commits only added lines; ${lines} lines now`,
        data: { commits: g.commits, appended_ratio: Math.round(ratio * 1000) / 1000, lines },
      });
    }
  }

  // stale_name_location
  const versionGroups = new Map<string, { path: string; version: number[] }[]>();
  for (const path of allDocs) {
    const name = baseOf(path);
    const dot = name.lastIndexOf('.');
    const stem = dot > 0 ? name.slice(0, dot) : name;
    const m = VERSIONED_NAME.exec(stem);
    if (!m) continue;
    const key = `${dirOf(path)}\0${m[1]!.toLowerCase()}\0${name.slice(dot)}`;
    const version = m[2]!.split('.').map(Number);
    const list = versionGroups.get(key);
    if (list) list.push({ path, version });
    else versionGroups.set(key, [{ path, version }]);
  }
  const newerSibling = new Map<string, string>();
  for (const list of versionGroups.values()) {
    if (list.length < 2) continue;
    const newest = [...list].sort((a, b) => compareParts(b.version, a.version))[0]!;
    for (const item of list)
      if (compareParts(item.version, newest.version) < 0) newerSibling.set(item.path, newest.path);
  }
  for (const doc of docs.values()) {
    const inboundRefs = inbound.get(doc.path)?.size ?? 0;
    const segments = doc.path.split('/');
    const name = segments[segments.length - 1]!;
    const stemWords = name
      .toLowerCase()
      .replace(/\.[^.]*$/, '')
      .split(/[^a-z0-9]+/);
    const push = (reason: string, detail: string, extra: Record<string, unknown> = {}) =>
      add(doc.path, {
        name: 'stale_name_location',
        detail,
        data: { reason, ...extra, inbound_references: inboundRefs },
      });
    const folderAt = segments.slice(0, -1).findIndex((s) => STALE_FOLDERS.has(s.toLowerCase()));
    if (folderAt !== -1) {
      const folder = segments.slice(0, folderAt + 1).join('/');
      push('location', `lives under "${folder}/"`, { folder });
    }
    const date = DATE_IN_NAME.exec(name);
    if (date) push('date-in-name', `its name carries a date (${date[0].replace(/^[^0-9]/, '')})`);
    if (stemWords.includes('draft')) push('draft', 'its name says draft');
    if (stemWords.includes('old')) push('old', 'its name says old');
    const newer = newerSibling.get(doc.path);
    if (newer) push('older-version', `a newer version sits beside it: "${newer}"`, { newer_sibling: newer });
  }

  // archive_to_live_ratio
  const isArchivedMarked = (doc: Doc) => {
    const fm = doc.parsed.frontmatter.data;
    return fm?.['archived'] === true || String(fm?.['status'] ?? '').toLowerCase() === 'archived';
  };
  const archivedIn = new Map<string, number>();
  for (const path of allDocs) {
    const segments = path.split('/');
    const at = segments.slice(0, -1).findIndex((s) => ARCHIVE_SEGMENTS.has(s.toLowerCase()));
    if (at === -1) continue;
    const folder = segments.slice(0, at).join('/');
    archivedIn.set(folder, (archivedIn.get(folder) ?? 0) + 1);
  }
  const liveIn = new Map<string, number>();
  for (const doc of docs.values()) {
    const folder = dirOf(doc.path);
    if (isArchivedMarked(doc)) archivedIn.set(folder, (archivedIn.get(folder) ?? 0) + 1);
    else liveIn.set(folder, (liveIn.get(folder) ?? 0) + 1);
  }
  const isArchivePath = (path: string) => path.split('/').some((s) => ARCHIVE_SEGMENTS.has(s.toLowerCase()));
  for (const doc of docs.values()) {
    if (isArchivedMarked(doc) || isArchivePath(doc.path)) continue;
    const folder = dirOf(doc.path);
    const archived = archivedIn.get(folder) ?? 0;
    const live = liveIn.get(folder) ?? 0;
    let linksTotal = 0;
    let linksToArchive = 0;
    for (const { ref, r } of resolvedRefs.get(doc.path) ?? []) {
      if (!r?.exists || ref.kind === 'code-path' || ref.kind === 'import' || r.path === doc.path) continue;
      linksTotal++;
      if (isArchivePath(r.path)) linksToArchive++;
    }
    const folderHeavy = archived > live;
    const linksHeavy = linksTotal >= 2 && linksToArchive * 2 > linksTotal;
    if (!folderHeavy && !linksHeavy) continue;
    add(doc.path, {
      name: 'archive_to_live_ratio',
      detail: folderHeavy
        ? `its folder holds ${archived} archived and ${live} live docs`
        : `${linksToArchive} of its ${linksTotal} links point into archives`,
      data: {
        archived,
        live,
        ...(linksTotal > 0 ? { links_to_archive: linksToArchive, links_total: linksTotal } : {}),
      },
    });
  }

  // frontmatter_marker
  for (const doc of docs.values()) {
    const fm = doc.parsed.frontmatter;
    const data = fm.data;
    if (data) {
      const status = typeof data['status'] === 'string' ? data['status'].trim().toLowerCase() : undefined;
      const superseded = data['superseded_by'];
      if (status && DONE_STATUSES.has(status)) {
        add(doc.path, {
          name: 'frontmatter_marker',
          ...lineOf(fm.keyLines.get('status')),
          detail: `frontmatter status: ${status}`,
          data: {
            marker: 'status',
            value: status,
            ...(typeof superseded === 'string' ? { superseded_by: superseded } : {}),
          },
        });
      }
      if (typeof superseded === 'string' && superseded.trim() !== '') {
        add(doc.path, {
          name: 'frontmatter_marker',
          ...lineOf(fm.keyLines.get('superseded_by')),
          detail: `frontmatter superseded_by: ${superseded}`,
          data: { marker: 'superseded_by', value: superseded, superseded_by: superseded },
        });
      }
      if (data['archived'] === true) {
        add(doc.path, {
          name: 'frontmatter_marker',
          ...lineOf(fm.keyLines.get('archived')),
          detail: 'frontmatter archived: true',
          data: { marker: 'archived', value: 'true' },
        });
      }
    }
    const body = doc.parsed.bodyStatus;
    if (body && DONE_STATUSES.has(body.value)) {
      add(doc.path, {
        name: 'frontmatter_marker',
        line: body.line,
        detail: `in-body status: ${body.value}`,
        data: { marker: 'body-status', value: body.value },
      });
    }
    const tasks = doc.parsed.tasks;
    if (tasks.total >= 2 && tasks.done === tasks.total) {
      add(doc.path, {
        name: 'frontmatter_marker',
        line: tasks.firstLine,
        detail: `all ${tasks.total} tasks are ticked`,
        data: { marker: 'tasks-complete', value: `${tasks.done}/${tasks.total}` },
      });
    }
  }

  // duplicate_content
  const blockOwners = new Map<string, { path: string; start: number; end: number }[]>();
  for (const doc of docs.values()) {
    for (const b of doc.parsed.blocks) {
      const list = blockOwners.get(b.hash);
      const item = { path: doc.path, start: b.start, end: b.end };
      if (list) list.push(item);
      else blockOwners.set(b.hash, [item]);
    }
  }
  const canonicalRank = (path: string): [number, number, number, string] => [
    path.split('/').some((s) => STALE_FOLDERS.has(s.toLowerCase()) || ARCHIVE_SEGMENTS.has(s.toLowerCase()))
      ? 1
      : 0,
    agentContext.has(path) ? 1 : 0,
    path.split('/').length,
    path,
  ];
  const dupes = new Map<
    string,
    { start: number; end: number; canonical: string; cs: number; ce: number }[]
  >();
  for (const owners of blockOwners.values()) {
    const paths = new Set(owners.map((o) => o.path));
    if (paths.size < 2) continue;
    const canonicalPath = [...paths].sort((a, b) => compareRank(canonicalRank(a), canonicalRank(b)))[0]!;
    const canonical = owners.find((o) => o.path === canonicalPath)!;
    for (const o of owners) {
      if (o.path === canonicalPath) continue;
      const list = dupes.get(o.path) ?? [];
      if (list.some((d) => d.start === o.start)) continue;
      list.push({
        start: o.start,
        end: o.end,
        canonical: canonicalPath,
        cs: canonical.start,
        ce: canonical.end,
      });
      dupes.set(o.path, list);
    }
  }
  for (const [path, list] of dupes) {
    const doc = docs.get(path)!;
    list.sort((a, b) => a.start - b.start);
    const merged: typeof list = [];
    for (const d of list) {
      const prev = merged[merged.length - 1];
      const gapBlank =
        prev !== undefined &&
        prev.canonical === d.canonical &&
        doc.lines.slice(prev.end, d.start - 1).every((l) => l.trim() === '');
      if (prev && gapBlank) {
        prev.end = Math.max(prev.end, d.end);
        prev.cs = Math.min(prev.cs, d.cs);
        prev.ce = Math.max(prev.ce, d.ce);
      } else merged.push({ ...d });
    }
    for (const d of merged) {
      add(path, {
        name: 'duplicate_content',
        line: d.start,
        detail: `lines ${d.start}–${d.end} repeat "${d.canonical}" lines ${d.cs}–${d.ce}`,
        data: { canonical_ref: `${d.canonical}#L${d.cs}-L${d.ce}`, start_line: d.start, end_line: d.end },
      });
    }
  }

  // context_weight
  const budget = config.context.budget_tokens;
  // The tokenizer's tables are large: load them only when there is agent context to count.
  const { countTokens } = agentContext.size > 0 ? await import('../tokens.js') : { countTokens: () => 0 };
  const injectedTokens = new Map<string, number>();
  const tokensOf = (doc: Doc): number => {
    let tokens = injectedTokens.get(doc.path);
    if (tokens === undefined) {
      let text = doc.text;
      if (doc.parsed.commentBlocks.length > 0) {
        const drop = new Set<number>();
        for (const [s, e] of doc.parsed.commentBlocks) for (let l = s; l < e; l++) drop.add(l);
        text = doc.lines.filter((_, i) => !drop.has(i)).join('\n');
      }
      tokens = countTokens(text);
      injectedTokens.set(doc.path, tokens);
    }
    return tokens;
  };
  for (const path of agentContext) {
    const doc = docs.get(path);
    if (!doc) continue;
    const tokens = tokensOf(doc);
    if (tokens <= budget) continue;
    const always = doc.isAgentContext;
    add(path, {
      name: 'context_weight',
      detail: `≈${tokens} tokens injected ${always ? 'every session' : `via "${doc.importedBy}"`}; budget ${budget}`,
      data: {
        tokens,
        budget,
        injection: always ? 'always' : 'imported',
        ...(!always && doc.importedBy ? { imported_by: doc.importedBy } : {}),
      },
    });
  }

  // ── Artifact ──────────────────────────────────────────────────────────────
  for (const [dir, entry] of collapsed) {
    excluded.push({
      path: dir,
      reason: entry.reason,
      // count -1: a folder the walk outside a repository never entered.
      detail:
        entry.count < 0
          ? `${entry.detail}; not entered`
          : `${entry.detail}; ${entry.count} matching file${entry.count === 1 ? '' : 's'}`,
    });
  }
  excluded.sort((a, b) => cmp(a.path, b.path) || cmp(a.reason, b.reason));
  const shortlist = [...docs.keys()].sort(cmp);
  const signalsOut: Record<string, Signal[]> = {};
  for (const path of [...signals.keys()].sort(cmp)) {
    signalsOut[path] = signals
      .get(path)!
      .sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || cmp(a.name, b.name)); // stable: source order within a line
  }
  progress(`scanned ${shortlist.length} docs`);
  const lifecycle = await scanLifecycle({
    root,
    rules: config.lifecycle.rules,
    inRepo,
    walkedFiles: files,
    nowMs: options.nowMs ?? Date.now(),
    ...(options.deadline ? { deadline: options.deadline } : {}),
  });
  return {
    project_root: root,
    scope_globs: scopes.length > 0 ? scopes : globs,
    excluded_dirs: config.scan.excluded_dirs,
    files_scanned: shortlist.length,
    shortlist,
    signals: signalsOut,
    excluded,
    agent_context: [...agentContext].filter((p) => docs.has(p)).sort(cmp),
    unavailable,
    ...(config.lifecycle.rules.length > 0
      ? { lifecycle: lifecycle.units.filter((unit) => inScope(unit.path)) }
      : {}),
  };
}

function lineOf(line: number | undefined): { line?: number } {
  return line === undefined ? {} : { line };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareParts(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

function compareRank(a: [number, number, number, string], b: [number, number, number, string]): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || cmp(a[3], b[3]);
}
