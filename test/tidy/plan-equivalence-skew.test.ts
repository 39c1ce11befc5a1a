import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { TidyPlanV1 } from '../../src/tidy/types.js';
import { runCliJson } from '../helpers/cli.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';
import { checkedPlan, STW_NOW, target } from './helpers.js';

// Skewed committer dates (docs/tidy.md, "Equivalence evidence"): git's `rev-list tips ^base`
// stops walking by date, so a commit with a clock behind its parent's can make it list a
// commit the base does reach as a branch's own, and give a wrong merge base. The batch
// then leaves the branch to `merge-base --all`, and the answer is the per-branch one.

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

const at = (seconds: number) => new Date((1_800_000_000 + seconds) * 1000);

async function plan(r: TestRepo): Promise<TidyPlanV1> {
  const result = await runCliJson<TidyPlanV1>(['tidy', 'plan', '--base', 'refs/heads/main'], {
    cwd: r.dir,
    env: { STW_NOW },
  });
  assert.equal(result.code, 0, result.stderr);
  return checkedPlan(result.json);
}

/** The evidence of a squash found by patch-id. */
function squashFound(squash: string, mergeBase: string) {
  return {
    status: 'equivalent',
    method: 'patch-id',
    base_commit: squash,
    merge_base: mergeBase,
    detail: `its cumulative change since ${mergeBase} has the patch-id of base commit ${squash}`,
  };
}

describe('tidy plan: equivalence evidence under skewed commit dates', () => {
  it('a base commit dated before its parent: the merge base is the one merge-base --all gives, not the date walk', async () => {
    const r = makeRepo();
    repos.push(r);
    let a10 = '';
    for (let i = 1; i <= 10; i++) a10 = r.commit(`a${i}`, { 'a.txt': `${i}\n` }, { date: at(i) });
    r.git(['checkout', '-q', '-b', 'side']);
    const c = r.commit('c', { 'f.txt': 'f\n' }, { date: at(20) });
    // Two commits from a machine whose clock was far behind: older than their parent.
    r.commit('x1', { 'x.txt': '1\n' }, { date: at(-1_000_000) });
    r.commit('x2', { 'x.txt': '2\n' }, { date: at(-999_999) });
    r.checkout('main');
    const stamp = at(1000).toISOString();
    r.git(['merge', '-q', '--no-ff', '--no-edit', 'side'], {
      env: { GIT_AUTHOR_DATE: stamp, GIT_COMMITTER_DATE: stamp },
    });
    r.git(['checkout', '-q', '-b', 'topic', c]);
    const tip = r.commit('g', { 'g.txt': 'g\n' }, { date: at(1001) });
    r.checkout('main');
    const squash = r.commit('Squashed topic (#7)', { 'g.txt': 'g\n' }, { date: at(1002) });

    // The pitfall itself: the date walk lists c as the branch's own, with a10 its boundary.
    assert.deepEqual(
      r.git(['rev-list', '--boundary', tip, '^main']).split('\n'),
      [tip, c, `-${a10}`],
      'git lists a commit the base reaches as the branch own',
    );
    assert.equal(r.git(['merge-base', '--all', 'main', tip]), c);
    assert.deepEqual(target(await plan(r), 'refs/heads/topic').evidence.equivalence, squashFound(squash, c));
  });

  it("a branch commit dated before its own parent gets the per-branch route's answer", async () => {
    const r = makeRepo();
    repos.push(r);
    const fork = r.commit('main one', { 'a.txt': '1\n' }, { date: at(10) });
    r.git(['checkout', '-q', '-b', 'topic']);
    r.commit('t1', { 't.txt': '1\n' }, { date: at(30) });
    r.commit('t2, clock behind', { 't.txt': '2\n' }, { date: at(20) });
    r.checkout('main');
    r.commit('main two', { 'b.txt': '2\n' }, { date: at(40) });
    r.git(['merge', '-q', '--squash', 'topic']);
    const squash = r.commit('Squashed topic (#8)', {}, { date: at(50) });
    assert.deepEqual(
      target(await plan(r), 'refs/heads/topic').evidence.equivalence,
      squashFound(squash, fork),
    );
  });
});
