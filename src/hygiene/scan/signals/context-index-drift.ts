/**
 * `context_index_drift`: an agent-context file that lists the project's skills, commands or
 * agents (`.claude/skills/`, `.agents/skills/`, `.claude/commands/`, `.claude/agents/`)
 * but misses some of them or names ones that are gone. A file counts as an index of a
 * kind when it names at least two of its entries in code (`name`, `/name`) or by path; a
 * name is "gone" when it is listed under a heading of that kind and no entry has it.
 */
import { baseOf, cmp, escapeRegExp } from '../paths.js';
import type { Doc } from '../walk.js';
import type { SignalModule } from './types.js';

export type IndexKind = 'skills' | 'commands' | 'agents';

interface IndexDir {
  kind: IndexKind;
  folder: string;
  /** The entry's name from a file path under `folder`, or undefined when it is not an entry. */
  entry: (rest: string) => string | undefined;
}

const INDEX_DIRS: readonly IndexDir[] = [
  { kind: 'skills', folder: '.claude/skills/', entry: (r) => /^([^/]+)\/SKILL\.md$/.exec(r)?.[1] },
  { kind: 'skills', folder: '.agents/skills/', entry: (r) => /^([^/]+)\/SKILL\.md$/.exec(r)?.[1] },
  {
    kind: 'commands',
    folder: '.claude/commands/',
    entry: (r) => (/\.md$/.test(r) ? r.slice(0, -3).split('/').join(':') : undefined),
  },
  { kind: 'agents', folder: '.claude/agents/', entry: (r) => /^([^/]+)\.md$/.exec(r)?.[1] },
];

const HEADING_OF: Record<IndexKind, RegExp> = {
  skills: /^\s{0,3}#{1,6}\s+.*\bskills?\b/i,
  commands: /^\s{0,3}#{1,6}\s+.*\b(?:slash[- ])?commands?\b/i,
  agents: /^\s{0,3}#{1,6}\s+.*\b(?:sub-?agents?|agents)\b/i,
};
/** A list item or table row naming an entry: `name`, **name**, /name or [name](…) first. */
const LISTED =
  /^\s*(?:[-*+]|\d+\.|\|)\s*(?:\*\*`?(\/?[a-z0-9][\w:.-]*)`?\*\*|`(\/?[a-z0-9][\w:.-]*)`|\[`?(\/?[a-z0-9][\w:.-]*)`?\]|(\/[a-z0-9][\w:.-]*))/i;

export const contextIndexDrift: SignalModule = {
  name: 'context_index_drift',
  scope: 'agent-context',
  description:
    'an agent-context file listing the skills, commands or agents of the project that misses some or names gone ones',
  shownByDefault: true,
  needs: [],
  collect({ facts, whoLoads }, emit) {
    const entries = new Map<IndexKind, Set<string>>();
    for (const path of facts.tree.files) {
      for (const dir of INDEX_DIRS) {
        if (!path.startsWith(dir.folder)) continue;
        const name = dir.entry(path.slice(dir.folder.length));
        if (name === undefined) continue;
        const set = entries.get(dir.kind) ?? new Set<string>();
        set.add(name);
        entries.set(dir.kind, set);
      }
    }
    if (entries.size === 0) return;
    for (const doc of facts.docs.values()) {
      if (whoLoads.of(doc.path).startup.length === 0 || whoLoads.realOf(doc.path) !== doc.path) continue;
      if (INDEX_DIRS.some((d) => doc.path.startsWith(d.folder))) continue;
      for (const [kind, names] of [...entries].sort(([a], [b]) => cmp(a, b))) {
        const drift = driftOf(doc, kind, names);
        if (drift !== undefined) emit(doc.path, drift);
      }
    }
  },
};

function driftOf(doc: Doc, kind: IndexKind, names: ReadonlySet<string>) {
  const prose = doc.lines.map((line, i) => (doc.parsed.codeLines.has(i + 1) ? '' : line));
  const text = prose.join('\n');
  const named = [...names].filter((name) =>
    new RegExp(
      `\`/?${escapeRegExp(name)}\`|(?:^|\\s)/${escapeRegExp(name)}\\b|/${escapeRegExp(name)}(?:/|\\.md)`,
    ).test(text),
  );
  if (named.length < 2) return undefined;
  const mentioned = (name: string) =>
    new RegExp(`(?:^|[^\\w-])/?${escapeRegExp(name)}(?:[^\\w-]|$)`, 'm').test(text);
  const missing = [...names].filter((name) => !mentioned(name)).sort(cmp);
  const gone = new Map<string, number>();
  let inIndex = false;
  let firstLine: number | undefined;
  prose.forEach((line, i) => {
    if (/^\s{0,3}#{1,6}\s/.test(line)) {
      inIndex = HEADING_OF[kind].test(line);
      if (inIndex) firstLine ??= i + 1;
      return;
    }
    if (!inIndex) return;
    const match = LISTED.exec(line);
    const item = match?.slice(1).find((g) => g !== undefined);
    if (item === undefined) return;
    const name = item.replace(/^\//, '').replace(/\.md$/, '');
    const isCommandForm = item.startsWith('/');
    if (kind === 'commands' && !isCommandForm) return;
    if (!names.has(name) && !names.has(baseOf(name)) && !gone.has(name)) gone.set(name, i + 1);
  });
  if (missing.length === 0 && gone.size === 0) return undefined;
  const goneNames = [...gone.keys()].sort(cmp);
  const line = goneNames.length > 0 ? Math.min(...gone.values()) : (firstLine ?? 1);
  const parts = [
    ...(missing.length > 0 ? [`misses ${missing.join(', ')}`] : []),
    ...(goneNames.length > 0 ? [`names ${goneNames.join(', ')}, which no longer exist`] : []),
  ];
  return {
    line,
    detail: `lists the project's ${kind} but ${parts.join(' and ')}`,
    data: { kind, listed: named.length, missing, gone: goneNames },
  };
}
