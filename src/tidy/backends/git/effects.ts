import type { Deadline } from '../../../core/deadline.js';
import { OperationalError } from '../../../core/errors.js';
import { git } from '../../../core/git.js';
import { describeOutcome, type RunResult } from '../../../core/run.js';
import { shellQuote } from '../../engine/restore.js';
import { type PinNoteEntry, pinNoteMessage } from '../../pin-note.js';

/**
 * The only Git writes tidy apply makes: one `update-ref --stdin` transaction per batch of
 * delete actions (each pin's reflog message names its plan, action and branch:
 * pin-note.ts), plus the reads that establish what a transaction did.
 */

export interface DeleteEffect {
  /** Full name of the reference to delete, e.g. refs/heads/finished-task. */
  ref: string;
  /** The planned (and revalidated) OID: the compare-and-swap value and the pin's value. */
  old_oid: string;
  /** refs/stw-recovery/<plan_id>/<action_id>. */
  recovery_ref: string;
}

export interface GitCallOptions {
  cwd: string;
  deadline: Deadline;
  maxBytes: number;
  signal?: AbortSignal;
}

/**
 * The transaction input in `-z` form, so that no ref name is ever split or reinterpreted:
 * `create <pin> NUL <oid> NUL` fails if the pin exists; `delete <ref> NUL <oid> NUL` fails
 * unless the ref is exactly at the old OID. Without `start`/`commit` the whole input is
 * one transaction committed at end of input: both happen or neither does.
 */
export function transactionInput(effect: DeleteEffect): Buffer {
  return Buffer.from(
    `create ${effect.recovery_ref}\0${effect.old_oid}\0delete ${effect.ref}\0${effect.old_oid}\0`,
    'utf8',
  );
}

/** A base ref the transaction must find unchanged: `verify <ref> <oid>`, checked under the ref locks. */
export interface BaseGuard {
  ref: string;
  oid: string;
}

/**
 * One transaction for several delete effects: the base verified, then each pin created
 * and each branch deleted with its old-OID compare-and-swap. Git commits all of it or
 * none; any mismatch (base moved, a tip moved, a pin in the way) fails the whole input.
 */
export function batchTransactionInput(effects: readonly DeleteEffect[], base: BaseGuard | null): Buffer {
  const parts: Buffer[] = base === null ? [] : [Buffer.from(`verify ${base.ref}\0${base.oid}\0`, 'utf8')];
  for (const effect of effects) parts.push(transactionInput(effect));
  return Buffer.concat(parts);
}

/**
 * The pins' reflog, created even where git keeps none for refs outside refs/heads (and in
 * bare repositories), with the message that makes each pin self-describing (pin-note.ts).
 */
export function pinNoteArgs(entries: readonly PinNoteEntry[]): string[] {
  return ['--create-reflog', '-m', pinNoteMessage(entries)];
}

/** Runs one batch transaction; like pinAndDelete, the outcome is raw and the caller inspects. */
export function pinAndDeleteAll(
  effects: readonly DeleteEffect[],
  base: BaseGuard | null,
  options: GitCallOptions,
): Promise<RunResult> {
  return git(['update-ref', ...pinNoteArgs(effects), '--no-deref', '--stdin', '-z'], {
    cwd: options.cwd,
    deadline: options.deadline,
    maxBytes: options.maxBytes,
    input: batchTransactionInput(effects, base),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

/**
 * Runs the pin-and-delete transaction. The raw outcome is returned, not interpreted: a
 * kill or timeout leaves the effect unknown, so the caller always inspects the refs
 * afterwards (`inspectEffect`) to learn what actually happened. Hooks cannot run: the
 * hardened git sets core.hooksPath=/dev/null (no reference-transaction hook).
 */
export function pinAndDelete(effect: DeleteEffect, options: GitCallOptions): Promise<RunResult> {
  return git(['update-ref', ...pinNoteArgs([effect]), '--no-deref', '--stdin', '-z'], {
    cwd: options.cwd,
    deadline: options.deadline,
    maxBytes: options.maxBytes,
    input: transactionInput(effect),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

/**
 * The current OID of each named ref (absent refs are missing from the map). Reads with
 * for-each-ref and keeps exact name matches only: its patterns also match refs *below*
 * a name, and rev-parse would fall back to DWIM names such as refs/heads/<name> for a
 * missing full name.
 */
export async function readRefOids(
  refs: readonly string[],
  options: GitCallOptions,
): Promise<Map<string, string>> {
  const wanted = new Set(refs);
  const result = await git(['for-each-ref', '--format=%(refname)%00%(objectname)', '--', ...wanted], {
    cwd: options.cwd,
    deadline: options.deadline,
    maxBytes: options.maxBytes,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (result.kind !== 'exited' || result.code !== 0)
    throw new OperationalError('git-failed', describeOutcome(result, 'git for-each-ref'), {
      outcome: result.kind,
    });
  // One line per ref; ref names cannot contain a newline or NUL (git check-ref-format).
  const oids = new Map<string, string>();
  for (const line of result.stdout.toString('utf8').split('\n')) {
    const [name, oid] = line.split('\0');
    if (name !== undefined && oid !== undefined && wanted.has(name)) oids.set(name, oid);
  }
  return oids;
}

/**
 * What the repository says about one delete effect:
 * - `committed`: pin at the old OID and target absent — the transaction happened;
 * - `not-happened`: pin absent and target still at the old OID — it did not;
 * - `inconsistent`: anything else (pin elsewhere, target moved or recreated, both
 *   present, both absent) — a person must look.
 */
export type EffectState = 'committed' | 'not-happened' | 'inconsistent';

export interface EffectInspection {
  state: EffectState;
  target_oid: string | null;
  pin_oid: string | null;
}

export function classifyEffect(effect: DeleteEffect, oids: ReadonlyMap<string, string>): EffectInspection {
  const target = oids.get(effect.ref) ?? null;
  const pin = oids.get(effect.recovery_ref) ?? null;
  let state: EffectState = 'inconsistent';
  if (pin === effect.old_oid && target === null) state = 'committed';
  else if (pin === null && target === effect.old_oid) state = 'not-happened';
  return { state, target_oid: target, pin_oid: pin };
}

/**
 * readRefOids over many names, in calls whose output stays within the output bound (a
 * row is a name and an OID); names absent from the result do not exist.
 */
export async function readRefOidsChunked(
  refs: readonly string[],
  options: GitCallOptions,
): Promise<Map<string, string>> {
  const oids = new Map<string, string>();
  const budget = Math.max(1, Math.floor(options.maxBytes / 2));
  let chunk: string[] = [];
  let used = 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    for (const [name, oid] of await readRefOids(chunk, options)) oids.set(name, oid);
    chunk = [];
    used = 0;
  };
  for (const ref of new Set(refs)) {
    const cost = Buffer.byteLength(ref, 'utf8') + 66;
    if (chunk.length > 0 && used + cost > budget) await flush();
    chunk.push(ref);
    used += cost;
  }
  await flush();
  return oids;
}

export async function inspectEffect(
  effect: DeleteEffect,
  options: GitCallOptions,
): Promise<EffectInspection> {
  return classifyEffect(effect, await readRefOids([effect.ref, effect.recovery_ref], options));
}

/**
 * The exact command that restores a deleted ref from its pin, in a POSIX shell inside
 * the repository: `git update-ref <ref> <pin> ''`. Full ref names make it work for any
 * branch name (`git branch HEAD …` and `git branch -x …` would be refused or misread), and
 * the empty old value makes git refuse rather than overwrite a ref created since. The
 * command is printable ASCII (see shellQuote), so the human output shows it verbatim.
 */
export function restoreCommand(ref: string, recoveryRef: string): string {
  return `git update-ref ${shellQuote(ref)} ${shellQuote(recoveryRef)} ''`;
}
