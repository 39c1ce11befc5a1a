/**
 * `context_coverage`: gaps in which agent reads what.
 * - `agents-md-not-read-by-claude`: Claude Code reads `CLAUDE.md`, never `AGENTS.md`; an
 *   `AGENTS.md` that no `CLAUDE.md` imports, links or is a symlink to is invisible to it.
 *   The root file is always checked; a nested one only when the project uses Claude Code
 *   (it has a `CLAUDE.md` or `.claude/`) and its folder has no `CLAUDE.md`.
 * - `symlink-to-guide`: a context file name that is a symlink to a long guide written for
 *   people (`CLAUDE.md` → `CONTRIBUTING.md`): every session pays for all of it.
 */
import { AGENT_CONTEXT_NAME } from '../context/names.js';
import { baseOf, dirOf } from '../paths.js';
import type { SignalInput, SignalModule } from './types.js';

export const contextCoverage: SignalModule = {
  name: 'context_coverage',
  description:
    'an AGENTS.md Claude Code never reads (no CLAUDE.md imports, links or is it), or a context file symlinked to a long human guide',
  needs: [],
  collect(input, emit) {
    unreadAgentsFiles(input, emit);
    symlinksToGuides(input, emit);
  },
};

function unreadAgentsFiles({ facts, whoLoads }: SignalInput, emit: Parameters<SignalModule['collect']>[1]) {
  const files = facts.tree.files;
  const usesClaude = files.some((p) => baseOf(p) === 'CLAUDE.md' || p.startsWith('.claude/'));
  const claudeFiles = files.filter((p) => {
    const l = whoLoads.of(p);
    return l.startup.includes('claude-code') || l.onDemand.includes('claude-code');
  });
  const linkedFromClaude = new Set<string>();
  for (const from of claudeFiles) {
    for (const { r } of facts.resolvedRefs.get(from) ?? []) if (r?.exists) linkedFromClaude.add(r.path);
  }
  for (const path of files) {
    if (baseOf(path) !== 'AGENTS.md' || whoLoads.realOf(path) !== path) continue;
    const l = whoLoads.of(path);
    if (l.startup.includes('claude-code') || l.onDemand.includes('claude-code')) continue;
    if (linkedFromClaude.has(path)) continue;
    const folder = dirOf(path);
    const sibling = folder === '' ? 'CLAUDE.md' : `${folder}/CLAUDE.md`;
    if (folder !== '' && (!usesClaude || facts.tree.isFile(sibling))) continue;
    const hasSibling = facts.tree.isFile(sibling);
    emit(path, {
      line: 1,
      detail: hasSibling
        ? `Claude Code never reads it: ${sibling} neither imports (@${baseOf(path)}) nor links it`
        : `Claude Code never reads it: there is no ${sibling} (a one-line "@AGENTS.md" file, or a symlink, would load it)`,
      data: { reason: 'agents-md-not-read-by-claude', claude_file: sibling, claude_file_exists: hasSibling },
    });
  }
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
