/**
 * Per-agent context facts for a project on disk: the loading model (`agents.ts`) applied by
 * the engine (`loading.ts`) to the listed files, each resolved to its real file inside the
 * root, counted with the report's tokenizer.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { countTokens } from '../../tokens.js';
import { readDoc } from '../files.js';
import type { AgentId } from './agents.js';
import { type AgentContext, agentContexts, isEmptyContext } from './loading.js';

export { AGENT_IDS, AGENTS, type AgentId, agentContextGlobs, agentModel } from './agents.js';
export type { AgentContext, CutOffFile, OnDemandFile, StartupFile } from './loading.js';

/** The root-relative real path of `path`, or undefined when it is missing or leads out of the root. */
export function realPathInRoot(root: string, realRoot: string, path: string): string | undefined {
  let real: string;
  try {
    real = realpathSync(join(root, path));
  } catch {
    return undefined;
  }
  const rel = relative(realRoot, real);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return sep === '/' ? rel : rel.split(sep).join('/');
}

/** What each agent (or the named ones) that reads anything loads from the project at `root`. */
export function readAgentContexts(
  root: string,
  realRoot: string,
  files: readonly string[],
  agents?: readonly AgentId[],
): AgentContext[] {
  return agentContexts({
    files,
    realPath: (path) => realPathInRoot(root, realRoot, path),
    read: (real) => {
      const outcome = readDoc(root, realRoot, real);
      return outcome.kind === 'text' ? { text: outcome.text, bytes: outcome.bytes } : undefined;
    },
    countTokens,
    ...(agents !== undefined ? { agents } : {}),
  }).filter((agent) => !isEmptyContext(agent));
}
