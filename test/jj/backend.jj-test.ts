import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCliJson } from '../helpers/cli.js';
import { checkedPlan, STW_NOW } from '../tidy/helpers.js';
import { type JjRepo, jjTestEnv, makeJjRepo } from './helpers.js';

describe('tidy backend selection against the pinned jj', () => {
  let colocated: JjRepo;
  let plain: JjRepo;
  before(() => {
    colocated = makeJjRepo();
    colocated.commit('one', { 'a.txt': 'a\n' });
    colocated.jj(['bookmark', 'create', 'main', '-r', '@-']);
    plain = makeJjRepo({ colocate: false });
  });
  after(() => {
    colocated.cleanup();
    plain.cleanup();
  });

  it('selects jj for colocated and non-colocated repositories, records the version, never reads through git', async () => {
    assert.ok(existsSync(join(colocated.dir, '.git')), 'the colocated repository has .git');
    assert.ok(!existsSync(join(plain.dir, '.git')), 'the non-colocated repository has no .git');
    for (const repo of [colocated, plain]) {
      const before = repo.jj(['op', 'log', '--no-graph', '-T', 'id ++ "\\n"']);
      const result = await runCliJson(['tidy', 'plan', join(repo.dir), '--base', 'main'], {
        cwd: repo.dir,
        env: jjTestEnv({ STW_NOW }),
      });
      const plan = checkedPlan(result.json);
      assert.equal(plan.backend.name, 'jj');
      assert.equal(plan.backend.version, '0.45.1');
      if (repo === colocated) {
        assert.equal(result.code, 0, result.stderr);
        assert.equal(plan.status, 'complete');
        // A bookmark, not Git's refs/heads/main; the working copy sits on it.
        assert.deepEqual(
          plan.targets.map((target) => [target.ref, target.reasons]),
          [['main', ['integrated', 'is-base', 'workspace-revision']]],
        );
      } else {
        // The new repository has no bookmark main: the base is unresolved, never guessed.
        assert.equal(result.code, 1, result.stderr);
        assert.equal(plan.refusal?.code, 'base-unresolved');
        assert.deepEqual(plan.targets, []);
      }
      // Nothing ran an operation (no snapshot, no import).
      assert.equal(repo.jj(['op', 'log', '--no-graph', '-T', 'id ++ "\\n"']), before);
    }
  });

  it('--backend git plans the Git branches jj exports in a colocated repository', async () => {
    // jj keeps Git's HEAD detached at the working copy's parent, so Git sees that
    // commit as a detached worktree's HEAD.
    const result = await runCliJson(
      ['tidy', 'plan', colocated.dir, '--backend', 'git', '--base', 'refs/heads/main'],
      { cwd: colocated.dir, env: jjTestEnv({ STW_NOW }) },
    );
    assert.equal(result.code, 0, result.stderr);
    const plan = checkedPlan(result.json);
    assert.equal(plan.backend.name, 'git');
    assert.deepEqual(
      plan.targets.map((target) => [target.ref, target.reasons]),
      [['refs/heads/main', ['integrated', 'is-base', 'worktree-head']]],
    );
  });
});
