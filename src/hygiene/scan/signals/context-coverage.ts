/**
 * `context_coverage`: gaps in which agent reads what.
 * - `agents-md-not-read-by-claude`: Claude Code reads `CLAUDE.md`, never `AGENTS.md`; an
 *   `AGENTS.md` that no `CLAUDE.md` imports, links, names (an instruction to read it) or is a
 *   symlink to is invisible to it.
 *   The root file is always checked; a nested one only when the project uses Claude Code
 *   (it has a `CLAUDE.md` or `.claude/`) and its folder has no `CLAUDE.md`.
 * - `symlink-to-guide`: a context file name that is a symlink to a long guide written for
 *   people (`CLAUDE.md` → `CONTRIBUTING.md`): every session pays for all of it.
 */
import { type AgentId, agentModel } from '../context/agents.js';
import { AGENT_CONTEXT_NAME } from '../context/names.js';
import { isShippedTemplate } from '../context/shipped.js';
import { baseOf, dirOf, escapeRegExp } from '../paths.js';
import type { SignalInput, SignalModule } from './types.js';

export const contextCoverage: SignalModule = {
  name: 'context_coverage',
  scope: 'agent-context',
  description:
    'an AGENTS.md Claude Code never reads (no CLAUDE.md imports, links or is it), or a context file symlinked to a long human guide',
  shownByDefault: true,
  needs: [],
  collect(input, emit) {
    unreadAgentsFiles(input, emit);
    symlinksToGuides(input, emit);
  },
};

/** Agents that read nested files of one name, and the name (their coverage is per folder). */
const NESTED_READERS: readonly {
  agent: AgentId;
  name: string;
  usedBy: (files: readonly string[]) => boolean;
}[] = [
  {
    agent: 'claude-code',
    name: 'CLAUDE.md',
    usedBy: (files) => files.some((p) => baseOf(p) === 'CLAUDE.md' || p.startsWith('.claude/')),
  },
  { agent: 'codex', name: 'AGENTS.md', usedBy: (files) => files.includes('AGENTS.md') },
  { agent: 'gemini-cli', name: 'GEMINI.md', usedBy: (files) => files.includes('GEMINI.md') },
];

function unreadAgentsFiles({ facts, whoLoads }: SignalInput, emit: Parameters<SignalModule['collect']>[1]) {
  const files = facts.tree.files;
  for (const reader of NESTED_READERS) {
    const uses = reader.usedBy(files);
    const reads = (p: string) => {
      const l = whoLoads.of(p);
      return l.startup.includes(reader.agent) || l.onDemand.includes(reader.agent);
    };
    const linked = new Set<string>();
    for (const from of files.filter(reads)) {
      for (const { r } of facts.resolvedRefs.get(from) ?? []) if (r?.exists) linked.add(r.path);
    }
    for (const path of files) {
      const name = baseOf(path);
      if (name === reader.name || !NESTED_READERS.some((r) => r.name === name)) continue;
      // A file the scan does not read (under scan.excluded_dirs, such as a vendored module's
      // AGENTS.md, or in .dochygiene-ignore) is not the project's to cover.
      if (!facts.docs.has(path)) continue;
      if (whoLoads.realOf(path) !== path || reads(path) || linked.has(path)) continue;
      const folder = dirOf(path);
      // No session works in a dot folder: an AGENTS.md inside `.agents/skills/x/` is a skill's
      // page, not a folder's context.
      if (folder.split('/').some((segment) => segment.startsWith('.'))) continue;
      // A template the code copies into users' projects is read there, not here.
      if (isShippedTemplate(facts, path)) continue;
      const own = folder === '' ? reader.name : `${folder}/${reader.name}`;
      const hasOwn = facts.tree.isFile(own);
      // "Before doing anything else, read AGENTS.md" (jesseduffield/lazygit): the agent reads it
      // on that instruction, with no import or link.
      if (hasOwn && namesFile(facts.docs.get(own)?.text, name)) continue;
      const claudeRoot = reader.agent === 'claude-code' && name === 'AGENTS.md';
      // The root AGENTS.md is always checked for Claude Code; otherwise only a nested file in a
      // project that uses the agent, in a folder without the agent's own file.
      if (!(claudeRoot && folder === '') && (folder === '' || !uses || hasOwn)) continue;
      const model = agentModel(reader.agent);
      const fix =
        model.imports !== undefined ? `a one-line "@${name}" file, or a symlink,` : 'a symlink to it';
      emit(path, {
        line: 1,
        detail: hasOwn
          ? `${model.name} never reads it: ${own} neither imports (@${name}) nor links it`
          : `${model.name} never reads it: there is no ${own} (${fix} would load it)`,
        data: claudeRoot
          ? { reason: 'agents-md-not-read-by-claude', claude_file: own, claude_file_exists: hasOwn }
          : { reason: 'nested-not-read', agent: reader.agent, agent_file: own, agent_file_exists: hasOwn },
      });
    }
  }
}

/** Whether a context file's text names `name` (`AGENTS.md`) as a word: an instruction to read it. */
function namesFile(text: string | undefined, name: string): boolean {
  return text !== undefined && new RegExp(`(?<![\\w./-])${escapeRegExp(name)}(?![\\w/-])`).test(text);
}

function symlinksToGuides({ agents, config }: SignalInput, emit: Parameters<SignalModule['collect']>[1]) {
  const seen = new Set<string>();
  for (const agent of agents) {
    for (const file of agent.startup.files) {
      if (AGENT_CONTEXT_NAME.test(baseOf(file.path)) || file.rule === 'import') continue;
      if (file.tokens <= config.context.budget_tokens) continue;
      for (const alias of file.aliases ?? []) {
        if (seen.has(alias) || !AGENT_CONTEXT_NAME.test(baseOf(alias))) continue;
        seen.add(alias);
        emit(alias, {
          line: 1,
          detail: `a symlink to "${file.path}", a guide written for people: ≈${file.tokens} tokens at the start of every session (budget ${config.context.budget_tokens})`,
          data: {
            reason: 'symlink-to-guide',
            target: file.path,
            tokens: file.tokens,
            budget: config.context.budget_tokens,
          },
        });
      }
    }
  }
}
