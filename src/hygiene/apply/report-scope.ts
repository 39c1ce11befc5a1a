import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ignore from 'ignore';
import picomatch from 'picomatch';
import type { Deadline } from '../../core/deadline.js';
import { git, splitNul } from '../../core/git.js';
import { loadConfig } from '../config.js';
import { STATE_DIR } from '../state/store.js';
import { AGENT_CONTEXT_GLOBS, type Report } from '../types.js';

/**
 * Whether a report's entries stay on files this project's configured scan would read
 * (docs/report-schema.md, "Which reports are accepted"). A report is input: one written
 * by hand, or made elsewhere, may name any tracked file — `.gitignore`, source code —
 * and the applier would edit it. The rules are the scan's own: the configured globs
 * (plus the agent-context files), never `.dochygiene/`, never under `scan.excluded_dirs`,
 * never a `.dochygiene-ignore` pattern, never a file git ignores. A move's destination
 * must at least have a doc's name (it may lie in an excluded archive folder).
 */

export interface OutsideScan {
  id: string;
  path: string;
  why: string;
}

async function gitIgnored(root: string, paths: readonly string[], deadline: Deadline): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  const result = await git(['check-ignore', '-z', '--stdin'], {
    cwd: root,
    deadline,
    input: `${paths.join('\0')}\0`,
    maxBytes: 64 * 1024 * 1024,
  });
  // Exit 1: none ignored; anything but 0/1 (not a repository): git ignores nothing here.
  if (result.kind !== 'exited' || result.code !== 0) return new Set();
  return new Set(splitNul(result.stdout));
}

/** Entries whose path (or move destination) the configured scan would not include, with why. */
export async function entriesOutsideScan(
  root: string,
  report: Report,
  deadline: Deadline,
): Promise<OutsideScan[]> {
  const config = await loadConfig(root);
  const globs = [...new Set([...config.scan.globs, ...AGENT_CONTEXT_GLOBS])];
  const isDoc = picomatch(globs, { dot: true });
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
  const ignored = await gitIgnored(root, [...new Set(report.entries.map((entry) => entry.path))], deadline);
  const outside: OutsideScan[] = [];
  for (const entry of report.entries) {
    const { path } = entry;
    const dir = underExcluded(path);
    const why =
      path === STATE_DIR || path.startsWith(`${STATE_DIR}/`)
        ? "it is the tool's own state"
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

function safeIgnores(patterns: ReturnType<typeof ignore>, path: string): boolean {
  try {
    return patterns.ignores(path);
  } catch {
    // `ignore` refuses paths it cannot test (absolute, `..`): the schema already refuses those.
    return false;
  }
}
