import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Deadline } from '../../src/core/deadline.js';
import {
  type DeleteEffect,
  inspectEffect,
  pinAndDelete,
  readRefOids,
  restoreCommand,
} from '../../src/tidy/backends/git/effects.js';
import { shellQuote } from '../../src/tidy/engine/restore.js';
import { makeRepo, makeTempDir, type TestRepo, testEnv } from '../helpers/git-repo.js';

const PLAN = 'fedcba9876543210fedcba9876543210';

function options(repo: TestRepo) {
  return { cwd: repo.dir, deadline: Deadline.after(10_000), maxBytes: 65_536 };
}

function effectFor(repo: TestRepo, name: string, id = 1): DeleteEffect {
  return {
    ref: `refs/heads/${name}`,
    old_oid: repo.head(`refs/heads/${name}`),
    recovery_ref: `refs/stw-recovery/${PLAN}/${id}`,
  };
}

/** Installs a reference-transaction hook (both in .git/hooks and via core.hooksPath) that leaves a marker. */
function installMarkerHooks(repo: TestRepo): string {
  const marker = join(makeTempDir('stw-marker-'), 'hook-ran');
  const script = `#!/bin/sh\necho "$0 $*" >> '${marker}'\ncat >/dev/null\n`;
  const hooksDir = join(repo.dir, '.git', 'hooks');
  const customDir = join(repo.dir, '.git', 'custom-hooks');
  mkdirSync(customDir, { recursive: true });
  for (const dir of [hooksDir, customDir]) {
    for (const name of ['reference-transaction', 'post-checkout', 'pre-push']) {
      writeFileSync(join(dir, name), script);
      chmodSync(join(dir, name), 0o755);
    }
  }
  // Prove the hook is live for plain git first, then point config at the other copy.
  repo.git(['update-ref', 'refs/heads/hook-probe', 'HEAD']);
  assert.ok(existsSync(marker), 'the marker hook runs for plain git');
  repo.git(['update-ref', '-d', 'refs/heads/hook-probe']);
  execFileSync('rm', ['-f', marker]);
  repo.git(['config', 'core.hooksPath', customDir]);
  return marker;
}

describe('pin-and-delete transaction (git)', () => {
  for (const objectFormat of ['sha1', 'sha256'] as const) {
    it(`pins the old OID and deletes the branch in one transaction (${objectFormat})`, async () => {
      const repo = makeRepo({ objectFormat });
      try {
        repo.branch('done');
        const effect = effectFor(repo, 'done');
        const result = await pinAndDelete(effect, options(repo));
        assert.equal(result.kind, 'exited');
        assert.equal(result.kind === 'exited' && result.code, 0);
        const inspection = await inspectEffect(effect, options(repo));
        assert.deepEqual(inspection, { state: 'committed', target_oid: null, pin_oid: effect.old_oid });
        // The printed restore command brings the branch back at the same commit.
        execFileSync('sh', ['-c', restoreCommand(effect.ref, effect.recovery_ref)], {
          cwd: repo.dir,
          env: testEnv(),
        });
        assert.equal(repo.head('refs/heads/done'), effect.old_oid);
      } finally {
        repo.cleanup();
      }
    });
  }

  it('works on packed refs too', async () => {
    const repo = makeRepo();
    try {
      repo.branch('packed');
      const effect = effectFor(repo, 'packed');
      repo.git(['pack-refs', '--all']);
      const result = await pinAndDelete(effect, options(repo));
      assert.ok(result.kind === 'exited' && result.code === 0);
      assert.equal((await inspectEffect(effect, options(repo))).state, 'committed');
    } finally {
      repo.cleanup();
    }
  });

  it('changes nothing when the branch moved (compare-and-swap on the old OID)', async () => {
    const repo = makeRepo();
    try {
      repo.branch('moving');
      const effect = effectFor(repo, 'moving');
      repo.checkout('moving');
      const moved = repo.commit('more work', { 'x.txt': 'x\n' });
      repo.checkout('main');
      const before = repo.refs();
      const result = await pinAndDelete(effect, options(repo));
      assert.ok(result.kind === 'exited' && result.code !== 0);
      assert.equal(repo.refs(), before, 'neither the pin nor the deletion happened');
      assert.equal(repo.head('refs/heads/moving'), moved);
      assert.equal((await inspectEffect(effect, options(repo))).state, 'inconsistent');
    } finally {
      repo.cleanup();
    }
  });

  it('changes nothing when the pin already exists', async () => {
    const repo = makeRepo();
    try {
      repo.branch('done');
      const effect = effectFor(repo, 'done');
      repo.git(['update-ref', effect.recovery_ref, 'HEAD']);
      const before = repo.refs();
      const result = await pinAndDelete(effect, options(repo));
      assert.ok(result.kind === 'exited' && result.code !== 0);
      assert.equal(repo.refs(), before);
    } finally {
      repo.cleanup();
    }
  });

  it('never runs a repository hook', async () => {
    const repo = makeRepo();
    try {
      repo.branch('done');
      const effect = effectFor(repo, 'done');
      // Installed last: the test's own git calls would run it too.
      const marker = installMarkerHooks(repo);
      const result = await pinAndDelete(effect, options(repo));
      assert.ok(result.kind === 'exited' && result.code === 0);
      await inspectEffect(effect, options(repo));
      assert.equal(existsSync(marker), false, 'no hook ran');
    } finally {
      repo.cleanup();
    }
  });

  it('reads exact ref names only, never refs below a name or DWIM fallbacks', async () => {
    const repo = makeRepo();
    try {
      repo.branch('x/inner');
      repo.git(['update-ref', 'refs/heads/refs/heads/gone', 'HEAD']);
      const oids = await readRefOids(['refs/heads/x', 'refs/heads/gone', 'refs/heads/main'], options(repo));
      assert.deepEqual([...oids.keys()], ['refs/heads/main']);
    } finally {
      repo.cleanup();
    }
  });
});

describe('restore command', () => {
  it('uses update-ref with full names, refuses to overwrite, and quotes for the shell only when needed', () => {
    assert.equal(
      restoreCommand('refs/heads/feat/x', `refs/stw-recovery/${PLAN}/1`),
      `git update-ref refs/heads/feat/x refs/stw-recovery/${PLAN}/1 ''`,
    );
    assert.equal(
      restoreCommand('refs/heads/a$b', 'refs/stw-recovery/p/2'),
      `git update-ref 'refs/heads/a$b' refs/stw-recovery/p/2 ''`,
    );
    assert.equal(
      restoreCommand('refs/heads/HEAD', 'refs/stw-recovery/p/3'),
      `git update-ref refs/heads/HEAD refs/stw-recovery/p/3 ''`,
    );
    assert.equal(shellQuote(`it's`), `'it'\\''s'`);
    // Non-ASCII becomes printf octal escapes: the command itself is printable ASCII.
    assert.equal(shellQuote('refs/heads/a\u202eb%'), `"$(printf 'refs/heads/a\\342\\200\\256b%%')"`);
  });

  it('the quoted word is the exact bytes when a POSIX shell reads it', () => {
    for (const word of ['plain', "it's", 'a b', 'a\u202eb', 'x\u0085y', "%d'\u2066z", 'ünï']) {
      const echoed = execFileSync('sh', ['-c', `printf '%s' ${shellQuote(word)}`]).toString('utf8');
      assert.equal(echoed, word);
      assert.match(shellQuote(word), /^[\x20-\x7e]+$/);
    }
  });
});
