import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isSupportedJjVersion, parseJjVersion } from '../../src/core/jj.js';
import { selectBackend } from '../../src/tidy/backends/registry.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo } from '../helpers/git-repo.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { checkedPlan, STW_NOW } from './helpers.js';

/** A directory holding only an executable `jj` that prints `versionLine`. */
function fakeJjDir(root: string, versionLine: string): string {
  const dir = join(root, `fake-jj-${versionLine.replace(/\W/g, '_')}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'jj'), `#!/bin/sh\necho '${versionLine}'\n`);
  chmodSync(join(dir, 'jj'), 0o755);
  return dir;
}

describe('tidy backend selection', () => {
  let tmp: string;
  before(() => {
    tmp = makeTempDir('stw-backend-');
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('picks jj for .jj/ (alone or colocated), git for the nearest .git, and obeys an override', () => {
    const jjOnly = join(tmp, 'jj-only');
    mkdirSync(join(jjOnly, '.jj'), { recursive: true });
    mkdirSync(join(jjOnly, 'sub', 'deeper'), { recursive: true });
    const colocated = join(tmp, 'colocated');
    mkdirSync(join(colocated, '.jj'), { recursive: true });
    mkdirSync(join(colocated, '.git'), { recursive: true });
    const nestedGit = join(jjOnly, 'vendored');
    mkdirSync(join(nestedGit, '.git'), { recursive: true });
    const jjFile = join(tmp, 'jj-file');
    mkdirSync(jjFile);
    writeFileSync(join(jjFile, '.jj'), 'not a directory');

    assert.equal(selectBackend(jjOnly, undefined), 'jj');
    assert.equal(selectBackend(join(jjOnly, 'sub', 'deeper'), undefined), 'jj');
    assert.equal(selectBackend(colocated, undefined), 'jj');
    assert.equal(selectBackend(nestedGit, undefined), 'git');
    assert.equal(selectBackend(jjFile, undefined), 'git');
    assert.equal(selectBackend(colocated, 'git'), 'git');
    assert.equal(selectBackend(nestedGit, 'jj'), 'jj');
  });

  it('parses jj --version and holds an explicit supported range', () => {
    assert.deepEqual(parseJjVersion('jj 0.45.1\n'), [0, 45, 1]);
    assert.deepEqual(parseJjVersion('jj 0.45.0-1a2b3c4d'), [0, 45, 0]);
    assert.equal(parseJjVersion('jj version 0.45.1'), null);
    assert.equal(parseJjVersion('git version 2.39.5'), null);
    assert.equal(parseJjVersion(''), null);
    assert.equal(isSupportedJjVersion([0, 45, 0]), true);
    assert.equal(isSupportedJjVersion([0, 45, 9]), true);
    assert.equal(isSupportedJjVersion([0, 44, 2]), false);
    assert.equal(isSupportedJjVersion([0, 46, 0]), false);
    assert.equal(isSupportedJjVersion([1, 0, 0]), false);
  });
});

describe('stw tidy plan --backend (end to end, no jj installed)', () => {
  let tmp: string;
  let repo: TestRepo;
  let jjRepo: string;
  before(() => {
    tmp = makeTempDir('stw-backend-cli-');
    repo = makeRepo();
    repo.git(['branch', 'topic']);
    // A colocated layout: the Git repository plus a .jj/ directory.
    jjRepo = repo.dir;
    mkdirSync(join(jjRepo, '.jj'));
  });
  after(() => {
    rmSync(tmp, { recursive: true, force: true });
    repo.cleanup();
  });

  const withPath = (path: string) => ({ STW_NOW, PATH: path });

  it('refuses not-found when .jj/ is present and no jj is on PATH, without a git fallback', async () => {
    const empty = join(tmp, 'empty-bin');
    mkdirSync(empty, { recursive: true });
    const result = await runCliJson(['tidy', 'plan', jjRepo, '--base', 'main'], {
      cwd: jjRepo,
      env: withPath(empty),
    });
    assert.equal(result.code, 1, result.stderr);
    const plan = checkedPlan(result.json);
    assert.equal(plan.status, 'refused');
    assert.equal(plan.refusal?.code, 'not-found');
    assert.equal(plan.backend.name, 'jj');
    assert.equal(plan.backend.version, null);
    assert.deepEqual(plan.targets, []);
    assert.equal(plan.repository, null);
  });

  it('refuses unsupported for a jj outside the range, naming the range', async () => {
    for (const line of ['jj 0.44.2', 'jj 0.46.0', 'jj something-else']) {
      const result = await runCliJson(['tidy', 'plan', jjRepo, '--base', 'main'], {
        cwd: jjRepo,
        env: withPath(fakeJjDir(tmp, line)),
      });
      assert.equal(result.code, 1, result.stderr);
      const plan = checkedPlan(result.json);
      assert.equal(plan.refusal?.code, 'unsupported', line);
      assert.match(plan.refusal?.message ?? '', />=0\.45\.0 <0\.46\.0/);
      assert.deepEqual(plan.targets, []);
    }
  });

  it('--backend git plans the Git side of a colocated repository; --backend jj forces jj', async () => {
    const empty = join(tmp, 'empty-bin-2');
    mkdirSync(empty, { recursive: true });
    const git = await runCliJson(['tidy', 'plan', jjRepo, '--backend', 'git', '--base', 'refs/heads/main'], {
      cwd: jjRepo,
      env: { STW_NOW },
    });
    assert.equal(git.code, 0, git.stderr);
    const gitPlan = checkedPlan(git.json);
    assert.equal(gitPlan.backend.name, 'git');
    assert.deepEqual(
      gitPlan.targets.map((t) => t.ref),
      ['refs/heads/main', 'refs/heads/topic'],
    );
    const plainGit = makeRepo();
    try {
      const forced = await runCliJson(['tidy', 'plan', plainGit.dir, '--backend', 'jj', '--base', 'main'], {
        cwd: plainGit.dir,
        env: withPath(empty),
      });
      assert.equal(forced.code, 1);
      assert.equal(checkedPlan(forced.json).refusal?.code, 'not-found');
    } finally {
      plainGit.cleanup();
    }
  });

  it('rejects an unknown --backend as usage', async () => {
    const result = await runCli(['tidy', 'plan', jjRepo, '--backend', 'hg', '--base', 'main'], {
      cwd: jjRepo,
    });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--backend must be git or jj/);
  });
});

describe('scripts/install-jj.sh', () => {
  let cache: string;
  before(() => {
    cache = makeTempDir('stw-install-jj-');
  });
  after(() => rmSync(cache, { recursive: true, force: true }));

  const script = join(REPO_ROOT, 'scripts', 'install-jj.sh');
  const runScript = (path: string) =>
    spawnSync('bash', [script], {
      env: { PATH: path, HOME: cache, XDG_CACHE_HOME: cache },
      encoding: 'utf8',
    });

  it('skips the build when the cached jj reports the pinned version, and prints its path', () => {
    const bin = join(cache, 'sourcesteward', 'jj-0.45.1', 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'jj'), "#!/bin/sh\necho 'jj 0.45.1'\n");
    chmodSync(join(bin, 'jj'), 0o755);
    // No cargo on this PATH: a build attempt would fail.
    const result = runScript('/usr/bin:/bin');
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, `${join(bin, 'jj')}\n`);
  });

  it('refuses, without touching the cache, when a build is needed and cargo is missing', () => {
    const bin = join(cache, 'sourcesteward', 'jj-0.45.1', 'bin');
    writeFileSync(join(bin, 'jj'), "#!/bin/sh\necho 'jj 0.44.0'\n");
    const emptyBin = join(cache, 'no-cargo');
    mkdirSync(emptyBin, { recursive: true });
    const result = spawnSync('/bin/bash', [script], {
      env: { PATH: emptyBin, HOME: cache, XDG_CACHE_HOME: cache },
      encoding: 'utf8',
    });
    assert.equal(result.status, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /cargo not found/);
  });
});
