import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ignore from 'ignore';
import type { Deadline } from '../../core/deadline.js';
import { ignoredByGit } from '../../core/git.js';
import { loadConfig } from '../config.js';
import { globsMatcher, ruleMatcher } from '../scan/lifecycle-glob.js';
import { STATE_DIR } from '../state/store.js';
import { AGENT_CONTEXT_GLOBS, type Entry, type LifecycleRule, type Report } from '../types.js';

/**
 * Whether a report's entries stay on files this project's configured scan would read
 * (docs/report-schema.md, "Which reports are accepted"). A report is input: one written
 * by hand, or made elsewhere, may name any tracked file — `.gitignore`, source code —
 * and the applier would edit it. The rules are the scan's own: the configured globs
 * (plus the agent-context files), never `.dochygiene/`, never under `scan.excluded_dirs`,
 * never a `.dochygiene-ignore` pattern, never a file git ignores. A move's destination
 * must at least have a doc's name (it may lie in an excluded archive folder). A lifecycle
 * `delete-path` is in scope by its own walk (docs/lifecycle.md): its path must be a unit
 * of the configured rule it names — a file the rule matches, or a folder it matches with
 * no matched folder above it.
 */

export interface OutsideScan {
  id: string;
  path: string;
  why: string;
}

/** Entries whose path (or move destination) the configured scan would not include, with why. */
export async function entriesOutsideScan(
  root: string,
  report: Report,
  deadline: Deadline,
  configFile?: string,
): Promise<OutsideScan[]> {
  const config = await loadConfig(root, process.env, configFile);
  const globs = [...new Set([...config.scan.globs, ...AGENT_CONTEXT_GLOBS])];
  const isDoc = globsMatcher(globs);
  const excluded = config.scan.excluded_dirs.map((dir) => dir.replace(/^\.\/+|\/+$/g, ''));
  const underExcluded = (path: string): string | undefined => {
    const parts = path.split('/').slice(0, -1);
    for (const dir of excluded) {
      if (dir.includes('/') ? path.startsWith(`${dir}/`) : parts.includes(dir)) return dir;
    }
    return undefined;
  };
  const patterns = ignore();
  try {
    patterns.add(await readFile(join(root, '.dochygiene-ignore'), 'utf8'));
  } catch {
    // no ignore file
  }
  const ignored = await ignoredByGit(root, [...new Set(report.entries.map((entry) => entry.path))], deadline);
  const outside: OutsideScan[] = [];
  for (const entry of report.entries) {
    const { path } = entry;
    const dir = underExcluded(path);
    const why =
      path === STATE_DIR || path.startsWith(`${STATE_DIR}/`)
        ? "it is the tool's own state"
        : entry.exact_edit?.kind === 'delete-path'
          ? ignored.has(path)
            ? 'git ignores it'
            : notALifecycleUnit(entry, config.lifecycle.rules)
          : !isDoc(path)
            ? `it does not match the scan globs (${globs.join(', ')})`
            : dir !== undefined
              ? `it is under the excluded folder ${dir}`
              : safeIgnores(patterns, path)
                ? 'it matches .dochygiene-ignore'
                : ignored.has(path)
                  ? 'git ignores it'
                  : undefined;
    if (why !== undefined) outside.push({ id: entry.id, path, why });
    const dest = entry.exact_edit?.dest_path;
    if (typeof dest === 'string' && !isDoc(dest))
      outside.push({
        id: entry.id,
        path: dest,
        why: 'a move destination must be a doc path the scan globs match',
      });
  }
  return outside;
}

/** Why a `delete-path` entry's path is not a unit of the configured rule it names, or undefined when it is. */
function notALifecycleUnit(entry: Entry, rules: readonly LifecycleRule[]): string | undefined {
  const name = entry.lifecycle?.rule;
  const rule = rules.find((candidate) => candidate.name === name);
  if (rule === undefined)
    return `no lifecycle rule ${JSON.stringify(name ?? '')} is configured (.dochygiene.yml lifecycle.rules)`;
  const isMatch = ruleMatcher(rule.match);
  if (!isMatch(entry.path)) return `lifecycle rule ${JSON.stringify(rule.name)} does not match it`;
  const wantsFolder = entry.exact_edit?.recursive === true;
  if (wantsFolder !== (rule.type === 'directory'))
    return `lifecycle rule ${JSON.stringify(rule.name)} matches ${rule.type === 'directory' ? 'folders' : 'files'}`;
  const parts = entry.path.split('/');
  for (let depth = 1; wantsFolder && depth < parts.length; depth++)
    if (isMatch(parts.slice(0, depth).join('/')))
      return `it lies inside ${parts.slice(0, depth).join('/')}, a unit of lifecycle rule ${JSON.stringify(rule.name)}`;
  return undefined;
}

function safeIgnores(patterns: ReturnType<typeof ignore>, path: string): boolean {
  try {
    return patterns.ignores(path);
  } catch {
    // `ignore` refuses paths it cannot test (absolute, `..`): the schema already refuses those.
    return false;
  }
}
