/**
 * `directory_map_drift`: a directory map (a `├──`/`└──` tree in a code block) in an
 * agent-context file that no longer matches the tracked tree: entries that are gone, and
 * top-level folders the map leaves out though it lists the others. A tree whose entries
 * mostly do not exist is an illustration (of another project, of a layout to create), not
 * a map of this one, and is left alone.
 */
import type { ProjectTree } from '../walk.js';
import { isAlias } from './context-files.js';
import type { SignalModule } from './types.js';

const CONNECTOR = /^(.*?)(?:├──|└──|\|--|`--|\+--|├─|└─)\s*(.+)$/;

export interface MapEntry {
  path: string;
  isDir: boolean;
  line: number;
}

/** The entries of a tree drawn in `lines` (1-based `first`), with folder paths built from indentation. */
export function mapEntries(lines: readonly string[], first: number): { root?: string; entries: MapEntry[] } {
  const stack: string[] = [];
  const entries: MapEntry[] = [];
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
    if (name === '' || /[*…<>{}]|\.\.\./.test(name)) return;
    stack.length = depth;
    const isDir = name.endsWith('/');
    const clean = name.replace(/\/+$/, '');
    const path = [...stack, clean].join('/');
    entries.push({ path, isDir, line: first + i });
    if (isDir) stack[depth] = clean;
  });
  return { ...(root !== undefined ? { root } : {}), entries };
}

function exists(tree: ProjectTree, path: string): boolean {
  return tree.isFile(path) || tree.isDir(path);
}

export const directoryMapDrift: SignalModule = {
  name: 'directory_map_drift',
  description:
    'a directory tree in an agent-context file that lists gone entries or leaves out top-level folders',
  needs: [],
  collect({ facts, whoLoads }, emit) {
    const { tree } = facts;
    const topLevel = [...tree.dirSet]
      .filter((d) => d !== '' && !d.includes('/') && !d.startsWith('.'))
      .sort();
    for (const doc of facts.docs.values()) {
      if (!whoLoads.isLoaded(doc.path) && !facts.agentContext.has(doc.path)) continue;
      if (isAlias(doc.path, facts, whoLoads)) continue;
      for (const block of codeRuns(doc.parsed.codeLines)) {
        const lines = doc.lines.slice(block.start - 1, block.end);
        if (!lines.some((l) => CONNECTOR.test(l))) continue;
        const { root, entries } = mapEntries(lines, block.start);
        if (entries.length < 3) continue;
        // The map's base: a root label that is a folder here, else the project root.
        const base =
          root !== undefined && root !== '' && tree.isDir(root.replace(/\/$/, ''))
            ? root.replace(/\/$/, '')
            : '';
        const full = (p: string) => (base === '' ? p : `${base}/${p}`);
        const present = entries.filter((e) => exists(tree, full(e.path)));
        if (present.length < entries.length / 2) continue;
        const gone = entries.filter((e) => !exists(tree, full(e.path)));
        const listedTop = new Set(entries.filter((e) => !e.path.includes('/')).map((e) => e.path));
        const listedTopDirs = [...listedTop].filter((p) => tree.isDir(p));
        const unlisted =
          base === '' && listedTopDirs.length >= 3 ? topLevel.filter((d) => !listedTop.has(d)) : [];
        if (gone.length === 0 && unlisted.length === 0) continue;
        const parts = [
          ...(gone.length > 0
            ? [
                `${gone.length} listed entr${gone.length === 1 ? 'y is' : 'ies are'} gone (${gone.map((e) => full(e.path)).join(', ')})`,
              ]
            : []),
          ...(unlisted.length > 0
            ? [
                `top-level folder${unlisted.length === 1 ? '' : 's'} ${unlisted.map((d) => `${d}/`).join(', ')} not in it`,
              ]
            : []),
        ];
        emit(doc.path, {
          line: gone[0]?.line ?? block.start,
          detail: `the directory map in lines ${block.start}–${block.end}: ${parts.join('; ')}`,
          data: {
            start_line: block.start,
            end_line: block.end,
            gone: gone.map((e) => ({ path: full(e.path), line: e.line })),
            unlisted: unlisted.map((d) => `${d}/`),
          },
        });
      }
    }
  },
};

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
