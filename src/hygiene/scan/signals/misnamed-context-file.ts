/**
 * `misnamed_context_file`: a file named almost like an agent-context file — a wrong case
 * (`Claude.md`), a doubled dot (`AGENTS..md`), a singular (`AGENT.md`), a separator typo
 * (`copilot_instructions.md`) — which no agent loads, so its author's instructions are
 * silently never read. All-lowercase names outside the root (`docs/agents.md`) are
 * usually pages about the subject, not context, and are left alone.
 */
import { baseOf, cmp, dirOf } from '../paths.js';
import type { SignalModule } from './types.js';

/** Context file names and where an agent looks for them ('' = any folder). */
const CONTEXT_NAMES: readonly { name: string; folder?: string }[] = [
  { name: 'CLAUDE.md' },
  { name: 'CLAUDE.local.md' },
  { name: 'AGENTS.md' },
  { name: 'AGENTS.override.md' },
  { name: 'GEMINI.md' },
  { name: 'copilot-instructions.md', folder: '.github' },
  { name: '.cursorrules', folder: '' },
  { name: '.windsurfrules', folder: '' },
  { name: '.clinerules', folder: '' },
];

/** Folders of API reference pages, each named after the class or type it documents. */
const API_FOLDERS: ReadonlySet<string> = new Set([
  'api',
  'apis',
  'reference',
  'classes',
  'interfaces',
  'types',
]);

const key = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Edit distance at most 1 (one letter added, dropped or changed). */
function withinOne(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i++;
      j++;
      continue;
    }
    if (++edits > 1) return false;
    if (a.length > b.length) i++;
    else if (b.length > a.length) j++;
    else {
      i++;
      j++;
    }
  }
  return edits + (a.length - i) + (b.length - j) <= 1;
}

/** The context file `path` was probably meant to be (root-relative), if any. */
export function misnamedAs(path: string): string | undefined {
  const name = baseOf(path);
  const folder = dirOf(path);
  if (!/\.(?:md|mdc|markdown)$|^\.[a-z]+rules?$/i.test(name)) return undefined;
  const isLowercase = name.toLowerCase() === name;
  const stem = name.replace(/\.[^.]*$/, '');
  const isUppercase = stem.toUpperCase() === stem;
  // An API reference page (`docs/api/Agents.md`) documents a class or type of that name.
  if (!isUppercase && folder.split('/').some((f) => API_FOLDERS.has(f.toLowerCase()))) return undefined;
  for (const c of CONTEXT_NAMES) {
    if (name === c.name) {
      // The right name in a folder the agent does not look in.
      return c.folder !== undefined && c.folder !== '' && folder !== c.folder
        ? `${c.folder}/${c.name}`
        : undefined;
    }
  }
  const k = key(name);
  for (const c of CONTEXT_NAMES) {
    const ck = key(c.name);
    const sameLetters = k === ck;
    // A one-letter slip only in a name written all in capitals, as context names are
    // (AGENT.md); `Agent.md` is a page about something named Agent (a class, a product).
    const slip = !sameLetters && isUppercase && k.length >= 7 && withinOne(k, ck);
    if (!sameLetters && !slip) continue;
    // `docs/agents.md` is a page about agents; a lowercase name counts only in the root or
    // in the folder the agent looks in (`.github/copilot_instructions.md`).
    if (isLowercase && folder !== '' && folder !== c.folder) continue;
    const where = c.folder !== undefined && c.folder !== '' ? c.folder : folder;
    return where === '' ? c.name : `${where}/${c.name}`;
  }
  return undefined;
}

export const misnamedContextFile: SignalModule = {
  name: 'misnamed_context_file',
  scope: 'agent-context',
  description:
    'a file named almost like an agent-context file (case, a doubled dot, a singular), which no agent loads',
  shownByDefault: true,
  needs: [],
  collect({ facts, whoLoads, inScope }, emit) {
    // Every listed path in scope, not only the scanned docs: `CLAUDE.MD` is no doc by the
    // case-sensitive `**/*.md` glob, a rules file is no doc by name, and a file outside the
    // configured globs is still loaded (or not) by the agents.
    const candidates = new Set([...facts.docs.keys(), ...facts.tree.files.filter(inScope)]);
    for (const path of [...candidates].sort(cmp)) {
      if (whoLoads.isLoaded(path)) continue;
      const meant = misnamedAs(path);
      if (meant === undefined) continue;
      const expected = meant;
      emit(path, {
        line: 1,
        detail: `named like ${expected}, which agents load, but no agent loads "${path}"${facts.tree.isFile(expected) ? `; ${expected} exists too` : ''}`,
        data: { expected_name: expected, exists: facts.tree.isFile(expected) },
      });
    }
  },
};
