/**
 * Which agents load a path, from the per-agent loading facts (`loading.ts`): at start-up,
 * on demand, and the real file behind an alias (a symlink). Signals about agent context
 * ask this instead of re-deriving the loading model.
 */
import type { AgentId } from './agents.js';
import type { AgentContext } from './loading.js';

export interface Loaders {
  /** Agents that load the file at start-up, in report order. */
  startup: AgentId[];
  /** Agents that may load it on demand (and not at start-up). */
  onDemand: AgentId[];
  /** The start-up or on-demand entry's `when`, by agent, for on-demand loads. */
  when: Map<AgentId, string>;
  /** The importing file, by agent, when the agent reaches it through an `@import`. */
  importedBy: Map<AgentId, string>;
}

export class WhoLoads {
  private readonly byPath = new Map<string, Loaders>();
  private readonly real = new Map<string, string>();
  readonly names: ReadonlyMap<AgentId, string>;

  constructor(readonly agents: readonly AgentContext[]) {
    this.names = new Map(agents.map((a) => [a.agent, a.name]));
    for (const agent of agents) {
      for (const file of agent.startup.files) {
        // A skill's start-up part is its description; its text is read on demand (below).
        if (file.part === 'skill-description') continue;
        for (const path of [file.path, ...(file.aliases ?? [])]) {
          const l = this.entry(path);
          l.startup.push(agent.agent);
          if (file.imported_by !== undefined) l.importedBy.set(agent.agent, file.imported_by);
          this.real.set(path, file.path);
        }
      }
      for (const file of agent.on_demand) {
        for (const path of [file.path, ...(file.aliases ?? [])]) {
          const l = this.entry(path);
          if (l.startup.includes(agent.agent)) continue;
          l.onDemand.push(agent.agent);
          l.when.set(agent.agent, file.when);
          if (file.imported_by !== undefined) l.importedBy.set(agent.agent, file.imported_by);
          this.real.set(path, file.path);
        }
      }
    }
  }

  private entry(path: string): Loaders {
    let l = this.byPath.get(path);
    if (l === undefined) {
      l = { startup: [], onDemand: [], when: new Map(), importedBy: new Map() };
      this.byPath.set(path, l);
    }
    return l;
  }

  /** Who loads `path` (empty lists when no agent does). */
  of(path: string): Loaders {
    return this.byPath.get(path) ?? { startup: [], onDemand: [], when: new Map(), importedBy: new Map() };
  }

  /** True when some agent loads `path` at start-up or on demand. */
  isLoaded(path: string): boolean {
    const l = this.byPath.get(path);
    return l !== undefined && (l.startup.length > 0 || l.onDemand.length > 0);
  }

  /** The real file behind `path` when an agent reaches it, else `path` itself. */
  realOf(path: string): string {
    return this.real.get(path) ?? path;
  }

  /** Agent names for display, e.g. "Claude Code, Codex". */
  namesOf(ids: readonly AgentId[]): string {
    return ids.map((id) => this.names.get(id) ?? id).join(', ');
  }
}
