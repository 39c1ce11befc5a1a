import assert from 'node:assert/strict';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import {
  discoverRepo,
  git,
  gitText,
  isFullOid,
  listWorktrees,
  parseWorktreeList,
  readIndexFlags,
  splitNul,
} from '../../src/core/git.js';
import { makeRepo, makeTempDir } from '../helpers/git-repo.js';

describe('hardened git', () => {
  const repo = makeRepo();
  after(() => repo.cleanup());

  it('runs no repository hook, fsmonitor or pager during observation', async () => {
    const marker = makeTempDir('stw-marker-');
    const script = (name: string) => {
      const path = repo.path(`.git/${name}.sh`);
      writeFileSync(path, `#!/bin/sh\ntouch "${marker}/${name}"\ncat\n`);
      chmodSync(path, 0o755);
      return path;
    };
    // Hooks that observation could plausibly trigger, all pointing at marker scripts.
    for (const hook of ['post-checkout', 'reference-transaction', 'post-index-change', 'pre-commit']) {
      const path = repo.path(`.git/hooks/${hook}`);
      writeFileSync(path, `#!/bin/sh\ntouch "${marker}/hook-${hook}"\n`);
      chmodSync(path, 0o755);
    }
    repo.git(['config', 'core.fsmonitor', script('fsmonitor')]);
    repo.git(['config', 'core.pager', script('pager')]);
    repo.git(['config', 'pager.log', script('pagerlog')]);
    repo.git(['config', 'core.hooksPath', repo.path('.git/hooks')]);

    await gitText(['status', '--porcelain=v1', '-z'], { cwd: repo.dir });
    await gitText(['log', '-1', '--format=%s'], { cwd: repo.dir });
    await gitText(['for-each-ref'], { cwd: repo.dir });
    await gitText(['update-index', '--refresh'], { cwd: repo.dir }).catch(() => '');

    for (const name of [
      'fsmonitor',
      'pager',
      'pagerlog',
      'hook-post-index-change',
      'hook-reference-transaction',
    ]) {
      assert.equal(existsSync(`${marker}/${name}`), false, `${name} ran`);
    }
    // Sanity: the same fsmonitor config does run under plain git, so the test can fail.
    repo.git(['status', '--porcelain']);
    assert.equal(existsSync(`${marker}/fsmonitor`), true, 'plain git runs the fsmonitor (control)');
  });

  it('ignores replace objects', async () => {
    const base = repo.head();
    const other = repo.commit('other');
    repo.git(['checkout', '-q', '-b', 'side', base]);
    const side = repo.commit('side');
    repo.git(['replace', '--graft', side, other]);
    repo.git(['checkout', '-q', 'main']);
    // Plain git believes the graft; the hardened call does not.
    assert.doesNotThrow(
      () => repo.git(['merge-base', '--is-ancestor', other, side]),
      'plain git believes the graft',
    );
    const hardened = await git(['merge-base', '--is-ancestor', other, side], { cwd: repo.dir });
    assert.equal(hardened.kind, 'exited');
    if (hardened.kind === 'exited') assert.equal(hardened.code, 1);
  });

  it('keeps git stderr free of the grafts deprecation hint, so errors name their cause', async () => {
    const result = await git(['rev-parse', '--verify', 'refs/heads/no-such-branch'], { cwd: repo.dir });
    assert.equal(result.kind, 'exited');
    if (result.kind === 'exited') assert.doesNotMatch(result.stderr.toString(), /hint:/);
    const log = await git(['log', '-1', '--format=%H'], { cwd: repo.dir });
    if (log.kind === 'exited') assert.equal(log.stderr.toString(), '');
    else assert.fail(log.kind);
  });

  it('discovers the repository layout', async () => {
    const layout = await discoverRepo(repo.dir);
    assert.ok(layout);
    assert.equal(layout.toplevel, repo.dir);
    assert.equal(layout.objectFormat, 'sha1');
    assert.equal(layout.isShallow, false);
    assert.equal(await discoverRepo(makeTempDir()), undefined);
  });

  it('discovers a bare repository without a toplevel', async () => {
    const bare = makeRepo({ bare: true });
    const layout = await discoverRepo(bare.dir);
    assert.ok(layout);
    assert.equal(layout.isBare, true);
    assert.equal(layout.toplevel, undefined);
    bare.cleanup();
  });

  it('parses worktree list -z, including locked and prunable with and without reasons', async () => {
    const wt = makeTempDir('stw-wt-');
    repo.worktree(`${wt}/linked`, { newBranch: 'feature' });
    repo.worktree(`${wt}/detached`);
    repo.git(['worktree', 'lock', '--reason', 'on a\nusb stick', `${wt}/linked`]);
    repo.git(['worktree', 'lock', `${wt}/detached`]);
    const list = await listWorktrees(repo.dir);
    assert.equal(list.length, 3);
    assert.equal(list[0]?.isMain, true);
    assert.equal(list[0]?.branch, 'refs/heads/main');
    const linked = list.find((w) => w.path.endsWith('/linked'));
    assert.equal(linked?.branch, 'refs/heads/feature');
    assert.equal(linked?.locked, 'on a\nusb stick');
    const detached = list.find((w) => w.path.endsWith('/detached'));
    assert.equal(detached?.isDetached, true);
    assert.equal(detached?.locked, '');
    assert.ok(detached?.head && isFullOid(detached.head));
  });

  it('parses prunable entries', () => {
    const parsed = parseWorktreeList(
      'worktree /a\0HEAD abc\0branch refs/heads/main\0\0worktree /b\0HEAD def\0detached\0prunable gitdir file points to non-existent location\0\0',
    );
    assert.equal(parsed[1]?.prunable, 'gitdir file points to non-existent location');
    assert.equal(parsed[1]?.isMain, false);
  });

  it('reads index flags: assume-unchanged, skip-worktree, neither, and untracked absent', async () => {
    repo.commit('flags', { 'f/a.md': 'a\n', 'f/b.md': 'b\n', 'f/c.md': 'c\n', 'f/d.md': 'd\n' });
    repo.git(['update-index', '--assume-unchanged', 'f/a.md']);
    repo.git(['update-index', '--skip-worktree', 'f/b.md']);
    const flags = await readIndexFlags(repo.dir, ['f/a.md', 'f/b.md', 'f/c.md', 'f/d.md', 'f/none.md']);
    assert.deepEqual(Object.fromEntries(flags), {
      'f/a.md': { assumeUnchanged: true, skipWorktree: false },
      'f/b.md': { assumeUnchanged: false, skipWorktree: true },
      'f/c.md': { assumeUnchanged: false, skipWorktree: false },
      'f/d.md': { assumeUnchanged: false, skipWorktree: false },
    });
  });

  it('splits NUL output without a phantom last field', () => {
    assert.deepEqual(splitNul('a\0b c\0'), ['a', 'b c']);
    assert.deepEqual(splitNul(''), []);
  });

  it('recognises full SHA-1 and SHA-256 ids only', () => {
    assert.ok(isFullOid('a'.repeat(40)));
    assert.ok(isFullOid('b'.repeat(64)));
    assert.ok(!isFullOid('abc1234'));
    assert.ok(!isFullOid('a'.repeat(40), 'sha256'));
  });
});
