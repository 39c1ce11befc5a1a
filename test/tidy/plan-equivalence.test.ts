import assert from 'node:assert/strict';
import { chmodSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fixedClock } from '../../src/core/clock.js';
import { MAX_PATCH_ID_COMMITS } from '../../src/tidy/backends/git/equivalence.js';
import { planTidy } from '../../src/tidy/plan.js';
import type { TidyPlanV1 } from '../../src/tidy/types.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo } from '../helpers/git-repo.js';
import { checkedPlan, STW_NOW, snapshotTree, target } from './helpers.js';

// Squash and rebase evidence (docs/tidy.md, "Equivalence evidence"): reported for
// not-integrated branches, proved by git, never a delete decision, and nothing written to
// the repository — the probe's objects go to a temporary object directory.

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

/** main: README, then the given history. */
function repo(): TestRepo {
  const made = makeRepo();
  repos.push(made);
  return made;
}

/** Objects in the repository's store: `git count-objects -v` (loose and packed). */
function objectCount(r: TestRepo): string {
  return r
    .git(['count-objects', '-v'])
    .split('\n')
    .filter((line) => /^(count|in-pack|packs):/.test(line))
    .join(', ');
}

async function plan(r: TestRepo, extra: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const result = await runCliJson<TidyPlanV1>(['tidy', 'plan', '--base', 'refs/heads/main', ...extra], {
    cwd: r.dir,
    env: { STW_NOW, ...env },
  });
  assert.equal(result.code, 0, result.stderr);
  return checkedPlan(result.json);
}

/** feature: two commits off main; main then gains its own commit and the squash of feature. */
function squashScenario() {
  const r = repo();
  r.git(['checkout', '-q', '-b', 'feature']);
  r.commit('feature one', { 'src/one.txt': 'one\n' });
  r.commit('feature two', { 'src/two.txt': 'two\n', 'README.md': '# test\nfeature\n' });
  r.checkout('main');
  r.commit('main work', { 'other.txt': 'other\n' });
  r.git(['merge', '-q', '--squash', 'feature']);
  const squash = r.commit('Squashed feature (#12)');
  return { r, squash, feature: r.head('refs/heads/feature') };
}

describe('stw tidy plan: squash evidence', () => {
  it('a branch squash-merged into main is retained with patch-id evidence naming the squash commit; no object is written', async () => {
    const { r, squash, feature } = squashScenario();
    const before = objectCount(r);
    const objects = snapshotTree(r.path('.git', 'objects'));
    const tmp = makeTempDir('stw-probe-tmp-');
    const json = await plan(r, [], { TMPDIR: tmp });
    const entry = target(json, 'refs/heads/feature');
    assert.equal(entry.oid, feature);
    assert.equal(entry.decision, 'retain');
    assert.deepEqual(entry.reasons, ['not-integrated']);
    assert.equal(entry.evidence.ancestor_of_base, false);
    assert.deepEqual(entry.evidence.equivalence, {
      status: 'equivalent',
      method: 'patch-id',
      base_commit: squash,
      merge_base: r.git(['merge-base', 'main', 'feature']),
      detail: `its cumulative change since ${r.git(['merge-base', 'main', 'feature'])} has the patch-id of base commit ${squash}`,
    });
    assert.equal(json.effects.length, 0, 'evidence is never permission');
    assert.equal(objectCount(r), before, 'the object store gained no object');
    assert.deepEqual(snapshotTree(r.path('.git', 'objects')), objects, 'nothing under .git/objects changed');
    assert.deepEqual(readdirSync(tmp), [], 'the temporary object directory is removed');
    assert.equal(
      target(json, 'refs/heads/main').evidence.equivalence,
      undefined,
      'only not-integrated targets',
    );

    const human = await runCli(['tidy', 'plan', '--base', 'refs/heads/main', '--ref', 'refs/heads/feature'], {
      cwd: r.dir,
      env: { STW_NOW },
    });
    assert.equal(human.code, 0, human.stderr);
    assert.match(
      human.stdout,
      new RegExp(`squash-merged as ${squash}\\? the changes are in the base; delete by hand after review`),
    );
    assert.match(
      human.stdout,
      /equivalence \(patch-id\): proved: its cumulative change since [0-9a-f]{40} has the patch-id/,
    );
    assert.equal(objectCount(r), before);
  });

  it('a squash edited again on main is still found by patch-id, though a merge would conflict', async () => {
    const { r, squash } = squashScenario();
    r.commit('follow-up on main', { 'src/two.txt': 'two, revised\n' });
    const json = await plan(r);
    const equivalence = target(json, 'refs/heads/feature').evidence.equivalence;
    assert.equal(equivalence?.status, 'equivalent');
    assert.equal(equivalence?.method, 'patch-id');
    assert.equal(equivalence?.base_commit, squash);
  });

  it('past 1,000 base commits since the merge base patch-id is skipped, and merge-tree still answers', async () => {
    const { r } = squashScenario();
    // 1,001 more commits on main, in one fast-import stream.
    const stream = [];
    for (let i = 1; i <= MAX_PATCH_ID_COMMITS + 1; i++) {
      const body = `later ${i}\n`;
      stream.push(
        'commit refs/heads/main',
        `committer T <t@example.com> ${1_800_000_000 + i} +0000`,
        'data 6',
        'later',
      );
      if (i === 1) stream.push(`from ${r.head('refs/heads/main')}`);
      stream.push(`M 100644 inline later.txt`, `data ${Buffer.byteLength(body)}`, body.trimEnd(), '');
    }
    r.git(['fast-import', '--quiet'], { input: `${stream.join('\n')}\n` });
    r.git(['reset', '-q', '--hard', 'refs/heads/main']);
    const equivalence = target(await plan(r), 'refs/heads/feature').evidence.equivalence;
    assert.equal(equivalence?.status, 'equivalent');
    assert.equal(equivalence?.method, 'merge-tree');
    assert.equal(equivalence?.base_commit, r.head('refs/heads/main'));
  });

  it('a branch rebased onto main commit by commit is found by merge-tree: merging it changes nothing', async () => {
    const r = repo();
    r.git(['checkout', '-q', '-b', 'topic']);
    r.commit('topic one', { 'a.txt': 'a\n' });
    r.commit('topic two', { 'b.txt': 'b\n' });
    r.checkout('main');
    r.commit('main work', { 'other.txt': 'other\n' });
    r.git(['cherry-pick', 'main..topic'], { env: { GIT_COMMITTER_DATE: '2026-01-02T00:00:00Z' } });
    const before = objectCount(r);
    const json = await plan(r);
    const base = r.head('refs/heads/main');
    const entry = target(json, 'refs/heads/topic');
    assert.deepEqual(entry.reasons, ['not-integrated']);
    assert.equal(entry.evidence.equivalence?.status, 'equivalent');
    assert.equal(entry.evidence.equivalence?.method, 'merge-tree');
    assert.equal(entry.evidence.equivalence?.base_commit, base);
    assert.equal(
      entry.evidence.equivalence?.detail,
      `merging it into base commit ${base} is clean and changes nothing`,
    );
    assert.equal(objectCount(r), before, 'the test merge wrote nothing to the repository');
  });

  it('a branch whose changes are not in the base: not found, and says what was checked', async () => {
    const r = repo();
    r.git(['checkout', '-q', '-b', 'wip']);
    r.commit('wip', { 'wip.txt': 'wip\n' });
    r.checkout('main');
    r.commit('main work', { 'other.txt': 'other\n' });
    const json = await plan(r);
    const equivalence = target(json, 'refs/heads/wip').evidence.equivalence;
    assert.equal(equivalence?.status, 'not-equivalent');
    assert.equal(equivalence?.method, null);
    assert.equal(equivalence?.base_commit, null);
    assert.match(
      equivalence?.detail ?? '',
      /no base commit since [0-9a-f]{40} has its patch-id, and merging it into the base would change the base's tree/,
    );
  });

  it('a branch that changes nothing since its merge base proves no squash: skipped', async () => {
    const r = repo();
    r.git(['checkout', '-q', '-b', 'empty']);
    r.commit('nothing', {}, { allowEmpty: true });
    r.checkout('main');
    r.commit('main work', { 'other.txt': 'other\n' });
    const equivalence = target(await plan(r), 'refs/heads/empty').evidence.equivalence;
    assert.equal(equivalence?.status, 'skipped');
    assert.match(equivalence?.detail ?? '', /changes nothing since its merge base/);
  });

  it('when there are more candidates than checks, the newest tips are checked first, then by name', async () => {
    const { r, squash } = squashScenario();
    // `a-old` sorts first by name but its tip is older than feature's squash-merged tip.
    r.git(['checkout', '-q', '-b', 'a-old', 'main~2']);
    r.commit('old work', { 'old.txt': 'old\n' }, { date: '2020-01-01T00:00:00Z' });
    r.checkout('main');
    const one = await plan(r, ['--equivalence-checks', '1']);
    assert.equal(target(one, 'refs/heads/feature').evidence.equivalence?.base_commit, squash);
    assert.equal(
      target(one, 'refs/heads/a-old').evidence.equivalence?.detail,
      'beyond the bound of 1 equivalence checks per plan (--equivalence-checks)',
    );
  });

  it('interrupted during the evidence, the plan is incomplete (cancelled), not complete with checks skipped', async () => {
    const { r } = squashScenario();
    const interrupt = new AbortController();
    const { plan, exitCode } = await planTidy({
      path: r.dir,
      base: 'refs/heads/main',
      clock: fixedClock(STW_NOW),
      signal: interrupt.signal,
      beforeEvidence: () => interrupt.abort(),
    });
    assert.equal(exitCode, 1);
    assert.equal(plan.status, 'incomplete');
    assert.equal(plan.refusal?.code, 'cancelled');
    assert.deepEqual(plan.targets, []);
    assert.deepEqual(plan.effects, []);
  });

  it('beyond --equivalence-checks the rest are skipped and say so; 0 checks none', async () => {
    const { r } = squashScenario();
    r.git(['branch', 'later', 'feature']);
    const one = await plan(r, ['--equivalence-checks', '1']);
    assert.equal(target(one, 'refs/heads/feature').evidence.equivalence?.status, 'equivalent');
    assert.deepEqual(target(one, 'refs/heads/later').evidence.equivalence, {
      status: 'skipped',
      method: null,
      base_commit: null,
      merge_base: null,
      detail: 'beyond the bound of 1 equivalence checks per plan (--equivalence-checks)',
    });
    const none = await plan(r, ['--equivalence-checks', '0']);
    for (const ref of ['refs/heads/feature', 'refs/heads/later'])
      assert.equal(
        target(none, ref).evidence.equivalence?.detail,
        'equivalence checks are off (--equivalence-checks 0)',
      );
    for (const bad of ['-1', '1025', 'many', '']) {
      const result = await runCli(
        ['tidy', 'plan', '--base', 'refs/heads/main', '--equivalence-checks', bad],
        {
          cwd: r.dir,
        },
      );
      assert.equal(result.code, 2, `--equivalence-checks ${JSON.stringify(bad)}`);
      assert.match(result.stderr, /--equivalence-checks/);
    }
  });

  it('when no private object directory can be made, only a check that needs one (a test merge) is skipped, with the reason', async () => {
    const { r, squash } = squashScenario();
    // `taken`'s change is in main inside a larger commit: no patch-id matches, and main
    // changed the same file since, so only a test merge (which writes objects) can answer.
    r.git(['checkout', '-q', '-b', 'taken', 'main~2']);
    r.commit('taken', { 'taken.txt': 'taken\n' });
    r.checkout('main');
    r.commit('main takes it and more', { 'taken.txt': 'taken\n', 'more.txt': 'more\n' });
    const made = await plan(r);
    assert.equal(target(made, 'refs/heads/taken').evidence.equivalence?.method, 'merge-tree');
    const json = await plan(r, [], { TMPDIR: join(makeTempDir(), 'missing') });
    const equivalence = target(json, 'refs/heads/taken').evidence.equivalence;
    assert.equal(equivalence?.status, 'skipped');
    assert.match(
      equivalence?.detail ?? '',
      /^merge-tree not evaluated: no private object directory for the probe: /,
    );
    // The patch-id method writes nothing, so it still answers.
    assert.equal(target(json, 'refs/heads/feature').evidence.equivalence?.base_commit, squash);
    assert.equal(json.status, 'complete');
  });

  it('a stored plan keeps the evidence, tidy show prints it, and apply deletes nothing for it', async () => {
    const { r, squash } = squashScenario();
    r.git(['branch', 'done', 'main~2']);
    const stateDir = makeTempDir('stw-state-');
    chmodSync(stateDir, 0o700); // a state directory must be 0700 exactly
    const stored = await plan(r, ['--state-dir', stateDir]);
    assert.deepEqual(
      stored.effects.map((e) => e.ref),
      ['refs/heads/done'],
    );
    const shown = await runCli(['tidy', 'show', '--plan', stored.plan_id, '--state-dir', stateDir], {
      cwd: r.dir,
    });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`squash-merged as ${squash}\\?`));
    const applied = await runCliJson<{ status: string }>(
      ['tidy', 'apply', '--plan', stored.plan_id, '--state-dir', stateDir, '--authorize'],
      { cwd: r.dir },
    );
    assert.equal(applied.json.status, 'complete', applied.stderr);
    assert.equal(
      r.head('refs/heads/feature'),
      stored.targets.find((t) => t.ref === 'refs/heads/feature')?.oid,
    );
  });
});
