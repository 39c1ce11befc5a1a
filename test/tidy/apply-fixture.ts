import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { schemaValidator } from '../../src/core/schema.js';
import type { TidyApplyResult } from '../../src/tidy/apply.js';
import type { TidyPlanV1 } from '../../src/tidy/types.js';
import { type CliResult, runCli, runCliJson } from '../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo } from '../helpers/git-repo.js';

/** Shared set-up for the `stw tidy apply` end-to-end tests (real repositories, the built CLI). */

/** Every run's clock is pinned, so journal and result times are reproducible. */
export const STW_NOW = '2026-03-01T12:00:00Z';

const validateResult = schemaValidator('tidy-apply-v1.schema.json');
const cleanups: (() => void)[] = [];

/** Removes every repository and state directory made by `fixture` (call from `after`). */
export function cleanupFixtures(): void {
  for (const cleanup of cleanups.splice(0)) cleanup();
}

export interface Fixture {
  repo: TestRepo;
  stateDir: string;
  /** Branch name → planned OID. */
  oids: Record<string, string>;
}

/**
 * main: c1 → c2 → c3. `done` at c1 and `done2` at c2 are integrated (delete); `wip`
 * carries its own commit (retain). The state dir is a separate private temp dir.
 */
export function fixture(objectFormat: 'sha1' | 'sha256' = 'sha1'): Fixture {
  const repo = makeRepo({ objectFormat });
  const stateDir = makeTempDir('stw-state-');
  chmodSync(stateDir, 0o700);
  cleanups.push(
    () => repo.cleanup(),
    () => execFileSync('rm', ['-rf', stateDir]),
  );
  const oids: Record<string, string> = {};
  oids['done'] = repo.branch('done');
  repo.commit('second', { 'b.txt': 'b\n' });
  oids['done2'] = repo.branch('done2');
  repo.commit('third', { 'c.txt': 'c\n' });
  repo.checkout('done2');
  repo.git(['checkout', '-q', '-b', 'wip']);
  oids['wip'] = repo.commit('unmerged work', { 'w.txt': 'w\n' });
  repo.checkout('main');
  return { repo, stateDir, oids };
}

export async function plan(f: Fixture, refs: string[] = ['done', 'done2', 'wip']): Promise<TidyPlanV1> {
  const args = ['tidy', 'plan', f.repo.dir, '--base', 'refs/heads/main', '--state-dir', f.stateDir];
  for (const ref of refs) args.push('--ref', `refs/heads/${ref}`);
  const result = await runCliJson<TidyPlanV1>(args, { cwd: f.repo.dir });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.json.status, 'complete');
  return result.json;
}

export async function apply(
  f: Fixture,
  planId: string,
  env: NodeJS.ProcessEnv = {},
  extra: string[] = ['--authorize'],
): Promise<CliResult & { json: TidyApplyResult }> {
  const result = await runCliJson<TidyApplyResult>(
    ['tidy', 'apply', '--plan', planId, '--state-dir', f.stateDir, ...extra],
    {
      cwd: f.stateDir,
      env: { STW_NOW, ...env },
    },
  );
  assert.deepEqual(validateResult(result.json), [], 'the result matches schema v1');
  assert.equal(result.code, result.json.status === 'complete' ? 0 : 1, `exit code for ${result.json.status}`);
  return result;
}

/** Crashes leave no JSON: run without --json and return the raw outcome. */
export function crashRun(f: Fixture, planId: string, at: string): Promise<CliResult> {
  return runCli(['tidy', 'apply', '--plan', planId, '--state-dir', f.stateDir, '--authorize'], {
    cwd: f.stateDir,
    env: { STW_NOW, STW_TEST_HOOKS: '1', STW_TEST_CRASH_AT: at },
  });
}

export function refMap(repo: TestRepo): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of repo.refs().split('\n')) {
    const [name, oid] = line.split(' ');
    if (name && oid) map.set(name, oid);
  }
  return map;
}

/** The invariant: every planned target still exists at its old OID, or its pin holds that OID. */
export function assertNothingLost(f: Fixture, p: TidyPlanV1): void {
  const refs = refMap(f.repo);
  for (const effect of p.effects) {
    const kept = refs.get(effect.ref) === effect.old_oid;
    const pinned = effect.recovery_ref !== null && refs.get(effect.recovery_ref) === effect.old_oid;
    assert.ok(kept || pinned, `${effect.ref} is neither kept nor pinned`);
  }
}

export function journalOf(f: Fixture, planId: string): string {
  return join(f.stateDir, 'journals', `${planId}.jsonl`);
}

export function journalRecords(f: Fixture, planId: string): Record<string, unknown>[] {
  return readFileSync(journalOf(f, planId), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
