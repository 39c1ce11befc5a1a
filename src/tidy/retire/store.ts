/**
 * Stored retirement plans: `DIR/plans/<plan_id>.json`, beside reference-cleanup plans,
 * written once (exclusive, fsynced), bound to the repository and authenticated with the
 * plan key exactly as reference-cleanup plans are (docs/tidy.md, "Stored plans"), and
 * read back strictly. The schema version inside the record tells `tidy apply` which
 * protocol a plan needs.
 */
import { constants } from 'node:fs';
import { lstat, mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { RefusalError } from '../../core/errors.js';
import { writeFileExclusive } from '../../core/fs-atomic.js';
import { authenticate, checkSealedPlan } from '../plan-key.js';
import { PLAN_ID_PATTERN, RECORD_FORMAT, type RepositoryBinding } from '../types.js';
import { PLAN_V2_SCHEMA_FILE, type TidyPlanV2 } from './types.js';

export interface StoredRetirementRecord {
  record_format: typeof RECORD_FORMAT;
  plan: TidyPlanV2;
  binding: RepositoryBinding;
  /** `hmac-sha256:<hex>` of the compact JSON of `{plan, binding}` under the plan key. */
  integrity: string;
}

/** The record's authentication tag: HMAC of the plan and its repository binding. */
export function retirementIntegrity(plan: TidyPlanV2, binding: RepositoryBinding, key: Buffer): string {
  return authenticate({ plan, binding }, key);
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
  sealing: { key: Buffer; binding: RepositoryBinding },
): Promise<string> {
  if (!PLAN_ID_PATTERN.test(plan.plan_id))
    throw new Error('writeRetirementRecord: plan_id must be 32 lowercase hex');
  const record: StoredRetirementRecord = {
    record_format: RECORD_FORMAT,
    plan,
    binding: sealing.binding,
    integrity: retirementIntegrity(plan, sealing.binding, sealing.key),
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
  /** The repository the plan is bound to; apply compares it with the repository now. */
  binding: RepositoryBinding;
}

/**
 * Loads and verifies a stored retirement plan: its HMAC under `key` (the plan key),
 * schema v2, id, a complete status. A record of the earlier unkeyed kind refuses
 * `replan-required`.
 */
export async function readRetirementRecord(
  stateDir: string,
  planId: string,
  maxBytes: number,
  key: Buffer,
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
  if (
    record.record_format === RECORD_FORMAT &&
    record.binding === undefined &&
    typeof record.integrity === 'string' &&
    record.integrity.startsWith('sha256:')
  )
    throw new RefusalError(
      'replan-required',
      `plan ${planId} was stored by an earlier version without a keyed integrity check or repository binding; create and review a new plan`,
    );
  if (record.record_format !== RECORD_FORMAT)
    throw new RefusalError('tampered-plan', `plan record ${planId} is incomplete`);
  const { plan, binding } = await checkSealedPlan(record, planId, key, {
    file: PLAN_V2_SCHEMA_FILE,
    name: 'v2',
  });
  if (plan.status !== 'complete' || plan.retirement === undefined)
    throw new RefusalError('tampered-plan', `plan record ${planId} is not a complete retirement plan`);
  return { path: read.path, plan, binding };
}
