/**
 * One verdict for a run that did not finish (docs/hygiene-clean.md, "Rollback" and "Lock and
 * journal"): for each point a run can stop at, one repository has its `clean` fail in-process
 * there (a thrown fault: the transaction settles it) and an identical one has it killed there
 * (SIGKILL: the next run settles it from the journal left behind). Both runs recorded the
 * same journal events up to that point, and both must reach the same verdict and leave the
 * repository in the same state.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { fixedClock } from '../../../src/core/clock.js';
import { Deadline } from '../../../src/core/deadline.js';
import { type CleanFaults, clean } from '../../../src/hygiene/apply/clean.js';
import { acquireRunLock } from '../../../src/hygiene/apply/recovery.js';
import { runCli } from '../../helpers/cli.js';
import { makeRepo, type TestRepo, testEnv } from '../../helpers/git-repo.js';
import { makeEntry, makeReport, writeProjectReport } from '../../helpers/report.js';

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

const NOW = '2026-04-02T08:30:00Z';
const env = testEnv();

/** Two docs to fix and one to move, a file staged and then edited again (so a checkpoint and a staged ref). */
function project(): TestRepo {
  const repo = makeRepo();
  repos.push(repo);
  repo.commit('docs', {
    'docs/a.md': 'A\nsee old.md\n',
    'docs/b.md': 'B\nsee old.md\n',
    'docs/old.md': 'superseded plan\n',
    'src/work.txt': 'work v1\n',
  });
  writeProjectReport(
    repo.dir,
    makeReport(repo.dir, [
      ...['a', 'b'].map((name) =>
        makeEntry(repo.dir, {
          id: name,
          path: `docs/${name}.md`,
          kind: 'replace-text',
          anchor: [2, 2],
          match: 'old',
          replacement: 'new',
        }),
      ),
      makeEntry(repo.dir, {
        id: 'mv',
        path: 'docs/old.md',
        kind: 'move-to-archive',
        dest_path: 'docs/archive/old.md',
      }),
    ]),
  );
  writeFileSync(repo.path('src/work.txt'), 'work v2, staged\n');
  repo.git(['add', 'src/work.txt']);
  writeFileSync(repo.path('src/work.txt'), 'work v3, edited after staging\n');
  return repo;
}

/** The run's journal as it is on disk now, with what differs between two repositories (ids, times, pids) named. */
function journal(repo: TestRepo): unknown[] {
  const oids = new Map<string, string>();
  const name = (oid: string) => {
    if (!oids.has(oid)) oids.set(oid, `oid-${oids.size}`);
    return oids.get(oid)!;
  };
  return readFileSync(repo.path('.git', 'sourcesteward', 'hygiene-run.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) =>
      JSON.parse(line, (key, value: unknown) => {
        if (typeof value !== 'string') return key === 'pid' ? 0 : value;
        if (/^[0-9a-f]{40}$/.test(value)) return name(value);
        if (key === 'ref') return value.replace(/[0-9a-f]{40}$/, (oid) => name(oid));
        return value.replace(repo.dir, 'ROOT');
      }),
    );
}

/** What a person would look at afterwards: commits by subject, HEAD's tree, the index, the worktree, the refs. */
function state(repo: TestRepo): Record<string, string> {
  return {
    log: repo.git(['log', '--format=%s']),
    tree: repo.git(['rev-parse', 'HEAD^{tree}']),
    index: repo.git(['ls-files', '-s']),
    status: repo.git(['status', '--porcelain', '--untracked-files=all', '--', '.', ':!.dochygiene']),
    work: readFileSync(repo.path('src/work.txt'), 'utf8'),
    docs: ['docs/a.md', 'docs/b.md', 'docs/old.md', 'docs/archive/old.md']
      .map((path) => (existsSync(repo.path(path)) ? readFileSync(repo.path(path), 'utf8') : '(absent)'))
      .join('|'),
    refs: String(repo.git(['for-each-ref', 'refs/stw-hygiene']).split('\n').filter(Boolean).length),
  };
}

/** In-process faults that, at the nth time `step` is reached, snapshot the journal and throw. */
function throwAt(step: string, repo: TestRepo, seen: { journal?: unknown[] }): CleanFaults {
  const [name, nth = '1'] = step.split(':');
  let count = 0;
  const at = (here: string) => () => {
    if (here !== name) return;
    count += 1;
    if (count !== Number(nth)) return;
    seen.journal = journal(repo);
    throw new Error(`fault at ${step}`);
  };
  return {
    afterCheckpoint: at('after-checkpoint'),
    beforeRename: at('before-rename'),
    afterWrite: at('after-write'),
    beforeCommit: at('before-commit'),
    afterCommit: at('after-commit'),
  };
}

const STOPS = ['after-checkpoint', 'before-rename:1', 'after-write:2', 'before-commit', 'after-commit'];

describe('clean: an in-process failure and a crash at the same point get the same verdict', () => {
  for (const step of STOPS) {
    it(`stopped at ${step}`, async () => {
      const killed = project();
      const crashed = await runCli(['hygiene', 'clean', '--approve', 'mv'], {
        cwd: killed.dir,
        env: { STW_NOW: NOW, STW_TEST_HOOKS: '1', STW_TEST_CRASH_AT: step },
      });
      assert.equal(crashed.code, null, `killed (stdout: ${crashed.stdout} stderr: ${crashed.stderr})`);
      const crashRecord = journal(killed);

      const failed = project();
      const seen: { journal?: unknown[] } = {};
      let inProcess: string;
      try {
        const result = await clean({
          cwd: failed.dir,
          approve: ['mv'],
          clock: fixedClock(NOW),
          env,
          faults: throwAt(step, failed, seen),
        });
        assert.ok(result.warnings !== undefined && result.commit !== undefined, JSON.stringify(result));
        inProcess = 'committed';
      } catch (error) {
        const details = (error as { details?: Record<string, unknown> }).details ?? {};
        assert.equal((error as { code?: string }).code, 'clean-failed', String(error));
        inProcess = details['rolled_back'] === true ? 'rolled-back' : 'left-alone';
      }

      assert.deepEqual(seen.journal, crashRecord, 'both runs recorded the same events');
      const recovered = await acquireRunLock(killed.dir, 'clean', fixedClock(NOW), env, Deadline.none());
      await recovered.lock?.release();
      assert.equal(recovered.interrupted?.outcome, inProcess);
      assert.equal(inProcess, step === 'after-commit' ? 'committed' : 'rolled-back');
      assert.deepEqual(state(killed), state(failed));
    });
  }
});
