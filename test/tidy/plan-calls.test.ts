import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixedClock } from '../../src/core/clock.js';
import { planTidy } from '../../src/tidy/plan.js';
import { makeRepo } from '../helpers/git-repo.js';
import { checkedPlan, makeBranches, STW_NOW, target } from './helpers.js';

// Planning's cost is its git processes (each spawn blocks the event loop): with every
// branch selected and a base under refs/heads/, the branch listing also resolves the base
// and carries the tips' object types, so no call of their own is made for either; the
// worktree list is re-checked by a fingerprint of its files, not listed again.

const clock = fixedClock(STW_NOW);

describe('tidy plan: git calls', () => {
  it('every branch and a refs/heads/ base: seven git calls, whatever the branch count', async () => {
    const repo = makeRepo();
    try {
      const at = repo.head();
      repo.commit('ahead', { 'a.txt': 'a\n' });
      makeBranches(
        repo,
        Array.from({ length: 200 }, (_, i) => `done/${i}`),
        at,
      );
      const { plan, gitCalls } = await planTidy({ path: repo.dir, base: 'refs/heads/main', clock });
      checkedPlan(plan);
      assert.equal(plan.status, 'complete');
      assert.equal(plan.base.oid, repo.head('refs/heads/main'));
      assert.equal(plan.effects.length, 200);
      // rev-parse, version, the listing, worktree list; --merged and beside it the tips'
      // committer times (more branches than equivalence checks: the newest are checked);
      // the listing again (the worktrees are re-checked by their files' fingerprint).
      assert.equal(gitCalls, 7);
      const unchecked = await planTidy({
        path: repo.dir,
        base: 'refs/heads/main',
        clock,
        equivalenceChecks: 0,
      });
      assert.equal(unchecked.gitCalls, 6);
    } finally {
      repo.cleanup();
    }
  });

  it('a symbolic base branch is resolved on its own, with the same decisions', async () => {
    const repo = makeRepo();
    try {
      const at = repo.head();
      repo.branch('done', at);
      repo.commit('ahead', { 'a.txt': 'a\n' });
      repo.git(['symbolic-ref', 'refs/heads/trunk', 'refs/heads/main']);
      const viaAlias = await planTidy({ path: repo.dir, base: 'refs/heads/trunk', clock });
      checkedPlan(viaAlias.plan);
      assert.equal(viaAlias.plan.status, 'complete', viaAlias.plan.refusal?.message);
      assert.equal(viaAlias.plan.base.oid, repo.head('refs/heads/main'));
      assert.equal(target(viaAlias.plan, 'refs/heads/done').decision, 'delete');
      assert.ok(viaAlias.gitCalls > 6, `${viaAlias.gitCalls} calls`);
    } finally {
      repo.cleanup();
    }
  });

  it('a missing base branch is refused as before', async () => {
    const repo = makeRepo();
    try {
      const { plan } = await planTidy({ path: repo.dir, base: 'refs/heads/nope', clock });
      assert.equal(plan.status, 'refused');
      assert.equal(plan.refusal?.code, 'base-unresolved');
    } finally {
      repo.cleanup();
    }
  });
});
