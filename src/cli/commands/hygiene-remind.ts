// The SessionStart hook. Loaded at every session start, so it imports only light modules
// (no JSON Schema, Markdown or tokenizer code) and exits 0 on every runtime path.
import { formatInstant } from '../../core/clock.js';
import { Deadline } from '../../core/deadline.js';
import { escapeText } from '../../core/quote.js';
import { findRepoRoot } from '../../hygiene/project.js';
import { decideReminder, readStaleAfterDays } from '../../hygiene/state/reminder.js';
import { StateStore } from '../../hygiene/state/store.js';
import { parseCommandArgs } from '../args.js';
import type { CommandContext } from '../command.js';

// Claude Code gives the hook 10 s; git discovery gets a small share of it.
const GIT_BUDGET_MS = 3000;

export async function run(ctx: CommandContext): Promise<number> {
  parseCommandArgs(ctx.argv, 'hygiene remind', {}, 0);
  try {
    const line = await remind(ctx);
    if (line !== undefined) ctx.streams.stdout.write(`${line}\n`);
  } catch (error) {
    // Corrupt state, bad config, unwritable .dochygiene/, a malformed STW_NOW: no banner.
    const message = error instanceof Error ? error.message : String(error);
    ctx.streams.stderr.write(
      `stw hygiene remind: ${escapeText(message.split('\n')[0] ?? '')} (no reminder shown)\n`,
    );
  }
  return 0;
}

/** The one JSON line to print, or undefined for nothing. Stamps `last_reminded` before answering. */
async function remind(ctx: CommandContext): Promise<string | undefined> {
  const now = ctx.clock.now();
  // Outside a repository there is no project to remind about, and nowhere we should write.
  const root = await findRepoRoot(ctx.cwd, Deadline.after(GIT_BUDGET_MS));
  if (root === undefined) return undefined;
  const staleAfterDays = await readStaleAfterDays(root);
  const store = new StateStore(root);
  const decision = decideReminder(await store.read(), now, staleAfterDays);
  if (!decision.remind) return undefined;
  // Stamp first: if the stamp cannot be written, show nothing rather than nag every session.
  await store.stamp('last_reminded', formatInstant(now));
  return JSON.stringify({ systemMessage: decision.message });
}
