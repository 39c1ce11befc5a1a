import type { AgentId } from '../context/agents.js';
import type { AgentContext } from '../context/loading.js';
import type { WhoLoads } from '../context/who-loads.js';
import type { Doc } from '../walk.js';
import type { SignalModule } from './types.js';

/**
 * An agent-context file (or what one imports) that costs more tokens than
 * `context.budget_tokens`. The detail says truly when it is paid: at the start of every
 * session of the agents that load it at start-up, or only on demand (a nested file, a rule
 * with `paths:`), from the per-agent loading facts.
 */
export const contextWeight: SignalModule = {
  name: 'context_weight',
  scope: 'docs',
  description: 'an agent-context file or import above context.budget_tokens',
  shownByDefault: true,
  needs: [],
  async collect({ facts, config, agents, whoLoads }, emit) {
    if (facts.agentContext.size === 0) return;
    const budget = config.context.budget_tokens;
    // The tokenizer's tables are large: load them only when there is agent context to count.
    const { countTokens } = await import('../../tokens.js');
    for (const path of facts.agentContext) {
      const doc = facts.docs.get(path);
      if (!doc) continue;
      const loaders = whoLoads.of(path);
      const tokens = agentTokens(agents, whoLoads.realOf(path)) ?? countTokens(injectedText(doc));
      if (tokens <= budget) continue;
      const direct = loaders.startup.filter((id) => !loaders.importedBy.has(id));
      const viaImport = loaders.startup.filter((id) => loaders.importedBy.has(id));
      const importedBy = viaImport.length > 0 ? loaders.importedBy.get(viaImport[0]!) : doc.importedBy;
      const injection =
        loaders.startup.length === 0 && loaders.onDemand.length > 0
          ? 'on-demand'
          : direct.length > 0 || (loaders.startup.length === 0 && doc.isAgentContext)
            ? 'always'
            : 'imported';
      emit(path, {
        detail: `≈${tokens} tokens ${paidWhen(injection, loaders, whoLoads, direct, viaImport, importedBy)}; budget ${budget}`,
        data: {
          tokens,
          budget,
          injection,
          ...(injection === 'imported' && importedBy !== undefined ? { imported_by: importedBy } : {}),
          ...(loaders.startup.length > 0 ? { startup_agents: loaders.startup } : {}),
          ...(loaders.onDemand.length > 0 ? { on_demand_agents: loaders.onDemand } : {}),
        },
      });
    }
  },
};

function paidWhen(
  injection: string,
  loaders: ReturnType<WhoLoads['of']>,
  whoLoads: WhoLoads,
  direct: readonly AgentId[],
  viaImport: readonly AgentId[],
  importedBy: string | undefined,
): string {
  if (injection === 'on-demand') {
    const first = loaders.onDemand[0]!;
    return `loaded on demand (${whoLoads.namesOf(loaders.onDemand)}: ${loaders.when.get(first)}), not every session`;
  }
  const imported =
    viaImport.length > 0
      ? `${whoLoads.namesOf(viaImport)} via "${importedBy}"`
      : importedBy
        ? `via "${importedBy}"`
        : '';
  if (direct.length === 0)
    return imported !== '' ? `loaded at the start of every session of ${imported}` : 'injected every session';
  return `loaded at the start of every ${whoLoads.namesOf(direct)} session${imported !== '' ? ` (and ${imported})` : ''}`;
}

/** The most any agent pays for the real file `real` (counted as that agent sees it), if modelled. */
function agentTokens(agents: readonly AgentContext[], real: string): number | undefined {
  let most: number | undefined;
  for (const agent of agents) {
    for (const file of [...agent.startup.files, ...agent.on_demand]) {
      if (file.path === real && (most === undefined || file.tokens > most)) most = file.tokens;
    }
  }
  return most;
}

/** The text an agent is given when no per-agent count exists: block-level HTML comments stripped. */
function injectedText(doc: Doc): string {
  if (doc.parsed.commentBlocks.length === 0) return doc.text;
  const drop = new Set<number>();
  for (const [s, e] of doc.parsed.commentBlocks) for (let l = s; l < e; l++) drop.add(l);
  return doc.lines.filter((_, i) => !drop.has(i)).join('\n');
}
