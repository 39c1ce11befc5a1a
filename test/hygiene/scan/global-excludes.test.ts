import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ScanArtifact } from '../../../src/hygiene/types.js';
import { runCli, runCliJson } from '../../helpers/cli.js';
import { fixtureRepo, scratchDir } from './helpers.js';

/**
 * A user's home: a global config that sets a hook path and an fsmonitor (each would leave
 * a marker if it ever ran) and optionally core.excludesFile, plus a default excludes file.
 */
function userHome(options: { excludesFile?: string; defaultIgnore?: string } = {}) {
  const home = scratchDir('stw-home-');
  const marker = join(home, 'ran');
  const hooks = join(home, 'hooks');
  mkdirSync(hooks);
  const script = `#!/bin/sh\necho "$0" >> '${marker}'\n`;
  for (const hook of ['post-index-change', 'reference-transaction', 'post-checkout', 'pre-commit']) {
    writeFileSync(join(hooks, hook), script);
    chmodSync(join(hooks, hook), 0o755);
  }
  const fsmonitor = join(home, 'fsmonitor.sh');
  writeFileSync(fsmonitor, script);
  chmodSync(fsmonitor, 0o755);
  const config = [
    '[user]',
    '\tname = Test User',
    '\temail = test@example.com',
    '[core]',
    `\thooksPath = ${hooks}`,
    `\tfsmonitor = ${fsmonitor}`,
    ...(options.excludesFile ? [`\texcludesFile = ${options.excludesFile}`] : []),
    '',
  ].join('\n');
  const gitconfig = join(home, '.gitconfig');
  writeFileSync(gitconfig, config);
  const xdg = join(home, '.config');
  if (options.defaultIgnore !== undefined) {
    mkdirSync(join(xdg, 'git'), { recursive: true });
    writeFileSync(join(xdg, 'git', 'ignore'), options.defaultIgnore);
  }
  const env = { HOME: home, GIT_CONFIG_GLOBAL: gitconfig, XDG_CONFIG_HOME: xdg };
  return { home, env, marker };
}

function untrackedFixture() {
  const repo = fixtureRepo({ 'README.md': '# Project\n\nSee [notes](notes/private.md).\n' });
  repo.write({ 'notes/private.md': '# My notes\n\n[gone](nowhere.md)\n', 'draft-idea.md': '# Idea\n' });
  return repo;
}

describe('the user’s global excludes file', () => {
  it('is honoured from its default place ($XDG_CONFIG_HOME/git/ignore) by the listing and status', async () => {
    const repo = untrackedFixture();
    const user = userHome({ defaultIgnore: 'notes/\n.dochygiene/\n' });
    const scan = await runCliJson<ScanArtifact>(['hygiene', 'scan'], { cwd: repo.dir, env: user.env });
    assert.equal(scan.code, 0, scan.stderr);
    assert.deepEqual(scan.json.shortlist, ['README.md', 'draft-idea.md']);
    assert.deepEqual(
      scan.json.excluded.filter((e) => e.reason === 'git-ignored').map((e) => e.path),
      [],
      'an ignored folder is not listed file by file',
    );
    const status = await runCliJson(['hygiene', 'status'], { cwd: repo.dir, env: user.env });
    assert.equal(status.code, 0, status.stderr);
    assert.equal((status.json as { state_dir_ignored?: boolean }).state_dir_ignored, true);
    assert.equal(
      existsSync(user.marker),
      false,
      existsSync(user.marker) ? readFileSync(user.marker, 'utf8') : '',
    );
  });

  it('is honoured where core.excludesFile names it, and a check still runs no hook or fsmonitor', async () => {
    const repo = untrackedFixture();
    const excludes = join(scratchDir('stw-excl-'), 'my-ignores');
    writeFileSync(excludes, 'draft-idea.md\n');
    const user = userHome({ excludesFile: excludes, defaultIgnore: 'notes/\n' });
    const scan = await runCliJson<ScanArtifact>(['hygiene', 'scan'], { cwd: repo.dir, env: user.env });
    assert.equal(scan.code, 0, scan.stderr);
    // core.excludesFile replaces the default file, as in git status.
    assert.deepEqual(scan.json.shortlist, ['README.md', 'notes/private.md']);
    assert.deepEqual(
      scan.json.excluded.filter((e) => e.reason === 'git-ignored').map((e) => e.path),
      ['draft-idea.md'],
    );
    const check = await runCli(['hygiene', 'check'], { cwd: repo.dir, env: user.env });
    assert.ok(check.code === 0 || check.code === 1, check.stderr);
    const status = await runCliJson(['hygiene', 'status'], { cwd: repo.dir, env: user.env });
    // The check made .dochygiene/ with its own `*` .gitignore: ignored whatever the user's files say.
    assert.equal((status.json as { state_dir_ignored?: boolean }).state_dir_ignored, true);
    assert.equal(
      existsSync(user.marker),
      false,
      existsSync(user.marker) ? readFileSync(user.marker, 'utf8') : '',
    );
  });

  it('is not read when the user has none: the scan is as before', async () => {
    const repo = untrackedFixture();
    const user = userHome();
    const scan = await runCliJson<ScanArtifact>(['hygiene', 'scan'], { cwd: repo.dir, env: user.env });
    assert.deepEqual(scan.json.shortlist, ['README.md', 'draft-idea.md', 'notes/private.md']);
    assert.equal(existsSync(user.marker), false);
  });
});
