import { isAbsolute, join, resolve as resolvePath } from 'node:path';
import { Deadline } from './deadline.js';
import { OperationalError } from './errors.js';
import { describeOutcome, type RunOptions, type RunResult, run } from './run.js';

// Every git call but the commit made for the user runs no hook (see `GitMode`).
const NO_HOOKS = 'core.hooksPath=/dev/null';

/**
 * `-c` settings applied to every git call: no hooks, no fsmonitor daemon, no pager,
 * no network protocols. They override anything in the repository's own config.
 * Observation calls also turn off the repository's filter, merge and diff drivers
 * (`repositoryDriversOff`, `withoutDiffDrivers`).
 * (`commit` mode keeps the user's hooks: it drops the first setting only.)
 */
export const HARDENED_CONFIG: readonly string[] = [
  NO_HOOKS,
  'core.fsmonitor=false',
  'core.pager=cat',
  'core.untrackedCache=false',
  'protocol.allow=never',
  'gc.auto=0',
  'maintenance.auto=false',
  // GIT_GRAFT_FILE=/dev/null (below) makes git print a deprecation hint on every call,
  // which would otherwise stand in front of the real error in our messages.
  'advice.graftFileDeprecated=false',
];

export type GitMode =
  /** Observation: no system or global config at all. */
  | 'observe'
  /**
   * A change made for the user (staging, a safety checkpoint, a rollback): system and
   * global config apply (identity, signing), hooks still do not.
   */
  | 'user'
  /**
   * The commit made for the user, as `git commit` would make it: `user`, plus the user's
   * hooks (pre-commit, prepare-commit-msg, commit-msg, post-commit; `--no-verify` skips
   * the first and third, as in git). See docs/hygiene-clean.md, "Observation and commits".
   */
  | 'commit';

/**
 * The environment for a git child. Inherited `GIT_*` variables are dropped so that a
 * caller running inside a hook (GIT_DIR, GIT_INDEX_FILE, …) cannot redirect us.
 */
export function hardenedGitEnv(
  mode: GitMode = 'observe',
  base: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) {
    if (key.startsWith('GIT_')) continue;
    if (key === 'PAGER' || key === 'LESS' || key === 'EDITOR' || key === 'VISUAL') continue;
    env[key] = value;
  }
  if (mode === 'user' || mode === 'commit') {
    // Keep the user's identity sources, nothing else from the GIT_* namespace.
    for (const key of [
      'GIT_CONFIG_GLOBAL',
      'GIT_AUTHOR_NAME',
      'GIT_AUTHOR_EMAIL',
      'GIT_COMMITTER_NAME',
      'GIT_COMMITTER_EMAIL',
      'GIT_AUTHOR_DATE',
      'GIT_COMMITTER_DATE',
    ]) {
      const value = base[key];
      if (value !== undefined) env[key] = value;
    }
  } else {
    env['GIT_CONFIG_NOSYSTEM'] = '1';
    env['GIT_CONFIG_GLOBAL'] = '/dev/null';
  }
  env['GIT_TERMINAL_PROMPT'] = '0';
  env['GIT_OPTIONAL_LOCKS'] = '0';
  env['GIT_NO_REPLACE_OBJECTS'] = '1';
  // The deprecated `info/grafts` file still rewrites parents even with replace objects
  // off; an empty graft file makes git ignore it (it could otherwise fake ancestry).
  env['GIT_GRAFT_FILE'] = '/dev/null';
  env['GIT_PAGER'] = 'cat';
  env['GIT_EDITOR'] = 'false';
  env['GIT_ASKPASS'] = '';
  env['SSH_ASKPASS'] = '';
  env['LC_ALL'] = 'C';
  env['LANG'] = 'C';
  return env;
}

// What a git call made for the user takes from the caller's environment.
const USER_ENV_KEYS = [
  'HOME',
  'XDG_CONFIG_HOME',
  'EMAIL',
  'GIT_CONFIG_GLOBAL',
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_AUTHOR_DATE',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'GIT_COMMITTER_DATE',
  // Signing, as `git commit` would sign: gpg's home and agent, ssh-agent.
  'GNUPGHOME',
  'GPG_TTY',
  'SSH_AUTH_SOCK',
];

/**
 * The extra environment for an observation call that has to write objects it then throws
 * away (a probe commit, a test merge's trees): every object goes to `objectDir`, a private
 * temporary object directory whose `info/alternates` names the repository's own object
 * store, so the repository's object store gains nothing. A fixed identity and date keep
 * the probe objects reproducible and need no user configuration.
 */
export function scratchObjectEnv(objectDir: string): NodeJS.ProcessEnv {
  return {
    GIT_OBJECT_DIRECTORY: objectDir,
    GIT_AUTHOR_NAME: 'SourceSteward probe',
    GIT_AUTHOR_EMAIL: '',
    GIT_AUTHOR_DATE: '@0 +0000',
    GIT_COMMITTER_NAME: 'SourceSteward probe',
    GIT_COMMITTER_EMAIL: '',
    GIT_COMMITTER_DATE: '@0 +0000',
  };
}

/** The extra environment for `git(…, {mode: 'user'})` so the caller's identity and config apply. */
export function userGitEnv(env: NodeJS.ProcessEnv | undefined): NodeJS.ProcessEnv {
  const picked: NodeJS.ProcessEnv = {};
  if (env === undefined) return picked;
  for (const key of USER_ENV_KEYS) if (env[key] !== undefined) picked[key] = env[key];
  return picked;
}

export interface GitOptions extends Omit<RunOptions, 'env'> {
  cwd: string;
  mode?: GitMode;
  /** Extra environment on top of the hardened one (e.g. GIT_INDEX_FILE for a scratch index). */
  extraEnv?: NodeJS.ProcessEnv;
}

/** The full argument vector for a hardened git call (exported for tests and diagnostics). */
export function gitArgv(args: readonly string[], mode: GitMode = 'observe'): string[] {
  const argv: string[] = ['--no-pager', '--no-replace-objects'];
  for (const setting of HARDENED_CONFIG)
    if (mode !== 'commit' || setting !== NO_HOOKS) argv.push('-c', setting);
  argv.push(...args);
  return argv;
}

/** `safe.directory` values read so far, by the config locations they were read from. */
const safeDirectories = new Map<string, string[]>();

const configKey = (base: NodeJS.ProcessEnv) =>
  ['GIT_CONFIG_GLOBAL', 'GIT_CONFIG_NOSYSTEM', 'GIT_CONFIG_SYSTEM', 'HOME', 'XDG_CONFIG_HOME']
    .map((name) => base[name] ?? '')
    .join('\0');

/**
 * `safe.directory` as the user's system and global config set it (a checkout owned by
 * another user, as in container CI), read once per config location. Observation calls drop
 * those configs, so this one key is given back to them as `-c` settings, in order (an empty
 * value resets the list, as in git); nothing else of the user's config is read for them.
 * The `git config` call itself runs hardened: no hook, fsmonitor or pager.
 */
export async function protectedSafeDirectories(base: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const key = configKey(base);
  const known = safeDirectories.get(key);
  if (known !== undefined) return known;
  const env = hardenedGitEnv('user', base);
  for (const name of ['GIT_CONFIG_NOSYSTEM', 'GIT_CONFIG_SYSTEM'])
    if (base[name] !== undefined) env[name] = base[name];
  // Only the system and global scopes are kept, wherever this runs.
  const args = gitArgv(['config', '--show-scope', '-z', '--get-all', 'safe.directory'], 'user');
  const result = await run('git', args, { cwd: '/', env, deadline: Deadline.after(10_000) });
  const values: string[] = [];
  if (result.kind === 'exited' && result.code === 0) {
    const fields = splitNul(result.stdout);
    for (let i = 0; i + 1 < fields.length; i += 2)
      if (fields[i] === 'system' || fields[i] === 'global') values.push(fields[i + 1]!);
  }
  safeDirectories.set(key, values);
  return values;
}

/** git's refusal of a repository another user owns ("detected dubious ownership"). */
function isOwnershipRefusal(result: RunResult): boolean {
  return (
    result.kind === 'exited' && result.code !== 0 && /dubious ownership/.test(result.stderr.toString('utf8'))
  );
}

function withSafeDirectories(argv: string[], dirs: readonly string[]): string[] {
  const [pager, replace, ...rest] = argv;
  return [pager!, replace!, ...dirs.flatMap((dir) => ['-c', `safe.directory=${dir}`]), ...rest];
}

/** The repository's own drivers, by folder and `safe.directory` list (see `repositoryDriversOff`). */
const driversOff = new Map<string, Promise<DriversOff>>();

/** The settings that turn the drivers off, or the outcome of a `git config` that gave no answer. */
type DriversOff = { env: NodeJS.ProcessEnv } | { failed: RunResult };

// A driver's key in the repository's config: `filter.NAME.clean`, `merge.NAME.driver`, ….
const DRIVER_KEY = /^(filter|merge)\.(.+)\.(clean|smudge|process|driver)$/;

/**
 * The environment that turns off every filter and merge driver the repository's own config
 * (`.git/config` and what it includes) defines: a `.gitattributes` naming `filter=x` would
 * otherwise make an observation `git status` or `git diff` run `filter.x.clean`, and
 * `merge=x` make `git merge-tree` run `merge.x.driver`. Each is set empty through
 * `GIT_CONFIG_KEY_n` (no `=` in a driver's name can split it): an empty filter passes
 * content through, an empty merge driver fails, which git reads as a conflict. Read once
 * per folder with one `git config` call, which runs no driver itself; when that call gives
 * no answer, its outcome is the observation's (nothing runs with the drivers on).
 */
function repositoryDriversOff(
  cwd: string,
  env: NodeJS.ProcessEnv,
  dirs: readonly string[],
  deadline: Deadline | undefined,
): Promise<DriversOff> {
  const key = [cwd, ...dirs].join('\0');
  let known = driversOff.get(key);
  if (known === undefined) {
    const args = withSafeDirectories(gitArgv(['config', '-z', '--get-regexp', '^(filter|merge)\\.']), dirs);
    known = run('git', args, { cwd, env, ...(deadline ? { deadline } : {}) }).then(driverSettings);
    driversOff.set(key, known);
  }
  return known;
}

function driverSettings(result: RunResult): DriversOff {
  // Exit 1: no such key (or no repository here).
  if (result.kind !== 'exited' || (result.code !== 0 && result.code !== 1)) return { failed: result };
  const settings: [string, string][] = [];
  for (const record of result.code === 0 ? splitNul(result.stdout) : []) {
    const match = DRIVER_KEY.exec(record.split('\n', 1)[0]!);
    if (match === null) continue;
    const [, section, name] = match;
    if (section === 'merge') settings.push([`merge.${name}.driver`, '']);
    else
      for (const key of ['clean', 'smudge', 'process', 'required'])
        settings.push([`filter.${name}.${key}`, key === 'required' ? 'false' : '']);
  }
  const env: NodeJS.ProcessEnv = settings.length === 0 ? {} : { GIT_CONFIG_COUNT: String(settings.length) };
  settings.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return { env };
}

// Commands that diff content: an observation never runs a textconv or external diff driver.
const DIFFING = new Set(['log', 'show', 'diff', 'diff-tree', 'diff-index', 'diff-files']);

/** `args` with `--no-textconv --no-ext-diff` after a diffing subcommand (past any `-c X`). */
function withoutDiffDrivers(args: readonly string[]): readonly string[] {
  let i = 0;
  while (args[i] === '-c') i += 2;
  if (!DIFFING.has(args[i] ?? '')) return args;
  return [...args.slice(0, i + 1), '--no-textconv', '--no-ext-diff', ...args.slice(i + 1)];
}

/**
 * Runs git through the bounded runner with the hardened environment; returns the typed
 * outcome. An observation git refuses for the repository's owner is run again with the
 * user's `safe.directory` settings (`protectedSafeDirectories`), as are the calls after it:
 * a repository the user owns costs no extra process.
 */
export async function git(args: readonly string[], options: GitOptions): Promise<RunResult> {
  const { mode, extraEnv, ...rest } = options;
  const env = { ...hardenedGitEnv(mode), ...extraEnv };
  if ((mode ?? 'observe') !== 'observe') return run('git', gitArgv(args, mode), { ...rest, env });
  const argv = gitArgv(withoutDiffDrivers(args));
  const observe = async (dirs: readonly string[]): Promise<RunResult> => {
    const off = await repositoryDriversOff(options.cwd, env, dirs, options.deadline);
    if ('failed' in off) return off.failed;
    return run('git', withSafeDirectories(argv, dirs), { ...rest, env: { ...env, ...off.env } });
  };
  const known = safeDirectories.get(configKey(process.env));
  const result = await observe(known ?? []);
  if (known !== undefined || !isOwnershipRefusal(result)) return result;
  const dirs = await protectedSafeDirectories();
  return dirs.length === 0 ? result : observe(dirs);
}

/**
 * Runs git and returns stdout, throwing an OperationalError for anything other than
 * exit 0 with complete output. Use `git()` directly when a non-zero exit is an answer.
 */
export async function gitOk(args: readonly string[], options: GitOptions): Promise<Buffer> {
  const result = await git(args, options);
  if (result.kind === 'exited' && result.code === 0) return result.stdout;
  throw new OperationalError('git-failed', describeOutcome(result, `git ${args[0] ?? ''}`.trim()), {
    outcome: result.kind,
  });
}

export async function gitText(args: readonly string[], options: GitOptions): Promise<string> {
  return (await gitOk(args, options)).toString('utf8');
}

/**
 * The excludes file `git status` would read for the user: `core.excludesFile` from the
 * user's config (system, global, then the repository's), else `$XDG_CONFIG_HOME/git/ignore`
 * or `~/.config/git/ignore`. Observation calls drop global config, so they are given this one
 * setting back with `excludesFileArgs`; nothing else of the user's config is read for them.
 * Only `git config` runs with the user's config, and it starts no hook, fsmonitor or pager.
 */
export async function userExcludesFile(cwd: string, deadline?: Deadline): Promise<string | undefined> {
  const result = await git(['config', '--path', '--get', 'core.excludesFile'], {
    cwd,
    mode: 'user',
    ...(deadline ? { deadline } : {}),
  });
  if (result.kind === 'exited' && result.code === 0) {
    const path = result.stdout.toString('utf8').replace(/\n$/, '');
    if (path !== '') return isAbsolute(path) ? path : resolvePath(cwd, path);
  }
  // Exit 1: unset, so git's default applies. Anything else: no answer, nothing added.
  if (result.kind !== 'exited' || result.code !== 1) return undefined;
  const xdg = process.env['XDG_CONFIG_HOME'];
  if (xdg !== undefined && xdg !== '') return join(xdg, 'git', 'ignore');
  const home = process.env['HOME'];
  return home !== undefined && home !== '' ? join(home, '.config', 'git', 'ignore') : undefined;
}

/** `-c core.excludesFile=…` for an observation call, or nothing when there is no such file. */
export function excludesFileArgs(path: string | undefined): string[] {
  return path === undefined ? [] : ['-c', `core.excludesFile=${path}`];
}

/**
 * Which of `paths` git ignores, as `git status` sees it (the user's global excludes file
 * included). The paths need not exist. Outside a repository, or when git gives no clean
 * answer, nothing is taken for ignored.
 */
export async function ignoredByGit(
  root: string,
  paths: readonly string[],
  deadline?: Deadline,
): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  const excludes = excludesFileArgs(await userExcludesFile(root, deadline));
  const result = await git([...excludes, 'check-ignore', '-z', '--stdin'], {
    cwd: root,
    input: `${paths.join('\0')}\0`,
    maxBytes: 64 * 1024 * 1024,
    ...(deadline ? { deadline } : {}),
  });
  // Exit 1: none ignored; anything but 0/1 (not a repository): git ignores nothing here.
  if (result.kind !== 'exited' || result.code !== 0) return new Set();
  return new Set(splitNul(result.stdout));
}

/** Splits NUL-separated output; a trailing terminator yields no empty last field. */
export function splitNul(output: Buffer | string): string[] {
  const text = typeof output === 'string' ? output : output.toString('utf8');
  if (text === '') return [];
  const fields = text.split('\0');
  if (fields[fields.length - 1] === '') fields.pop();
  return fields;
}

/** Splits output into records at `\0\0`-free record boundaries (`-z` lists where an empty field ends a record). */
export function splitNulRecords(output: Buffer | string): string[][] {
  const records: string[][] = [];
  let current: string[] = [];
  for (const field of (typeof output === 'string' ? output : output.toString('utf8')).split('\0')) {
    if (field === '') {
      if (current.length > 0) records.push(current);
      current = [];
    } else current.push(field);
  }
  if (current.length > 0) records.push(current);
  return records;
}

export interface WorktreeRecord {
  path: string;
  /** Commit the worktree's HEAD points at; absent for a bare entry or an unborn branch. */
  head: string | undefined;
  /** Full ref name of the checked-out branch, or undefined when detached/bare. */
  branch: string | undefined;
  isDetached: boolean;
  isBare: boolean;
  /** `undefined` when not locked; the reason (possibly empty) when locked. */
  locked: string | undefined;
  /** `undefined` when not prunable; the reason (possibly empty) when prunable. */
  prunable: string | undefined;
  isMain: boolean;
}

/**
 * Parses `git worktree list --porcelain -z`. Accepts `locked` and `prunable` both bare
 * and with a reason; unknown keys are ignored so that newer git stays readable.
 */
export function parseWorktreeList(output: Buffer | string): WorktreeRecord[] {
  return splitNulRecords(output).map((fields, index) => {
    const record: WorktreeRecord = {
      path: '',
      head: undefined,
      branch: undefined,
      isDetached: false,
      isBare: false,
      locked: undefined,
      prunable: undefined,
      isMain: index === 0,
    };
    for (const field of fields) {
      const space = field.indexOf(' ');
      const key = space === -1 ? field : field.slice(0, space);
      const value = space === -1 ? '' : field.slice(space + 1);
      switch (key) {
        case 'worktree':
          record.path = value;
          break;
        case 'HEAD':
          record.head = value;
          break;
        case 'branch':
          record.branch = value;
          break;
        case 'detached':
          record.isDetached = true;
          break;
        case 'bare':
          record.isBare = true;
          break;
        case 'locked':
          record.locked = value;
          break;
        case 'prunable':
          record.prunable = value;
          break;
      }
    }
    return record;
  });
}

export async function listWorktrees(
  cwd: string,
  deadline: Deadline = Deadline.none(),
): Promise<WorktreeRecord[]> {
  return parseWorktreeList(await gitOk(['worktree', 'list', '--porcelain', '-z'], { cwd, deadline }));
}

export interface RepoLayout {
  /** The worktree root containing cwd (absent in a bare repository). */
  toplevel: string | undefined;
  gitDir: string;
  commonDir: string;
  isBare: boolean;
  isShallow: boolean;
  objectFormat: 'sha1' | 'sha256';
}

/** One call that locates the repository around `cwd`; undefined when cwd is not in one. */
/**
 * `rev-parse`'s arguments for a repository's layout, one answer a line: bare, shallow, git
 * dir, common dir, object format, toplevel (last: it dies outside a work tree).
 */
export const REPO_LAYOUT_ARGS = [
  'rev-parse',
  '--path-format=absolute',
  '--is-bare-repository',
  '--is-shallow-repository',
  '--git-dir',
  '--git-common-dir',
  '--show-object-format',
  '--show-toplevel',
] as const;

export async function discoverRepo(
  cwd: string,
  deadline: Deadline = Deadline.none(),
): Promise<RepoLayout | undefined> {
  const result = await git(REPO_LAYOUT_ARGS, { cwd, deadline });
  if (result.kind !== 'exited')
    throw new OperationalError('git-failed', describeOutcome(result, 'git rev-parse'));
  const lines = result.stdout.toString('utf8').split('\n');
  const [bare, shallow, gitDir, commonDir, format, toplevel] = lines;
  // rev-parse prints as it goes; --show-toplevel comes last because it dies outside a
  // work tree (bare repository, inside .git), after the facts we need were printed.
  if (result.code !== 0 && (format === undefined || format === '' || !gitDir)) return undefined;
  return {
    isBare: bare === 'true',
    isShallow: shallow === 'true',
    gitDir: gitDir ?? '',
    commonDir: commonDir ?? '',
    objectFormat: format === 'sha256' ? 'sha256' : 'sha1',
    toplevel: bare === 'true' || !toplevel ? undefined : toplevel,
  };
}

/**
 * True when git refuses the repository around `cwd` because another user owns it and no
 * `safe.directory` names it (git's "detected dubious ownership"): not "no repository".
 */
export async function isOwnershipRefused(
  cwd: string,
  deadline: Deadline = Deadline.none(),
): Promise<boolean> {
  return isOwnershipRefusal(await git(['rev-parse', '--git-dir'], { cwd, deadline }));
}

/**
 * How many commits a shallow clone holds along HEAD's first parents (the `--depth` it was
 * cloned with, for a linear history); undefined when it cannot be read.
 */
export async function shallowDepth(
  cwd: string,
  deadline: Deadline = Deadline.none(),
): Promise<number | undefined> {
  const result = await git(['rev-list', '--first-parent', '--count', 'HEAD'], { cwd, deadline });
  if (result.kind !== 'exited' || result.code !== 0) return undefined;
  const depth = Number(result.stdout.toString('utf8').trim());
  return Number.isSafeInteger(depth) ? depth : undefined;
}

const OID_SHA1 = /^[0-9a-f]{40}$/;
const OID_SHA256 = /^[0-9a-f]{64}$/;

/** A full object id in either hash; never an abbreviation. */
export function isFullOid(text: string, format?: 'sha1' | 'sha256'): boolean {
  if (format === 'sha1') return OID_SHA1.test(text);
  if (format === 'sha256') return OID_SHA256.test(text);
  return OID_SHA1.test(text) || OID_SHA256.test(text);
}

export interface IndexFlags {
  /** `git update-index --assume-unchanged`: local edits are invisible to `status`. */
  assumeUnchanged: boolean;
  /** `skip-worktree` (sparse checkout or set by hand): git ignores the working copy. */
  skipWorktree: boolean;
}

/**
 * Parses `git ls-files -v -z`: each record is `<tag> <path>`; a lowercase tag means
 * assume-unchanged (it masks a skip-worktree bit set as well), `S` skip-worktree. Either
 * way git hides the file's local changes from `status`.
 */
export function parseIndexFlags(output: Buffer | string): Map<string, IndexFlags> {
  const flags = new Map<string, IndexFlags>();
  for (const record of splitNul(output)) {
    const tag = record.slice(0, 1);
    flags.set(record.slice(2), {
      assumeUnchanged: /^[a-z]$/.test(tag),
      skipWorktree: tag === 'S' || tag === 's',
    });
  }
  return flags;
}

/**
 * The index flags of each tracked path among `paths` (every tracked path when `paths` is
 * undefined); a path absent from the map is not tracked. One `ls-files -v` call.
 */
export async function readIndexFlags(
  cwd: string,
  paths: readonly string[] | undefined,
  deadline: Deadline = Deadline.none(),
): Promise<Map<string, IndexFlags>> {
  if (paths !== undefined && paths.length === 0) return new Map();
  const args = ['ls-files', '-v', '-z', ...(paths === undefined ? [] : ['--', ...paths])];
  const result = await git(args, {
    cwd,
    deadline,
    maxBytes: 64 * 1024 * 1024,
    extraEnv: { GIT_LITERAL_PATHSPECS: '1' },
  });
  if (result.kind !== 'exited' || result.code !== 0)
    throw new OperationalError('git-failed', describeOutcome(result, 'git ls-files'));
  return parseIndexFlags(result.stdout);
}
