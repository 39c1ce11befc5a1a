/**
 * `tool_specific_wording`: wording for one agent in a file another agent loads — "you are
 * Claude Code" or "use the TodoWrite tool" in an `AGENTS.md` that Codex reads, Cursor's
 * `@codebase` in Copilot's instructions. The other agent has no such tool and may follow
 * the instruction wrongly. Lines under a heading that names the tool ("## Claude Code")
 * are scoped to it by their author and are left alone; so are code blocks.
 */
import { type AgentId, agentModel } from '../context/agents.js';
import type { WhoLoads } from '../context/who-loads.js';
import type { SignalModule } from './types.js';

interface ToolPhrase {
  agent: AgentId;
  /** Matched outside code spans. */
  pattern: RegExp;
  /** A heading naming the tool scopes its section to it. */
  scope: RegExp;
}

const PHRASES: readonly ToolPhrase[] = [
  {
    agent: 'claude-code',
    // Claude Code's own tools by their names as written (case matters: a project's `bash`
    // tool or `task` runner is not Claude's), and only as tools: a project may have a
    // WebFetch class of its own.
    pattern:
      /\b[Yy]ou are Claude(?: Code)?\b|\b(?:[Uu]se|[Cc]all) (?:the )?`?(?:TodoWrite|TodoRead|MultiEdit|NotebookEdit|ExitPlanMode)\b|\b`?(?:TodoWrite|TodoRead|MultiEdit|NotebookEdit|WebFetch|WebSearch|ExitPlanMode|Task|Bash|Glob|Grep)`? tool\b|(?:^|\s)\/compact\b|\bultrathink\b/,
    scope: /\bclaude\b/i,
  },
  {
    agent: 'cursor',
    pattern: /\byou are cursor\b|@codebase\b|\bCursor (?:Composer|Agent|rules)\b|\bComposer mode\b/i,
    scope: /\bcursor\b/i,
  },
  {
    agent: 'copilot',
    pattern: /\byou are (?:github )?copilot\b|@workspace\b|#codebase\b|\bCopilot Chat\b/i,
    scope: /\bcopilot\b/i,
  },
  {
    agent: 'gemini-cli',
    pattern: /\byou are gemini(?: cli)?\b|\bGemini CLI\b|\/memory (?:show|refresh|add)\b/i,
    scope: /\bgemini\b/i,
  },
  {
    agent: 'codex',
    pattern: /\byou are codex\b|\bCodex CLI\b|\bcodex exec\b/i,
    scope: /\bcodex\b/i,
  },
];

const HEADING = /^\s{0,3}#{1,6}\s+(.*)$/;

export const toolSpecificWording: SignalModule = {
  name: 'tool_specific_wording',
  scope: 'agent-context',
  description:
    "wording for one agent's tools in a file another agent loads at start-up or through an @import",
  // Hidden: its one sample on issue 31's bench described a format the CLI writes, not an
  // instruction to an agent (0 of 1).
  shownByDefault: false,
  needs: [],
  collect({ facts, whoLoads }, emit) {
    for (const doc of facts.docs.values()) {
      if (whoLoads.realOf(doc.path) !== doc.path) continue;
      const l = whoLoads.of(doc.path);
      // At start-up, or on demand through an import chain (a nested CLAUDE.md's @AGENTS.md):
      // who reads a file is judged by the chain that reaches it, not by its name.
      const loaders = [...l.startup, ...l.onDemand.filter((id) => l.importedBy.has(id))];
      if (loaders.length === 0) continue;
      let heading = '';
      for (let n = doc.parsed.frontmatter.endLine + 1; n <= doc.lines.length; n++) {
        const line = doc.lines[n - 1]!;
        if (doc.parsed.codeLines.has(n)) continue;
        const h = HEADING.exec(line);
        if (h) {
          heading = h[1]!;
          continue;
        }
        for (const phrase of PHRASES) {
          const others = loaders.filter((id) => id !== phrase.agent);
          if (others.length === 0 || phrase.scope.test(heading)) continue;
          const hit = phrase.pattern.exec(line);
          if (!hit) continue;
          emit(doc.path, wordingSignal(doc.path, n, phrase.agent, hit[0], others, loaders, whoLoads));
        }
      }
    }
  },
};

/** The import chain by which `agent` reaches `path`, from the file it loads by name down to `path`. */
export function importChain(path: string, agent: AgentId, whoLoads: WhoLoads): string[] {
  const chain = [path];
  for (let at = whoLoads.of(path).importedBy.get(agent); at !== undefined && !chain.includes(at); ) {
    chain.unshift(at);
    at = whoLoads.of(at).importedBy.get(agent);
  }
  return chain;
}

function wordingSignal(
  path: string,
  line: number,
  tool: AgentId,
  phrase: string,
  others: AgentId[],
  loaders: AgentId[],
  whoLoads: WhoLoads,
) {
  const imported = others.filter((id) => whoLoads.of(path).importedBy.has(id));
  const chain = imported.length > 0 ? importChain(path, imported[0]!, whoLoads) : [];
  const via =
    chain.length > 1 ? ` (${whoLoads.namesOf(imported)} through ${chain.slice(0, -1).join(' → @')})` : '';
  const own = loaders.includes(tool) ? ' too' : `, and ${agentModel(tool).name} does not`;
  return {
    line,
    detail: `"${phrase}" is ${agentModel(tool).name} wording, but ${whoLoads.namesOf(others)} load${others.length === 1 ? 's' : ''} this file${via}${own}`,
    data: {
      tool,
      phrase,
      other_agents: others,
      ...(chain.length > 1 ? { import_chain: chain, imported_for: imported } : {}),
    },
  };
}
