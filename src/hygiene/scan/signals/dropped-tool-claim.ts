/**
 * `dropped_tool_claim`: an agent-context file names a tool (`context/tool-claims.ts`) of
 * which the repository has nothing left — no config file, no dependency, no file of its
 * kind — while history shows one was removed: "build the docs with MkDocs" after
 * `mkdocs.yml` was deleted. An agent following it runs a tool that is gone. A sentence that
 * itself says the tool is gone ("migrated from Jest", "no longer uses Yarn") is no claim.
 * Reads, per tool named and absent: the deleted files (one `git log` for all tools) and,
 * for npm dependencies and config sections, the last commit that changed their count
 * (`git log -S`, at most `MAX_PICKAXE` calls).
 */
import { realpathSync } from 'node:fs';
import picomatch from 'picomatch';
import { formatInstant } from '../../../core/clock.js';
import { git } from '../../../core/git.js';
import { TOOL_CLAIMS, type ToolClaim } from '../context/tool-claims.js';
import { readDoc } from '../files.js';
import { baseOf } from '../paths.js';
import type { ProjectTree } from '../walk.js';
import { contextDocs } from './context-files.js';
import type { SignalModule } from './types.js';

const MAX_PICKAXE = 12;
/** A line that says the tool is gone or not to be used is no claim that it is used. */
const NOT_A_CLAIM =
  /\b(?:no longer|not use|n['’]t use|instead of|replac\w*|migrat\w*|removed|deprecated|formerly|previously|used to|legacy|dropp\w*|switched from|rather than|avoid|never|moved (?:away )?from)\b/i;

/** Whether `line` names `tool` in a sentence that does not say the tool is gone or not to be used. */
export function claimsUse(line: string, tool: ToolClaim): boolean {
  return line
    .split(/(?<=[.;!?])\s+/)
    .some((sentence) => tool.mention.test(sentence) && !NOT_A_CLAIM.test(sentence));
}

interface Removal {
  kind: 'deleted' | 'dependency-removed' | 'section-removed';
  path: string;
  commit: string;
  date: string;
}

/** True when something tracked still shows the tool in use. */
function inUse(tool: ToolClaim, tree: ProjectTree, read: (path: string) => string): boolean {
  const { files, npm = [], sections = [] } = tool.evidence;
  const isFile = picomatch([...files], { dot: true });
  if (tree.files.some((p) => isFile(p))) return true;
  if (npm.length > 0) {
    for (const p of tree.files) {
      if (baseOf(p) !== 'package.json') continue;
      const text = read(p);
      if (npm.some((name) => text.includes(`"${name}"`))) return true;
    }
  }
  for (const section of sections) {
    const isSectionFile = picomatch(section.file, { dot: true });
    if (tree.files.some((p) => isSectionFile(p) && read(p).includes(section.text))) return true;
  }
  return false;
}

/** The most recent deletion of a file matching each tool's globs (one `git log`). */
async function deletions(root: string, tools: readonly ToolClaim[]): Promise<Map<string, Removal>> {
  const out = new Map<string, Removal>();
  if (tools.length === 0) return out;
  const result = await git(
    ['log', '--no-renames', '--diff-filter=D', '--name-only', '--format=%x00%H%x09%ct', 'HEAD'],
    { cwd: root },
  );
  if (result.kind !== 'exited' || result.code !== 0) return out;
  const matchers = tools.map((t) => ({ tool: t, isMatch: picomatch([...t.evidence.files], { dot: true }) }));
  for (const record of result.stdout.toString('utf8').split('\0').slice(1)) {
    const [head = '', ...paths] = record.split('\n');
    const [commit = '', time = '0'] = head.split('\t');
    for (const path of paths) {
      if (path === '') continue;
      for (const { tool, isMatch } of matchers) {
        if (out.has(tool.id) || !isMatch(path)) continue;
        const date = formatInstant(new Date(Number(time) * 1000));
        out.set(tool.id, { kind: 'deleted', path, commit: commit.slice(0, 12), date });
      }
    }
  }
  return out;
}

/** The last commit that changed how often `text` occurs in files named `file`, if any. */
async function lastChange(
  root: string,
  text: string,
  file: string,
): Promise<{ commit: string; date: string } | undefined> {
  const result = await git(['log', '-1', '--format=%H%x09%ct', `-S${text}`, 'HEAD', '--', `:(glob)${file}`], {
    cwd: root,
  });
  if (result.kind !== 'exited' || result.code !== 0) return undefined;
  const [commit, time] = result.stdout.toString('utf8').trim().split('\t');
  if (commit === undefined || commit === '' || time === undefined) return undefined;
  return { commit: commit.slice(0, 12), date: formatInstant(new Date(Number(time) * 1000)) };
}

/** What history shows was removed of `tool`, when anything was. */
async function removalOf(
  root: string,
  tool: ToolClaim,
  deleted: ReadonlyMap<string, Removal>,
  budget: { left: number },
): Promise<Removal | undefined> {
  const found = deleted.get(tool.id);
  if (found !== undefined) return found;
  const probes = [
    ...(tool.evidence.npm ?? []).map((name) => ({
      kind: 'dependency-removed' as const,
      text: `"${name}"`,
      file: '**/package.json',
    })),
    ...(tool.evidence.sections ?? []).map((s) => ({
      kind: 'section-removed' as const,
      text: s.text,
      file: s.file,
    })),
  ];
  for (const probe of probes) {
    if (budget.left-- <= 0) return undefined;
    const change = await lastChange(root, probe.text, probe.file);
    if (change !== undefined) return { kind: probe.kind, path: probe.text, ...change };
  }
  return undefined;
}

export const droppedToolClaim: SignalModule = {
  name: 'dropped_tool_claim',
  scope: 'agent-context',
  description:
    'an agent-context file names a tool the repository has no config, dependency or file of any more, and history shows it removed',
  shownByDefault: true,
  needs: ['history'],
  async collect({ facts, whoLoads }, emit) {
    const { tree } = facts;
    const mentions = new Map<string, Map<ToolClaim, number[]>>();
    for (const doc of contextDocs(facts, whoLoads)) {
      const byTool = new Map<ToolClaim, number[]>();
      doc.lines.forEach((line, i) => {
        for (const tool of TOOL_CLAIMS) {
          if (!claimsUse(line, tool)) continue;
          const list = byTool.get(tool);
          if (list) list.push(i + 1);
          else byTool.set(tool, [i + 1]);
        }
      });
      if (byTool.size > 0) mentions.set(doc.path, byTool);
    }
    if (mentions.size === 0) return;
    const texts = new Map<string, string>();
    const realRoot = realpathSync(tree.root);
    const read = (path: string) => {
      let text = texts.get(path);
      if (text === undefined) {
        const outcome = readDoc(tree.root, realRoot, path);
        text = outcome.kind === 'text' ? outcome.text : '';
        texts.set(path, text);
      }
      return text;
    };
    const named = new Set([...mentions.values()].flatMap((m) => [...m.keys()]));
    const absent = TOOL_CLAIMS.filter((t) => named.has(t) && !inUse(t, tree, read));
    const deleted = await deletions(tree.root, absent);
    const budget = { left: MAX_PICKAXE };
    const removals = new Map<ToolClaim, Removal>();
    for (const tool of absent) {
      const removal = await removalOf(tree.root, tool, deleted, budget);
      if (removal !== undefined) removals.set(tool, removal);
    }
    for (const [path, byTool] of mentions) {
      for (const [tool, lines] of byTool) {
        const removal = removals.get(tool);
        if (removal === undefined) continue;
        const what =
          removal.kind === 'deleted'
            ? `${removal.path} was deleted`
            : `${removal.path} was last changed (removed)`;
        emit(path, {
          line: lines[0]!,
          detail: `names ${tool.name} (line${lines.length === 1 ? '' : 's'} ${lines.join(', ')}), but the repository has no ${tool.name} config, dependency or file left: ${what} in ${removal.commit} (${removal.date})`,
          data: { tool: tool.id, lines, removal: { ...removal } },
        });
      }
    }
  },
};
