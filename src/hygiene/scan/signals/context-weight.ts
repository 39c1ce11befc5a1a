import type { Doc } from '../walk.js';
import type { SignalModule } from './types.js';

/** An agent-context file (or what one imports) that costs more tokens than `context.budget_tokens`. */
export const contextWeight: SignalModule = {
  name: 'context_weight',
  description: 'an agent-context file or import above context.budget_tokens',
  needs: [],
  async collect({ facts, config }, emit) {
    if (facts.agentContext.size === 0) return;
    const budget = config.context.budget_tokens;
    // The tokenizer's tables are large: load them only when there is agent context to count.
    const { countTokens } = await import('../../tokens.js');
    for (const path of facts.agentContext) {
      const doc = facts.docs.get(path);
      if (!doc) continue;
      const tokens = countTokens(injectedText(doc));
      if (tokens <= budget) continue;
      const always = doc.isAgentContext;
      emit(path, {
        detail: `≈${tokens} tokens injected ${always ? 'every session' : `via "${doc.importedBy}"`}; budget ${budget}`,
        data: {
          tokens,
          budget,
          injection: always ? 'always' : 'imported',
          ...(!always && doc.importedBy ? { imported_by: doc.importedBy } : {}),
        },
      });
    }
  },
};

/** The text an agent is given: block-level HTML comments are stripped before injection. */
function injectedText(doc: Doc): string {
  if (doc.parsed.commentBlocks.length === 0) return doc.text;
  const drop = new Set<number>();
  for (const [s, e] of doc.parsed.commentBlocks) for (let l = s; l < e; l++) drop.add(l);
  return doc.lines.filter((_, i) => !drop.has(i)).join('\n');
}
