/**
 * The Git side of owned task retirement: the recovery pin, the removal of the lock task
 * create wrote (only with exactly its text), and the registration removal — `git
 * worktree remove` of the already emptied, absent destination, which then deletes only
 * the worktree's admin dir. Each effect is followed by an inspection; the repository,
 * not the exit status, decides what happened.
 */
import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { join } from 'node:path';
import { git, parseWorktreeList } from '../../../../core/git.js';
import { describeOutcome } from '../../../../core/run.js';
import type { NativeInspection, RetirementBackend, RetirementNativeContext } from '../../../types.js';
import { pinNoteArgs, readRefOids } from '../effects.js';

async function readLock(adminDir: string, limit: number): Promise<string | null | { problem: string }> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(
      join(adminDir, 'locked'),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    return { problem: code ?? 'unreadable' };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > limit) return { problem: 'not a small regular file' };
    return (await handle.readFile('utf8')).replace(/\n$/, '');
  } finally {
    await handle.close();
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

async function run(args: string[], ctx: RetirementNativeContext, input?: Buffer): Promise<string | null> {
  const result = await git(args, {
    cwd: ctx.cwd,
    deadline: ctx.deadline,
    maxBytes: ctx.maxBytes,
    ...(input === undefined ? {} : { input }),
  });
  return result.kind === 'exited' && result.code === 0 ? null : describeOutcome(result, `git ${args[0]}`);
}

async function listedPaths(ctx: RetirementNativeContext): Promise<string[] | undefined> {
  const result = await git(['worktree', 'list', '--porcelain', '-z'], {
    cwd: ctx.cwd,
    deadline: ctx.deadline,
    maxBytes: ctx.maxBytes,
  });
  if (result.kind !== 'exited' || result.code !== 0) return undefined;
  return parseWorktreeList(result.stdout).map((worktree) => worktree.path);
}

export const gitRetirementBackend: RetirementBackend = {
  name: 'git',
  canRemoveRegistrationKeepingFiles: false,

  pin(name, oid, branch, ctx) {
    // `create` fails when the ref exists: an existing pin is never moved.
    const note = branch === null ? [] : pinNoteArgs([{ ref: branch, recovery_ref: name }]);
    return run(
      ['update-ref', ...note, '--no-deref', '--stdin', '-z'],
      ctx,
      Buffer.from(`create ${name}\0${oid}\0`, 'utf8'),
    );
  },

  async inspectPin(name, oid, ctx): Promise<NativeInspection> {
    const oids = await readRefOids([name], ctx);
    const found = oids.get(name);
    if (found === oid) return { state: 'done', detail: `${name} at ${oid}` };
    if (found === undefined) return { state: 'not-done', detail: `${name} absent` };
    return { state: 'inconsistent', detail: `${name} at ${found}, not ${oid}` };
  },

  async removeOwnLock(destination, adminDir, lock, ctx) {
    const now = await readLock(adminDir, ctx.maxBytes);
    if (now !== lock)
      return `the lock is not the one task create wrote (${now === null ? 'absent' : typeof now === 'string' ? 'other text' : now.problem}); left in place`;
    return run(['worktree', 'unlock', destination], ctx);
  },

  async inspectLock(adminDir, lock, ctx): Promise<NativeInspection> {
    const now = await readLock(adminDir, ctx.maxBytes);
    if (now === null) return { state: 'done', detail: 'no lock' };
    if (now === lock) return { state: 'not-done', detail: 'the lock task create wrote is present' };
    return {
      state: 'inconsistent',
      detail: typeof now === 'string' ? 'a lock with other text' : `lock ${now.problem}`,
    };
  },

  async removeRegistration(destination, _adminDir, ctx) {
    // Only once the files are gone: with the destination present, git would delete files itself.
    if (await exists(destination))
      return `${destination} exists; the registration is removed only after its files`;
    return run(['worktree', 'remove', destination], ctx);
  },

  async inspectRegistration(destination, adminDir, ctx): Promise<NativeInspection> {
    const listed = await listedPaths(ctx);
    if (listed === undefined) return { state: 'inconsistent', detail: 'git worktree list failed' };
    const isListed = listed.includes(destination);
    const hasAdmin = await exists(adminDir);
    if (!isListed && !hasAdmin) return { state: 'done', detail: 'not registered' };
    if (isListed && hasAdmin) return { state: 'not-done', detail: `registered at ${adminDir}` };
    return {
      state: 'inconsistent',
      detail: isListed
        ? 'listed by git without the recorded admin dir'
        : `${adminDir} exists but git does not list it`,
    };
  },
};
