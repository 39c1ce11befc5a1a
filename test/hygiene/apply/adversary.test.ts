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

describe('nothing is ever aimed into .git', () => {
  const files = {
    'docs/old.md': '---\nstatus: superseded\n---\n# Old\n\nOld stuff.\n',
    'README.md': '# Readme\n\nSee [old](docs/old.md).\n',
  };

  for (const dir of ['.git', '.git/hooks', '.GIT/hooks', '../elsewhere', '/tmp/elsewhere']) {
    it(`archive.dir: ${dir} is refused in one line naming the key`, async () => {
      const repo = repoWith({ ...files, '.dochygiene.yml': `archive:\n  dir: "${dir}"\n` });
      const checked = await stw(repo, 'hygiene', 'check');
      assert.equal(checked.code, 1, checked.out);
      assert.equal(
        checked.stderr,
        "stw: .dochygiene.yml: archive.dir: must be a folder inside the project (not absolute, no '..', not in .git)\n",
      );
    });
  }

  it('a proposals file moving a doc into .git/hooks is refused, naming the field', async () => {
    const repo = repoWith(files);
    const proposals = join(repo.dir, 'proposals.json');
    writeFileSync(
      proposals,
      JSON.stringify([
        {
          path: 'docs/old.md',
          category: { class: 'stale', subtype: 'superseded' },
          signals: [{ name: 'frontmatter_marker', detail: 'status: superseded' }],
          op: 'Archive it.',
          op_type: 'deterministic',
          confidence: 0.9,
          exact_edit: { kind: 'move-to-archive', dest_path: '.git/hooks/archive/old.md' },
        },
      ]),
    );
    const checked = await stw(repo, 'hygiene', 'check', '--proposals', proposals);
    assert.equal(checked.code, 1, checked.out);
    assert.match(
      checked.stderr,
      /proposals\[0\]\.exact_edit\.dest_path: must be a project-relative path inside the project/,
    );
  });
});
