/**
 * Tokens saved per session, per agent (report 1.1): only what that agent loads at start-up
 * counts, as that agent sees it (after its comment stripping and byte cap). A distill saves
 * what is over its target size, never the whole file; a link or version fix saves nothing.
 */
import type { AgentContext, StartupFile } from '../scan/context/loading.js';
import type { Entry } from '../types.js';

function targetOf(entry: Entry, fallback: number): number {
  for (const signal of entry.signals) {
    const budget = signal.data?.['budget'];
    if (signal.name === 'context_weight' && typeof budget === 'number' && budget >= 0) return budget;
  }
  return fallback;
}

/** What applying `entry` would take off `file`'s start-up cost for this agent. */
function savingOn(entry: Entry, file: StartupFile, budgetTokens: number): number {
  if (entry.category.subtype === 'distill') return Math.max(0, file.tokens - targetOf(entry, budgetTokens));
  switch (entry.exact_edit?.kind) {
    case 'replace-text':
    case 'insert-frontmatter':
      return 0;
    case 'move-to-archive':
    case 'delete-path':
      return file.tokens;
    default:
      return Math.min(file.tokens, entry.token_estimate.raw_tokens);
  }
}

/** Σ savings over the agent's start-up files, each file capped at what it costs. */
export function tokensSavedFor(agent: AgentContext, entries: readonly Entry[], budgetTokens: number): number {
  let total = 0;
  for (const file of agent.startup.files) {
    const paths = new Set([file.path, ...(file.aliases ?? [])]);
    let saved = 0;
    for (const entry of entries) if (paths.has(entry.path)) saved += savingOn(entry, file, budgetTokens);
    total += Math.min(saved, file.tokens);
  }
  return total;
}

/** Every path (real or alias) some agent loads at start-up. */
export function startupPaths(agents: readonly AgentContext[]): Set<string> {
  const out = new Set<string>();
  for (const agent of agents)
    for (const file of agent.startup.files) for (const p of [file.path, ...(file.aliases ?? [])]) out.add(p);
  return out;
}
