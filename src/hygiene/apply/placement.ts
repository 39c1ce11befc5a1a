import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import type { Deadline } from '../../core/deadline.js';
import { gitOk, splitNul } from '../../core/git.js';
import { noteProbe } from '../scan/probes.js';

/**
 * Where a moved file may land: only in plain folders of this repository. A folder on the
 * way that is a file, a symlink, a submodule (a gitlink in the index, initialised or not)
 * or another repository's work tree (it holds a `.git`) is no place for it: `git mv`
 * would replace the gitlink or hand the file to the other repository.
 */

/** Paths the index records as gitlinks (mode 160000): the submodules. One `ls-files -s` call. */
export async function readGitlinks(root: string, deadline: Deadline): Promise<Set<string>> {
  const out = await gitOk(['ls-files', '-s', '-z'], { cwd: root, deadline, maxBytes: 512 * 1024 * 1024 });
  const gitlinks = new Set<string>();
  for (const record of splitNul(out)) {
    if (!record.startsWith('160000 ')) continue;
    const tab = record.indexOf('\t');
    if (tab !== -1) gitlinks.add(record.slice(tab + 1));
  }
  return gitlinks;
}

/**
 * Why `dest` (a plain root-relative path) cannot receive a moved file, or undefined when
 * every existing folder on the way is a plain folder of this repository and `dest` itself
 * is free. Synchronous, so the classifier can ask it too.
 */
export function placementProblem(
  root: string,
  dest: string,
  gitlinks: ReadonlySet<string>,
): string | undefined {
  const parts = dest.split('/');
  for (let i = 1; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join('/');
    const isLast = i === parts.length;
    if (gitlinks.has(prefix)) return `${prefix} is a submodule`;
    let stats: ReturnType<typeof lstatSync>;
    noteProbe(prefix, root);
    try {
      stats = lstatSync(join(root, prefix));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined; // the rest is created as plain folders
      return `${prefix} cannot be read (${code ?? 'error'})`;
    }
    if (isLast) return `${prefix} already exists`;
    if (stats.isSymbolicLink()) return `${prefix} is a symbolic link`;
    if (!stats.isDirectory()) return `${prefix} is a file, not a folder`;
    noteProbe(`${prefix}/.git`, root);
    try {
      lstatSync(join(root, prefix, '.git'));
      return `${prefix} is another repository's work tree`;
    } catch {
      // no .git inside: a plain folder
    }
  }
  return undefined;
}
