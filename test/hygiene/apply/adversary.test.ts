import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../../helpers/cli.js';
import { makeRepo, type TestRepo } from '../../helpers/git-repo.js';

/**
 * Findings of the adversarial review of issue 36, each reproduced end to end against the
 * built CLI in a real git repository: what a hostile repository, a hostile model answer or
 * an unlucky user could make `stw` do.
 */

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

function repoWith(files: Record<string, string>): TestRepo {
  const repo = makeRepo();
  repos.push(repo);
  repo.commit('docs', { '.gitignore': '.dochygiene/\n', ...files });
  return repo;
}

async function stw(repo: TestRepo, ...args: string[]) {
  const result = await runCli(args, { cwd: repo.dir });
  return { ...result, out: `${result.stdout}${result.stderr}` };
}

describe('a link rewrite never outlives the move it follows', () => {
  it('a move skipped at clean (its destination appeared after check) leaves the inbound link as it was', async () => {
    const repo = repoWith({
      'docs/old.md': '---\nstatus: superseded\n---\n# Old\n\nOld stuff.\n',
      'README.md': '# Readme\n\nSee [old](docs/old.md).\n',
      'notes.md': '# Notes\n\nSee [the old one](docs/old.md) and [nothing](docs/gone.md).\n',
    });
    const checked = await stw(repo, 'hygiene', 'check');
    assert.equal(checked.code, 0, checked.out);
    // The user puts a file of their own where the move would go.
    mkdirSync(join(repo.dir, 'docs/archive'));
    writeFileSync(join(repo.dir, 'docs/archive/old.md'), 'mine\n');
    const head = repo.head();
    const cleaned = await stw(repo, 'hygiene', 'clean', '--yes');
    assert.match(cleaned.out, /destination-exists/);
    assert.doesNotMatch(cleaned.out, /link moved/);
    assert.equal(readFileSync(join(repo.dir, 'README.md'), 'utf8'), '# Readme\n\nSee [old](docs/old.md).\n');
    assert.equal(repo.git(['diff', '--name-only', head, '--', 'README.md', 'notes.md']), '');
    assert.equal(readFileSync(join(repo.dir, 'docs/archive/old.md'), 'utf8'), 'mine\n');
  });
});
