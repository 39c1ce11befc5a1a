// The SessionStart hook. Loaded at every session start (straight from bin.ts, before the
// rest of the CLI), so it imports only light modules (no JSON Schema, Markdown or
// tokenizer code) and exits 0 on every runtime path.
import { resolve } from 'node:path';
import { formatInstant } from '../../core/clock.js';
import { escapeText } from '../../core/quote.js';
import { decideReminder, lookUpWorkTree, readStaleAfterDays } from '../../hygiene/state/reminder.js';
import { StateStore } from '../../hygiene/state/store.js';
import { parseCommandArgs } from '../args.js';
import type { CommandContext } from '../command.js';

// Claude Code gives the hook 10 s; git discovery (when it is needed) gets a small share of it.
const GIT_BUDGET_MS = 3000;

export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parseCommandArgs(ctx.argv, 'hygiene remind', { config: { type: 'string' } }, 0);
  try {
    const line = await remind(ctx, values.config === undefined ? undefined : resolve(ctx.cwd, values.config));
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

/** The git work tree around `cwd`, asking git only when the file system cannot tell. */
async function findRoot(ctx: CommandContext): Promise<string | undefined> {
  const lookup = await lookUpWorkTree(ctx.cwd);
  if (lookup !== 'ask-git') return lookup.root;
  const [{ findRepoRoot }, { Deadline }] = await Promise.all([
    import('../../hygiene/project.js'),
    import('../../core/deadline.js'),
  ]);
  return findRepoRoot(ctx.cwd, Deadline.after(GIT_BUDGET_MS));
}

/** The one JSON line to print, or undefined for nothing. Stamps `last_reminded` before answering. */
async function remind(ctx: CommandContext, configFile: string | undefined): Promise<string | undefined> {
  const now = ctx.clock.now();
  // Outside a repository there is no project to remind about, and nowhere we should write.
  const root = await findRoot(ctx);
  if (root === undefined) return undefined;
  const store = new StateStore(root);
  const decision = await decideReminder(await store.read(), now, () => readStaleAfterDays(root, configFile));
  if (!decision.remind) return undefined;
  // Stamp first: if the stamp cannot be written, show nothing rather than nag every session.
  await store.stamp('last_reminded', formatInstant(now));
  return JSON.stringify({ systemMessage: decision.message });
}
