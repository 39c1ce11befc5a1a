/**
 * The private plan store (docs/tidy.md, "Stored plans"): checks on the state directory,
 * and immutable plan records written once (exclusive create, fsync) and authenticated on
 * read with the plan key (plan-key.ts), which lives outside the store.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isWithin } from '../core/confined-fs.js';
import { RefusalError } from '../core/errors.js';
import { writeFileExclusive } from '../core/fs-atomic.js';
import { authenticate, checkSealedPlan } from './plan-key.js';
import {
  DEFAULT_PLAN_BOUNDS,
  PLAN_ID_PATTERN,
  PLAN_SCHEMA_FILE,
  RECORD_FORMAT,
  type RepositoryBinding,
  type StoredPlanRecord,
  type TidyPlanV1,
} from './types.js';

/** A fresh unguessable plan id: 128 random bits as 32 lowercase hex characters. */
export function newPlanId(): string {
  return randomBytes(16).toString('hex');
}

/** The record's authentication tag: HMAC of the plan and its repository binding. */
export function planIntegrity(plan: TidyPlanV1, binding: RepositoryBinding, key: Buffer): string {
  return authenticate({ plan, binding }, key);
}

async function lstatOrUndefined(path: string) {
  try {
    return await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The private checks on a state directory alone: it exists, is a real directory (not a
 * symlink), is owned by the current user and has mode 0700 exactly.
 */
export async function checkStateDirPrivate(dir: string): Promise<void> {
  const info = await lstatOrUndefined(dir);
  if (info === undefined)
    throw new RefusalError(
      'state-dir-missing',
      `state directory ${JSON.stringify(dir)} does not exist (create it with mode 0700)`,
    );
  if (info.isSymbolicLink())
    throw new RefusalError('state-dir-symlink', `state directory ${JSON.stringify(dir)} is a symbolic link`);
  if (!info.isDirectory())
    throw new RefusalError(
      'state-dir-not-directory',
      `state directory ${JSON.stringify(dir)} is not a directory`,
    );
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid)
    throw new RefusalError(
      'state-dir-owner',
      `state directory ${JSON.stringify(dir)} is not owned by the current user`,
    );
  const mode = info.mode & 0o7777;
  if (mode !== 0o700)
    throw new RefusalError(
      'state-dir-mode',
      `state directory ${JSON.stringify(dir)} has mode ${mode.toString(8).padStart(4, '0')}; it must be 0700 exactly`,
    );
}

async function canonical(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return resolve(path);
  }
}

/**
 * All checks on a state directory (docs/tidy.md, "Stored plans"): the private checks, and disjointness
 * (neither inside nor containing) from every repository path given: toplevel, git dir,
 * common dir, each worktree. Throws RefusalError naming the failed check.
 */
export async function checkStateDir(dir: string, repoPaths: readonly string[]): Promise<void> {
  await checkStateDirPrivate(dir);
  const store = await canonical(dir);
  for (const path of repoPaths) {
    if (path === '') continue;
    const repoPath = await canonical(path);
    if (isWithin(repoPath, store) || isWithin(store, repoPath))
      throw new RefusalError(
        'state-dir-overlap',
        `state directory ${JSON.stringify(dir)} overlaps repository path ${JSON.stringify(repoPath)}; it must be outside the repository, its git dir and every worktree`,
      );
  }
}

async function plansDir(dir: string, create: boolean): Promise<string> {
  const plans = join(dir, 'plans');
  const info = await lstatOrUndefined(plans);
  if (info === undefined) {
    if (!create) return plans;
    await mkdir(plans, { mode: 0o700 });
    return plans;
  }
  if (info.isSymbolicLink() || !info.isDirectory())
    throw new RefusalError('state-dir-symlink', `${JSON.stringify(plans)} is not a real directory`);
  return plans;
}

/**
 * Writes a plan record once: `DIR/plans/<plan_id>.json`, exclusive create, mode 0600,
 * fsynced with its directory. Returns the record's path. The caller has run checkStateDir.
 */
export async function writePlanRecord(
  dir: string,
  plan: TidyPlanV1,
  sealing: { key: Buffer; binding: RepositoryBinding },
  maxRecordBytes = DEFAULT_PLAN_BOUNDS.maxRecordBytes,
): Promise<string> {
  if (!PLAN_ID_PATTERN.test(plan.plan_id))
    throw new Error('writePlanRecord: plan_id must be 32 lowercase hex');
  const { key, binding } = sealing;
  const record: StoredPlanRecord = {
    record_format: RECORD_FORMAT,
    plan,
    binding,
    integrity: planIntegrity(plan, binding, key),
  };
  const text = `${JSON.stringify(record, null, 2)}\n`;
  const size = Buffer.byteLength(text, 'utf8');
  if (size > maxRecordBytes)
    throw new RefusalError(
      'bound-exceeded',
      `the plan record is ${size} bytes; the bound is ${maxRecordBytes} bytes`,
    );
  const path = join(await plansDir(dir, true), `${plan.plan_id}.json`);
  await writeFileExclusive(path, text, 0o600);
  return path;
}

export interface StoredPlan {
  /** The record file. */
  path: string;
  record: StoredPlanRecord;
  plan: TidyPlanV1;
}

/**
 * Loads and verifies a stored plan. Refusals: `stateless-plan` (empty id),
 * `invalid-plan-id`, `unknown-plan`, `replan-required` (a planning-only record without
 * effects), `tampered-plan` (bad JSON, schema, integrity or id), `bound-exceeded`.
 */
export async function readPlanRecord(
  dir: string,
  planId: string,
  key: Buffer,
  maxRecordBytes = DEFAULT_PLAN_BOUNDS.maxRecordBytes,
): Promise<StoredPlan> {
  if (planId === '')
    throw new RefusalError(
      'stateless-plan',
      'a stateless plan (empty plan_id) cannot be applied; plan with --state-dir',
    );
  if (!PLAN_ID_PATTERN.test(planId))
    throw new RefusalError(
      'invalid-plan-id',
      `plan id ${JSON.stringify(planId)} is not 32 lowercase hex characters`,
    );
  const path = join(await plansDir(dir, false), `${planId}.json`);
  let text: string;
  try {
    const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const info = await handle.stat();
      if (!info.isFile())
        throw new RefusalError('tampered-plan', `plan record ${JSON.stringify(path)} is not a file`);
      if (info.size > maxRecordBytes)
        throw new RefusalError(
          'bound-exceeded',
          `plan record is ${info.size} bytes; the bound is ${maxRecordBytes} bytes`,
        );
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof RefusalError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw new RefusalError('unknown-plan', `no stored plan ${planId} in ${JSON.stringify(dir)}`);
    if (code === 'ELOOP')
      throw new RefusalError('tampered-plan', `plan record ${JSON.stringify(path)} is a symbolic link`);
    throw error;
  }
  let record: Omit<Partial<StoredPlanRecord>, 'record_format'> & { record_format?: unknown };
  try {
    record = JSON.parse(text) as typeof record;
  } catch {
    throw new RefusalError('tampered-plan', `plan record ${planId} is not valid JSON`);
  }
  if (typeof record !== 'object' || record === null)
    throw new RefusalError('tampered-plan', `plan record ${planId} is not an object`);
  const plan = record.plan as Partial<TidyPlanV1> | undefined;
  if (record.record_format === 1 || (record.record_format === RECORD_FORMAT && plan && !('effects' in plan)))
    throw new RefusalError(
      'replan-required',
      `plan ${planId} was made by a planning-only version and lacks reviewed mutation effects; create and review a new plan`,
    );
  if (record.record_format === 2)
    throw new RefusalError(
      'replan-required',
      `plan ${planId} was stored by an earlier version without a keyed integrity check or repository binding; create and review a new plan`,
    );
  if (record.record_format !== RECORD_FORMAT)
    throw new RefusalError('tampered-plan', `plan record ${planId} has an unknown record_format`);
  const { plan: sealed } = await checkSealedPlan(record, planId, key, { file: PLAN_SCHEMA_FILE, name: 'v1' });
  if (sealed.status !== 'complete')
    throw new RefusalError('tampered-plan', `plan record ${planId} is not a complete plan`);
  return { path, record: record as StoredPlanRecord, plan: sealed as TidyPlanV1 };
}
