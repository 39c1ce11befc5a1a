/**
 * `check`'s result cache (docs/scanner-and-classifiers.md, "The check's result"): a run
 * whose every input is as it was when a run stored its result writes that run's report
 * pair and prints its output again — the same bytes, its instant put in place of the old
 * one — without scanning. Stored in the scan cache's folder, HMAC-signed with the user's
 * key; a missing, foreign, altered or mis-shaped entry is a miss. Light on purpose: the CLI
 * asks it before it loads the scanner (`cli/check-replay.ts`).
 */
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Clock, formatInstant } from '../../core/clock.js';
import { packageRoot } from '../../core/package.js';
import { cacheKeyPath, readOrCreateCacheKey } from '../scan/cache/key.js';
import { CacheStore, cacheDirOf, maxBytesFrom, ownsCommonDir } from '../scan/cache/store.js';
import { recordProbes } from '../scan/probes.js';
import { StateStore, saveReport } from '../state/store.js';
import { userConfigPath } from '../trust.js';
import {
  gitDirInputs,
  inputsHold,
  isRunInputs,
  Observer,
  observeInputs,
  type RepoState,
  type RunInputs,
  readHead,
  readRepoState,
  SYSTEM_ATTRIBUTES_FILE,
  sameInputs,
} from './inputs.js';

/** Bumped when an entry's shape or meaning changes. */
const FORMAT = 1;

/** One `stw hygiene check` invocation, as far as its result depends on how it was asked. */
export interface CheckInvocation {
  /** The arguments after `hygiene check`. */
  argv: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** `--config FILE`, absolute. */
  configFile?: string;
}

/** What a run printed and returned, and its report pair cut at its instant. */
export interface CheckOutcome {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** The run's instant (`generated_at`). */
  instant: string;
  /** True when stdout is the `--format json` document (its `generated_at` moves with the clock). */
  stdoutIsJson: boolean;
  /** The report pair's templates when the pair was written; undefined with `--no-write`. */
  report: { json: string[]; md: string[] } | undefined;
}

interface Stored {
  format: number;
  root: string;
  inputs: RunInputs;
  report: { json: string[]; md: string[] } | null;
  stdout: string[];
  stderr: string;
  exitCode: number;
}

/** What a replayed run prints and returns. */
export interface Replayed {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Environment variables a check's result may depend on (the clock's `STW_NOW` apart: its instant is put in place). */
const ENV_NAMES =
  /^(STW_(?!NOW$)|GIT_|XDG_|LC_)|^(HOME|PATH|NO_COLOR|FORCE_COLOR|TERM|LANG|LANGUAGE|TZ|NODE_OPTIONS)$/;

/** The run's inputs are observed from its start; `finish` stores its result when they held throughout. */
export interface Recording {
  finish(outcome: CheckOutcome): Promise<void>;
  /** Ends the recording without storing. */
  abandon(): void;
}

/** Starts recording a run, or undefined where no result can be kept (no cache, no repository, no HEAD). */
export async function startRecording(invocation: CheckInvocation): Promise<Recording | undefined> {
  const opened = await openEntry(invocation);
  if (opened === undefined) return undefined;
  const { repo, store, name } = opened;
  const observer = new Observer(Date.now(), racyMs(invocation.env));
  const extra = extraInputs(invocation, repo);
  const before = await observeInputs(repo, extra, observer);
  // An input changed just now (an edit, then a check at once): nothing can be kept, so nothing is watched.
  if (before === undefined || observer.racy) return undefined;
  const probes = recordProbes(observer.sig);
  return {
    abandon: () => void probes.stop(),
    async finish(outcome) {
      const probed = probes.stop();
      const listed = new Set(before.files.map((file) => join(repo.root, file)));
      for (const [path, sig] of probed)
        if (!listed.has(path) && !(path in before.extra)) before.extra[path] = sig;
      // The inputs held from start to end (the probed paths since they were looked at), and none was too new.
      const [after, head] = await Promise.all([
        observeInputs(repo, Object.keys(before.extra), observer),
        readHead(repo.root),
      ]);
      if (after === undefined || observer.racy || head !== before.head || !sameInputs(before, after)) return;
      const stdout = stdoutTemplate(outcome);
      if (stdout === undefined) return;
      const entry: Stored = {
        format: FORMAT,
        root: repo.root,
        inputs: before,
        report: outcome.report ?? null,
        stdout,
        stderr: outcome.stderr,
        exitCode: outcome.exitCode,
      };
      store.write(name, entry);
      store.evict();
    },
  };
}

/**
 * The stored result of this invocation when every input still holds: its report pair is
 * written again (at `clock`'s instant) and its output returned; undefined otherwise, and
 * then nothing was written.
 */
export async function replayCheck(invocation: CheckInvocation, clock: Clock): Promise<Replayed | undefined> {
  const opened = await openEntry(invocation);
  if (opened === undefined) return undefined;
  const { repo, store, name } = opened;
  const stored = parseStored(store.read(name));
  if (stored === undefined || stored.root !== repo.root) return undefined;
  const observer = new Observer(0, 0);
  if (!(await inputsHold(stored.inputs, repo, observer))) return undefined;
  const instant = formatInstant(clock.now());
  if (stored.report !== null) {
    const warnings: string[] = [];
    const notSaved = await saveReport(
      new StateStore(repo.root),
      { json: stored.report.json.join(instant), md: stored.report.md.join(instant), generatedAt: instant },
      warnings,
    );
    // What the stored run did not meet (a read-only tree, a state file that cannot be stamped) is the full run's to say.
    if (notSaved !== undefined || warnings.length > 0) return undefined;
  }
  return { stdout: stored.stdout.join(instant), stderr: stored.stderr, exitCode: stored.exitCode };
}

/** The repository, the cache store and this invocation's entry name; undefined where there is no cache. */
async function openEntry(
  invocation: CheckInvocation,
): Promise<{ repo: RepoState; store: CacheStore; name: string } | undefined> {
  const { env } = invocation;
  if (env['STW_NO_CACHE'] === '1') return undefined;
  const maxBytes = maxBytesFrom(env);
  if (maxBytes === undefined) return undefined;
  // A replay that missed and the full run after it, in one process, ask git once.
  const repo = await (asked.get(invocation.cwd) ??
    asked.set(invocation.cwd, readRepoState(invocation.cwd)).get(invocation.cwd));
  if (repo === undefined) return undefined;
  if (!ownsCommonDir(resolve(invocation.cwd, repo.gitDir), resolve(invocation.cwd, repo.commonDir)))
    return undefined;
  const key = readOrCreateCacheKey(cacheKeyPath(env));
  if (key === undefined) return undefined;
  const store = CacheStore.open(cacheDirOf(repo.commonDir), key, maxBytes);
  if (store === undefined) return undefined;
  return { repo, store, name: entryName(invocation, repo) };
}

const asked = new Map<string, Promise<RepoState | undefined>>();

/** The entry's name: everything the result depends on that is not observed as a file. */
function entryName(invocation: CheckInvocation, repo: RepoState): string {
  const env = Object.entries(invocation.env)
    .filter(([name, value]) => ENV_NAMES.test(name) && value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const subject = JSON.stringify({
    kind: 'check-result',
    format: FORMAT,
    build: buildDigest(),
    node: process.version,
    argv: invocation.argv,
    cwd: invocation.cwd,
    env,
    tty: [invocation.stdoutIsTTY, invocation.stderrIsTTY],
    gitDir: repo.gitDir,
    root: repo.root,
  });
  return createHash('sha256').update(subject).digest('hex');
}

/** The files a check reads beside git's listing: its configs, its state folder's ignore file, git's settings and attributes. */
function extraInputs(invocation: CheckInvocation, repo: RepoState): string[] {
  return [
    join(repo.root, '.dochygiene.yml'),
    join(repo.root, '.dochygiene.yaml'),
    ...(invocation.configFile !== undefined ? [invocation.configFile] : []),
    userConfigPath(invocation.env),
    join(repo.root, '.dochygiene', '.gitignore'),
    ...gitDirInputs(repo),
    SYSTEM_ATTRIBUTES_FILE,
  ];
}

/** stdout cut at the run's instant: the JSON document's own `generated_at`; the other formats print none. */
function stdoutTemplate(outcome: CheckOutcome): string[] | undefined {
  if (!outcome.stdoutIsJson) return [outcome.stdout];
  // The document's top-level key: a line of its own, indented by two spaces (a string holds no raw newline).
  const slot = `\n  "generated_at": ${JSON.stringify(outcome.instant)}`;
  const parts = outcome.stdout.split(slot);
  if (parts.length !== 2) return undefined;
  return [`${parts[0]}\n  "generated_at": "`, `"${parts[1]}`];
}

/** A stored value of the right shape, or undefined. */
function parseStored(value: unknown): Stored | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Partial<Stored>;
  const strings = (x: unknown): x is string[] => Array.isArray(x) && x.every((s) => typeof s === 'string');
  const report = v.report as Stored['report'] | undefined;
  if (
    v.format !== FORMAT ||
    typeof v.root !== 'string' ||
    !isRunInputs(v.inputs) ||
    !(report === null || (typeof report === 'object' && strings(report.json) && strings(report.md))) ||
    !strings(v.stdout) ||
    typeof v.stderr !== 'string' ||
    !Number.isInteger(v.exitCode)
  )
    return undefined;
  return v as Stored;
}

/** Tests shrink the window in which a change is too recent to trust (`STW_TEST_RACY_MS`, with `STW_TEST_HOOKS=1`). */
function racyMs(env: NodeJS.ProcessEnv): number | undefined {
  const ms = env['STW_TEST_HOOKS'] === '1' ? env['STW_TEST_RACY_MS'] : undefined;
  return ms !== undefined && /^\d+$/.test(ms) ? Number(ms) : undefined;
}

let build: string | undefined;

/**
 * The installed build: every file of `dist/src` (path, size, modification time) and the
 * package manifest. A rebuild misses even under the same version number.
 */
function buildDigest(): string {
  if (build !== undefined) return build;
  const root = packageRoot();
  const hash = createHash('sha256');
  const add = (path: string) => {
    try {
      const info = statSync(path);
      hash.update(`${path}\0${info.size}\0${info.mtimeMs}\n`);
    } catch {
      hash.update(`${path}\0-\n`);
    }
  };
  add(join(root, 'package.json'));
  add(join(root, 'package-lock.json'));
  const dist = join(root, 'dist', 'src');
  for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true }))
    if (entry.isFile() && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.map'))
      add(join(entry.parentPath, entry.name));
  build = hash.digest('hex');
  return build;
}
