import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readBookmarks } from '../../src/tidy/backends/jj/observe.js';
import { IncompleteObservationError } from '../../src/tidy/types.js';
import { runCliJson } from '../helpers/cli.js';
import { checkedPlan, STW_NOW } from '../tidy/helpers.js';
import { type JjRepo, jjCallContext, jjTestEnv, makeJjRepo, trackWithRemote } from './helpers.js';

// Bookmark listings past the 64 KiB output bound (docs/tidy.md, "jj"): a colocated
// repository lists every bookmark twice (its own entry and the git pseudo-remote's), so a
// few hundred bookmarks are more than one call may print. The names are listed alone and
// the entries read by exact name, in chunks: the same entries, in the same order.

describe('jj bookmarks past the output bound', () => {
  let repo: JjRepo;
  let remote: JjRepo;
  const names = Array.from({ length: 400 }, (_, i) => `feature/some-topic-${String(i).padStart(4, '0')}`);
  before(() => {
    repo = makeJjRepo();
    const main = repo.commit('main', { 'main.txt': 'main\n' });
    repo.jj(['bookmark', 'create', 'main', '-r', main]);
    repo.commit('work', { 'work.txt': 'work\n' });
    repo.jj(['bookmark', 'create', ...names, '-r', '@-']);
    // A remote-only bookmark (its local bookmark deleted, the remote's untracked): read by
    // name as well.
    remote = trackWithRemote(repo, 'elsewhere', main);
    repo.jj(['bookmark', 'untrack', 'elsewhere', '--remote=origin']);
    repo.jj(['bookmark', 'delete', 'elsewhere']);
  });
  after(() => {
    repo.cleanup();
    remote.cleanup();
  });

  it('reads the same entries, in the same order, as one unbounded listing', async () => {
    const op = repo.op();
    const chunked = jjCallContext(repo);
    const whole = jjCallContext(repo, 16 * 1024 * 1024);
    const read = await readBookmarks(op, chunked.ctx);
    assert.deepEqual(read, await readBookmarks(op, whole.ctx));
    assert.equal(whole.counter.calls, 1);
    assert.ok(chunked.counter.calls > 2, `${chunked.counter.calls} calls`);
    assert.equal(read.local.length, 401);
    assert.ok(read.remote.some((entry) => entry.name === 'elsewhere' && entry.remote === 'origin'));
    assert.ok(!read.local.some((entry) => entry.name === 'elsewhere'));
  });

  it('a plan of every bookmark is complete', async () => {
    const result = await runCliJson(['tidy', 'plan', repo.dir, '--base', 'main'], {
      cwd: repo.dir,
      env: jjTestEnv({ STW_NOW }),
    });
    assert.equal(result.code, 0, result.stderr);
    const plan = checkedPlan(result.json);
    assert.equal(plan.status, 'complete');
    assert.equal(plan.targets.length, 401);
    assert.ok(
      plan.targets.every((target) => target.reasons.includes('not-integrated') || target.ref === 'main'),
    );
  });
});

describe('jj bookmarks past the output bound: a chunk longer than estimated', () => {
  let repo: JjRepo;
  before(() => {
    // Not colocated: jj's export to Git would settle the concurrent changes instead. A
    // bookmark set by twelve concurrent operations has 23 sides: its entry is longer than
    // a chunk's estimate, so the chunk holding it is read again in halves.
    repo = makeJjRepo({ colocate: false });
    const commits = Array.from({ length: 12 }, (_, i) => {
      repo.jj(['new', 'root()']);
      return repo.commit(`side ${i}`, { [`s${i}.txt`]: `${i}\n` });
    });
    repo.jj(['bookmark', 'create', 'a', '-r', commits[0]!]);
    const beforeConflict = repo.op();
    for (const commit of commits)
      repo.jj([
        '--ignore-working-copy',
        `--at-op=${beforeConflict}`,
        'bookmark',
        'create',
        'split',
        '-r',
        commit,
      ]);
    repo.jj(['bookmark', 'list']); // reconciles the divergent operations
  });
  after(() => {
    repo.cleanup();
  });

  it('reads the same entries as one unbounded listing', async () => {
    const op = repo.op();
    const whole = await readBookmarks(op, jjCallContext(repo, 16 * 1024 * 1024).ctx);
    const split = whole.local.find((entry) => entry.name === 'split');
    assert.equal(split?.targets.length, 23, JSON.stringify(split));
    // The whole listing, then the names, then both names (longer than the bound), then each.
    const { ctx, counter } = jjCallContext(repo, 600);
    assert.deepEqual(await readBookmarks(op, ctx), whole);
    assert.equal(counter.calls, 5);
  });

  it('an entry longer than the bound on its own is incomplete evidence, never a shorter list', async () => {
    const { ctx } = jjCallContext(repo, 300);
    await assert.rejects(
      readBookmarks(repo.op(), ctx),
      (error: unknown) =>
        error instanceof IncompleteObservationError && error.code === 'output-bound-exceeded',
    );
  });
});
