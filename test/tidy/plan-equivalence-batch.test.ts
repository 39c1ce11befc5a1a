import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { fixedClock } from '../../src/core/clock.js';
import { planTidy } from '../../src/tidy/plan.js';
import type { TidyPlanV1 } from '../../src/tidy/types.js';
import { runCliJson } from '../helpers/cli.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';
import { checkedPlan, STW_NOW, target } from './helpers.js';

// The batched equivalence checks (docs/tidy.md, "Equivalence evidence"): a constant number
// of git processes for all checked branches, each squash matched only inside its own
// branch's range, and anything the batch cannot prove answered per branch, as before.

const clock = fixedClock(STW_NOW);
const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

function repo(): TestRepo {
  const made = makeRepo();
  repos.push(made);
  return made;
}

function objectCount(r: TestRepo): string {
  return r
    .git(['count-objects', '-v'])
    .split('\n')
    .filter((line) => /^(count|in-pack|packs):/.test(line))
    .join(', ');
}

async function plan(r: TestRepo) {
  const result = await runCliJson<TidyPlanV1>(['tidy', 'plan', '--base', 'refs/heads/main'], {
    cwd: r.dir,
    env: { STW_NOW },
  });
  assert.equal(result.code, 0, result.stderr);
  return checkedPlan(result.json);
}

/** `count` commits on main in one fast-import stream, each changing `later.txt`. */
function manyCommits(r: TestRepo, count: number): void {
  const stream = [];
  for (let i = 1; i <= count; i++) {
    const body = `later ${i}\n`;
    stream.push(
      'commit refs/heads/main',
      `committer T <t@example.com> ${1_800_000_000 + i} +0000`,
      'data 6',
      'later',
    );
    if (i === 1) stream.push(`from ${r.head('refs/heads/main')}`);
    stream.push('M 100644 inline later.txt', `data ${Buffer.byteLength(body)}`, body.trimEnd(), '');
  }
  r.git(['fast-import', '--quiet'], { input: `${stream.join('\n')}\n` });
  r.git(['reset', '-q', '--hard', 'refs/heads/main']);
}

describe('tidy plan: batched equivalence checks', () => {
  it("a squash older than another branch's merge base names only the branch whose range holds it", async () => {
    const r = repo();
    r.git(['checkout', '-q', '-b', 'feature']);
    r.commit('feature', { 'x.txt': 'x\n' });
    r.checkout('main');
    r.git(['merge', '-q', '--squash', 'feature']);
    const squash = r.commit('Squashed feature');
    r.remove('drop x', ['x.txt']);
    // `again` makes the very change of the squash, after it: its range does not hold it.
    r.git(['checkout', '-q', '-b', 'again']);
    r.commit('again', { 'x.txt': 'x\n' });
    r.checkout('main');
    r.commit('main work', { 'other.txt': 'other\n' });
    const before = objectCount(r);
    const json = await plan(r);
    assert.deepEqual(target(json, 'refs/heads/feature').evidence.equivalence, {
      status: 'equivalent',
      method: 'patch-id',
      base_commit: squash,
      merge_base: r.git(['merge-base', 'main', 'feature']),
      detail: `its cumulative change since ${r.git(['merge-base', 'main', 'feature'])} has the patch-id of base commit ${squash}`,
    });
    const again = target(json, 'refs/heads/again').evidence.equivalence;
    const againBase = r.git(['merge-base', 'main', 'again']);
    assert.deepEqual(again, {
      status: 'not-equivalent',
      method: null,
      base_commit: null,
      merge_base: againBase,
      detail: `no base commit since ${againBase} has its patch-id, and merging it into the base would change the base's tree (it adds "x.txt", which the base has not changed since the merge base)`,
    });
    assert.equal(objectCount(r), before, 'nothing was written to the repository');
  });

  it('a binary change matches only the squash of the same bytes', async () => {
    const r = repo();
    r.commit('binary', { 'blob.bin': Buffer.from([0, 1, 2, 3]) });
    r.git(['checkout', '-q', '-b', 'bin-a']);
    r.commit('a', { 'blob.bin': Buffer.from([0, 1, 2, 0xaa]) });
    r.git(['checkout', '-q', '-b', 'bin-b', 'main']);
    r.commit('b', { 'blob.bin': Buffer.from([0, 1, 2, 0xbb]) });
    r.checkout('main');
    const squash = r.commit('Squashed a', { 'blob.bin': Buffer.from([0, 1, 2, 0xaa]) });
    const json = await plan(r);
    assert.equal(target(json, 'refs/heads/bin-a').evidence.equivalence?.base_commit, squash);
    assert.equal(target(json, 'refs/heads/bin-b').evidence.equivalence?.status, 'not-equivalent');
  });

  it('text that is not UTF-8 matches only the squash of the same bytes (Latin-1 é is not è)', async () => {
    const r = repo();
    r.commit('latin-1 text', { 'menu.txt': Buffer.from('caf\n', 'latin1') });
    r.git(['checkout', '-q', '-b', 'e-acute']);
    r.commit('é', { 'menu.txt': Buffer.from('caf\xe9\n', 'latin1') });
    r.git(['checkout', '-q', '-b', 'e-grave', 'main']);
    r.commit('è', { 'menu.txt': Buffer.from('caf\xe8\n', 'latin1') });
    r.checkout('main');
    const squash = r.commit('Squashed è', { 'menu.txt': Buffer.from('caf\xe8\n', 'latin1') });
    const json = await plan(r);
    assert.equal(target(json, 'refs/heads/e-grave').evidence.equivalence?.base_commit, squash);
    assert.equal(target(json, 'refs/heads/e-acute').evidence.equivalence?.status, 'not-equivalent');
  });

  it('criss-cross history (two merge bases) is skipped, not guessed', async () => {
    const r = repo();
    r.git(['checkout', '-q', '-b', 'topic']);
    const t1 = r.commit('t1', { 't.txt': 't1\n' });
    r.checkout('main');
    const m1 = r.commit('m1', { 'm.txt': 'm1\n' });
    r.git(['merge', '-q', '--no-edit', 'topic']);
    r.checkout('topic');
    r.git(['merge', '-q', '--no-edit', m1]);
    r.commit('t2', { 't.txt': 't2\n' });
    r.checkout('main');
    assert.equal(
      r.git(['merge-base', '--all', 'main', 'topic']).split('\n').sort().join(' '),
      [m1, t1].sort().join(' '),
    );
    const equivalence = target(await plan(r), 'refs/heads/topic').evidence.equivalence;
    assert.equal(equivalence?.status, 'skipped');
    assert.equal(
      equivalence?.detail,
      'it has 2 merge bases with the base (criss-cross history); not evaluated',
    );
  });

  it('a branch that merged the base in is answered per branch with its one merge base', async () => {
    const r = repo();
    r.git(['checkout', '-q', '-b', 'synced']);
    r.commit('work', { 's.txt': 's\n' });
    r.checkout('main');
    const later = r.commit('main work', { 'm.txt': 'm\n' });
    r.checkout('synced');
    r.git(['merge', '-q', '--no-edit', 'main']);
    r.commit('more work', { 's.txt': 's2\n' });
    r.checkout('main');
    r.commit('main again', { 'n.txt': 'n\n' });
    const equivalence = target(await plan(r), 'refs/heads/synced').evidence.equivalence;
    assert.equal(equivalence?.status, 'not-equivalent');
    assert.equal(equivalence?.merge_base, later);
  });

  it('past the range bound, a branch off an older base is answered from the listing and the others stay batched', async () => {
    const r = repo();
    r.git(['checkout', '-q', '-b', 'ancient']);
    r.commit('ancient', { 'ancient.txt': 'a\n' });
    r.checkout('main');
    manyCommits(r, 4001); // more than the batched range listing holds
    r.git(['checkout', '-q', '-b', 'fresh']);
    r.commit('fresh', { 'fresh.txt': 'f\n' });
    r.checkout('main');
    r.git(['merge', '-q', '--squash', 'fresh']);
    const squash = r.commit('Squashed fresh');
    const { plan: json, gitCalls } = await planTidy({ path: r.dir, base: 'refs/heads/main', clock });
    checkedPlan(json);
    const ancient = target(json, 'refs/heads/ancient').evidence.equivalence;
    assert.equal(ancient?.status, 'skipped');
    // The truncated listing holds 4,001 of the 4,002 commits: a lower bound, proved.
    assert.match(
      ancient?.detail ?? '',
      /^patch-id not evaluated: at least 4001 base commits since the merge base; the bound is 1000$/,
    );
    assert.equal(ancient?.merge_base, r.git(['merge-base', 'main', 'ancient']));
    assert.equal(target(json, 'refs/heads/fresh').evidence.equivalence?.base_commit, squash);
    // No branch went to the per-branch route (merge-base, rev-list --count, …): six calls
    // for the plan, the tips and their bottoms, the changes, the range listed twice, the
    // base's entries, the touching commits (a guess over the long range, then over the
    // short one), the squash's changed paths, patch-id, and the squash's ancestry.
    assert.equal(gitCalls, 18);
  });

  it("a base commit that changes other paths besides the branch's is not its squash, and makes no patch text", async () => {
    const r = repo();
    r.git(['checkout', '-q', '-b', 'feature']);
    r.commit('feature', { 'f.txt': 'f\n' });
    r.checkout('main');
    // The branch's change and one more file: its patch-id covers both files.
    r.commit('feature and more', { 'f.txt': 'f\n', 'g.txt': 'g\n' });
    r.commit('later', { 'h.txt': 'h\n' });
    const { plan: json, gitCalls } = await planTidy({ path: r.dir, base: 'refs/heads/main', clock });
    checkedPlan(json);
    const equivalence = target(json, 'refs/heads/feature').evidence.equivalence;
    // Not a squash; merging it changes nothing, so the test merge says so.
    assert.equal(equivalence?.status, 'equivalent');
    assert.equal(equivalence?.method, 'merge-tree');
    // Six for the plan, six for the batch, the candidate's changed paths, one merge-tree
    // and its base tree: no diff-tree -p and no patch-id.
    assert.equal(gitCalls, 15);
  });

  it("a commit outside the branch's range is never its squash, even when committer dates are skewed", async () => {
    // A root commit dated in the future adds foo.txt; more than five older-dated commits
    // later drop it, then the branch forks and adds the very same foo.txt. git's date-ordered
    // walk of `main ^<merge base>` stops early (its slop of five commits) and lists the root
    // although it is an ancestor of the merge base: it is not in the branch's range, and the
    // base does not have foo.txt, so the change is not in the base.
    const r = repo();
    const stream: string[] = [];
    let mark = 0;
    const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}`;
    const commit = (ref: string, time: number, parents: number[], ops: string[]): number => {
      mark += 1;
      stream.push(`commit ${ref}`, `mark :${mark}`, `committer T <t@example.com> ${time} +0000`, data('c\n'));
      if (parents[0] !== undefined) stream.push(`from :${parents[0]}`);
      for (const parent of parents.slice(1)) stream.push(`merge :${parent}`);
      stream.push(...ops, '');
      return mark;
    };
    const put = (path: string, text: string) => `M 100644 inline ${path}\n${data(text)}`;
    stream.push('reset refs/heads/main', '');
    const root = commit('refs/heads/main', 2_000_000_000, [], [put('foo.txt', 'foo\n')]);
    let older = commit('refs/heads/main', 1_700_000_001, [root], ['D foo.txt', put('c.txt', '1\n')]);
    for (let i = 2; i <= 10; i++)
      older = commit('refs/heads/main', 1_700_000_000 + i, [older], [put('c.txt', `${i}\n`)]);
    const fork = commit('refs/heads/main', 1_700_000_020, [older], [put('o.txt', 'o\n')]);
    const side = commit('refs/heads/side', 1_900_000_000, [root], ['D foo.txt', put('s.txt', 's\n')]);
    const work = commit('refs/heads/main', 1_700_000_030, [fork], [put('t.txt', 't\n')]);
    commit('refs/heads/main', 1_700_000_040, [work, side], [put('s.txt', 's\n')]);
    commit('refs/heads/again', 1_700_000_035, [fork], [put('foo.txt', 'foo\n')]);
    r.git(['fast-import', '--quiet', '--force'], { input: `${stream.join('\n')}\n` });
    r.git(['reset', '-q', '--hard', 'refs/heads/main']);
    r.git(['branch', '-q', '-D', 'side']);
    assert.equal(r.git(['ls-tree', '--name-only', 'main', 'foo.txt']), '');
    const { plan: json } = await planTidy({ path: r.dir, base: 'refs/heads/main', clock });
    checkedPlan(json);
    const equivalence = target(json, 'refs/heads/again').evidence.equivalence;
    // The per-branch route (its probe dated 1970 keeps git's walk going to the end) answers this.
    assert.equal(equivalence?.status, 'not-equivalent', equivalence?.detail);
  });

  it('a branch forked from future-dated base commits shares history with the base, and its squash is found', async () => {
    // The root and the fork point are dated in the future, the base's later commits in the
    // past: git's date-ordered walk of `topic ^main` pops the fork point and the root
    // before main's side can mark them, stops five commits later, and lists both as the
    // branch's own. No boundary is then not "no shared history": merge-base finds one.
    const r = repo();
    const stream: string[] = ['reset refs/heads/main', ''];
    let mark = 0;
    const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}`;
    const commit = (ref: string, time: number, parent: number | null, path: string, text: string): number => {
      mark += 1;
      stream.push(`commit ${ref}`, `mark :${mark}`, `committer T <t@example.com> ${time} +0000`, data('c\n'));
      if (parent !== null) stream.push(`from :${parent}`);
      stream.push(`M 100644 inline ${path}`, data(text), '');
      return mark;
    };
    const root = commit('refs/heads/main', 2_000_000_000, null, 'a.txt', 'a\n');
    const fork = commit('refs/heads/main', 2_000_000_001, root, 'b.txt', 'b\n');
    commit('refs/heads/topic', 1_700_000_050, fork, 'x.txt', 'x\n');
    let later = commit('refs/heads/main', 1_700_000_001, fork, 'x.txt', 'x\n'); // the squash
    for (let i = 2; i <= 8; i++)
      later = commit('refs/heads/main', 1_700_000_000 + i, later, 'c.txt', `${i}\n`);
    r.git(['fast-import', '--quiet', '--force'], { input: `${stream.join('\n')}\n` });
    r.git(['reset', '-q', '--hard', 'refs/heads/main']);
    const { plan: json } = await planTidy({ path: r.dir, base: 'refs/heads/main', clock });
    checkedPlan(json);
    const equivalence = target(json, 'refs/heads/topic').evidence.equivalence;
    assert.equal(equivalence?.merge_base, r.git(['merge-base', 'main', 'topic']), equivalence?.detail);
    assert.equal(equivalence?.status, 'equivalent');
    assert.equal(equivalence?.base_commit, r.git(['rev-parse', 'main~7']));
  });

  it('a constant number of git calls, whatever the number of branches checked', async () => {
    const calls = async (branches: number, squashed: boolean) => {
      const r = repo();
      for (let i = 0; i < branches; i++) {
        r.git(['checkout', '-q', '-b', `topic/${i}`, 'main']);
        r.commit(`topic ${i}`, { [`t${i}.txt`]: `${i}\n` });
      }
      r.checkout('main');
      if (squashed) r.git(['merge', '-q', '--squash', 'topic/0']);
      r.commit('main work', squashed ? {} : { 'other.txt': 'other\n' });
      const { plan: planned, gitCalls } = await planTidy({ path: r.dir, base: 'refs/heads/main', clock });
      checkedPlan(planned);
      assert.equal(planned.status, 'complete');
      const checked = planned.targets.filter((t) => t.evidence.equivalence !== undefined);
      assert.equal(checked.length, branches);
      if (squashed)
        assert.equal(target(planned, 'refs/heads/topic/0').evidence.equivalence?.method, 'patch-id');
      for (const t of checked.slice(squashed ? 1 : 0))
        assert.equal(t.evidence.equivalence?.status, 'not-equivalent');
      return gitCalls;
    };
    // Six for the plan; then the tips' listing and their bottoms' ancestry, their changes,
    // the base range, the base's entries at the changed paths and the base commits touching
    // them; when some base commit might be a squash, its changed paths, and patch-id
    // (diff-tree and patch-id) only if they are a branch's, then the squash's ancestry. No
    // merge-tree: each branch adds a file the base lacks.
    assert.equal(await calls(2, false), 12);
    assert.equal(await calls(12, false), 12);
    assert.equal(await calls(12, true), 16);
  });
});
