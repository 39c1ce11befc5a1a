import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runCliJson } from '../helpers/cli.js';
import { makeRepo, makeTempDir } from '../helpers/git-repo.js';
import { checkedPlan, STW_NOW } from './helpers.js';

// A version manager's shim (asdf, mise and the like) picks the tool's version from a file
// at or above the working directory; outside a project it has none and fails. Every git call
// of a plan, `git version` included, runs in the repository.
describe('tidy plan: every git call runs in the repository', () => {
  it('a per-project git shim still plans the repository', async () => {
    const repo = makeRepo();
    try {
      writeFileSync(join(repo.dir, '.tool-versions'), 'git system\n');
      const bin = join(makeTempDir('stw-shim-'), 'bin');
      mkdirSync(bin);
      const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
      writeFileSync(
        join(bin, 'git'),
        `#!/bin/sh\nd="$PWD"\nwhile :; do\n  [ -f "$d/.tool-versions" ] && exec ${realGit} "$@"\n  [ "$d" = / ] && break\n  d=$(dirname "$d")\ndone\necho "No version is set for command git" >&2\nexit 126\n`,
      );
      chmodSync(join(bin, 'git'), 0o755);
      const result = await runCliJson(['tidy', 'plan', repo.dir, '--base', 'refs/heads/main'], {
        cwd: repo.dir,
        env: { STW_NOW, PATH: `${bin}:${process.env['PATH']}` },
      });
      const plan = checkedPlan(result.json);
      assert.equal(plan.status, 'complete', JSON.stringify(plan.refusal));
    } finally {
      repo.cleanup();
    }
  });
});
