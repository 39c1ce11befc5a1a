/**
 * The key that authenticates stored plans (docs/tidy.md, "Stored plans"). It lives outside
 * every state directory — by default `$XDG_STATE_HOME/sourcesteward/key` — so that write
 * access to a state directory is not enough to forge a plan: an edited record, even one
 * re-hashed, fails its HMAC. Created on first use (32 random bytes, mode 0600, in a 0700
 * directory); never created by apply, which only verifies.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isWithin } from '../core/confined-fs.js';
import { RefusalError } from '../core/errors.js';
import { writeFileExclusive } from '../core/fs-atomic.js';
import { xdgToolDir } from '../core/xdg.js';

export const PLAN_KEY_BYTES = 32;
const HMAC_PREFIX = 'hmac-sha256:';

/** Where the plan key lives: `$XDG_STATE_HOME/sourcesteward/key`, else `~/.local/state/sourcesteward/key`. */
export function planKeyPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(xdgToolDir(env, 'XDG_STATE_HOME', join('.local', 'state')), 'key');
}

async function realOrSelf(path: string): Promise<string> {
  return realpath(path).catch(() => path);
}

/** The key may not sit inside the state directory it protects. */
async function checkOutsideStateDir(keyPath: string, stateDir: string): Promise<void> {
  const keyDir = await realOrSelf(dirname(keyPath));
  if (isWithin(await realOrSelf(stateDir), keyDir))
    throw new RefusalError(
      'plan-key-in-state-dir',
      `the plan key ${JSON.stringify(keyPath)} is inside the state directory; it must live outside it (set XDG_STATE_HOME)`,
    );
}

async function readKey(path: string): Promise<Buffer | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP')
      throw new RefusalError('plan-key-unsafe', `the plan key ${JSON.stringify(path)} is a symbolic link`);
    throw new RefusalError('plan-key-unsafe', `the plan key ${JSON.stringify(path)}: ${code}`);
  }
  try {
    const info = await handle.stat();
    const uid = process.getuid?.();
    const mode = info.mode & 0o7777;
    if (!info.isFile())
      throw new RefusalError('plan-key-unsafe', `the plan key ${JSON.stringify(path)} is not a regular file`);
    if (uid !== undefined && info.uid !== uid)
      throw new RefusalError(
        'plan-key-unsafe',
        `the plan key ${JSON.stringify(path)} is not owned by the current user`,
      );
    if (mode !== 0o600)
      throw new RefusalError(
        'plan-key-unsafe',
        `the plan key ${JSON.stringify(path)} has mode ${mode.toString(8).padStart(4, '0')}; it must be 0600`,
      );
    const key = Buffer.alloc(PLAN_KEY_BYTES + 1);
    const { bytesRead } = await handle.read(key, 0, key.length, 0);
    if (bytesRead !== PLAN_KEY_BYTES)
      throw new RefusalError(
        'plan-key-unsafe',
        `the plan key ${JSON.stringify(path)} is not ${PLAN_KEY_BYTES} bytes long`,
      );
    return key.subarray(0, PLAN_KEY_BYTES);
  } finally {
    await handle.close();
  }
}

/**
 * The plan key for storing plans in `stateDir`: read, or created on first use. Two
 * planners racing to create it both end with the one that won the exclusive create; the
 * key appears whole (`writeFileExclusive` links a complete temp file), so a racing
 * reader never reads a short one.
 */
export async function loadOrCreatePlanKey(path: string, stateDir: string): Promise<Buffer> {
  await checkOutsideStateDir(path, stateDir);
  const existing = await readKey(path);
  if (existing !== undefined) return existing;
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const info = await lstat(dir);
  if (!info.isDirectory())
    throw new RefusalError('plan-key-unsafe', `${JSON.stringify(dir)} is not a directory`);
  try {
    await writeFileExclusive(path, randomBytes(PLAN_KEY_BYTES), 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const key = await readKey(path);
  if (key === undefined)
    throw new RefusalError('plan-key-unsafe', `the plan key ${JSON.stringify(path)} vanished`);
  return key;
}

/** The plan key for verifying plans stored in `stateDir`; a missing key refuses (replan). */
export async function loadPlanKey(path: string, stateDir: string): Promise<Buffer> {
  await checkOutsideStateDir(path, stateDir);
  const key = await readKey(path);
  if (key === undefined)
    throw new RefusalError(
      'plan-key-missing',
      `the key that authenticates stored plans (${JSON.stringify(path)}) does not exist, so no stored plan can be verified; create and review a new plan`,
    );
  return key;
}

/** `hmac-sha256:<hex>` of the compact JSON of `value`. */
export function authenticate(value: unknown, key: Buffer): string {
  return `${HMAC_PREFIX}${createHmac('sha256', key).update(JSON.stringify(value), 'utf8').digest('hex')}`;
}

/** Constant-time check of an `authenticate` tag. */
export function isAuthentic(value: unknown, key: Buffer, tag: unknown): boolean {
  if (typeof tag !== 'string') return false;
  const expected = Buffer.from(authenticate(value, key), 'utf8');
  const given = Buffer.from(tag, 'utf8');
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * The checks every sealed plan record passes before its plan is trusted (docs/tidy.md):
 * plan and binding present, the HMAC under the plan key, the plan's schema, and the plan
 * id it is stored under. Each failure refuses `tampered-plan`.
 */
export async function checkSealedPlan<P, B>(
  record: { plan?: P | null; binding?: B | null; integrity?: unknown },
  planId: string,
  key: Buffer,
  schema: { file: string; name: string },
): Promise<{ plan: P; binding: B }> {
  const { plan, binding } = record;
  if (typeof plan !== 'object' || plan === null || typeof binding !== 'object' || binding === null)
    throw new RefusalError('tampered-plan', `plan record ${planId} is incomplete`);
  if (!isAuthentic({ plan, binding }, key, record.integrity))
    throw new RefusalError(
      'tampered-plan',
      `plan record ${planId} fails its authentication check (edited, or made with another plan key)`,
    );
  // Loaded here only: the validator (ajv) is not needed to plan, and it is slow to load.
  const { schemaValidator } = await import('../core/schema.js');
  const violations = schemaValidator(schema.file)(plan);
  if (violations.length > 0)
    throw new RefusalError(
      'tampered-plan',
      `plan record ${planId} does not match schema ${schema.name}: ${violations[0]}`,
      { violations },
    );
  if ((plan as { plan_id?: unknown }).plan_id !== planId)
    throw new RefusalError('tampered-plan', `plan record ${planId} carries a different plan_id`);
  return { plan, binding };
}
