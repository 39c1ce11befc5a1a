/**
 * Self-describing recovery refs (docs/tidy.md, "Pins"): every `refs/stw-recovery/<plan>/<n>`
 * is created with `--create-reflog` and a reflog message naming the plan, the action and
 * the branch it preserves, so `stw tidy pins` can say which branch a pin was, and how to
 * restore it, from the repository alone. The message is
 * `stw-recovery {"plan":"<plan_id>","pins":{"<action_id>":"<branch>",…}}`: one Git
 * transaction pins a batch under one message, so it names the batch's pins (at most
 * PIN_NOTE_MAX_BYTES of them; the batching stops short of that).
 */
import { PLAN_ID_PATTERN, RECOVERY_REF_PREFIX } from './types.js';

const PREFIX = 'stw-recovery ';
/** A batch's message stays under this many bytes (a reflog entry per pin repeats it). */
export const PIN_NOTE_MAX_BYTES = 8192;

export interface PinNoteEntry {
  /** The branch (full ref name) or task branch the pin preserves. */
  ref: string;
  /** refs/stw-recovery/<plan_id>/<action_id>. */
  recovery_ref: string;
}

function planAndAction(recoveryRef: string): { plan: string; action: string } | null {
  if (!recoveryRef.startsWith(RECOVERY_REF_PREFIX)) return null;
  const [plan, action, ...rest] = recoveryRef.slice(RECOVERY_REF_PREFIX.length).split('/');
  if (plan === undefined || action === undefined || rest.length > 0 || !PLAN_ID_PATTERN.test(plan))
    return null;
  if (!/^[1-9][0-9]*$/.test(action)) return null;
  return { plan, action };
}

/** The reflog message for pins of one plan made in one transaction. */
export function pinNoteMessage(entries: readonly PinNoteEntry[]): string {
  const pins: Record<string, string> = {};
  let plan = '';
  for (const entry of entries) {
    const named = planAndAction(entry.recovery_ref);
    if (named === null) continue;
    plan = named.plan;
    pins[named.action] = entry.ref;
  }
  return `${PREFIX}${JSON.stringify({ plan, pins })}`;
}

/** The bytes one entry adds to a batch's message (to keep a batch under PIN_NOTE_MAX_BYTES). */
export function pinNoteBytes(entry: PinNoteEntry): number {
  return Buffer.byteLength(JSON.stringify(entry.ref), 'utf8') + 16;
}

/** The branch a reflog message records for `recoveryRef`; null when it names none. */
export function branchFromPinNote(message: string, recoveryRef: string): string | null {
  const named = planAndAction(recoveryRef);
  if (named === null || !message.startsWith(PREFIX)) return null;
  try {
    const note = JSON.parse(message.slice(PREFIX.length)) as { plan?: unknown; pins?: unknown };
    if (note.plan !== named.plan || typeof note.pins !== 'object' || note.pins === null) return null;
    const branch = (note.pins as Record<string, unknown>)[named.action];
    return typeof branch === 'string' && branch.startsWith('refs/') ? branch : null;
  } catch {
    return null;
  }
}
