import assert from 'node:assert/strict';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fixedClock } from '../../src/core/clock.js';
import { planTidy } from '../../src/index.js';
import { makeRepo, makeTempDir, TestRepo } from '../helpers/git-repo.js';
import { checkedPlan, STW_NOW, target } from './helpers.js';

const clock = fixedClock(STW_NOW);

/** A bare repository (HEAD → refs/heads/main) with `release` ahead of main and `old` behind it. */
function bareScenario(): { origin: TestRepo; bare: TestRepo } {
  const origin = makeRepo();
  origin.branch('old');
  origin.commit('main work', { 'm.txt': 'm\n' });
  origin.git(['checkout', '-q', '-b', 'release']);
  origin.commit('release work', { 'r.txt': 'r\n' });
  origin.checkout('main');
  const dir = join(makeTempDir('stw-bare-'), 'repo.git');
  origin.git(['clone', '-q', '--bare', origin.dir, dir]);
  return { origin, bare: new TestRepo(dir) };
}

describe('tidy plan: what worktree HEADs hold', () => {
  it("a bare repository's HEAD branch is checked-out, never delete", async () => {
    const { origin, bare } = bareScenario();
    try {
      assert.equal(bare.git(['symbolic-ref', 'HEAD']), 'refs/heads/main');
      const { plan } = await planTidy({ path: bare.dir, base: 'refs/heads/release', clock });
      checkedPlan(plan);
      assert.equal(plan.status, 'complete');
      const main = target(plan, 'refs/heads/main');
      assert.equal(main.decision, 'retain');
      assert.deepEqual(main.reasons, ['integrated', 'checked-out']);
      assert.deepEqual(main.blockers, [{ reason: 'checked-out', worktree: bare.dir, operation: null }]);
      assert.equal(plan.worktrees[0]?.bare, true);
      assert.equal(plan.worktrees[0]?.branch, 'refs/heads/main');
      // Its other integrated branch is still deleted.
      assert.equal(target(plan, 'refs/heads/old').decision, 'delete');
    } finally {
      origin.cleanup();
      rmSync(join(bare.dir, '..'), { recursive: true, force: true });
    }
  });

  it("a bare repository's detached HEAD protects the branch at its commit", async () => {
    const { origin, bare } = bareScenario();
    try {
      const old = bare.head('refs/heads/old');
      bare.git(['update-ref', '--no-deref', 'HEAD', old]);
      const { plan } = await planTidy({ path: bare.dir, base: 'refs/heads/release', clock });
      checkedPlan(plan);
      const t = target(plan, 'refs/heads/old');
      assert.equal(t.decision, 'retain');
      assert.deepEqual(t.reasons, ['integrated', 'worktree-head']);
      assert.equal(target(plan, 'refs/heads/main').decision, 'delete');
    } finally {
      origin.cleanup();
      rmSync(join(bare.dir, '..'), { recursive: true, force: true });
    }
  });

  for (const [label, damage] of [
    ['garbage', (head: string) => writeFileSync(head, 'not a ref\n')],
    ['missing', (head: string) => rmSync(head)],
  ] as const) {
    it(`a linked worktree whose HEAD is ${label} makes every target uncertain`, async () => {
      const repo = makeRepo();
      const wt = `${repo.dir}-wt`;
      try {
        repo.branch('held');
        repo.branch('other');
        repo.commit('ahead', { 'a.txt': 'a\n' });
        repo.worktree(wt, { branch: 'held' });
        const [id] = readdirSync(repo.path('.git', 'worktrees'));
        damage(repo.path('.git', 'worktrees', id!, 'HEAD'));
        const { plan } = await planTidy({ path: repo.dir, base: 'refs/heads/main', clock });
        checkedPlan(plan);
        for (const name of ['refs/heads/held', 'refs/heads/other']) {
          const t = target(plan, name);
          assert.equal(t.decision, 'retain', name);
          assert.ok(t.reasons.includes('uncertain'), `${name}: ${t.reasons.join(',')}`);
          assert.equal(t.evidence.ancestor_of_base, null);
          assert.ok(
            t.evidence.notes.some((note) => note.includes(wt) && note.includes('HEAD')),
            t.evidence.notes.join('\n'),
          );
        }
        assert.equal(plan.effects.length, 0);
      } finally {
        rmSync(wt, { recursive: true, force: true });
        repo.cleanup();
      }
    });
  }
});
