import type { FileHandle } from 'node:fs/promises';
import { copyFile, link, lstat, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isRfc3339 } from '../../core/clock.js';
import { ConfigError, RefusalError } from '../../core/errors.js';
import { fsyncDir, writeFileAtomic } from '../../core/fs-atomic.js';
import { quote } from '../../core/quote.js';
import type { HygieneState } from '../types.js';

/** The one line `check` tells the user to add to `.gitignore` (it never edits the file). */
export const GITIGNORE_LINE = '.dochygiene/';
export const STATE_DIR = '.dochygiene';
/** The `.gitignore` written inside `.dochygiene/` when it is created: everything in it, itself included. */
export const SELF_IGNORE = '# Written by SourceSteward (stw): its state is never committed.\n*\n';

const STATE_FIELDS = [
  'last_check',
  'last_clean',
  'last_reminded',
] as const satisfies readonly (keyof HygieneState)[];

/** Test-only fault injection for `writeReport`: each hook runs at the named point. */
export interface WriteReportFaults {
  /** After both new files are staged and fsynced, before anything visible changes. */
  afterStage?: () => void | Promise<void>;
  /** After `report.md` is replaced, before `report.json` (the commit point) is. */
  afterMdRename?: () => void | Promise<void>;
  /** Skip the in-process rollback when a hook throws, as if the process had died there. */
  simulateCrash?: boolean;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
}

/** A file's text: whole, or in pieces (`jsonChunks`), so that a large report is never one string. */
export type Text = string | Iterable<string>;

/** Pieces of text are gathered into writes of about this many UTF-16 units. */
const WRITE_UNITS = 1 << 20;

/** Writes `text` to an open file, a piece at a time. */
export async function writeText(handle: FileHandle, text: Text): Promise<void> {
  if (typeof text === 'string') {
    await handle.writeFile(text);
    return;
  }
  let pending: string[] = [];
  let units = 0;
  for (const piece of text) {
    pending.push(piece);
    units += piece.length;
    if (units < WRITE_UNITS) continue;
    await handle.writeFile(pending.join(''));
    pending = [];
    units = 0;
  }
  if (pending.length > 0) await handle.writeFile(pending.join(''));
}

// Scratch files have fixed names (recovery finds them), so they are written in place.
// Exclusive create: recovery has just removed them, and O_EXCL never follows a symlink.
async function writeDurable(path: string, data: Text): Promise<void> {
  const handle = await open(path, 'wx', 0o644);
  try {
    await writeText(handle, data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function unlinkIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** What `<root>/.dochygiene` is: missing, a real directory, or anything else (a symlink, a file…). */
type DirKind = 'absent' | 'directory' | 'unsafe';

/**
 * The per-project store under `<root>/.dochygiene/` (docs/hygiene-state.md): lifecycle timestamps in
 * `state.json` and the one report pair. Every write is atomic and lands only inside
 * `.dochygiene/` (created on first write); there is no global index and `.gitignore` is
 * never touched. Reads never write.
 *
 * `.dochygiene` must be a real directory: a symlink (a committed one, say, pointing out of
 * the project) or a file there makes every write refuse (`state-dir-unsafe`) and every
 * read see no state, so nothing is ever written or read through it.
 */
/** A write refused by the filesystem itself (read-only mount, another owner): not a bug. */
export function isUnwritable(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EACCES' || code === 'EROFS' || code === 'EPERM';
}

export class StateStore {
  readonly dir: string;
  readonly statePath: string;
  readonly reportJsonPath: string;
  readonly reportMdPath: string;
  readonly gitignorePath: string;
  // Rollover scratch names (fixed, so that recovery after a crash can find them).
  private readonly stagedJson: string;
  private readonly stagedMd: string;
  private readonly previousJson: string;
  private readonly previousMd: string;

  constructor(readonly root: string) {
    this.dir = join(root, STATE_DIR);
    this.statePath = join(this.dir, 'state.json');
    this.reportJsonPath = join(this.dir, 'report.json');
    this.reportMdPath = join(this.dir, 'report.md');
    this.gitignorePath = join(this.dir, '.gitignore');
    this.stagedJson = join(this.dir, '.report.json.new');
    this.stagedMd = join(this.dir, '.report.md.new');
    this.previousJson = join(this.dir, '.report.json.prev');
    this.previousMd = join(this.dir, '.report.md.prev');
  }

  /** Refuses (`state-dir-unsafe`) unless `.dochygiene` is missing or a real directory. */
  async assertSafe(): Promise<void> {
    if ((await this.dirKind()) === 'unsafe') throw this.unsafe();
  }

  private async dirKind(): Promise<DirKind> {
    try {
      // lstat: a symlink to a directory is not a directory here.
      return (await lstat(this.dir)).isDirectory() ? 'directory' : 'unsafe';
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
      throw error;
    }
  }

  private unsafe(): RefusalError {
    return new RefusalError(
      'state-dir-unsafe',
      `${STATE_DIR} is not a plain directory (a symlink or a file); remove or rename it so the tool can keep its state there`,
      { dir: this.dir },
    );
  }

  /**
   * Creates `.dochygiene/` if missing, with a `.gitignore` of `*` inside (as pytest and
   * ruff do for their caches), so a routine `git add -A` never commits the tool's state
   * and the user's own `.gitignore` is never touched. Refuses when `.dochygiene` is
   * anything but a real directory.
   */
  private async ensureSafeDir(): Promise<void> {
    if ((await this.dirKind()) === 'absent') {
      let created = false;
      try {
        await mkdir(this.dir);
        created = true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      if (created) await writeFileAtomic(this.gitignorePath, SELF_IGNORE);
    }
    // Checked after creating too: something may have appeared there in the meantime.
    if ((await this.dirKind()) !== 'directory') throw this.unsafe();
  }

  /** The three timestamps; a missing file (or directory) is all null. Corrupt → `state-corrupt`. */
  async read(): Promise<HygieneState> {
    if ((await this.dirKind()) !== 'directory')
      return { last_check: null, last_clean: null, last_reminded: null };
    let text: string;
    try {
      text = await readFile(this.statePath, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // ENOTDIR: `.dochygiene` is not a directory, so there is no state (a write will fail).
      if (code === 'ENOENT' || code === 'ENOTDIR')
        return { last_check: null, last_clean: null, last_reminded: null };
      throw new ConfigError('state-corrupt', `${STATE_DIR}/state.json: cannot read: ${code ?? 'error'}`, {
        file: this.statePath,
      });
    }
    return parseState(text, this.statePath);
  }

  /** Sets one timestamp (RFC 3339) with an atomic read-modify-write of `state.json`. */
  async stamp(field: keyof HygieneState, instant: string): Promise<void> {
    if (!STATE_FIELDS.includes(field)) throw new TypeError(`unknown state field ${String(field)}`);
    if (!isRfc3339(instant)) throw new TypeError(`not an RFC 3339 instant: ${JSON.stringify(instant)}`);
    await this.assertSafe();
    const state = await this.read();
    state[field] = instant;
    await this.ensureSafeDir();
    await writeFileAtomic(this.statePath, `${JSON.stringify(state, null, 2)}\n`);
  }

  /** True when a machine report exists (the last committed `report.json`). */
  async hasReport(): Promise<boolean> {
    if ((await this.dirKind()) !== 'directory') return false;
    return exists(this.reportJsonPath);
  }

  /** The parsed `report.json`; throws when absent or not JSON. Validation is the caller's. */
  async readReport(): Promise<unknown> {
    if ((await this.dirKind()) === 'unsafe') throw this.unsafe();
    const text = await readFile(this.reportJsonPath, 'utf8');
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new ConfigError('report-corrupt', `${STATE_DIR}/report.json: not valid JSON`, {
        file: this.reportJsonPath,
      });
    }
  }

  /**
   * Replaces the report pair (rollover, docs/hygiene-state.md): afterwards exactly one `report.json` +
   * `report.md` exist and no scratch file remains.
   *
   * Sequence: hard-link the current pair to `.report.*.prev`; write and fsync the new pair
   * as `.report.*.new`; rename the md into place; rename the json into place — the commit
   * point; remove the backups. Guarantees:
   * - a failure (thrown error) at any step puts the previous pair back and removes the
   *   scratch files;
   * - after a crash, `report.json` is always a complete file, old or new. In the window
   *   between the two renames the md may already be the new one; the staged json still
   *   exists then, which marks the write as uncommitted, and the next `writeReport` (or
   *   `recover()`) restores the previous md. Once the json is renamed the write is
   *   committed and recovery only drops the backups.
   * Concurrent writers to one store are not supported (one `check` at a time).
   */
  async writeReport(json: Text, md: Text, faults: WriteReportFaults = {}): Promise<void> {
    await this.ensureSafeDir();
    await this.recover();
    try {
      await this.backup(this.reportJsonPath, this.previousJson);
      await this.backup(this.reportMdPath, this.previousMd);
      await fsyncDir(this.dir);
      await writeDurable(this.stagedMd, md);
      await writeDurable(this.stagedJson, json);
      await faults.afterStage?.();
      await rename(this.stagedMd, this.reportMdPath);
      await faults.afterMdRename?.();
      await rename(this.stagedJson, this.reportJsonPath);
      await fsyncDir(this.dir);
    } catch (error) {
      // If the rollback itself fails, the leftovers still mark the write as uncommitted and
      // the next writeReport finishes the rollback; the caller hears the original error.
      if (!faults.simulateCrash) await this.recover().catch(() => {});
      throw error;
    }
    // Committed. Removing the backups is tidying: if it fails, the next write does it.
    await this.recover().catch(() => {});
  }

  /**
   * Finishes or undoes an interrupted `writeReport`: a staged json means the write never
   * reached its commit point, so the previous md comes back; otherwise it committed and
   * only the backups go. Idempotent; a no-op when nothing was interrupted.
   */
  async recover(): Promise<void> {
    const kind = await this.dirKind();
    if (kind === 'absent') return;
    if (kind === 'unsafe') throw this.unsafe();
    if (await exists(this.stagedJson)) {
      if (await exists(this.previousMd)) await rename(this.previousMd, this.reportMdPath);
      else if (!(await exists(this.reportJsonPath))) await unlinkIfPresent(this.reportMdPath);
      if (await exists(this.previousJson)) await rename(this.previousJson, this.reportJsonPath);
    }
    for (const scratch of [this.stagedJson, this.stagedMd, this.previousJson, this.previousMd])
      await unlinkIfPresent(scratch);
    await fsyncDir(this.dir).catch(() => {});
  }

  // A hard link keeps the current file in place while giving us a name to restore it from.
  private async backup(path: string, to: string): Promise<void> {
    if (!(await exists(path))) return;
    try {
      await link(path, to);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV') throw error;
      await copyFile(path, to);
    }
  }

  /**
   * Whether git ignores what `.dochygiene/` holds here — by the user's rules or by its own
   * `.gitignore` —: true/false in a work tree, undefined outside one (or when git cannot
   * answer). `check` uses it to print `GITIGNORE_LINE` once.
   */
  async isIgnoredByGit(): Promise<boolean | undefined> {
    // Loaded here, not at the top: the SessionStart reminder reads state at every session
    // start and must not pay for the process runner it never uses.
    const { excludesFileArgs, git, userExcludesFile } = await import('../../core/git.js');
    // As `git status` sees it: the user's global excludes file counts. A path inside: the
    // folder's own `.gitignore` applies to its contents, not to itself.
    const excludes = excludesFileArgs(await userExcludesFile(this.root));
    const result = await git([...excludes, 'check-ignore', '-q', '--', `${STATE_DIR}/report.json`], {
      cwd: this.root,
    });
    if (result.kind !== 'exited') return undefined;
    if (result.code === 0) return true;
    if (result.code === 1) return false;
    return undefined;
  }
}

/**
 * Writes the report pair and stamps `last_check`; a tree that cannot be written (read-only,
 * not ours) keeps the check's result and says why in one line, returned.
 */
export async function saveReport(
  store: StateStore,
  report: { json: Text; md: Text; generatedAt: string },
  warnings: string[],
): Promise<string | undefined> {
  try {
    await store.writeReport(report.json, report.md);
  } catch (error) {
    if (!isUnwritable(error)) throw error;
    return `the report could not be saved (${(error as NodeJS.ErrnoException).code}: ${quote(store.dir)} is not writable)`;
  }
  try {
    await store.stamp('last_check', report.generatedAt);
  } catch (error) {
    // The report is written and valid: say the stamp failed, never that the check did.
    warnings.push(`the report was written, but last_check could not be stamped: ${(error as Error).message}`);
  }
  return undefined;
}

/** Parses `state.json`; anything but an object of null-or-RFC-3339 fields is `state-corrupt`. */
export function parseState(text: string, file = `${STATE_DIR}/state.json`): HygieneState {
  const corrupt = (why: string) =>
    new ConfigError('state-corrupt', `${STATE_DIR}/state.json: ${why}`, { file });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corrupt('not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw corrupt('not a JSON object');
  const record = value as Record<string, unknown>;
  const state: HygieneState = { last_check: null, last_clean: null, last_reminded: null };
  for (const field of STATE_FIELDS) {
    const item = record[field];
    if (item === undefined || item === null) continue;
    if (typeof item !== 'string' || !isRfc3339(item))
      throw corrupt(`${field}: not an RFC 3339 instant or null`);
    state[field] = item;
  }
  return state;
}
