import { realpathSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import type { Deadline } from '../../core/deadline.js';
import { discoverRepo, isOwnershipRefused, shallowDepth } from '../../core/git.js';
import { CONFIG_FILE } from '../config.js';
import type { ScannedDocuments } from '../references.js';
import type { ExcludedPath, HygieneConfig, ScanArtifact, Signal, SignalName } from '../types.js';
import { AGENT_CONTEXT_GLOBS } from '../types.js';
import { openScanCache, type ScanCache } from './cache/index.js';
import { WhoLoads } from './context/who-loads.js';
import { collectFacts, expandAgentContext, type ScanFacts } from './facts.js';
import type { UnsafeName } from './files.js';
import { isPartialClone } from './history.js';
import { type HistoryFacts, HistoryReader, NO_HISTORY } from './history-facts.js';
import { scanLifecycle } from './lifecycle.js';
import { globsMatcher } from './lifecycle-glob.js';
import { readVersionFacts } from './manifests.js';
import { defaultParseWorkers, parseWorkersFromEnv, THREADS_START_AFTER } from './parse-pool.js';
import { cmp, MARKDOWN_EXT, toPosix } from './paths.js';
import { codePathCandidates } from './resolve.js';
import { HISTORY_SIGNALS, SIGNAL_MODULES, type SignalInput, type SignalModule } from './signals/index.js';
import { readSites, unbuiltFolders } from './site/index.js';
import { withhold } from './suppress/index.js';
import { docGlobs, ProjectWalk } from './walk.js';

export { HISTORY_SIGNALS } from './signals/index.js';
export { THRESHOLDS } from './thresholds.js';

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
  /** Parsing threads besides this one (0: none); by default one per spare core, for a large enough scan. */
  parseWorkers?: number;
  /** "Now" in epoch ms, for lifecycle ages (the injectable clock's instant). */
  nowMs?: number;
  /** `--signals all`: show the classes hidden by default or by `signals: {NAME: off}`. */
  showAllSignals?: boolean;
  /** Classes shown even when hidden: those `--fail-on` names (the gate counts what it was asked for). */
  showSignals?: readonly SignalName[];
  /** `--report-unused-suppressions`: list the directives and config entries that silenced nothing. */
  reportUnusedSuppressions?: boolean;
  /** False (`--no-cache`): read and parse everything; by default the cache under the git dir serves what did not change. */
  cache?: boolean;
  /** Where the cache key and `STW_CACHE_MAX_MIB` are read; default: this process's. */
  env?: NodeJS.ProcessEnv;
}

const isAgentContextFile = picomatch([...AGENT_CONTEXT_GLOBS], { dot: true });

/** Reasons a history signal is unavailable that describe the repository, not a failure. */
export const EXPECTED_UNAVAILABLE = {
  notRepo: 'not a git repository',
  shallow: 'shallow clone: history is truncated',
  noCommits: 'no commits yet',
  partialClone: 'partial clone: file contents are fetched on demand, so history is not read',
} as const;

/** Not expected: history is lost to a setting (the scan is partial, and says how to fix it). */
const OWNERSHIP_REFUSED =
  'git refuses this repository: another user owns it (add it to safe.directory in the global or system git config)';

/** True when a history signal is missing because reading history failed (timeout, truncation, git error). */
export function isPartialScan(artifact: ScanArtifact): boolean {
  const expected: readonly string[] = Object.values(EXPECTED_UNAVAILABLE);
  return (artifact.unavailable ?? []).some((u) => !expected.includes(u.reason));
}

/**
 * Scans the project's docs and agent-context files and returns the intermediate
 * artifact (docs/scanner-and-classifiers.md): the shortlist, per-path signals and exclusions. Deterministic,
 * no model. The stages: walk (listing, exclusions, one parse per doc) → shared facts
 * (agent context, every reference resolved once) → one history pass → each signal module.
 */
export async function scan(options: ScanOptions): Promise<ScanArtifact> {
  const result = await scanWithDocuments(options);
  result.saveCache();
  result.saveTokenCounts();
  return result.artifact;
}

/** A scan's artifact, and the listing and docs it read (what `check` proves link fixes against). */
export interface ScanResult {
  artifact: ScanArtifact;
  documents: ScannedDocuments;
  /**
   * Stores what this scan (and the caller, through `documents.parseText`) parsed and read
   * anew, when the cache is on: call it once, when done.
   */
  saveCache: () => void;
  /** Stores the token counts made since the scan began (the caller's too), when the cache is on; once, when done counting. */
  saveTokenCounts: () => void;
}

/** `scan`, also handing back what it read, so that a caller need not list, read or parse it again. */
export async function scanWithDocuments(options: ScanOptions): Promise<ScanResult> {
  const { config } = options;
  const progress = options.onProgress ?? (() => {});
  const place = await locate(options);
  const { root, realRoot, repo, inRepo } = place;

  progress('listing files');
  const { walk, cache, partialClone, history } = await listBesideHistory(options, place);

  progress(`reading ${walk.candidates.length} docs`);
  await parseDocs(walk, history, options.parseWorkers);
  const agentContext = expandAgentContext(walk);
  const facts = collectFacts(walk, agentContext);

  const read = await readHistory({ options, place, partialClone, history, facts, progress });
  const { unavailable, growth } = read;
  const depth = inRepo && repo?.isShallow ? await shallowDepth(root, options.deadline) : undefined;

  // What each agent loads (context/agents.ts); the tokenizer loads only when some agent has a file.
  const files = walk.tree.files;
  const agents = files.some((file) => isAgentContextFile(file))
    ? (await import('./context/index.js')).readAgentContexts(root, realRoot, files)
    : [];

  if (cache) {
    const { hits, misses } = cache.parse.counts;
    progress(
      `cache: ${hits} docs reused, ${misses} parsed; history ${cache.history?.served ?? 'not cached'}`,
    );
  }
  progress('computing signals');
  const inScope = walk.scopes.length > 0 ? picomatch(walk.scopes, { dot: true }) : () => true;
  const {
    signals,
    withheld,
    history: historyFacts,
  } = await shownSignals(options, {
    facts,
    history: read.history,
    growth,
    config,
    agents,
    root,
    inScope,
  });

  const shortlist = [...facts.docs.keys()].sort(cmp);
  progress(`scanned ${shortlist.length} docs`);
  // Lifecycle rules walk every file, not only docs (docs/lifecycle.md).
  const lifecycle = await scanLifecycle({
    root,
    rules: config.lifecycle.rules,
    inRepo,
    walkedFiles: walk.tree.files,
    nowMs: options.nowMs ?? Date.now(),
    ...(options.deadline ? { deadline: options.deadline } : {}),
  });
  const artifact: ScanArtifact = {
    project_root: root,
    scope_globs: walk.scopes.length > 0 ? walk.scopes : walk.globs,
    excluded_dirs: config.scan.excluded_dirs,
    files_scanned: shortlist.length,
    shortlist,
    signals: sortSignals(signals),
    ...aliasesOf(shortlist, facts),
    excluded: withUnsafeNames(walk.exclusions.list(), lifecycle.unsafe),
    agent_context: [...agentContext].filter((p) => facts.docs.has(p)).sort(cmp),
    ...(depth !== undefined ? { history: { shallow: true as const, depth } } : {}),
    unavailable,
    ...(config.lifecycle.rules.length > 0
      ? { lifecycle: lifecycle.units.filter((unit) => inScope(unit.path)) }
      : {}),
    ...(historyFacts.incomplete.length > 0 ? { history_incomplete: [...historyFacts.incomplete] } : {}),
    ...unbuiltOfScan(facts, inScope),
    agents,
    withheld,
  };
  return {
    artifact,
    // In a repository the listing is git's (`git ls-files`), the one a doc world would make.
    documents: { ...(inRepo ? { gitListing: files } : {}), docs: walk.docs, ...cacheHooks(cache).parsing },
    ...cacheHooks(cache).saving,
  };
}

/** Where a scan runs: its root (and real path), the repository holding it, if any. */
interface ScanPlace {
  root: string;
  realRoot: string;
  repo: Awaited<ReturnType<typeof discoverRepo>>;
  /** The repository's toplevel, real path. */
  toplevel: string | undefined;
  /** The root is the toplevel or inside it. */
  inRepo: boolean;
  /** The root's toplevel-relative path with a trailing `/` ('' at the toplevel): git log's paths are toplevel-relative. */
  prefix: string;
}

async function locate(options: ScanOptions): Promise<ScanPlace> {
  const root = resolve(options.root);
  const realRoot = realpathSync(root);
  const repo = await discoverRepo(root, options.deadline);
  const toplevel = repo?.toplevel ? realpathSync(repo.toplevel) : undefined;
  const inRepo =
    toplevel !== undefined && (realRoot === toplevel || realRoot.startsWith(`${toplevel}${sep}`));
  // Paths git log prints are toplevel-relative; the artifact's are root-relative.
  const prefix = inRepo && toplevel !== realRoot ? `${toPosix(relative(toplevel!, realRoot))}/` : '';
  return { root, realRoot, repo, toplevel, inRepo, prefix };
}

/**
 * Lists the project (opening the cache first) while the history pass starts beside it: the
 * walk, the cache, and the history reader (none outside a repository or in a partial clone).
 */
async function listBesideHistory(
  options: ScanOptions,
  place: ScanPlace,
): Promise<{
  walk: ProjectWalk;
  cache: ScanCache | undefined;
  partialClone: boolean;
  history: HistoryReader | undefined;
}> {
  const { root, realRoot, repo, toplevel, inRepo, prefix } = place;
  const { config } = options;
  // The history pass starts as soon as it is known to be safe (no partial clone), beside the
  // listing: it is the longest thing a scan waits for besides parsing. Blob ids are read for
  // docs only: a doc matches the globs, or is Markdown reached otherwise.
  const inGlobs = globsMatcher(docGlobs(config));
  const mayBeDoc = (path: string) =>
    path.startsWith(prefix) && (inGlobs(path.slice(prefix.length)) || MARKDOWN_EXT.test(path));
  const cache: ScanCache | undefined =
    options.cache !== false && inRepo && repo
      ? openScanCache({
          config,
          scopes: options.scopes ?? [],
          prefix,
          gitDir: repo.gitDir,
          commonDir: repo.commonDir,
          isShallow: repo.isShallow,
          mayBeDoc,
          ...(options.env ? { env: options.env } : {}),
        })
      : undefined;
  const startHistory = async () => {
    const partialClone = inRepo ? await isPartialClone(root, options.deadline) : false;
    const history =
      inRepo && !partialClone
        ? new HistoryReader(
            toplevel!,
            {
              ...(options.deadline ? { deadline: options.deadline } : {}),
              ...(options.signal ? { signal: options.signal } : {}),
            },
            mayBeDoc,
            cache?.history,
          )
        : undefined;
    return { partialClone, history };
  };
  const [walk, { partialClone, history }] = await Promise.all([
    ProjectWalk.list({
      root,
      realRoot,
      inRepo,
      config,
      ...(options.scopes ? { scopes: options.scopes } : {}),
      ...(options.deadline ? { deadline: options.deadline } : {}),
      ...(cache ? { parseCache: cache.parse } : {}),
    }),
    startHistory(),
  ]);
  return { walk, cache, partialClone, history };
}

/** Reads and parses every candidate doc, yielding now and then to the history stream. */
async function parseDocs(
  walk: ProjectWalk,
  history: HistoryReader | undefined,
  parseWorkers: number | undefined,
): Promise<void> {
  // Parsing is most of a scan: spare cores parse too, while this thread reads the history stream.
  // Threads the caller or STW_PARSE_WORKERS asks for start at once; by default they start
  // only once enough text is waiting to be parsed (none when the cache serves it).
  const asked = parseWorkers ?? parseWorkersFromEnv();
  await walk.readAhead(
    asked ?? defaultParseWorkers(walk.candidates.length),
    asked === undefined ? THREADS_START_AFTER : 0,
  );
  for (let i = 0; i < walk.candidates.length; i++) {
    walk.readDocument(walk.candidates[i]!);
    // Yield now and then so that the history stream is read while the docs are parsed.
    if (history && i % 64 === 63) await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * Finishes the history pass over the docs: the history facts but growth, growth still being
 * read, and why the history signals are unavailable (none when history was read whole).
 */
async function readHistory(inputs: {
  options: ScanOptions;
  place: ScanPlace;
  partialClone: boolean;
  history: HistoryReader | undefined;
  facts: ScanFacts;
  progress: (message: string) => void;
}): Promise<{
  history: HistoryFacts;
  growth: Promise<Pick<HistoryFacts, 'growth' | 'incomplete'>>;
  unavailable: NonNullable<ScanArtifact['unavailable']>;
}> {
  const { options, place, partialClone, history, facts, progress } = inputs;
  const { root, repo, inRepo, prefix } = place;
  const unavailable: NonNullable<ScanArtifact['unavailable']> = [];
  const markUnavailable = (reason: string) => {
    for (const signal of HISTORY_SIGNALS) unavailable.push({ signal, reason });
  };
  let historyFacts: HistoryFacts = NO_HISTORY;
  /** Growth and incomplete paths, still being read when the other history facts are known. */
  let growth: Promise<Pick<HistoryFacts, 'growth' | 'incomplete'>> = Promise.resolve({
    growth: NO_HISTORY.growth,
    incomplete: NO_HISTORY.incomplete,
  });
  if (!inRepo)
    markUnavailable(
      repo === undefined && (await isOwnershipRefused(root, options.deadline))
        ? OWNERSHIP_REFUSED
        : EXPECTED_UNAVAILABLE.notRepo,
    );
  else if (partialClone) markUnavailable(EXPECTED_UNAVAILABLE.partialClone);
  else {
    progress(`reading history (${history!.buffered} file changes already read)`);
    const read = await history!.aggregate(facts.docs, facts.referencedBy, prefix, {
      lineCounts: !repo?.isShallow,
      wanted: unresolvedTargets(facts),
    });
    const { outcome } = read;
    const complete = outcome.ok && !repo?.isShallow;
    historyFacts = { ...read.facts, growth: new Map(), incomplete: [], complete };
    growth = read.growth;
    // Awaited after the signals that need no growth: a rejection meanwhile must not count as
    // unhandled (which would end the process before the await reports it).
    growth.catch(() => {});
    if (!outcome.ok) {
      // An unborn branch has no history to read; anything else is a failure to read it.
      markUnavailable(
        /unknown revision|bad revision|does not have any commits/i.test(outcome.reason)
          ? EXPECTED_UNAVAILABLE.noCommits
          : outcome.reason,
      );
    } else if (repo?.isShallow) markUnavailable(EXPECTED_UNAVAILABLE.shallow);
  }
  return { history: historyFacts, growth, unavailable };
}

/**
 * The signals shown (`computeSignals`, then what scan/suppress withholds), the count of those
 * withheld, and the history facts with their growth.
 */
async function shownSignals(
  options: ScanOptions,
  inputs: Parameters<typeof computeSignals>[0],
): Promise<{
  signals: Map<string, Signal[]>;
  withheld: ReturnType<typeof withhold>['withheld'];
  history: HistoryFacts;
}> {
  const { config, facts } = inputs;
  const computed = await computeSignals(inputs);
  // Hidden classes and suppressed findings are counted, never shown (scan/suppress).
  const { shown: signals, withheld } = withhold({
    signals: computed.signals,
    docs: facts.docs,
    config,
    configSource: config.source ?? CONFIG_FILE,
    showAll: options.showAllSignals === true,
    ...(options.showSignals !== undefined ? { show: options.showSignals } : {}),
    reportUnused: options.reportUnusedSuppressions === true,
  });
  return { signals, withheld, history: computed.history };
}

/**
 * What a scan's result calls on its cache, made apart from `scanWithDocuments`: a closure made
 * there would hold that function's whole scope (every doc and fact of the scan) for as long
 * as the result is kept, long after `check` lets the documents go.
 */
function cacheHooks(cache: ScanCache | undefined): {
  parsing: Pick<ScannedDocuments, 'parseText'>;
  saving: Pick<ScanResult, 'saveCache' | 'saveTokenCounts'>;
} {
  return {
    parsing: cache ? { parseText: (text: string) => cache.parse.parseText(text) } : {},
    saving: { saveCache: () => cache?.save(), saveTokenCounts: () => cache?.saveTokens() },
  };
}

/** The walk's exclusions plus the names the lifecycle walk left out (`unsafe-name`), each once. */
/** The site content folders no build reads that hold a scanned doc in scope (`unbuilt`), if any. */
function unbuiltOfScan(facts: ScanFacts, inScope: (path: string) => boolean): Pick<ScanArtifact, 'unbuilt'> {
  const docs = [...facts.docs.keys()].filter(inScope);
  const unbuilt = unbuiltFolders(readSites(facts.tree.root, facts.tree.files)).filter((u) =>
    docs.some((d) => d.startsWith(`${u.path}/`)),
  );
  return unbuilt.length > 0 ? { unbuilt } : {};
}

function withUnsafeNames(excluded: ExcludedPath[], unsafe: readonly UnsafeName[]): ExcludedPath[] {
  const listed = new Set(excluded.filter((e) => e.reason === 'unsafe-name').map((e) => e.path));
  const more = unsafe
    .filter(({ path }) => !listed.has(path))
    .map(({ path, detail }): ExcludedPath => ({ path, reason: 'unsafe-name', detail }));
  if (more.length === 0) return excluded;
  return [...excluded, ...more].sort((a, b) => cmp(a.path, b.path) || cmp(a.reason, b.reason));
}

/**
 * Runs every signal module: those that need no growth while the versions of docs are still
 * being read (`growth`), then the history ones when the history is complete. Returns the
 * signals by path and the history facts with their growth.
 */
async function computeSignals(inputs: {
  facts: ScanFacts;
  history: HistoryFacts;
  growth: Promise<Pick<HistoryFacts, 'growth' | 'incomplete'>>;
  config: ScanOptions['config'];
  agents: SignalInput['agents'];
  root: string;
  inScope: SignalInput['inScope'];
}): Promise<{ signals: Map<string, Signal[]>; history: HistoryFacts }> {
  const { facts, growth, config, agents, root, inScope } = inputs;
  const wantsManifests = SIGNAL_MODULES.some((m) => m.needs.includes('manifests'));
  const input: SignalInput = {
    facts,
    history: inputs.history,
    manifests: wantsManifests ? readVersionFacts(root) : [],
    config,
    agents,
    whoLoads: new WhoLoads(agents),
    inScope,
  };
  const signals = new Map<string, Signal[]>();
  const collect = async (module: SignalModule, from: SignalInput) =>
    module.collect(from, (path, signal) => {
      const named: Signal = { name: module.name, ...signal };
      const list = signals.get(path);
      if (list) list.push(named);
      else signals.set(path, [named]);
    });
  // The modules that need no growth run while the versions of docs are still being read; the
  // order of modules does not show in the artifact (`sortSignals`).
  const needsHistory = (module: SignalModule) => module.needs.includes('history');
  for (const module of SIGNAL_MODULES) if (!needsHistory(module)) await collect(module, input);
  const historyFacts: HistoryFacts = { ...inputs.history, ...(await growth) };
  for (const module of SIGNAL_MODULES)
    if (needsHistory(module) && historyFacts.complete)
      await collect(module, { ...input, history: historyFacts });
  return { signals, history: historyFacts };
}

/** The artifact's `aliases`: each scanned real file reached by other paths too (none: no key). */
function aliasesOf(shortlist: readonly string[], facts: ScanFacts): { aliases?: Record<string, string[]> } {
  const out: Record<string, string[]> = {};
  for (const path of shortlist) {
    const aliases = facts.docs.get(path)!.aliases;
    if (aliases.length > 0) out[path] = [...aliases];
  }
  return Object.keys(out).length > 0 ? { aliases: out } : {};
}

/**
 * The paths unresolved references point at (for a backticked path, every place it may
 * mean): history may show they existed here — a code path meant for this repository, or a
 * link target that was deleted rather than moved.
 */
function unresolvedTargets(facts: ScanFacts): Set<string> {
  const wanted = new Set<string>();
  for (const [doc, refs] of facts.resolvedRefs) {
    for (const { ref, r } of refs) {
      if (!r || r.exists) continue;
      if (ref.kind === 'code-path') for (const p of codePathCandidates(doc, ref.target)) wanted.add(p);
      else wanted.add(r.path);
    }
  }
  return wanted;
}

/** Paths in order; a path's signals by line, then name, source order within a line. */
function sortSignals(signals: Map<string, Signal[]>): Record<string, Signal[]> {
  const out: Record<string, Signal[]> = {};
  for (const path of [...signals.keys()].sort(cmp)) {
    out[path] = signals.get(path)!.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || cmp(a.name, b.name));
  }
  return out;
}
