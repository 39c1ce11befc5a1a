/**
 * A repository's `scan.globs` are hostile input like a lifecycle `match` (issue 36, item 14):
 * they are matched in linear time, and one the matcher does not take is a one-line error
 * naming the key. Runs the built CLI on a real repository.
 */
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { describe, it } from 'node:test';
import { runCli, runCliJson } from '../../helpers/cli.js';
import { makeRepo, type TestRepo } from '../../helpers/git-repo.js';
import { removeLater } from './helpers.js';

const env = { STW_NOW: '2026-12-01T00:00:00Z' };

function repoWith(globs: string[], files: Record<string, string> = {}): TestRepo {
  const repo = removeLater(makeRepo({ initialCommit: false }));
  repo.commit('setup', {
    'README.md': '# Project\n',
    '.gitignore': '.dochygiene/\n',
    '.dochygiene.yml': `scan:\n  globs:\n${globs.map((g) => `    - ${JSON.stringify(g)}\n`).join('')}`,
    ...files,
  });
  return repo;
}

describe('scan.globs from a repository cannot hang a scan', () => {
  it('"**/*a*a…*c" against long names: the scan finishes and matches what the glob says', {
    timeout: 60_000,
  }, async () => {
    const hostile = `**/${'*a'.repeat(40)}*c`;
    const long = 'a'.repeat(200);
    const repo = repoWith(['**/*.md', hostile], {
      [`notes/${long}`]: 'x\n',
      [`notes/${'a'.repeat(60)}c`]: '# Doc\n\nSee [gone](gone.md).\n',
    });
    const started = performance.now();
    const scanned = await runCliJson<{ signals: Record<string, unknown[]> }>(['hygiene', 'scan'], {
      cwd: repo.dir,
      env,
    });
    assert.equal(scanned.code, 0, scanned.stderr);
    const paths = Object.keys(scanned.json.signals);
    assert.deepEqual(paths, [`notes/${'a'.repeat(60)}c`]);
    // Seconds at most: the backtracking matcher took minutes on forty stars.
    assert.ok(performance.now() - started < 30_000);
  });

  it('a glob the matcher does not take is a one-line config error naming the key', async () => {
    const repo = repoWith(['**/*.md', 'docs/@(a|b).md']);
    const result = await runCli(['hygiene', 'check'], { cwd: repo.dir, env });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /scan\.globs\[1\]: extended globs/);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
  });

  it("a DocFX config's file globs are matched in linear time too", { timeout: 60_000 }, async () => {
    const hostile = `**/${'*a'.repeat(40)}*c.md`;
    const repo = removeLater(makeRepo({ initialCommit: false }));
    repo.commit('setup', {
      'README.md': '# Project\n',
      '.gitignore': '.dochygiene/\n',
      'docs/docfx.json': JSON.stringify({ build: { content: [{ files: [hostile], exclude: [hostile] }] } }),
      [`docs/${'a'.repeat(200)}.md`]: '# Page\n\nSee [gone](gone.md).\n',
    });
    const started = performance.now();
    const scanned = await runCliJson<{ signals: Record<string, unknown[]> }>(['hygiene', 'scan'], {
      cwd: repo.dir,
      env,
    });
    assert.equal(scanned.code, 0, scanned.stderr);
    assert.deepEqual(Object.keys(scanned.json.signals), [`docs/${'a'.repeat(200)}.md`]);
    assert.ok(performance.now() - started < 30_000);
  });
});

describe('files the scan reads beside the docs cannot hang it or read outside the tree', () => {
  it('a site config, a manifest and a Makefile committed as symlinks to /dev/zero and outside the tree are not read', {
    timeout: 60_000,
  }, async () => {
    const repo = removeLater(makeRepo({ initialCommit: false }));
    repo.commit('setup', {
      'README.md': '# Project\n\nRun `npm run build` or `make docs`; requires Node 18.\n',
      '.gitignore': '.dochygiene/\n',
      'docs/guide.md': '# Guide\n\nSee [gone](gone.md).\n',
    });
    // Read as they were, each would never end (/dev/zero) or read a file of the user's.
    symlinkSync('/dev/zero', repo.path('hugo.toml'));
    symlinkSync('/dev/zero', repo.path('package.json'));
    symlinkSync('/etc/hostname', repo.path('Makefile'));
    symlinkSync('/dev/zero', repo.path('mkdocs.yml'));
    repo.git(['add', 'hugo.toml', 'package.json', 'Makefile', 'mkdocs.yml']);
    repo.commit('hostile links');
    const scanned = await runCliJson<{ signals: Record<string, { name: string }[]> }>(['hygiene', 'scan'], {
      cwd: repo.dir,
      env,
    });
    assert.equal(scanned.code, 0, scanned.stderr);
    // No site was modelled from them: the guide's link is judged on GitHub only.
    const broken = scanned.json.signals['docs/guide.md']?.filter((s) => s.name === 'broken_reference') ?? [];
    assert.equal(broken.length, 1, JSON.stringify(scanned.json.signals));
    assert.deepEqual((broken[0] as { data?: { broken_on?: string[] } }).data?.broken_on, ['github']);
  });
});
