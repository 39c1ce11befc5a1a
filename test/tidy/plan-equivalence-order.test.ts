import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fixedClock } from '../../src/core/clock.js';
import { planTidy } from '../../src/tidy/plan.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';
import { checkedPlan, STW_NOW, target } from './helpers.js';

// Which not-integrated branches get the equivalence checks when there are more of them
// than --equivalence-checks (docs/tidy.md, "Equivalence evidence"): the newest tips by
// committer time first, then by ref name.

const clock = fixedClock(STW_NOW);
const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

/**
 * `count` branches off main, `b0000` … in name order, each one commit adding its own file;
 * a later name has a later committer time, so name order is oldest first.
 */
function manyBranches(objectFormat: 'sha1' | 'sha256', count: number): TestRepo {
  const r = makeRepo({ objectFormat });
  repos.push(r);
  const main = r.head('refs/heads/main');
  const stream: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = `b${String(i).padStart(4, '0')}`;
    stream.push(
      `commit refs/heads/${name}`,
      `committer T <t@example.com> ${1_800_000_000 + i} +0000`,
      'data 4',
      'work',
      `from ${main}`,
      `M 100644 inline ${name}.txt`,
      `data ${name.length}`,
      name,
      '',
    );
  }
  r.git(['fast-import', '--quiet'], { input: `${stream.join('\n')}\n` });
  return r;
}

describe("tidy plan: a squash changes the branch's own paths", () => {
  // git patch-id skips the `diff --git` line of a file that follows a binary file's diff:
  // that file counts by its mode lines or content only, not by its name. A base commit
  // making the same changes under another name has the same patch-id, yet it is not the
  // squash (git's own `rev-list --cherry-mark` does not pair them either).
  it('a base commit with the same binary change and an empty file under another name is not the squash', async () => {
    const r = makeRepo();
    repos.push(r);
    r.commit('binary', { 'a.bin': '\u0000\u0001old' });
    r.git(['checkout', '-q', '-b', 'feature']);
    r.commit('feature', { 'a.bin': '\u0000\u0002new', 'x.keep': '' });
    r.checkout('main');
    const other = r.commit('not the squash', { 'a.bin': '\u0000\u0002new', 'y.keep': '' });
    assert.match(
      r.git(['rev-list', '--left-only', '--cherry-mark', '--no-merges', 'main...feature', '--']),
      new RegExp(`^\\+${other}$`),
    );
    const { plan } = await planTidy({ path: r.dir, base: 'refs/heads/main', clock });
    const equivalence = target(checkedPlan(plan), 'refs/heads/feature').evidence.equivalence;
    assert.equal(equivalence?.status, 'not-equivalent');
    assert.equal(equivalence?.base_commit, null);
  });
});

describe('tidy plan: which branches get the equivalence checks', () => {
  it('a SHA-256 repository with 900 not-integrated branches still checks the newest tips first', async () => {
    // 900 tips of 64 hex digits, each with its 10-digit time: more than 64 KiB of
    // `rev-list --timestamp` output, yet within the 1,024 observed entries.
    const r = manyBranches('sha256', 900);
    const { plan } = await planTidy({ path: r.dir, base: 'refs/heads/main', clock });
    const json = checkedPlan(plan);
    const beyond = 'beyond the bound of 16 equivalence checks per plan (--equivalence-checks)';
    assert.notEqual(target(json, 'refs/heads/b0899').evidence.equivalence?.detail, beyond);
    assert.equal(target(json, 'refs/heads/b0000').evidence.equivalence?.detail, beyond);
  });
});

describe('tidy plan: the check order without every tip a commit', () => {
  const beyond = 'beyond the bound of 16 equivalence checks per plan (--equivalence-checks)';

  it('a tip whose object is missing, or which is a tag, leaves the newest-first order standing', async () => {
    const r = manyBranches('sha1', 20);
    r.git(['tag', '-a', '-m', 'v1', 'v1', 'refs/heads/b0000']);
    // Loose refs git refuses to write: a branch at a tag object, and one at an object the
    // repository does not have.
    const heads = join(r.dir, '.git', 'refs', 'heads');
    writeFileSync(join(heads, 'a-tag'), r.git(['rev-parse', 'refs/tags/v1']));
    writeFileSync(join(heads, 'a-missing'), `${'ab'.repeat(20)}\n`);
    const { plan } = await planTidy({ path: r.dir, base: 'refs/heads/main', clock });
    const json = checkedPlan(plan);
    assert.deepEqual(target(json, 'refs/heads/a-missing').reasons, ['uncertain']);
    assert.deepEqual(target(json, 'refs/heads/a-tag').reasons, ['unsupported']);
    assert.notEqual(target(json, 'refs/heads/b0019').evidence.equivalence?.detail, beyond);
    assert.notEqual(target(json, 'refs/heads/b0004').evidence.equivalence?.detail, beyond);
    assert.equal(target(json, 'refs/heads/b0003').evidence.equivalence?.detail, beyond);
  });

  it('when the times cannot be read (a commit git cannot parse), target order stands and the plan is complete', async () => {
    const r = manyBranches('sha1', 20);
    const bogus = r
      .git(['hash-object', '-t', 'commit', '--literally', '-w', '--stdin'], { input: 'not a commit\n' })
      .trim();
    writeFileSync(join(r.dir, '.git', 'refs', 'heads', 'a-bogus'), `${bogus}\n`);
    const { plan } = await planTidy({ path: r.dir, base: 'refs/heads/main', clock });
    const json = checkedPlan(plan);
    assert.equal(json.status, 'complete');
    assert.notEqual(target(json, 'refs/heads/b0000').evidence.equivalence?.detail, beyond);
    assert.equal(target(json, 'refs/heads/b0019').evidence.equivalence?.detail, beyond);
  });

  it('branches selected by name are checked newest first too', async () => {
    const r = manyBranches('sha1', 20);
    const refs = Array.from({ length: 20 }, (_, i) => `refs/heads/b${String(i).padStart(4, '0')}`);
    const { plan } = await planTidy({ path: r.dir, base: 'refs/heads/main', refs, clock });
    const json = checkedPlan(plan);
    assert.notEqual(target(json, 'refs/heads/b0004').evidence.equivalence?.detail, beyond);
    assert.equal(target(json, 'refs/heads/b0003').evidence.equivalence?.detail, beyond);
  });
});
