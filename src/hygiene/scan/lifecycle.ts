/**
 * Lifecycle rules (docs/lifecycle.md): which matched files and folders have outlived their
 * purpose. This walk is separate from the doc walk, because rules may match any file. It
 * never walks what git ignores, and it reads only facts code can prove: tracked state, a
 * dirty check, last-commit times, mtimes and the existence of a `served_when_path`.
 */
import { createHash } from 'node:crypto';
import { constants, lstatSync, realpathSync } from 'node:fs';
import { lstat, open, readlink } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { realPathWithin } from '../../core/confined-fs.js';
import type { Deadline } from '../../core/deadline.js';
import { ConfigError, OperationalError } from '../../core/errors.js';
import { git, gitOk, splitNul } from '../../core/git.js';
import { describeOutcome } from '../../core/run.js';
import type { LifecycleKind, LifecycleRule } from '../types.js';
import { type UnsafeName, unsafeUnitPathReason, withoutUnsafeNames } from './files.js';
import { ruleMatcher } from './lifecycle-glob.js';

const MS_PER_DAY = 86_400_000;
const LIST_MAX_BYTES = 512 * 1024 * 1024;

/** What a rule decided for one unit (a matched file, or a whole matched directory). */
export type LifecycleDecision =
  /** temporary: ranked below `retain_recent` and older than `max_age_days`. */
  | 'eligible'
  /** temporary: among the `retain_recent` newest. */
  | 'retain-recent'
  /** temporary: ranked below `retain_recent` but not yet older than `max_age_days`. */
  | 'too-young'
  /** delete-once-served: the `served_when_path` exists. */
  | 'served'
  /** delete-once-served: the `served_when_path` does not exist. */
  | 'not-served'
  /** delete-once-served by `served_when`: only a model or a person can judge it. */
  | 'needs-judgment'
  /** lifetime `keep`: reported, never deleted. */
  | 'keep';

/**
 * `commit`: the newest commit of its tracked files; `mtime`: the newest mtime of its files
 * (an untracked unit). `dir-stat` (a folder's own mtime) is no longer made, but reports
 * made before may carry it.
 */
export type AgeSource = 'commit' | 'mtime' | 'dir-stat';

/** One lifecycle unit as the scan artifact carries it. */
export interface LifecycleUnit {
  path: string;
  rule: string;
  lifetime: LifecycleKind;
  type: 'file' | 'directory';
  decision: LifecycleDecision;
  /** Every file of the unit is tracked (a folder with some untracked files is tracked and dirty). */
  tracked: boolean;
  /** Some file of the unit differs from HEAD, is staged, or is untracked inside a tracked folder. */
  dirty: boolean;
  age_days: number;
  age_source: AgeSource;
  /** temporary only: 1 is the newest unit of its rule. */
  rank?: number;
  /** The files git lists in the unit (tracked and untracked-not-ignored). */
  files: number;
  /**
   * A unit that may be deleted (eligible, served, needs-judgment): sha256 over each of its
   * files' path, tracked state, kind, mode and bytes (`unitDigest`); apply re-checks it.
   */
  content_digest?: string;
  /** The evidence, in one line a person can check. */
  evidence: string;
  served_path?: string;
  served_when?: string;
  extract?: 'repo' | 'cross-repo';
}

export interface LifecycleScan {
  units: LifecycleUnit[];
  /** Files a rule matches whose names no report can carry: left out, reported as `unsafe-name`. */
  unsafe: UnsafeName[];
}

interface ListedFile {
  path: string;
  /** `mode oid` from the index, absent when untracked. */
  indexed?: string;
}

/** The project's files as lifecycle rules see them: tracked plus untracked-not-ignored. */
export interface LifecycleListing {
  files: ListedFile[];
  /** Tracked paths whose worktree or index differs from HEAD. */
  changed: Set<string>;
  inRepo: boolean;
  /** Listed paths left out because a report could not carry their names (`withoutUnsafeNames`). */
  unsafe: UnsafeName[];
}

/** Ranks one temporary rule's units newest first and says which are eligible (pure). */
export function rankTemporary<T extends { path: string; ageDays: number }>(
  units: readonly T[],
  retainRecent: number,
  maxAgeDays: number,
): { unit: T; rank: number; decision: 'eligible' | 'retain-recent' | 'too-young' }[] {
  const ordered = [...units].sort((a, b) => a.ageDays - b.ageDays || (a.path < b.path ? -1 : 1));
  return ordered.map((unit, index) => {
    const rank = index + 1;
    const decision =
      rank <= retainRecent ? 'retain-recent' : unit.ageDays > maxAgeDays ? 'eligible' : 'too-young';
    return { unit, rank, decision };
  });
}

/** The rule's matched units: a file rule matches files; a directory rule its outermost matched folders. */
export function matchUnits(rule: LifecycleRule, paths: readonly string[]): Map<string, string[]> {
  const isMatch = ruleMatcher(rule.match);
  const units = new Map<string, string[]>();
  for (const path of paths) {
    if (rule.type === 'file') {
      if (isMatch(path)) units.set(path, [path]);
      continue;
    }
    // Outermost first: a folder inside a matched folder is part of that unit, never its own.
    for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) {
      const dir = path.slice(0, slash);
      if (!isMatch(dir)) continue;
      const members = units.get(dir) ?? [];
      members.push(path);
      units.set(dir, members);
      break;
    }
  }
  return units;
}

/** `{name}` and `{stem}` of a unit, substituted into a `served_when_path` relative to its parent. */
export function servedPathFor(unitPath: string, template: string): string | undefined {
  const name = posix.basename(unitPath);
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const filled = template.replaceAll('{name}', name).replaceAll('{stem}', stem);
  const joined = posix.normalize(posix.join(posix.dirname(unitPath), filled));
  if (joined === '..' || joined.startsWith('../') || posix.isAbsolute(filled)) return undefined;
  return joined === '.' ? undefined : joined.replace(/\/$/, '');
}

/** Lists the files lifecycle rules may match, in two bounded git calls plus one status. */
export async function listForLifecycle(
  root: string,
  inRepo: boolean,
  fallbackFiles: readonly string[],
  deadline?: Deadline,
): Promise<LifecycleListing> {
  if (!inRepo) {
    const { kept, unsafe } = withoutUnsafeNames(fallbackFiles, (path) => path, unsafeUnitPathReason);
    return { files: kept.map((path) => ({ path })), changed: new Set(), inRepo, unsafe };
  }
  const options = { cwd: root, maxBytes: LIST_MAX_BYTES, ...(deadline ? { deadline } : {}) };
  const [staged, others, status] = await Promise.all([
    gitOk(['ls-files', '-z', '--stage'], options),
    gitOk(['ls-files', '-z', '--others', '--exclude-standard'], options),
    gitOk(['status', '-z', '--porcelain=v1', '--untracked-files=no', '--no-renames'], options),
  ]);
  const indexed = new Map<string, ListedFile>();
  for (const record of splitNul(staged)) {
    // `<mode> <oid> <stage>\t<path>`; a conflicted path has several stages: keep every one.
    const tab = record.indexOf('\t');
    const path = record.slice(tab + 1);
    const entry = record.slice(0, tab);
    const existing = indexed.get(path);
    if (existing) existing.indexed = `${existing.indexed} ${entry}`;
    else indexed.set(path, { path, indexed: entry });
  }
  const files = [...indexed.values()];
  for (const path of splitNul(others)) if (!indexed.has(path)) files.push({ path });
  const changed = new Set<string>();
  for (const record of splitNul(status)) if (record.length > 3) changed.add(record.slice(3));
  const { kept, unsafe } = withoutUnsafeNames(files, (file) => file.path, unsafeUnitPathReason);
  return {
    files: kept.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    changed,
    inRepo,
    unsafe,
  };
}

/** Last-commit time (seconds) of each path under the rules' matches: one `git log` pass. */
export async function lastCommitTimes(
  root: string,
  rules: readonly LifecycleRule[],
  deadline?: Deadline,
): Promise<Map<string, number>> {
  const pathspecs = rules.flatMap((rule) =>
    rule.type === 'file' ? [`:(glob)${rule.match}`] : [`:(glob)${rule.match}/**`],
  );
  const result = await git(
    ['log', '-z', '--no-renames', '--format=%x01%ct', '--name-only', 'HEAD', '--', ...pathspecs],
    { cwd: root, maxBytes: LIST_MAX_BYTES, ...(deadline ? { deadline } : {}) },
  );
  const times = new Map<string, number>();
  if (result.kind !== 'exited') throw new OperationalError('git-failed', describeOutcome(result, 'git log'));
  // An unborn HEAD has no history: every path then ages by its mtime.
  if (result.code !== 0) return times;
  // `-z` output: `\x01<ct>` NUL, then `\n` before the first name, names NUL-separated.
  let current = 0;
  let afterHeader = false;
  for (const field of splitNul(result.stdout)) {
    if (field.startsWith('\x01')) {
      current = Number(field.slice(1));
      afterHeader = true;
      continue;
    }
    const path = afterHeader && field.startsWith('\n') ? field.slice(1) : field;
    afterHeader = false;
    if (path !== '' && !times.has(path)) times.set(path, current);
  }
  return times;
}

/**
 * What one file is now, for `unitDigest`: its kind and mode as `lstat` sees them and a sha256
 * of its bytes (of a symlink, of the text it points to). Never follows a link, and never
 * opens anything but a regular file (a FIFO would block).
 */
async function fingerprint(absolute: string): Promise<string> {
  let stats: import('node:fs').Stats;
  try {
    stats = await lstat(absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  const hash = createHash('sha256');
  if (stats.isSymbolicLink())
    return `link ${stats.mode} ${hash.update(await readlink(absolute)).digest('hex')}`;
  if (!stats.isFile()) return `other ${stats.mode}`;
  const handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    for await (const chunk of handle.createReadStream({ autoClose: false })) hash.update(chunk as Buffer);
  } finally {
    await handle.close();
  }
  return `file ${stats.mode} ${hash.digest('hex')}`;
}

/**
 * The digest apply re-checks (`content_digest`, docs/lifecycle.md): for each file of the
 * unit in path order, its path, whether it is tracked, its kind, its mode and its bytes.
 * Any edit, `chmod`, new, removed or (un)tracked file since check changes it, whatever
 * the file's mtime says. Staging does not: a WIP checkpoint keeps the same bytes.
 */
export async function unitDigest(
  root: string,
  members: readonly { path: string; tracked: boolean }[],
  deadline?: Deadline,
): Promise<string> {
  const hash = createHash('sha256');
  for (const file of [...members].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    if (deadline?.isExpired)
      throw new OperationalError('timed-out', `ran out of time reading the lifecycle unit file ${file.path}`);
    const seen = await fingerprint(join(root, file.path));
    hash.update(`${file.path}\0${file.tracked ? 'tracked' : 'untracked'}\0${seen}\0`);
  }
  return hash.digest('hex');
}

interface UnitFacts {
  path: string;
  rule: LifecycleRule;
  members: ListedFile[];
  tracked: boolean;
  dirty: boolean;
  ageDays: number;
  ageSource: AgeSource;
}

/** How a path's own mtime is read: one `lstat`, injectable so tests can prove what is read. */
export type StatMtime = (absolute: string) => number;
const lstatMtime: StatMtime = (absolute) => lstatSync(absolute).mtimeMs;

/** The newest mtime of these files (a file gone since the listing counts as written now). */
export function newestMtime(absolutes: readonly string[], statMtime: StatMtime = lstatMtime): number {
  let newest = Number.NEGATIVE_INFINITY;
  for (const absolute of absolutes) {
    let mtime: number;
    try {
      mtime = statMtime(absolute);
    } catch {
      mtime = Number.POSITIVE_INFINITY;
    }
    newest = Math.max(newest, mtime);
  }
  return newest;
}

function factsOf(
  statMtime: StatMtime,
  root: string,
  rule: LifecycleRule,
  path: string,
  members: ListedFile[],
  listing: LifecycleListing,
  times: Map<string, number>,
  nowMs: number,
): UnitFacts {
  const trackedMembers = members.filter((file) => file.indexed !== undefined);
  const tracked = trackedMembers.length > 0 && trackedMembers.length === members.length;
  const hasHistory = trackedMembers.length > 0;
  const dirty =
    members.some((file) => listing.changed.has(file.path)) ||
    (hasHistory && trackedMembers.length < members.length);
  const committed = trackedMembers.map((file) => times.get(file.path)).filter((t) => t !== undefined);
  const ageSource: AgeSource = committed.length > 0 ? 'commit' : 'mtime';
  // No history: the newest mtime of its files. A folder's own mtime would miss an edit in
  // place of a file inside it.
  const newestMs =
    committed.length > 0
      ? Math.max(...committed) * 1000
      : newestMtime(
          members.map((file) => join(root, file.path)),
          statMtime,
        );
  const ageMs = nowMs - newestMs;
  return { path, rule, members, tracked, dirty, ageDays: Math.max(0, ageMs / MS_PER_DAY), ageSource };
}

function roundDays(days: number): number {
  return Math.round(days * 100) / 100;
}

function describeAge(facts: UnitFacts): string {
  const source =
    facts.ageSource === 'commit'
      ? 'last commit'
      : facts.rule.type === 'directory'
        ? 'newest file mtime'
        : 'mtime';
  return `${roundDays(facts.ageDays)} days old (${source})`;
}

function unitOf(facts: UnitFacts, decision: LifecycleDecision, evidence: string): LifecycleUnit {
  return {
    path: facts.path,
    rule: facts.rule.name,
    lifetime: facts.rule.lifetime,
    type: facts.rule.type,
    decision,
    tracked: facts.tracked,
    dirty: facts.dirty,
    age_days: roundDays(facts.ageDays),
    age_source: facts.ageSource,
    files: facts.members.length,
    evidence,
    ...(facts.rule.extract !== undefined ? { extract: facts.rule.extract } : {}),
  };
}

function decideRule(root: string, rule: LifecycleRule, units: UnitFacts[]): LifecycleUnit[] {
  if (rule.lifetime === 'keep')
    return units.map((facts) => unitOf(facts, 'keep', `kept by rule ${rule.name}; ${describeAge(facts)}`));
  if (rule.lifetime === 'temporary') {
    return rankTemporary(units, rule.retain_recent, rule.max_age_days).map(({ unit, rank, decision }) => {
      const why =
        decision === 'retain-recent'
          ? `rank ${rank} of ${units.length}: among the ${rule.retain_recent} newest`
          : decision === 'eligible'
            ? `rank ${rank} of ${units.length}, ${describeAge(unit)}, older than ${rule.max_age_days} days`
            : `rank ${rank} of ${units.length}, ${describeAge(unit)}, not older than ${rule.max_age_days} days`;
      return { ...unitOf(unit, decision, why), rank };
    });
  }
  return units.map((facts) => {
    if (rule.served_when !== undefined) {
      return {
        ...unitOf(facts, 'needs-judgment', `served when: ${rule.served_when} (a judgment, not a fact)`),
        served_when: rule.served_when,
      };
    }
    const served = servedEvidence(root, facts.path, rule.served_when_path ?? '');
    const unit = unitOf(facts, served.served ? 'served' : 'not-served', served.evidence);
    return served.path !== undefined ? { ...unit, served_path: served.path } : unit;
  });
}

/**
 * Whether a unit's `served_when_path` proves it served, read now: something must exist
 * there, inside the project once every symlink on the way is resolved. A path that leads
 * out of the project — `..`, or a link such as `outside -> /etc` — is never evidence.
 */
export function servedEvidence(
  root: string,
  unitPath: string,
  template: string,
): { served: boolean; path?: string; evidence: string } {
  const served = servedPathFor(unitPath, template);
  if (served === undefined)
    return {
      served: false,
      evidence: `served_when_path ${JSON.stringify(template)} leads outside the project`,
    };
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    return { served: false, path: served, evidence: `not served: the project root cannot be resolved` };
  }
  const place = realPathWithin(realRoot, join(root, served));
  if (place.kind === 'outside')
    return {
      served: false,
      path: served,
      evidence: `not served: ${served} leads outside the project through a symlink (to ${place.real}), which is no evidence`,
    };
  if (place.kind === 'missing')
    return { served: false, path: served, evidence: `not served: ${served} does not exist` };
  return { served: true, path: served, evidence: `served: ${served} exists` };
}

/**
 * Evaluates every rule over the listing. A path that two rules with different lifetimes
 * match is a `ConfigError` naming both rules; with the same lifetime, the first rule owns it.
 */
export function evaluateRules(
  root: string,
  rules: readonly LifecycleRule[],
  listing: LifecycleListing,
  times: Map<string, number>,
  nowMs: number,
  statMtime: StatMtime = lstatMtime,
): LifecycleUnit[] {
  const files = listing.files.filter((file) => !file.path.startsWith('.dochygiene/'));
  const byPath = new Map(files.map((file) => [file.path, file]));
  const owner = new Map<string, LifecycleRule>();
  const perRule: { rule: LifecycleRule; units: UnitFacts[] }[] = [];
  for (const rule of rules) {
    const matched = matchUnits(
      rule,
      files.map((file) => file.path),
    );
    const units: UnitFacts[] = [];
    for (const [path, memberPaths] of matched) {
      let taken = false;
      for (const member of memberPaths) {
        const other = owner.get(member);
        if (other !== undefined && other.lifetime !== rule.lifetime) {
          throw new ConfigError(
            'config-invalid',
            `.dochygiene.yml: lifecycle rules ${JSON.stringify(other.name)} and ${JSON.stringify(rule.name)} both match ${JSON.stringify(member)} with different lifetimes`,
          );
        }
        if (other !== undefined) taken = true;
      }
      if (taken) continue;
      for (const member of memberPaths) owner.set(member, rule);
      const members = memberPaths.map((member) => byPath.get(member)!);
      units.push(factsOf(statMtime, root, rule, path, members, listing, times, nowMs));
    }
    perRule.push({ rule, units });
  }
  return perRule
    .flatMap(({ rule, units }) => decideRule(root, rule, units))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Decisions that may lead to a deletion: proved (eligible, served) or awaiting a judgment. */
export function mayBeDeleted(unit: Pick<LifecycleUnit, 'decision'>): boolean {
  return unit.decision === 'eligible' || unit.decision === 'served' || unit.decision === 'needs-judgment';
}

/** The listed files of a unit: the file itself, or every file under the folder. */
function membersOf(listing: LifecycleListing, unit: LifecycleUnit): { path: string; tracked: boolean }[] {
  const inside = unit.type === 'directory' ? (path: string) => path.startsWith(`${unit.path}/`) : undefined;
  return listing.files
    .filter((file) => (inside ? inside(file.path) : file.path === unit.path))
    .map((file) => ({ path: file.path, tracked: file.indexed !== undefined }));
}

/**
 * The whole lifecycle pass of a scan: list, date, decide, then digest the contents of every
 * unit that may be deleted (only those: a retained unit's bytes are never read). No rules,
 * no git calls.
 */
export async function scanLifecycle(options: {
  root: string;
  rules: readonly LifecycleRule[];
  inRepo: boolean;
  /** The walk's file list, used outside a repository. */
  walkedFiles: readonly string[];
  nowMs: number;
  deadline?: Deadline;
}): Promise<LifecycleScan> {
  if (options.rules.length === 0) return { units: [], unsafe: [] };
  const listing = await listForLifecycle(options.root, options.inRepo, options.walkedFiles, options.deadline);
  const times = options.inRepo
    ? await lastCommitTimes(options.root, options.rules, options.deadline)
    : new Map<string, number>();
  const units = evaluateRules(options.root, options.rules, listing, times, options.nowMs);
  for (const unit of units)
    if (mayBeDeleted(unit))
      unit.content_digest = await unitDigest(options.root, membersOf(listing, unit), options.deadline);
  return { units, unsafe: unsafeMatched(options.rules, listing.unsafe) };
}

/** The unsafe names some rule would have matched (a file it matches, or one inside a folder it matches). */
function unsafeMatched(rules: readonly LifecycleRule[], unsafe: readonly UnsafeName[]): UnsafeName[] {
  if (unsafe.length === 0) return [];
  return unsafe.filter(({ path }) => rules.some((rule) => matchUnits(rule, [path]).size > 0));
}
