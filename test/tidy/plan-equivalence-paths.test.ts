import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, describe, it } from 'node:test';
import type { TidyPlanV1 } from '../../src/tidy/types.js';
import { runCliJson } from '../helpers/cli.js';
import { makeRepo, type TestRepo, testEnv } from '../helpers/git-repo.js';
import { checkedPlan, STW_NOW, target } from './helpers.js';

// Paths git could mistake (docs/tidy.md, "Equivalence evidence"): the batched route hands
// changed paths back to git as literal pathspecs after `--`, and sends a path that is not
// UTF-8 to the per-branch route, which never passes a path as an argument. Either way a
// branch gets the evidence the per-branch route gives it.

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

/** Paths as bytes: a newline, a tab, option-like names, pathspec magic, and Latin-1 `é`. */
const PATHS: readonly Buffer[] = [
  Buffer.from('line\nbreak.txt'),
  Buffer.from('tab\there.txt'),
  Buffer.from('-rf.txt'),
  Buffer.from('--output=x.txt'),
  Buffer.from(':!*.txt'),
  Buffer.from('dir/-n'),
  Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x78, 0x74]), // "café.txt" in Latin-1
];

/** Stages `content` at `path` (bytes, not necessarily UTF-8) through the index, no file. */
function stage(r: TestRepo, path: Buffer, content: string): void {
  const blob = r.git(['hash-object', '-w', '--stdin'], { input: content });
  execFileSync('git', ['update-index', '-z', '--add', '--index-info'], {
    cwd: r.dir,
    env: testEnv(),
    input: Buffer.concat([Buffer.from(`100644 ${blob}\t`), path, Buffer.from([0])]),
  });
}

function commitAt(r: TestRepo, message: string, path: Buffer, content: string): string {
  stage(r, path, content);
  return r.commit(message);
}

/**
 * main: README and every path as `old`, then `main work`, then one squash per path (`x`).
 * Per path i, off the first commit: `p<i>/exact` (the squash's change), `p<i>/other` (`y`),
 * `p<i>/kept` (changes a path the base has kept since: proved without a test merge); and
 * `synced/p<i>/...` the same after merging `main work` in, which are checked per branch.
 */
function pathScenario() {
  const r = makeRepo();
  repos.push(r);
  for (const [i, path] of PATHS.entries())
    stage(r, Buffer.concat([Buffer.from(`kept/${i}/`), path]), 'old\n');
  const root = r.commit('paths');
  r.git(['read-tree', '--reset', '-u', 'HEAD']);
  const work = r.commit('main work', { 'other.txt': 'other\n' });
  const squashes = PATHS.map((path, i) => commitAt(r, `Squashed p${i}`, path, 'x\n'));
  PATHS.forEach((path, i) => {
    for (const [kind, file, content] of [
      ['exact', path, 'x\n'],
      ['other', path, 'y\n'],
      ['kept', Buffer.concat([Buffer.from(`kept/${i}/`), path]), 'new\n'],
    ] as const) {
      r.git(['checkout', '-q', '-f', '-b', `p${i}/${kind}`, root]);
      commitAt(r, `p${i} ${kind}`, file, content);
      r.git(['checkout', '-q', '-f', '-b', `synced/p${i}/${kind}`]);
      r.git(['merge', '-q', '--no-edit', work], { env: { GIT_COMMITTER_DATE: '2026-02-01T00:00:00Z' } });
    }
  });
  r.git(['checkout', '-q', '-f', 'main']);
  return { r, root, work, squashes };
}

describe('tidy plan: equivalence evidence for paths git could mistake', () => {
  it('newline, tab, leading dash, pathspec magic and a byte that is not UTF-8: the same evidence batched and per branch', async () => {
    const { r, root, work, squashes } = pathScenario();
    const result = await runCliJson<TidyPlanV1>(
      ['tidy', 'plan', '--base', 'refs/heads/main', '--equivalence-checks', '100'],
      // 100 checks against the default 10 s plan deadline fail only on a loaded machine: this
      // test is about paths, not time, so its deadline is generous.
      {
        cwd: r.dir,
        env: { STW_NOW, STW_TEST_HOOKS: '1', STW_TEST_TIDY_BOUNDS: JSON.stringify({ deadlineMs: 600_000 }) },
      },
    );
    assert.equal(result.code, 0, result.stderr);
    const json = checkedPlan(result.json);
    const evidence = (ref: string) => {
      const found = target(json, `refs/heads/${ref}`).evidence.equivalence;
      assert.ok(found !== undefined, ref);
      return found;
    };
    PATHS.forEach((path, i) => {
      const shown = JSON.stringify(path.toString('utf8'));
      for (const [prefix, mergeBase] of [
        ['', root],
        ['synced/', work],
      ] as const) {
        const exact = evidence(`${prefix}p${i}/exact`);
        assert.deepEqual(
          [exact.status, exact.method, exact.base_commit, exact.merge_base],
          ['equivalent', 'patch-id', squashes[i], mergeBase],
          `${prefix}p${i}/exact (${shown})`,
        );
        const other = evidence(`${prefix}p${i}/other`);
        assert.deepEqual(
          [other.status, other.method, other.base_commit, other.merge_base, other.detail],
          [
            'not-equivalent',
            null,
            null,
            mergeBase,
            `no base commit since ${mergeBase} has its patch-id, and merging it into the base conflicts`,
          ],
          `${prefix}p${i}/other (${shown})`,
        );
        const kept = evidence(`${prefix}p${i}/kept`);
        assert.deepEqual(
          [kept.status, kept.method, kept.base_commit, kept.merge_base],
          ['not-equivalent', null, null, mergeBase],
          `${prefix}p${i}/kept (${shown})`,
        );
        // The batch proves it from the base's entries and names the path; the per-branch
        // route (the synced copies, and a path that is not UTF-8) runs the test merge.
        const isBatched = prefix === '' && !path.toString('utf8').includes('\uFFFD');
        assert.equal(
          kept.detail,
          `no base commit since ${mergeBase} has its patch-id, and merging it into the base would change the base's tree${
            isBatched
              ? ` (it changes ${JSON.stringify(`kept/${i}/${path.toString('utf8')}`)}, which the base has not changed since the merge base)`
              : ''
          }`,
          `${prefix}p${i}/kept (${shown})`,
        );
      }
    });
  });
});
