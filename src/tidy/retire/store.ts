/**
 * Stored retirement plans: `DIR/plans/<plan_id>.json`, beside reference-cleanup plans,
 * written once (exclusive, fsynced) with an integrity hash and read back strictly. The
 * schema version inside the record tells `tidy apply` which protocol a plan needs.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { RefusalError } from '../../core/errors.js';
import { writeFileExclusive } from '../../core/fs-atomic.js';
import { PLAN_ID_PATTERN, RECORD_FORMAT } from '../types.js';
import { PLAN_V2_SCHEMA_FILE, type TidyPlanV2 } from './types.js';

export interface StoredRetirementRecord {
  record_format: typeof RECORD_FORMAT;
  plan: TidyPlanV2;
  integrity: string;
}

export function retirementIntegrity(plan: TidyPlanV2): string {
  return `sha256:${createHash('sha256').update(JSON.stringify(plan), 'utf8').digest('hex')}`;
}

async function plansDir(stateDir: string, create: boolean): Promise<string> {
  const dir = join(stateDir, 'plans');
  try {
    const info = await lstat(dir);
    if (info.isSymbolicLink() || !info.isDirectory())
      throw new RefusalError('state-dir-symlink', `${JSON.stringify(dir)} is not a real directory`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    if (create) await mkdir(dir, { mode: 0o700 });
  }
  return dir;
}

export async function writeRetirementRecord(
  stateDir: string,
  plan: TidyPlanV2,
  maxBytes: number,
): Promise<string> {
  if (!PLAN_ID_PATTERN.test(plan.plan_id))
    throw new Error('writeRetirementRecord: plan_id must be 32 lowercase hex');
  const record: StoredRetirementRecord = {
    record_format: RECORD_FORMAT,
    plan,
    integrity: retirementIntegrity(plan),
  };
  const text = `${JSON.stringify(record, null, 2)}\n`;
  const size = Buffer.byteLength(text, 'utf8');
  if (size > maxBytes)
    throw new RefusalError(
      'bound-exceeded',
      `the plan record is ${size} bytes; the bound is ${maxBytes} bytes`,
    );
  const path = join(await plansDir(stateDir, true), `${plan.plan_id}.json`);
  await writeFileExclusive(path, text, 0o600);
  return path;
}

async function readRecordText(
  stateDir: string,
  planId: string,
  maxBytes: number,
): Promise<{ path: string; text: string } | undefined> {
  if (!PLAN_ID_PATTERN.test(planId)) return undefined;
  const path = join(await plansDir(stateDir, false), `${planId}.json`);
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > maxBytes) return undefined;
    return { path, text: await handle.readFile('utf8') };
  } finally {
    await handle.close();
  }
}

/**
 * The schema version a stored plan declares (2 for retirement), or undefined when the
 * record is absent or unreadable — the caller's own reader then reports why.
 */
export async function storedPlanSchemaVersion(
  stateDir: string,
  planId: string,
  maxBytes: number,
): Promise<number | undefined> {
  try {
    const read = await readRecordText(stateDir, planId, maxBytes);
    if (read === undefined) return undefined;
    const record = JSON.parse(read.text) as { plan?: { schema_version?: unknown } };
    const version = record?.plan?.schema_version;
    return typeof version === 'number' ? version : undefined;
  } catch {
    return undefined;
  }
}

export interface StoredRetirement {
  path: string;
  plan: TidyPlanV2;
}

/** Loads and verifies a stored retirement plan: integrity, schema v2, id, a complete status. */
export async function readRetirementRecord(
  stateDir: string,
  planId: string,
  maxBytes: number,
): Promise<StoredRetirement> {
  if (!PLAN_ID_PATTERN.test(planId))
    throw new RefusalError(
      'invalid-plan-id',
      `plan id ${JSON.stringify(planId)} is not 32 lowercase hex characters`,
    );
  const read = await readRecordText(stateDir, planId, maxBytes);
  if (read === undefined)
    throw new RefusalError(
      'unknown-plan',
      `no readable stored plan ${planId} in ${JSON.stringify(stateDir)}`,
    );
  let record: Partial<StoredRetirementRecord>;
  try {
    record = JSON.parse(read.text) as Partial<StoredRetirementRecord>;
  } catch {
    throw new RefusalError('tampered-plan', `plan record ${planId} is not valid JSON`);
  }
  const plan = record.plan;
  if (record.record_format !== RECORD_FORMAT || typeof plan !== 'object' || plan === null)
    throw new RefusalError('tampered-plan', `plan record ${planId} is incomplete`);
  if (retirementIntegrity(plan) !== record.integrity)
    throw new RefusalError('tampered-plan', `plan record ${planId} fails its integrity check`);
  const { schemaValidator } = await import('../../core/schema.js');
  const violations = schemaValidator(PLAN_V2_SCHEMA_FILE)(plan);
  if (violations.length > 0)
    throw new RefusalError(
      'tampered-plan',
      `plan record ${planId} does not match schema v2: ${violations[0]}`,
      { violations },
    );
  if (plan.plan_id !== planId)
    throw new RefusalError('tampered-plan', `plan record ${planId} carries a different plan_id`);
  if (plan.status !== 'complete' || plan.retirement === undefined)
    throw new RefusalError('tampered-plan', `plan record ${planId} is not a complete retirement plan`);
  return { path: read.path, plan };
}
