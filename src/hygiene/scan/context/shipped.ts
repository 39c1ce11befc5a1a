/**
 * Context files the repository ships to its users as templates: the text a tool copies into
 * its users' projects (eyaltoledano/claude-task-master's `assets/AGENTS.md`, copied by
 * `path.join(assetsDir, 'AGENTS.md')` to a user's `.taskmaster/CLAUDE.md`). Its directory map
 * and its coverage describe the user's project, not this one. The evidence is the code: a
 * context file under a template folder (`assets/`, `templates/`) whose name the code quotes,
 * or a nested context file whose path the code quotes (where it writes the copy).
 */
import type { ScanFacts } from '../facts.js';
import { readTreeText } from '../files.js';
import { baseOf, dirOf } from '../paths.js';

const TEMPLATE_FOLDER = /^(?:assets?|templates?|skeletons?|scaffold(?:s|ing)?|boilerplates?|blueprints?)$/i;
const CODE = /\.(?:[cm]?[jt]sx?|py|go|rs|rb|java|kt|php|cs|swift)$/i;
const TEST_CODE = /(?:^|\/)(?:tests?|__tests__|spec|fixtures?)\/|\.(?:spec|test)\.[^/]+$/i;
/** Code files read at most, and their size: the search stops there (nothing is then shipped). */
const MAX_FILES = 4000;
const MAX_BYTES = 512 * 1024;

const cache = new WeakMap<ScanFacts, Map<string, boolean>>();

/** Whether a context file is a template the repository's code copies out to its users. */
export function isShippedTemplate(facts: ScanFacts, path: string): boolean {
  const folders = dirOf(path) === '' ? [] : dirOf(path).split('/');
  const underTemplates = folders.some((f) => TEMPLATE_FOLDER.test(f));
  if (!underTemplates && folders.length === 0) return false;
  let known = cache.get(facts);
  if (known === undefined) {
    known = new Map();
    cache.set(facts, known);
  }
  const hit = known.get(path);
  if (hit !== undefined) return hit;
  // Under a template folder the code quotes the file's name; elsewhere its whole path.
  const quoted = underTemplates ? baseOf(path) : path;
  const literal = new RegExp(`['"\`]${quoted.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['"\`]`);
  const code = facts.tree.files.filter((f) => CODE.test(f) && !TEST_CODE.test(f)).slice(0, MAX_FILES);
  const shipped = code.some((f) => {
    const text = readTreeText(facts.tree.root, f);
    return text !== undefined && text.length <= MAX_BYTES && literal.test(text);
  });
  known.set(path, shipped);
  return shipped;
}
