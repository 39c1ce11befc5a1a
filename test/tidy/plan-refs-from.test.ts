import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, runCliJson } from '../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo } from '../helpers/git-repo.js';
import { checkedPlan, makeBranches, STW_NOW } from './helpers.js';

const env = { STW_NOW };

describe('stw tidy plan --refs-from', () => {
  let repo: TestRepo;
  let dir: string;
  before(() => {
    repo = makeRepo();
    dir = makeTempDir();
    repo.branch('one');
    repo.branch('two');
    repo.branch('feat');
    repo.commit('ahead', { 'a.txt': 'a\n' });
  });
  after(() => repo.cleanup());

  it('reads literal names from stdin, one per line, in order', async () => {
    const result = await runCliJson(['tidy', 'plan', '--base', 'refs/heads/main', '--refs-from', '-'], {
      cwd: repo.dir,
      env,
      input: 'refs/heads/two\nrefs/heads/one\n',
    });
    assert.equal(result.code, 0, result.stderr);
    const plan = checkedPlan(result.json);
    assert.deepEqual(plan.selection, { mode: 'explicit', refs: ['refs/heads/two', 'refs/heads/one'] });
    assert.deepEqual(
      plan.targets.map((t) => t.decision),
      ['delete', 'delete'],
    );
  });

  it('reads a NUL-separated file, together with --ref', async () => {
    const file = join(dir, 'refs.nul');
    writeFileSync(file, 'refs/heads/one\0refs/heads/two\0');
    const result = await runCliJson(
      ['tidy', 'plan', '--base', 'refs/heads/main', '--ref', 'refs/heads/feat', '--refs-from', file],
      { cwd: repo.dir, env },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(checkedPlan(result.json).selection.refs, [
      'refs/heads/feat',
      'refs/heads/one',
      'refs/heads/two',
    ]);
  });

  for (const [name, input, code] of [
    ['a missing name', 'refs/heads/one\nrefs/heads/nope\n', 'unknown-ref'],
    ['a duplicate', 'refs/heads/one\nrefs/heads/one\n', 'duplicate-ref'],
    ['a glob, taken literally', 'refs/heads/*\n', 'invalid-ref'],
  ] as const) {
    it(`refuses ${name} (${code})`, async () => {
      const result = await runCliJson(['tidy', 'plan', '--base', 'refs/heads/main', '--refs-from', '-'], {
        cwd: repo.dir,
        env,
        input,
      });
      assert.equal(result.code, 1, result.stderr);
      const plan = checkedPlan(result.json);
      assert.equal(plan.refusal?.code, code);
      assert.deepEqual(plan.targets, []);
    });
  }

  it('a glob matching real branches still selects nothing: names are never expanded', async () => {
    const result = await runCli(['tidy', 'plan', '--base', 'refs/heads/main', '--refs-from', '-'], {
      cwd: repo.dir,
      env,
      input: 'refs/heads/o*\n',
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /invalid-ref: --ref "refs\/heads\/o\*" is not a valid literal ref name/);
  });

  it('a missing file and an empty list are usage errors (exit 2)', async () => {
    const missing = await runCli(
      ['tidy', 'plan', '--base', 'refs/heads/main', '--refs-from', join(dir, 'none')],
      {
        cwd: repo.dir,
        env,
      },
    );
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /ENOENT/);
    const empty = await runCli(['tidy', 'plan', '--base', 'refs/heads/main', '--refs-from', '-'], {
      cwd: repo.dir,
      env,
      input: '\n',
    });
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /names no ref/);
  });
});

describe('the local-branch bound', () => {
  it('refuses a repository with more branches than the bound, saying how many and how to select', async () => {
    const repo = makeRepo();
    try {
      makeBranches(
        repo,
        Array.from({ length: 30 }, (_, i) => `b${i}`),
        repo.head(),
      );
      const bounds = JSON.stringify({ maxEntries: 20 });
      const result = await runCli(['tidy', 'plan', '--base', 'refs/heads/main'], {
        cwd: repo.dir,
        env: { ...env, STW_TEST_HOOKS: '1', STW_TEST_TIDY_BOUNDS: bounds },
      });
      assert.equal(result.code, 1);
      assert.equal(result.stdout, '');
      assert.match(
        result.stderr,
        /^stw: tidy plan refused: bound-exceeded: the repository has 31 local branches; a plan covers at most 20 entries/,
      );
      assert.match(
        result.stderr,
        /^hint: select a subset by full name with --ref or --refs-from, e\.g\. git for-each-ref --merged=<base> --format='%\(refname\)' refs\/heads\/ \| head -n \d+ \| stw tidy plan --refs-from - --base <base>$/m,
      );
    } finally {
      repo.cleanup();
    }
  });
});
