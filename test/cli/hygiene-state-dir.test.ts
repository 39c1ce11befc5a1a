import assert from 'node:assert/strict';
import { readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo } from '../helpers/git-repo.js';

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

const env = { STW_NOW: '2026-03-01T12:00:00Z' };

/** A project whose committed `.dochygiene` is a symlink to a directory outside it holding user content. */
function linkedProject(): { repo: TestRepo; outside: string; listing: string[]; content: string } {
  const repo = makeRepo();
  repos.push(repo);
  const outside = makeTempDir();
  const content = "# My own notes\n\nnot the tool's\n";
  writeFileSync(join(outside, 'report.md'), content);
  repo.commit('docs', { 'docs/guide.md': '# Guide\n\nUse it.\n' });
  symlinkSync(outside, join(repo.dir, '.dochygiene'));
  repo.git(['add', '.dochygiene']);
  repo.commit('state dir link');
  return { repo, outside, listing: readdirSync(outside).sort(), content };
}

function assertUntouched(project: ReturnType<typeof linkedProject>): void {
  assert.deepEqual(readdirSync(project.outside).sort(), project.listing, 'nothing created outside');
  assert.equal(readFileSync(join(project.outside, 'report.md'), 'utf8'), project.content);
}

describe('a .dochygiene that is a symlink out of the project', () => {
  it('check refuses with one line (exit 1) and writes nothing through it', async () => {
    const project = linkedProject();
    const result = await runCli(['hygiene', 'check'], { cwd: project.repo.dir, env });
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^stw: \.dochygiene is not a plain directory[^\n]*\n$/);
    assertUntouched(project);
    const sweep = await runCli(['hygiene', 'sweep', '--dry-run'], { cwd: project.repo.dir, env });
    assert.equal(sweep.code, 1, sweep.stdout + sweep.stderr);
    assert.match(sweep.stderr, /not a plain directory/);
    assertUntouched(project);
    assert.equal(project.repo.status(), '');
  });

  it('remind shows no banner, exits 0 and never stamps through it', async () => {
    const project = linkedProject();
    const result = await runCli(['hygiene', 'remind'], { cwd: project.repo.dir, env });
    assert.equal(result.code, 0);
    assert.equal(result.stdout, '');
    // As for any unwritable .dochygiene/: at most one line on stderr.
    assert.match(
      result.stderr,
      /^stw hygiene remind: \.dochygiene is not a plain directory.*\(no reminder shown\)\n$/,
    );
    assertUntouched(project);
  });
});
