/**
 * A repository's `scan.globs` are hostile input like a lifecycle `match` (issue 36, item 14):
 * they are matched in linear time, and one the matcher does not take is a one-line error
 * naming the key. Runs the built CLI on a real repository.
 */
import assert from 'node:assert/strict';
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
