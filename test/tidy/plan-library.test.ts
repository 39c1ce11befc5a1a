import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fixedClock } from '../../src/core/clock.js';
import { Deadline } from '../../src/core/deadline.js';
import { RefusalError } from '../../src/core/errors.js';
import { planTidy } from '../../src/index.js';
import { isValidFullRefName, observeGit, readObjectTypes } from '../../src/tidy/backends/git/observe.js';
import { chunkByCost } from '../../src/tidy/bounded.js';
import { DEFAULT_PLAN_BOUNDS, IncompleteObservationError } from '../../src/tidy/types.js';
import { makeRepo, makeTempDir, TestRepo, testEnv } from '../helpers/git-repo.js';
import { checkedPlan, makeBranches, STW_NOW, target } from './helpers.js';

const clock = fixedClock(STW_NOW);

describe('planTidy (library)', () => {
  it('does not believe a replace --graft that fakes ancestry', async () => {
    const repo = makeRepo();
    try {
      const c0 = repo.head();
      repo.git(['checkout', '-q', '-b', 'topic']);
      const topic = repo.commit('unmerged work', { 't.txt': 't\n' });
      repo.checkout('main');
      const tip = repo.commit('main work', { 'm.txt': 'm\n' });
      // Graft topic in as a second parent of main's tip: with replace objects honoured,
      // git itself would now say topic is an ancestor of main.
      repo.git(['replace', '--graft', tip, c0, topic]);
      // Sanity: plain git believes the graft (this throws if it did not).
      execFileSync('git', ['merge-base', '--is-ancestor', topic, 'refs/heads/main'], {
        cwd: repo.dir,
        env: testEnv(),
        stdio: 'ignore',
      });
      const { plan, exitCode } = await planTidy({ path: repo.dir, base: 'refs/heads/main', clock });
      assert.equal(exitCode, 0);
      checkedPlan(plan);
      const t = target(plan, 'refs/heads/topic');
      assert.equal(t.decision, 'retain');
      assert.deepEqual(t.reasons, ['not-integrated']);
      assert.equal(t.evidence.ancestor_of_base, false);
    } finally {
      repo.cleanup();
    }
  });

  it('does not believe an info/grafts file that fakes ancestry', async () => {
    const repo = makeRepo();
    try {
      const c0 = repo.head();
      repo.git(['checkout', '-q', '-b', 'topic']);
      const topic = repo.commit('unmerged work', { 't.txt': 't\n' });
      repo.checkout('main');
      const tip = repo.commit('main work', { 'm.txt': 'm\n' });
      repo.write({ '.git/info/grafts': `${tip} ${c0} ${topic}\n` });
      // Sanity: plain git (even with replace objects off) believes the graft file.
      execFileSync('git', ['merge-base', '--is-ancestor', topic, 'refs/heads/main'], {
        cwd: repo.dir,
        env: testEnv({ GIT_NO_REPLACE_OBJECTS: '1' }),
        stdio: 'ignore',
      });
      const { plan } = await planTidy({ path: repo.dir, base: 'refs/heads/main', clock });
      assert.deepEqual(target(plan, 'refs/heads/topic').reasons, ['not-integrated']);
      assert.equal(target(plan, 'refs/heads/topic').decision, 'retain');
    } finally {
      repo.cleanup();
    }
  });

  it('an aborted signal reports the plan incomplete (cancelled)', async () => {
    const repo = makeRepo();
    try {
      const controller = new AbortController();
      controller.abort();
      const { plan, exitCode } = await planTidy({
        path: repo.dir,
        base: 'refs/heads/main',
        clock,
        signal: controller.signal,
      });
      assert.equal(exitCode, 1);
      checkedPlan(plan);
      assert.equal(plan.status, 'incomplete');
      assert.equal(plan.refusal?.code, 'cancelled');
      assert.deepEqual(plan.targets, []);
    } finally {
      repo.cleanup();
    }
  });

  it('plans a SHA-256 repository with 64-hex object ids', async () => {
    const repo = makeRepo({ objectFormat: 'sha256' });
    try {
      const merged = repo.branch('merged');
      const tip = repo.commit('ahead', { 'a.txt': 'a\n' });
      assert.match(tip, /^[0-9a-f]{64}$/);
      const { plan, exitCode } = await planTidy({ path: repo.dir, base: tip, clock });
      assert.equal(exitCode, 0, plan.refusal?.message);
      checkedPlan(plan);
      assert.equal(plan.repository?.object_format, 'sha256');
      assert.deepEqual(plan.base, { selector: tip, ref: null, oid: tip });
      assert.equal(target(plan, 'refs/heads/merged').decision, 'delete');
      assert.equal(target(plan, 'refs/heads/merged').oid, merged);
      assert.deepEqual(target(plan, 'refs/heads/main').reasons, ['integrated', 'is-base', 'checked-out']);
      // A SHA-1-length id is not a full id in a SHA-256 repository.
      const short = await planTidy({ path: repo.dir, base: tip.slice(0, 40), clock });
      assert.equal(short.plan.refusal?.code, 'short-selector');
    } finally {
      repo.cleanup();
    }
  });

  it('a shallow clone retains every non-trivial ancestry claim as uncertain', async () => {
    const origin = makeRepo();
    const clone = makeTempDir('stw-shallow-');
    try {
      origin.branch('old');
      origin.commit('c1', { 'a.txt': '1\n' });
      origin.commit('c2', { 'a.txt': '2\n' });
      execFileSync('git', ['clone', '-q', '--depth', '2', '--no-local', `file://${origin.dir}`, clone], {
        env: testEnv(),
        stdio: 'ignore',
      });
      const repo = new TestRepo(clone);
      const tip = repo.head();
      repo.branch('parent', 'HEAD~1'); // really an ancestor, but the clone cannot prove it
      repo.branch('same', tip); // equal to the base: trivially integrated
      const { plan, exitCode } = await planTidy({ path: clone, base: 'refs/heads/main', clock });
      assert.equal(exitCode, 0);
      checkedPlan(plan);
      assert.equal(plan.repository?.is_shallow, true);
      const parent = target(plan, 'refs/heads/parent');
      assert.equal(parent.decision, 'retain');
      assert.deepEqual(parent.reasons, ['uncertain']);
      assert.equal(parent.evidence.ancestor_of_base, null);
      assert.match(parent.evidence.notes.join(' '), /shallow/);
      assert.deepEqual(target(plan, 'refs/heads/same').reasons, ['integrated', 'is-base']);
      assert.equal(plan.effects.length, 0);
    } finally {
      origin.cleanup();
      rmSync(clone, { recursive: true, force: true });
    }
  });

  it('a branch that moves between the reads is retained as uncertain', async () => {
    const repo = makeRepo();
    try {
      const c0 = repo.head();
      repo.branch('moving', c0);
      repo.branch('steady', c0);
      const tip = repo.commit('ahead', { 'a.txt': 'a\n' });
      const { plan, exitCode } = await planTidy({
        path: repo.dir,
        base: 'refs/heads/main',
        clock,
        betweenReads: () => {
          repo.git(['update-ref', 'refs/heads/moving', tip, c0]);
        },
      });
      assert.equal(exitCode, 0);
      checkedPlan(plan);
      const moving = target(plan, 'refs/heads/moving');
      assert.equal(moving.decision, 'retain');
      assert.deepEqual(moving.reasons, ['uncertain']);
      assert.equal(moving.oid, c0);
      assert.match(moving.evidence.notes.join(' '), /changed during observation/);
      assert.equal(target(plan, 'refs/heads/steady').decision, 'delete');
      assert.deepEqual(
        plan.effects.map((effect) => effect.ref),
        ['refs/heads/steady'],
      );
    } finally {
      repo.cleanup();
    }
  });

  it('a base that moves between the reads leaves the plan incomplete, retaining everything', async () => {
    const repo = makeRepo();
    try {
      repo.branch('merged');
      const tip = repo.commit('ahead', { 'a.txt': 'a\n' });
      const { plan, exitCode } = await planTidy({
        path: repo.dir,
        base: 'refs/heads/main',
        clock,
        betweenReads: () => {
          repo.git(['update-ref', 'refs/heads/main', 'HEAD~1', tip]);
        },
      });
      assert.equal(exitCode, 1);
      checkedPlan(plan);
      assert.equal(plan.status, 'incomplete');
      assert.equal(plan.refusal?.code, 'changed-during-observation');
      assert.ok(plan.targets.every((t) => t.decision === 'retain' && t.reasons.includes('uncertain')));
      assert.deepEqual(plan.effects, []);
    } finally {
      repo.cleanup();
    }
  });

  it('a worktree added between the reads leaves the plan incomplete', async () => {
    const repo = makeRepo();
    const wt = `${repo.dir}-late`;
    try {
      repo.branch('merged');
      repo.commit('ahead', { 'a.txt': 'a\n' });
      const { plan } = await planTidy({
        path: repo.dir,
        base: 'refs/heads/main',
        clock,
        betweenReads: () => {
          repo.worktree(wt, { branch: 'merged' });
        },
      });
      assert.equal(plan.status, 'incomplete');
      assert.equal(target(plan, 'refs/heads/merged').decision, 'retain');
    } finally {
      rmSync(wt, { recursive: true, force: true });
      repo.cleanup();
    }
  });

  it('uses a bounded number of git calls, independent of the branch count', async () => {
    const repo = makeRepo();
    try {
      const at = repo.head();
      repo.commit('ahead', { 'a.txt': 'a\n' });
      makeBranches(repo, ['b1', 'b2'], at);
      const few = await planTidy({ path: repo.dir, base: 'refs/heads/main', clock });
      makeBranches(
        repo,
        Array.from({ length: 600 }, (_, i) => `topic/many-${String(i).padStart(4, '0')}`),
        at,
      );
      const many = await planTidy({ path: repo.dir, base: 'refs/heads/main', clock });
      assert.equal(many.exitCode, 0, many.plan.refusal?.message);
      assert.equal(many.plan.targets.length, 603);
      assert.equal(many.plan.effects.length, 602);
      assert.ok(few.gitCalls <= 16, `few: ${few.gitCalls} calls`);
      assert.ok(many.gitCalls <= few.gitCalls + 4, `many: ${many.gitCalls} calls vs ${few.gitCalls}`);
    } finally {
      repo.cleanup();
    }
  });

  it('a listing over the output bound falls back to chunked reads, with the same decisions', async () => {
    const repo = makeRepo();
    try {
      const at = repo.head();
      repo.commit('ahead', { 'a.txt': 'a\n' });
      makeBranches(
        repo,
        Array.from({ length: 30 }, (_, i) => `topic/x-${String(i).padStart(3, '0')}`),
        at,
      );
      const normal = await planTidy({ path: repo.dir, base: 'refs/heads/main', clock });
      const small = await planTidy({
        path: repo.dir,
        base: 'refs/heads/main',
        clock,
        bounds: { ...DEFAULT_PLAN_BOUNDS, maxOutputBytes: 1200 },
      });
      assert.equal(small.exitCode, 0, small.plan.refusal?.message);
      assert.deepEqual(small.plan, normal.plan);
      assert.ok(small.gitCalls > normal.gitCalls, `${small.gitCalls} vs ${normal.gitCalls} calls`);
    } finally {
      repo.cleanup();
    }
  });

  it('an annotated tag as base is peeled to its commit', async () => {
    const repo = makeRepo();
    try {
      repo.branch('merged');
      const tip = repo.commit('release', { 'a.txt': 'a\n' });
      repo.git(['tag', '-a', '-m', 'v1', 'v1']);
      repo.git(['tag', '-a', '-m', 'outer', 'v1-outer', 'refs/tags/v1']);
      for (const base of ['refs/tags/v1', 'refs/tags/v1-outer']) {
        const { plan, exitCode } = await planTidy({ path: repo.dir, base, clock });
        assert.equal(exitCode, 0, plan.refusal?.message);
        assert.deepEqual(plan.base, { selector: base, ref: base, oid: tip });
        assert.equal(target(plan, 'refs/heads/merged').decision, 'delete');
      }
      const blob = repo.git(['hash-object', '-w', '--stdin'], { input: 'not a commit\n' });
      repo.git(['update-ref', 'refs/tags/blob', blob]);
      const notCommit = await planTidy({ path: repo.dir, base: 'refs/tags/blob', clock });
      assert.equal(notCommit.plan.refusal?.code, 'base-unresolved');
    } finally {
      repo.cleanup();
    }
  });

  it('a worktree path with control characters is quoted in human output', async () => {
    const repo = makeRepo();
    const wt = `${repo.dir}-\u001b[31mred\nline`;
    try {
      repo.branch('side');
      repo.commit('ahead', { 'a.txt': 'a\n' });
      repo.worktree(wt, { branch: 'side' });
      const { plan } = await planTidy({ path: repo.dir, base: 'refs/heads/main', clock });
      checkedPlan(plan);
      assert.deepEqual(target(plan, 'refs/heads/side').blockers, [
        { reason: 'checked-out', worktree: wt, operation: null },
      ]);
      const { renderPlan } = await import('../../src/cli/commands/tidy-plan.js');
      const plain = { bold: String, dim: String, red: String, green: String, yellow: String, cyan: String };
      const text = renderPlan(plan, plain as never, undefined);
      assert.doesNotMatch(text, /\u001b/);
      assert.match(text, /\\e\[31mred\\nline/);
    } finally {
      rmSync(wt, { recursive: true, force: true });
      repo.cleanup();
    }
  });
});

describe('Git observation pieces', () => {
  it('validates literal full ref names in-process', () => {
    for (const good of ['refs/heads/main', 'refs/heads/a/b-c_d.e', 'refs/heads/ünï'])
      assert.ok(isValidFullRefName(good), good);
    for (const bad of [
      'main',
      'refs/heads/a..b',
      'refs/heads/a*',
      'refs/heads/a?',
      'refs/heads/[a]',
      'refs/heads/a~1',
      'refs/heads/a^',
      'refs/heads/a:b',
      'refs/heads/a b',
      'refs/heads/a@{1}',
      'refs/heads/.hidden',
      'refs/heads/a.lock',
      'refs/heads/a/',
      'refs/heads//a',
      'refs/heads/a\\b',
      'refs/heads/a\u0001',
    ])
      assert.ok(!isValidFullRefName(bad), bad);
  });

  it('chunks by cost without dropping or reordering items', () => {
    const items = Array.from({ length: 50 }, (_, i) => i);
    const chunks = chunkByCost(items, () => 10, 35);
    assert.deepEqual(chunks.flat(), items);
    assert.ok(chunks.every((chunk) => chunk.length <= 3));
  });

  it('reads object types in chunks and maps a missing object to null', async () => {
    const repo = makeRepo();
    try {
      const tip = repo.head();
      const missing = 'ab'.repeat(20);
      const types = await readObjectTypes([tip, missing, tip], 'sha1', {
        cwd: repo.dir,
        deadline: Deadline.after(5000),
        bounds: { ...DEFAULT_PLAN_BOUNDS, maxOutputBytes: 120 },
      });
      assert.deepEqual(
        [...types.entries()],
        [
          [tip, 'commit'],
          [missing, null],
        ],
      );
    } finally {
      repo.cleanup();
    }
  });

  it('refuses and reports incomplete with typed errors', async () => {
    const repo = makeRepo();
    try {
      const ctx = { deadline: Deadline.after(5000), bounds: { ...DEFAULT_PLAN_BOUNDS } };
      await assert.rejects(
        observeGit(
          { path: repo.dir, baseSelector: 'refs/heads/main', refs: ['refs/heads/x', 'refs/heads/x'] },
          ctx,
        ),
        (error: unknown) => error instanceof RefusalError && error.code === 'duplicate-ref',
      );
      await assert.rejects(
        observeGit(
          { path: repo.dir, baseSelector: 'refs/heads/main', refs: undefined },
          { deadline: Deadline.after(5000), bounds: { ...DEFAULT_PLAN_BOUNDS, maxOutputBytes: 10 } },
        ),
        (error: unknown) =>
          error instanceof IncompleteObservationError && error.code === 'output-bound-exceeded',
      );
    } finally {
      repo.cleanup();
    }
  });
});
