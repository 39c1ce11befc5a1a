import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { readBookmarks } from '../../src/tidy/backends/jj/observe.js';
import { runCliJson } from '../helpers/cli.js';
import { testEnv } from '../helpers/git-repo.js';
import { checkedPlan, STW_NOW } from '../tidy/helpers.js';
import { type JjRepo, jjCallContext, jjTestEnv, makeJjRepo } from './helpers.js';

describe('jj bookmarks read by name: names that need quoting', () => {
  let repo: JjRepo;
  const odd = [
    'a"b',
    'back\\slash',
    'star*x',
    'q?',
    'glob[x]',
    'ünï',
    'x@y',
    'tab-like\\t',
    'exact:z',
    'dash-',
    "it's",
  ];
  before(() => {
    repo = makeJjRepo();
    const main = repo.commit('main', { 'main.txt': 'main\n' });
    repo.jj(['bookmark', 'create', 'main', '-r', main]);
    for (const name of odd) {
      try {
        execFileSync('git', ['update-ref', `refs/heads/${name}`, main], {
          cwd: repo.dir,
          env: testEnv(),
          stdio: 'pipe',
        });
      } catch {
        // git refuses it as a ref name: jj can hold no such bookmark in a colocated repository.
      }
    }
    repo.jj(['git', 'import']);
  });
  after(() => repo.cleanup());

  it('reads the same entries as one unbounded listing', async () => {
    const op = repo.op();
    const whole = await readBookmarks(op, jjCallContext(repo, 16 * 1024 * 1024).ctx);
    const { ctx, counter } = jjCallContext(repo, 400);
    const chunked = await readBookmarks(op, ctx);
    assert.ok(counter.calls > 2, `${counter.calls} calls: the listing was not chunked`);
    assert.deepEqual(chunked, whole);
  });
});

describe('jj bookmarks read by name: no jj process outlives a failed view read', () => {
  let repo: JjRepo;
  before(() => {
    repo = makeJjRepo();
    const main = repo.commit('main', { 'main.txt': 'main\n' });
    const names = Array.from({ length: 120 }, (_, i) => `b${String(i).padStart(4, '0')}`);
    repo.jj(['bookmark', 'create', 'main', ...names, '-r', main]);
    for (const n of [1, 2, 3]) repo.jj(['workspace', 'add', '--name', `w${n}`, `${repo.dir}-w${n}`]);
  });
  after(() => repo.cleanup());

  it('readView settles its bookmark chunks before it throws', async () => {
    const { readView } = await import('../../src/tidy/backends/jj/effects.js');
    const op = repo.op();
    // 700 bytes: the workspace list (four workspaces) is over it at once; the bookmark
    // listing is over it too and goes on to its names and chunks.
    const { ctx, counter } = jjCallContext(repo, 700);
    await assert.rejects(readView(op, ctx));
    const children = execFileSync('ps', ['-o', 'comm=', '--ppid', String(process.pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((c) => c.trim() === 'jj');
    const callsAtThrow = counter.calls;
    assert.deepEqual(children, [], `jj still running after readView threw (${callsAtThrow} calls so far)`);
  });
});

describe('jj bookmarks read by name: long names past the output bound', () => {
  let repo: JjRepo;
  before(() => {
    repo = makeJjRepo();
    const main = repo.commit('main', { 'main.txt': 'main\n' });
    const names = Array.from(
      { length: 400 },
      (_, i) =>
        `someone/PROJ-${String(i).padStart(4, '0')}-a-fairly-long-but-ordinary-description-of-the-change-being-made`,
    );
    repo.jj(['bookmark', 'create', 'main', ...names, '-r', main]);
  });
  after(() => repo.cleanup());

  // 802 entries, well under the 1,024 docs/tidy.md promises; the names listing alone is
  // 67 KiB, over the 64 KiB a call may print.
  it('a plan of 401 bookmarks with 82-byte names is complete', async () => {
    const result = await runCliJson(['tidy', 'plan', repo.dir, '--base', 'main'], {
      cwd: repo.dir,
      env: jjTestEnv({ STW_NOW }),
    });
    const plan = checkedPlan(result.json);
    assert.equal(plan.status, 'complete', JSON.stringify(plan.refusal));
  });
});
