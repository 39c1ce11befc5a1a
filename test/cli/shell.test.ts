import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/git-repo.js';
import { REPO_ROOT } from '../helpers/paths.js';

const cwd = makeTempDir();
const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;

describe('stw CLI shell', () => {
  it('--version prints the package version', async () => {
    const result = await runCli(['--version'], { cwd });
    assert.equal(result.code, 0);
    assert.equal(result.stdout, `${version}\n`);
  });

  it('--help lists groups and exits 0', async () => {
    const result = await runCli(['--help'], { cwd });
    assert.equal(result.code, 0);
    assert.match(result.stdout, /Usage: stw <group> <command>/);
    assert.doesNotMatch(result.stdout, /not implemented/i);
  });

  for (const group of ['hygiene', 'tidy', 'task']) {
    it(`${group} --help describes the group`, async () => {
      const result = await runCli([group, '--help'], { cwd });
      assert.equal(result.code, 0);
      assert.match(result.stdout, new RegExp(`Usage: stw ${group} <command>`));
      assert.doesNotMatch(result.stdout, /not implemented/i);
    });
  }

  it('an unknown command exits 2 with one line and a hint', async () => {
    const result = await runCli(['frobnicate'], { cwd });
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.deepEqual(result.stderr.trimEnd().split('\n'), [
      'stw: unknown command frobnicate',
      "hint: run 'stw --help' for the list of commands",
    ]);
  });

  it('an unknown flag exits 2 with a hint', async () => {
    const result = await runCli(['--frobnicate'], { cwd });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^stw: unknown option --frobnicate\nhint: /);
  });

  it('an unknown subcommand exits 2 and names the group help', async () => {
    const result = await runCli(['tidy', 'frobnicate'], { cwd });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /hint: run 'stw tidy --help'/);
  });

  it('a malformed STW_NOW is a usage error', async () => {
    const result = await runCli(['hygiene', 'nope'], { cwd, env: { STW_NOW: 'soon' } });
    assert.equal(result.code, 2);
  });
});
