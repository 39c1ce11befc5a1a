/**
 * `stw hygiene context` (read-only): per agent, what a session started at the project root
 * pays at start-up and which files it comes from, what it may load on demand, what a byte
 * cap cuts off, and the scanner's findings on the files that agent reads.
 */
import type { Deadline } from '../core/deadline.js';
import { UsageError } from '../core/errors.js';
import { quote } from '../core/quote.js';
import { loadConfig } from './config.js';
import { resolveProjectRoot } from './project.js';
import { AGENT_IDS, type AgentId, agentModel } from './scan/context/agents.js';
import { type AgentContext, isEmptyContext } from './scan/context/loading.js';
import { isPartialScan, scan } from './scan/index.js';
import { TOKENIZER_NAME } from './tokens.js';
import type { ScanArtifact } from './types.js';

/** Short names accepted by `--agent` besides the ids. */
const AGENT_ALIASES: Readonly<Record<string, AgentId>> = {
  claude: 'claude-code',
  gemini: 'gemini-cli',
  'github-copilot': 'copilot',
};

/** The agent id for a name given on the command line (`UsageError` if none matches). */
export function parseAgentName(name: string): AgentId {
  const key = name.trim().toLowerCase();
  const id = (AGENT_IDS as readonly string[]).includes(key) ? (key as AgentId) : AGENT_ALIASES[key];
  if (id === undefined) {
    throw new UsageError(`unknown agent ${quote(name)}`, `use one of: ${AGENT_IDS.join(', ')}`);
  }
  return id;
}

export interface ContextFinding {
  path: string;
  line?: number;
  signal: string;
  detail: string;
}

export interface AgentContextReport extends AgentContext {
  /** Scanner signals on the files this agent reads (start-up first, then on demand). */
  findings: ContextFinding[];
}

export interface ContextResult {
  project_root: string;
  tokenizer: string;
  agents: AgentContextReport[];
  /** True when history could not be read (history-based findings are missing). */
  partial: boolean;
}

export interface ContextOptions {
  cwd: string;
  /** `--config FILE`: the repository config read instead of `.dochygiene.yml` (docs/trust.md: trusted as the repository's). */
  configFile?: string;

  /** Only these agents, in this order; default: every agent that reads something here. */
  agents?: AgentId[];
  deadline?: Deadline;
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
}

/** Findings of `artifact` on the files `agent` reads (by real path or alias), in file then line order. */
export function findingsFor(agent: AgentContext, artifact: ScanArtifact): ContextFinding[] {
  const paths: string[] = [];
  for (const file of [...agent.startup.files, ...agent.on_demand]) {
    for (const path of [file.path, ...(file.aliases ?? [])]) if (!paths.includes(path)) paths.push(path);
  }
  const out: ContextFinding[] = [];
  for (const path of paths) {
    for (const signal of artifact.signals[path] ?? []) {
      out.push({
        path,
        ...(signal.line !== undefined ? { line: signal.line } : {}),
        signal: signal.name,
        detail: signal.detail,
      });
    }
  }
  return out;
}

/** Scans the project (nothing is written) and returns the per-agent context facts. */
export async function runContext(options: ContextOptions): Promise<ContextResult> {
  const root = await resolveProjectRoot(options.cwd);
  const config = await loadConfig(root, process.env, options.configFile);
  const artifact = await scan({
    root,
    config,
    ...(options.deadline !== undefined ? { deadline: options.deadline } : {}),
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
    ...(options.onProgress !== undefined ? { onProgress: options.onProgress } : {}),
  });
  const all = artifact.agents ?? [];
  const emptyOf = (id: AgentId): AgentContext => ({
    agent: id,
    name: agentModel(id).name,
    startup: { tokens: 0, bytes: 0, files: [] },
    on_demand: [],
    cut_off: [],
  });
  const chosen =
    options.agents !== undefined && options.agents.length > 0
      ? [...new Set(options.agents)].map((id) => all.find((a) => a.agent === id) ?? emptyOf(id))
      : all.filter((a) => !isEmptyContext(a));
  return {
    project_root: artifact.project_root,
    tokenizer: TOKENIZER_NAME,
    agents: chosen.map((agent) => ({ ...agent, findings: findingsFor(agent, artifact) })),
    partial: isPartialScan(artifact),
  };
}
