/**
 * `directory_map_drift`: a directory map (a `├──`/`└──` tree in a code block) in an
 * agent-context file that no longer matches the tracked tree: entries that are gone, and
 * top-level folders the map leaves out though it lists the others, and folders one level
 * down it leaves out beside three or more it lists (not under a `...` entry, which says
 * the listing is partial); and folder lists (`listMaps`). A tree whose entries
 * mostly do not exist is an illustration (of another project, of a layout to create), not
 * a map of this one, and is left alone. With history, also heavy churn under the folders it
 * maps since the file's last commit (`THRESHOLDS.mapChurnCommits`): one `git rev-list`
 * per map, for at most `MAX_CHURN_LOOKUPS` maps.
 */

import { formatInstant } from '../../../core/clock.js';
import { git } from '../../../core/git.js';
import { isShippedTemplate } from '../context/shipped.js';
import { dirOf } from '../paths.js';
import { THRESHOLDS } from '../thresholds.js';
import type { Doc, ProjectTree } from '../walk.js';
import { isAlias } from './context-files.js';
import type { SignalModule } from './types.js';

const MAX_CHURN_LOOKUPS = 20;

/** Commits touching `folders` after `since` (seconds), or undefined when git cannot tell. */
async function commitsSince(
  root: string,
  since: number,
  folders: readonly string[],
): Promise<number | undefined> {
  const result = await git(
    [
      'rev-list',
      '--count',
      `--since=${formatInstant(new Date((since + 1) * 1000))}`,
      'HEAD',
      '--',
      ...folders.map((f) => `:(literal)${f}`),
    ],
    { cwd: root },
  );
  if (result.kind !== 'exited' || result.code !== 0) return undefined;
  const n = Number.parseInt(result.stdout.toString('utf8').trim(), 10);
  return Number.isFinite(n) ? n : undefined;
}

const CONNECTOR = /^(.*?)(?:├──|└──|\|--|`--|\+--|├─|└─)\s*(.+)$/;

export interface MapEntry {
  path: string;
  isDir: boolean;
  line: number;
}

/** The entries of a tree drawn in `lines` (1-based `first`), with folder paths built from indentation. */
export function mapEntries(
  lines: readonly string[],
  first: number,
): { root?: string; entries: MapEntry[]; elided: Set<string> } {
  const stack: string[] = [];
  const entries: MapEntry[] = [];
  /** Folders (map-relative, '' for the map's base) with a `...` entry: listed in part on purpose. */
  const elided = new Set<string>();
  let root: string | undefined;
  lines.forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    const m = CONNECTOR.exec(line);
    if (!m) {
      const label = line.trim().split(/\s+/)[0] ?? '';
      if (entries.length === 0 && /^[\w.@-]+\/$|^\.\/?$/.test(label)) root = label.replace(/^\.\/?$/, '');
      return;
    }
    const depth = Math.round([...m[1]!].length / 4);
    const name = (m[2]!.trim().split(/\s+/)[0] ?? '').replace(/[,;:]$/, '');
    stack.length = depth;
    if (/^(?:\.\.\.|…)/.test(name)) elided.add(stack.join('/'));
    if (name === '' || /[*…<>{}]|\.\.\./.test(name)) return;
    const isDir = name.endsWith('/');
    const clean = name.replace(/\/+$/, '');
    const path = [...stack, clean].join('/');
    entries.push({ path, isDir, line: first + i });
    if (isDir) stack[depth] = clean;
  });
  return { ...(root !== undefined ? { root } : {}), entries, elided };
}

function exists(tree: ProjectTree, path: string): boolean {
  return tree.isFile(path) || tree.isDir(path);
}

export const directoryMapDrift: SignalModule = {
  name: 'directory_map_drift',
  scope: 'agent-context',
  description:
    'a directory tree or folder list in an agent-context file that lists gone entries or leaves out folders',
  shownByDefault: true,
  needs: [],
  async collect({ facts, whoLoads, history }, emit) {
    const { tree } = facts;
    const topLevel = [...tree.dirSet]
      .filter((d) => d !== '' && !d.includes('/') && !d.startsWith('.'))
      .sort();
    let lookups = 0;
    for (const doc of facts.docs.values()) {
      if (!whoLoads.isLoaded(doc.path) && !facts.agentContext.has(doc.path)) continue;
      if (isAlias(doc.path, facts, whoLoads)) continue;
      // A template copied into users' projects maps their project, not this one.
      if (isShippedTemplate(facts, doc.path)) continue;
      for (const block of codeRuns(doc.parsed.codeLines)) {
        const lines = doc.lines.slice(block.start - 1, block.end);
        if (!lines.some((l) => CONNECTOR.test(l))) continue;
        const { root, entries, elided } = mapEntries(lines, block.start);
        if (entries.length < 3) continue;
        // The map's base: a root label that is a folder here, the file's own folder, or the
        // project root — the first where at least half the entries exist.
        const label = root?.replace(/\/$/, '') ?? '';
        const folder = doc.path.includes('/') ? doc.path.slice(0, doc.path.lastIndexOf('/')) : '';
        const bases = [...new Set([...(label !== '' && tree.isDir(label) ? [label] : []), folder, ''])];
        const inBase = (base: string) => (p: string) => (base === '' ? p : `${base}/${p}`);
        const base = bases.find(
          (b) => entries.filter((e) => exists(tree, inBase(b)(e.path))).length >= entries.length / 2,
        );
        if (base === undefined) continue;
        const full = inBase(base);
        const gone = entries.filter((e) => !exists(tree, full(e.path)));
        const listedTop = new Set(entries.filter((e) => !e.path.includes('/')).map((e) => e.path));
        const listedTopDirs = [...listedTop].filter((p) => tree.isDir(full(p)));
        const unlisted = [
          ...(base === '' && listedTopDirs.length >= 3 && !elided.has('')
            ? topLevel.filter((d) => !listedTop.has(d))
            : []),
          ...omittedChildren(
            tree,
            entries
              .filter((e) => e.path.includes('/') && !elided.has(dirOf(e.path)))
              .map((e) => full(e.path)),
          ),
        ];
        const last = history.complete ? history.lastCommit.get(doc.path) : undefined;
        let churn: number | undefined;
        if (last !== undefined && listedTopDirs.length > 0 && lookups < MAX_CHURN_LOOKUPS) {
          lookups++;
          churn = await commitsSince(tree.root, last, listedTopDirs.map(full));
        }
        const isChurned = churn !== undefined && churn >= THRESHOLDS.mapChurnCommits;
        if (gone.length === 0 && unlisted.length === 0 && !isChurned) continue;
        const parts = [
          ...(gone.length > 0
            ? [
                `${gone.length} listed entr${gone.length === 1 ? 'y is' : 'ies are'} gone (${gone.map((e) => full(e.path)).join(', ')})`,
              ]
            : []),
          ...(unlisted.length > 0
            ? [
                `folder${unlisted.length === 1 ? '' : 's'} ${unlisted.map((d) => `${d}/`).join(', ')} not in it`,
              ]
            : []),
          ...(isChurned ? [`${churn} commits to the folders it maps since it was last edited`] : []),
        ];
        emit(doc.path, {
          line: gone[0]?.line ?? block.start,
          detail: `the directory map in lines ${block.start}–${block.end}: ${parts.join('; ')}`,
          data: {
            start_line: block.start,
            end_line: block.end,
            gone: gone.map((e) => ({ path: full(e.path), line: e.line })),
            unlisted: unlisted.map((d) => `${d}/`),
            ...(churn !== undefined && last !== undefined
              ? { commits_since: churn, last_commit: formatInstant(new Date(last * 1000)) }
              : {}),
          },
        });
      }
      for (const list of listMaps(doc, tree)) emit(doc.path, list);
    }
  },
};

/** Folders a map leaves out by design: tests, fixtures, mocks, build output, vendored code. */
const NOT_MAPPED =
  /^(?:__\w+__|\.|tests?$|test[-_]utils$|testdata$|fixtures?$|mocks?$|snapshots?$|dist$|build$|out$|target$|node_modules$|vendor$|generated$|examples?$)/;

/**
 * Child folders of a mapped folder that the map leaves out, where it lists at least
 * `MIN_LISTED` of that folder's children and at least half of them (a map of every part,
 * not a pick of the main ones). `listed` and the answer are full paths, without a final `/`.
 */
export function omittedChildren(tree: ProjectTree, listed: readonly string[]): string[] {
  const byParent = new Map<string, Set<string>>();
  for (const path of listed) {
    if (!tree.isDir(path)) continue;
    const parent = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
    const set = byParent.get(parent) ?? new Set<string>();
    byParent.set(parent, set);
    set.add(path);
  }
  const out: string[] = [];
  for (const [parent, kids] of byParent) {
    if (parent === '' || kids.size < MIN_LISTED) continue;
    const children = childDirs(tree, parent).filter((d) => !NOT_MAPPED.test(d.slice(parent.length + 1)));
    const missing = children.filter((d) => !kids.has(d));
    if (missing.length > 0 && kids.size >= children.length / 2) out.push(...missing);
  }
  return out.sort();
}

const MIN_LISTED = 3;

/** The folders directly under `parent` that hold listed files. */
function childDirs(tree: ProjectTree, parent: string): string[] {
  const prefix = `${parent}/`;
  return [...tree.dirSet].filter((d) => d.startsWith(prefix) && !d.slice(prefix.length).includes('/')).sort();
}

/** A list item naming a folder first: "- `src/tools/`: the tools", "* **`lib/`** — …". */
const FOLDER_ITEM = /^\s{0,3}[-*+]\s+(?:\*\*)?`([\w@./-]+\/)`/;
/** A heading or lead-in that says the list is a pick, not the whole folder. */
const A_PICK =
  /\b(?:key|main|notable|important|selected|some|highlights?|e\.g\.|such as|including|for example|most)\b/i;

/**
 * Lists of folders (`- \`src/agent/\`: …`, one per item, `MIN_LISTED`+ of one parent) that
 * leave out folders the parent has: a "packages" or "Architecture" list written once and
 * not kept up as folders were added. Paths resolve from the file's folder, else the root.
 */
function listMaps(doc: Doc, tree: ProjectTree) {
  const out = [];
  const folder = doc.path.includes('/') ? doc.path.slice(0, doc.path.lastIndexOf('/')) : '';
  let heading = '';
  let n = doc.parsed.frontmatter.endLine + 1;
  while (n <= doc.lines.length) {
    const line = doc.lines[n - 1]!;
    if (/^\s{0,3}#{1,6}\s/.test(line)) heading = line;
    const items: { path: string; line: number }[] = [];
    let end = n;
    for (let m = n; m <= doc.lines.length && !doc.parsed.codeLines.has(m); m++) {
      const text = doc.lines[m - 1]!;
      if (FOLDER_ITEM.test(text)) {
        // Every folder the item names ("`src/agent/` & `src/agents/`").
        for (const [, path] of text.matchAll(/`([\w@./-]+\/)`/g))
          items.push({ path: path!.replace(/^\.\//, '').replace(/\/+$/, ''), line: m });
      } else if (!/^\s+\S/.test(doc.lines[m - 1]!)) break;
      end = m;
    }
    if (items.length < MIN_LISTED) {
      n++;
      continue;
    }
    const before = doc.lines[n - 2] ?? '';
    const bases = [...new Set([folder, ''])];
    const base = bases.find((b) => items.every((i) => tree.isDir(b === '' ? i.path : `${b}/${i.path}`)));
    if (base !== undefined && !A_PICK.test(heading) && !A_PICK.test(before)) {
      const full = items.map((i) => (base === '' ? i.path : `${base}/${i.path}`));
      const unlisted = omittedChildren(tree, full).map((d) => `${d}/`);
      if (unlisted.length > 0) {
        out.push({
          line: items[0]!.line,
          detail: `the folder list in lines ${items[0]!.line}–${end} leaves out ${unlisted.join(', ')}`,
          data: { map: 'list', start_line: items[0]!.line, end_line: end, gone: [], unlisted },
        });
      }
    }
    n = end + 1;
  }
  return out;
}

/** Runs of consecutive code lines (a fenced or indented block, fences included). */
function codeRuns(codeLines: ReadonlySet<number>): { start: number; end: number }[] {
  const sorted = [...codeLines].sort((a, b) => a - b);
  const out: { start: number; end: number }[] = [];
  for (const n of sorted) {
    const last = out[out.length - 1];
    if (last && n === last.end + 1) last.end = n;
    else out.push({ start: n, end: n });
  }
  return out;
}
