/**
 * The generic engine behind the per-agent loading model (`agents.ts`): given the project's
 * files, it works out, for each agent, what a session started at the project root loads at
 * start-up (and what that costs in tokens, comments counted as that agent sees them), what
 * it may load on demand, and what a byte cap cuts off. A symlink is resolved to its real
 * file, and each real file counts once per agent whatever paths lead to it.
 */
import { posix } from 'node:path';
import picomatch from 'picomatch';
import { type ParsedDoc, parseMarkdown } from '../markdown.js';
import { AGENTS, type AgentId, type AgentModel, type RuleFile } from './agents.js';

export interface StartupFile {
  /** The real file, root-relative. */
  path: string;
  /** Other paths the agent reached it by (symlinks), when any differ from `path`. */
  aliases?: string[];
  /** Tokens as this agent sees the file (after a cut, only what is kept). */
  tokens: number;
  /** Bytes of the file this agent loads (after a cut, only what is kept). */
  bytes: number;
  /** The loading rule (a glob) that matched, or `import` for an `@import`. */
  rule: string;
  imported_by?: string;
  /** Set when a byte cap cut this file: the offset of the first byte not loaded. */
  cut_at_byte?: number;
  /** A skill's `name` and `description`, the part listed at start-up (its body is on demand). */
  part?: 'skill-description';
}

export interface OnDemandFile {
  path: string;
  aliases?: string[];
  tokens: number;
  /** When the agent loads it. */
  when: string;
  rule: string;
  imported_by?: string;
  /** A skill's whole SKILL.md, read when the skill is used. */
  part?: 'skill-body';
}

export interface CutOffFile {
  path: string;
  /** The working folder whose chain is cut ('' = the project root). */
  working_folder: string;
  /** Offset of the first byte that is not loaded (0 = none of the file is). */
  cut_at_byte: number;
  /** 1-based line the cut falls in. */
  line: number;
  file_bytes: number;
  /** The cap and the setting that controls it. */
  max_bytes: number;
  setting: string;
}

export interface AgentContext {
  agent: AgentId;
  name: string;
  startup: { tokens: number; bytes: number; files: StartupFile[] };
  on_demand: OnDemandFile[];
  cut_off: CutOffFile[];
  /** Files a rule names that this agent does not read (e.g. `.md` in `.cursor/rules/`). */
  not_loaded?: { path: string; why: string }[];
}

/** True when the agent reads nothing in the project (no start-up, on-demand or ignored file). */
export function isEmptyContext(agent: AgentContext): boolean {
  return (
    agent.startup.files.length === 0 && agent.on_demand.length === 0 && (agent.not_loaded ?? []).length === 0
  );
}

/** A file's content as read from disk (BOM removed from `text`, kept in `bytes`). */
export interface FileContent {
  text: string;
  bytes: Buffer;
}

export interface LoadingInput {
  /** Every listed file, root-relative, `/`-separated. */
  files: readonly string[];
  /** The root-relative real path of `path`, or undefined when it is missing or outside the root. */
  realPath: (path: string) => string | undefined;
  /** Reads a real path; undefined when it is not readable text. */
  read: (realPath: string) => FileContent | undefined;
  countTokens: (text: string) => number;
  /** Only these agents (default: all). */
  agents?: readonly AgentId[];
}

interface Known {
  content: FileContent;
  parsed: ParsedDoc;
  frontmatter: Map<string, string>;
}

const dirOf = (path: string) => {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
};
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Top-level frontmatter keys as written (not YAML-parsed: Cursor's `globs: *.ts` is not
 * valid YAML, yet Cursor reads it). A key followed by `- item` lines gets the items joined.
 */
export function rawFrontmatter(lines: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  if ((lines[0] ?? '').replace(/\r$/, '') !== '---') return out;
  let key: string | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = (lines[i] ?? '').replace(/\r$/, '');
    if (line === '---' || line === '...') return out;
    const pair = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (pair) {
      key = pair[1]!;
      out.set(key, unquote(pair[2]!.trim()));
      continue;
    }
    const item = /^\s+-\s*(.*)$/.exec(line);
    if (item && key !== undefined) {
      const before = out.get(key) ?? '';
      out.set(key, before === '' ? unquote(item[1]!.trim()) : `${before}, ${unquote(item[1]!.trim())}`);
    }
  }
  return new Map(); // no closing fence: not frontmatter
}

function unquote(value: string): string {
  return /^(["']).*\1$/.test(value) ? value.slice(1, -1) : value;
}

/** The text an agent's model receives from a file: Claude Code drops block HTML comments. */
export function visibleText(agent: AgentModel, text: string, parsed: ParsedDoc): string {
  if (!agent.stripsBlockHtmlComments || parsed.commentBlocks.length === 0) return text;
  const drop = new Set<number>();
  for (const [start, end] of parsed.commentBlocks) for (let l = start; l < end; l++) drop.add(l);
  return parsed.lines.filter((_, i) => !drop.has(i)).join('\n');
}

/** The line (1-based) holding byte `offset` of `bytes`. */
function lineAtByte(bytes: Buffer, offset: number): number {
  let line = 1;
  const end = Math.min(offset, bytes.length);
  for (let i = 0; i < end; i++) if (bytes[i] === 0x0a) line++;
  return line;
}

interface Reached {
  real: string;
  aliases: Set<string>;
  rule: string;
  importedBy?: string;
}

/** Per-agent loading facts for the project (see the module comment). */
export function agentContexts(input: LoadingInput): AgentContext[] {
  const files = [...input.files].sort(cmp);
  const listed = new Set(files);
  const known = new Map<string, Known | null>();
  const load = (real: string): Known | undefined => {
    let entry = known.get(real);
    if (entry === undefined) {
      const content = input.read(real);
      if (content === undefined) entry = null;
      else {
        const parsed = parseMarkdown(content.text);
        entry = { content, parsed, frontmatter: rawFrontmatter(parsed.lines) };
      }
      known.set(real, entry);
    }
    return entry ?? undefined;
  };
  const tokenCache = new Map<string, number>();
  const tokensOf = (agent: AgentModel, real: string, text?: string): number => {
    const key = `${agent.stripsBlockHtmlComments ? 's' : 'p'}\0${real}\0${text === undefined ? '' : 'cut'}`;
    let tokens = text === undefined ? tokenCache.get(key) : undefined;
    if (tokens === undefined) {
      const k = load(real)!;
      const body = text ?? visibleText(agent, k.content.text, k.parsed);
      tokens = input.countTokens(body);
      if (text === undefined) tokenCache.set(key, tokens);
    }
    return tokens;
  };
  const wanted = input.agents ?? AGENTS.map((a) => a.id);
  return AGENTS.filter((a) => wanted.includes(a.id)).map((agent) =>
    contextFor(agent, files, listed, input, load, tokensOf),
  );
}

function contextFor(
  agent: AgentModel,
  files: string[],
  listed: ReadonlySet<string>,
  input: LoadingInput,
  load: (real: string) => Known | undefined,
  tokensOf: (agent: AgentModel, real: string, text?: string) => number,
): AgentContext {
  const matchers = agent.files.map((rule) => ({ rule, isMatch: picomatch(rule.glob, { dot: true }) }));
  const startup = new Map<string, Reached>();
  const onDemand = new Map<string, Reached & { when: string }>();
  const notLoaded: { path: string; why: string }[] = [];
  const chainTaken = new Set<string>();

  const reach = (map: Map<string, Reached>, path: string, real: string, rule: string, extra = {}) => {
    const prior = map.get(real);
    if (prior) {
      if (path !== real) prior.aliases.add(path);
      return;
    }
    const aliases = new Set<string>(path !== real ? [path] : []);
    map.set(real, { real, aliases, rule, ...extra });
  };

  const isListed = (path: string) => listed.has(path);
  const skills = new Map<string, Reached & { when: string }>();
  for (const path of files) {
    const match = matchers.find((m) => m.isMatch(path) && (m.rule.applies?.({ path, isListed }) ?? true));
    if (!match) continue;
    const real = input.realPath(path);
    if (real === undefined) continue;
    const k = load(real);
    if (!k) continue;
    const file: RuleFile = { path, dir: dirOf(path), frontmatter: k.frontmatter };
    const chain = agent.chain;
    if (chain?.names.includes(posix.basename(path))) {
      // At most one chain file per folder: the first name in the chain's order that exists.
      const first = chain.names.find((name) => listed.has(file.dir === '' ? name : `${file.dir}/${name}`));
      if (first !== posix.basename(path)) {
        notLoaded.push({ path, why: `${first} in the same folder is read instead` });
        continue;
      }
      chainTaken.add(path);
    }
    const activation = match.rule.activation(file);
    if (activation.load === 'never') notLoaded.push({ path, why: activation.why });
    else if (activation.load === 'startup') reach(startup, path, real, match.rule.glob);
    else if (activation.load === 'skill')
      reach(skills, path, real, match.rule.glob, { when: activation.when });
    else if (!startup.has(real)) reach(onDemand, path, real, match.rule.glob, { when: activation.when });
  }
  if (agent.imports) followImports(agent, startup, onDemand, listed, input, load);
  for (const real of startup.keys()) onDemand.delete(real);

  const cutOff = agent.chain ? chainCuts(agent, [...chainTaken].sort(cmp), input, load) : [];
  const rootCut = new Map(cutOff.filter((c) => c.working_folder === '').map((c) => [c.path, c]));
  const startupFiles: StartupFile[] = [...startup.values()].map((r) => {
    const k = load(r.real)!;
    const cut = rootCut.get(r.real);
    const kept = cut ? k.content.bytes.subarray(0, cut.cut_at_byte) : undefined;
    return {
      path: r.real,
      ...(r.aliases.size > 0 ? { aliases: [...r.aliases].sort(cmp) } : {}),
      tokens: kept ? tokensOf(agent, r.real, kept.toString('utf8')) : tokensOf(agent, r.real),
      bytes: kept ? kept.length : k.content.bytes.length,
      rule: r.rule,
      ...(r.importedBy !== undefined ? { imported_by: r.importedBy } : {}),
      ...(cut ? { cut_at_byte: cut.cut_at_byte } : {}),
    };
  });
  const skillBodies: OnDemandFile[] = [];
  for (const r of skills.values()) {
    if (startup.has(r.real) || onDemand.has(r.real)) continue;
    const listing = skillListing(load(r.real)!);
    const aliases = r.aliases.size > 0 ? { aliases: [...r.aliases].sort(cmp) } : {};
    startupFiles.push({
      path: r.real,
      ...aliases,
      tokens: input.countTokens(listing),
      bytes: Buffer.byteLength(listing),
      rule: r.rule,
      part: 'skill-description',
    });
    skillBodies.push({
      path: r.real,
      ...aliases,
      tokens: tokensOf(agent, r.real),
      when: r.when,
      rule: r.rule,
      part: 'skill-body',
    });
  }
  startupFiles.sort((a, b) => b.tokens - a.tokens || cmp(a.path, b.path));
  const onDemandFiles: OnDemandFile[] = [
    ...[...onDemand.values()].map((r) => ({
      path: r.real,
      ...(r.aliases.size > 0 ? { aliases: [...r.aliases].sort(cmp) } : {}),
      tokens: tokensOf(agent, r.real),
      when: r.when,
      rule: r.rule,
      ...(r.importedBy !== undefined ? { imported_by: r.importedBy } : {}),
    })),
    ...skillBodies,
  ].sort((a, b) => cmp(a.path, b.path));
  return {
    agent: agent.id,
    name: agent.name,
    startup: {
      tokens: startupFiles.reduce((sum, f) => sum + f.tokens, 0),
      bytes: startupFiles.reduce((sum, f) => sum + f.bytes, 0),
      files: startupFiles,
    },
    on_demand: onDemandFiles,
    cut_off: cutOff,
    ...(notLoaded.length > 0 ? { not_loaded: notLoaded.sort((a, b) => cmp(a.path, b.path)) } : {}),
  };
}

/**
 * What a session lists of a skill at start-up: its frontmatter `name` and `description`.
 */
export function skillListing(k: { parsed: ParsedDoc; frontmatter: ReadonlyMap<string, string> }): string {
  const data = k.parsed.frontmatter.data ?? {};
  // YAML first (a folded description); a value YAML refuses ("Use it: …") as written.
  const text = (key: string) =>
    typeof data[key] === 'string' ? (data[key] as string).trim() : (k.frontmatter.get(key) ?? '').trim();
  return [`name: ${text('name')}`, `description: ${text('description')}`].join('\n');
}

/** Resolves an `@import` written in `from` to a listed file, or undefined (outside the repository, missing). */
export function resolveImport(from: string, target: string, listed: ReadonlySet<string>): string | undefined {
  if (target.startsWith('~') || target.startsWith('/')) return undefined;
  const joined = posix.normalize(posix.join(dirOf(from), target.replace(/^\.\//, '')));
  if (joined === '..' || joined.startsWith('../') || joined === '.') return undefined;
  return listed.has(joined) ? joined : undefined;
}

/** Breadth-first `@import` expansion, `maxHops` deep: a start-up file's imports load at start-up. */
function followImports(
  agent: AgentModel,
  startup: Map<string, Reached>,
  onDemand: Map<string, Reached & { when: string }>,
  listed: ReadonlySet<string>,
  input: LoadingInput,
  load: (real: string) => Known | undefined,
): void {
  const expand = (roots: Reached[], into: (path: string, real: string, importer: Reached) => boolean) => {
    let frontier = roots;
    for (let hop = 0; hop < agent.imports!.maxHops && frontier.length > 0; hop++) {
      const next: Reached[] = [];
      for (const from of frontier) {
        const k = load(from.real);
        if (!k || !/\.(md|mdc|markdown)$/i.test(from.real)) continue;
        for (const imp of k.parsed.imports) {
          const path = resolveImport(from.real, imp.target, listed);
          const real = path === undefined ? undefined : input.realPath(path);
          if (path === undefined || real === undefined || !load(real)) continue;
          if (into(path, real, from)) next.push((startup.get(real) ?? onDemand.get(real))!);
        }
      }
      frontier = next;
    }
  };
  expand([...startup.values()], (path, real, importer) => {
    const prior = startup.get(real);
    if (prior) {
      if (path !== real) prior.aliases.add(path);
      return false;
    }
    startup.set(real, {
      real,
      aliases: new Set(path !== real ? [path] : []),
      rule: 'import',
      importedBy: importer.real,
    });
    return true;
  });
  expand([...onDemand.values()], (path, real, importer) => {
    if (startup.has(real) || onDemand.has(real)) return false;
    const when = (importer as Reached & { when?: string }).when ?? 'with its importer';
    onDemand.set(real, {
      real,
      aliases: new Set(path !== real ? [path] : []),
      rule: 'import',
      importedBy: importer.real,
      when,
    });
    return true;
  });
}

/**
 * Byte-cap cuts: for every folder holding a chain file, the chain from the root down to it,
 * concatenated in order and read up to the cap; a file over the remaining budget is cut at
 * that byte, and every later one is dropped whole. Whitespace-only files are skipped, as
 * Codex skips empty files.
 */
function chainCuts(
  agent: AgentModel,
  chainFiles: string[],
  input: LoadingInput,
  load: (real: string) => Known | undefined,
): CutOffFile[] {
  const chain = agent.chain!;
  const byDir = new Map(chainFiles.map((path) => [dirOf(path), path]));
  const out: CutOffFile[] = [];
  for (const folder of [...byDir.keys()].sort(cmp)) {
    const members: string[] = [];
    for (let d = folder; ; d = dirOf(d)) {
      const member = byDir.get(d);
      if (member !== undefined) members.unshift(member);
      if (d === '') break;
    }
    let remaining = chain.maxBytes;
    for (const member of members) {
      const real = input.realPath(member);
      const k = real === undefined ? undefined : load(real);
      if (!k || real === undefined) continue;
      const bytes = k.content.bytes;
      const kept = Math.min(bytes.length, remaining);
      if (kept < bytes.length) out.push(cutOf(real, folder, kept, bytes, chain));
      // Codex drops a segment that is empty after reading; it costs none of the budget.
      if (bytes.subarray(0, kept).toString('utf8').trim() === '') continue;
      remaining -= kept;
    }
  }
  return dedupeCuts(out);
}

function cutOf(
  path: string,
  folder: string,
  kept: number,
  bytes: Buffer,
  chain: NonNullable<AgentModel['chain']>,
): CutOffFile {
  return {
    path,
    working_folder: folder,
    cut_at_byte: kept,
    line: lineAtByte(bytes, kept),
    file_bytes: bytes.length,
    max_bytes: chain.maxBytes,
    setting: chain.setting,
  };
}

/** A root file cut in the root chain is cut the same way in every deeper chain: list it once. */
function dedupeCuts(cuts: CutOffFile[]): CutOffFile[] {
  const seen = new Set<string>();
  const out: CutOffFile[] = [];
  for (const cut of cuts) {
    const key = `${cut.path}\0${cut.cut_at_byte}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(cut);
  }
  return out.sort((a, b) => cmp(a.working_folder, b.working_folder) || cmp(a.path, b.path));
}
