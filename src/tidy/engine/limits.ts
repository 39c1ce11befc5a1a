/** The bounds every journaled action run shares (docs/tidy.md, "Bounds"). */

/**
 * A journal is read whole; 1024 actions × 3 records fit well inside this, with room for
 * retries, and so do a retirement's few effects with their retained-entry lists.
 */
export const JOURNAL_MAX_BYTES = 4 * 1_048_576;

/**
 * A task creation journal holds one creation: intent, then created and completed (or
 * failed), a few kilobytes. Its readers (`task list`, retirement planning) read it for
 * every task, so its bound stays at the 1 MiB it has always had rather than the apply
 * journal's, which is sized for a thousand actions.
 */
export const TASK_JOURNAL_MAX_BYTES = 1_048_576;

/**
 * After an effect ran (or was killed), learning what it did is worth a short overrun of
 * the deadline: a result that does not know what happened helps nobody.
 */
export const INSPECTION_GRACE_MS = 10_000;

/** How much of a torn final line the `torn-tail-discarded` record keeps. */
export const TORN_TEXT_LIMIT = 512;
