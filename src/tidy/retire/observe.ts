/**
 * What every backend's retirement observation shares: HEAD or working-copy trees as
 * `git ls-tree` lists them (jj's backing store is a Git repository), and the processes
 * whose working directory is inside a task's checkout.
 */
import { readdir, readlink } from 'node:fs/promises';
import { isWithin } from '../../core/confined-fs.js';
import { splitNul } from '../../core/git.js';

export interface TreeEntry {
  mode: string;
  type: string;
  oid: string;
}

/** `ls-tree -r -z`: `<mode> SP <type> SP <oid> TAB <path>`. */
export function parseTree(output: Buffer): Map<string, TreeEntry> {
  const tree = new Map<string, TreeEntry>();
  for (const record of splitNul(output)) {
    const tab = record.indexOf('\t');
    const [mode, type, oid] = record.slice(0, tab).split(' ');
    if (tab < 0 || mode === undefined || type === undefined || oid === undefined)
      throw new Error('git ls-tree: unexpected output');
    tree.set(record.slice(tab + 1), { mode, type, oid });
  }
  return tree;
}

/** Processes (other than this one) whose working directory is inside `dir`, where /proc shows it. */
export async function visibleActivity(dir: string, limit: number): Promise<{ pid: number; cwd: string }[]> {
  let pids: string[];
  try {
    pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const found: { pid: number; cwd: string }[] = [];
  for (const pid of pids.slice(0, 65_536)) {
    if (Number(pid) === process.pid) continue;
    let cwd: string;
    try {
      cwd = await readlink(`/proc/${pid}/cwd`);
    } catch {
      continue; // gone, or not ours to see
    }
    const clean = cwd.endsWith(' (deleted)') ? cwd.slice(0, -' (deleted)'.length) : cwd;
    if (isWithin(dir, clean)) found.push({ pid: Number(pid), cwd: clean });
    if (found.length >= limit) break;
  }
  return found.sort((a, b) => a.pid - b.pid);
}
