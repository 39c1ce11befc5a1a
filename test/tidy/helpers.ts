import { lstatSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { schemaValidator } from '../../src/core/schema.js';
import type { TidyPlanV1 } from '../../src/tidy/types.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';

export const STW_NOW = '2026-03-01T12:00:00Z';

const validatePlan = schemaValidator('tidy-plan-v1.schema.json');

/** Asserts a plan matches schema v1; returns it typed. */
export function checkedPlan(value: unknown): TidyPlanV1 {
  const violations = validatePlan(value);
  if (violations.length > 0) throw new Error(`plan violates schema v1:\n${violations.join('\n')}`);
  return value as TidyPlanV1;
}

export function target(plan: TidyPlanV1, ref: string) {
  const found = plan.targets.find((candidate) => candidate.ref === ref);
  if (found === undefined) throw new Error(`no target ${ref} in plan`);
  return found;
}

/**
 * Every entry below `dir` with type, mode, size, mtime and link target: compared before
 * and after a command to prove it wrote nothing.
 */
export function snapshotTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (path: string) => {
    const info = lstatSync(path);
    let line = `${path} ${info.mode.toString(8)} ${info.size} ${info.mtimeMs} ${info.ctimeMs}`;
    if (info.isSymbolicLink()) line += ` -> ${readlinkSync(path)}`;
    out.push(line);
    if (info.isDirectory() && !info.isSymbolicLink())
      for (const name of readdirSync(path).sort()) walk(join(path, name));
  };
  walk(dir);
  return out;
}

/** Creates many branches in one `update-ref --stdin` transaction. */
export function makeBranches(repo: TestRepo, names: readonly string[], at: string): void {
  repo.git(['update-ref', '--stdin'], {
    input: names.map((name) => `create refs/heads/${name} ${at}\n`).join(''),
  });
}

/**
 * The reason-code scenario. History on main: c0 → c1 → c2.
 * - merged (at c0): integrated, nothing blocks → delete
 * - topic (own commit off c0): not-integrated
 * - at-base (at c2 = main): integrated + is-base
 * - wt-branch (at c0) checked out in a locked linked worktree: integrated + checked-out
 * - gone-branch (at c0) checked out in a prunable worktree: integrated + checked-out
 * - detached-target (at c1) is the HEAD of a detached worktree: integrated + worktree-head
 * - ghost points at a missing object: uncertain
 * - alias is a symbolic ref to topic: unsupported (+ not-integrated)
 */
export function reasonScenario() {
  const repo = makeRepo();
  const c0 = repo.head();
  const c1 = repo.commit('c1', { 'a.txt': '1\n' });
  const c2 = repo.commit('c2', { 'a.txt': '2\n' });
  repo.branch('merged', c0);
  repo.branch('at-base', c2);
  repo.branch('wt-branch', c0);
  repo.branch('gone-branch', c0);
  repo.branch('detached-target', c1);
  repo.git(['checkout', '-q', '-b', 'topic', c0]);
  const topic = repo.commit('topic work', { 'b.txt': 'b\n' });
  repo.checkout('main');
  const wtLocked = `${repo.dir}-wt-locked`;
  repo.worktree(wtLocked, { branch: 'wt-branch' });
  repo.git(['worktree', 'lock', '--reason', 'on a removable disk', wtLocked]);
  const wtGone = `${repo.dir}-wt-gone`;
  repo.worktree(wtGone, { branch: 'gone-branch' });
  rmSync(wtGone, { recursive: true, force: true }); // registration stays: prunable
  const wtDetached = `${repo.dir}-wt-detached`;
  repo.worktree(wtDetached, { at: c1 });
  repo.git(['update-ref', 'refs/heads/ghost', c0]);
  // Point ghost at an object that does not exist (a loose ref written by hand).
  const missing = 'deadbeef'.repeat(5);
  repo.git(['update-ref', '-d', 'refs/heads/ghost']);
  repo.write({ '.git/refs/heads/ghost': `${missing}\n` });
  repo.git(['symbolic-ref', 'refs/heads/alias', 'refs/heads/topic']);
  return { repo, c0, c1, c2, topic, missing, wtLocked, wtGone, wtDetached };
}

/** Removes a scenario's repository and the worktrees beside it. */
export function cleanupScenario(s: {
  repo: TestRepo;
  wtLocked: string;
  wtGone: string;
  wtDetached: string;
}): void {
  for (const dir of [s.wtLocked, s.wtGone, s.wtDetached]) rmSync(dir, { recursive: true, force: true });
  s.repo.cleanup();
}
