/**
 * A repository's `.git/config` can name commands git runs on content: filter drivers
 * (`filter.x.clean`, `smudge`, `process`), diff drivers (`diff.x.textconv`, `diff.x.command`)
 * and merge drivers (`merge.x.driver`), chosen per path by `.gitattributes`. Everything `stw`
 * only observes runs none of them (docs/trust.md, "A repository's .git/"). Each case runs
 * the built CLI on a real repository whose drivers append to a marker file outside it.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli, runCliJson } from '../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo } from '../helpers/git-repo.js';

const scratch = makeTempDir('stw-drivers-');
const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

let markers = 0;

/** Arms every kind of driver in the repository's own config; returns the marker's path. */
function armDrivers(repo: TestRepo): string {
  const marker = join(scratch, `ran-${++markers}`);
  const say = (what: string, tail: string) => `sh -c 'echo ${what} >> "${marker}"; ${tail}'`;
  // Names with a dot and an `=` (`-c name=value` would split there) are reached as well.
  for (const name of ['evil', 'a.b=c']) {
    repo.git(['config', `filter.${name}.clean`, say('clean', 'cat')]);
    repo.git(['config', `filter.${name}.smudge`, say('smudge', 'cat')]);
    repo.git(['config', `filter.${name}.required`, 'true']);
    repo.git(['config', `diff.${name}.textconv`, say('textconv', 'cat "$0"')]);
    repo.git(['config', `diff.${name}.command`, say('external-diff', 'true')]);
    repo.git(['config', `merge.${name}.driver`, say('merge', 'false')]);
  }
  repo.git(['config', 'diff.external', say('diff-external', 'true')]);
  return marker;
}

const ran = (marker: string) => (existsSync(marker) ? readFileSync(marker, 'utf8') : '');

/** Also arms what git runs besides drivers: hooks, fsmonitor, pager, ssh, credentials. */
function armEverything(repo: TestRepo): string {
  const marker = armDrivers(repo);
  const say = (what: string) => `sh -c 'echo ${what} >> "${marker}"'`;
  repo.git(['config', 'core.fsmonitor', say('fsmonitor')]);
  repo.git(['config', 'core.pager', say('pager')]);
  repo.git(['config', 'core.sshCommand', say('ssh')]);
  repo.git(['config', 'credential.helper', `!${say('credential')}`]);
  repo.git(['config', 'core.hooksPath', '.githooks']);
  for (const hook of ['pre-commit', 'post-checkout', 'post-index-change', 'reference-transaction']) {
    const path = repo.path('.githooks', hook);
    mkdirSync(repo.path('.githooks'), { recursive: true });
    writeFileSync(path, `#!/bin/sh\necho hook-${hook} >> "${marker}"\n`, { mode: 0o755 });
  }
  return marker;
}

describe('observation runs no driver the repository configures', () => {
  it('check (history pickaxe, lifecycle status, --changed-since) runs no filter, textconv or diff command', async () => {
    const repo = makeRepo({ initialCommit: false });
    repos.push(repo);
    repo.commit('setup', {
      '.gitattributes': '* filter=evil diff=evil merge=evil\n*.json filter=a.b=c diff=a.b=c\n',
      '.gitignore': '.dochygiene/\n',
      '.dochygiene.yml': [
        'lifecycle:',
        '  rules:',
        '    - name: notes',
        '      match: "notes/*"',
        '      type: file',
        '      lifetime: temporary',
        '',
      ].join('\n'),
      'CLAUDE.md': '# Agents\n\nLint with ESLint before committing.\n',
      'package.json': '{"devDependencies": {"eslint": "9"}}\n',
      'notes/today.md': '# Today\n',
    });
    repo.commit('drop eslint', { 'package.json': '{"devDependencies": {}}\n' });
    const marker = armDrivers(repo);
    // Tracked files whose stat no longer matches the index: git would re-hash them through
    // the clean filter to compare.
    repo.write({
      'CLAUDE.md': '# Agents\n\nLint with ESLint before committing. Always.\n',
      'notes/today.md': '# Now\n',
    });

    const result = await runCliJson<{ findings: { rule: string; path: string }[] }>(
      ['hygiene', 'check', '--changed-since', 'HEAD~1'],
      { cwd: repo.dir },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(ran(marker), '');
    // The history evidence is still read (without the textconv).
    assert.deepEqual(
      result.json.findings.map((f) => [f.rule, f.path]),
      [['dropped_tool_claim', 'CLAUDE.md']],
    );
  });

  it('tidy plan: the squash evidence (git merge-tree) runs no merge driver, and the branch is retained', async () => {
    const repo = makeRepo({ initialCommit: false });
    repos.push(repo);
    repo.commit('setup', { '.gitattributes': '* merge=evil\n', 'README.md': 'a\nb\nc\nd\ne\n' });
    repo.git(['checkout', '-q', '-b', 'feature']);
    repo.commit('feature', { 'README.md': 'a\nB\nc\nd\ne\n' });
    repo.checkout('main');
    // The feature's change lands with more in one commit: no patch-id matches, so only a
    // test merge of the branch into the base could show it integrated.
    repo.commit('squash and more', { 'README.md': 'a\nB\nc\nd\nE\n' });
    const marker = armDrivers(repo);

    const result = await runCliJson<{
      targets: { ref: string; decision: string; evidence: { equivalence?: { status: string } } }[];
    }>(['tidy', 'plan', '--base', 'refs/heads/main'], {
      cwd: repo.dir,
      env: { STW_NOW: '2026-12-01T00:00:00Z' },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(ran(marker), '');
    const feature = result.json.targets.find((t) => t.ref === 'refs/heads/feature');
    assert.equal(feature?.decision, 'retain');
    assert.notEqual(feature?.evidence.equivalence?.status, 'equivalent');
  });

  it('every command the plugin runs unasked runs nothing the repository configures', async () => {
    const repo = makeRepo({ initialCommit: false });
    repos.push(repo);
    repo.commit('setup', {
      '.gitattributes': '* filter=evil diff=evil merge=evil\n',
      '.gitignore': '.dochygiene/\n',
      'README.md': '# Readme\n\nSee [the design](docs/design.md).\n',
      'docs/design.md': '---\nstatus: superseded\n---\n# Design\n\nOld.\n',
      'CLAUDE.md': '# Agents\n\nLint with ESLint.\n',
      'package.json': '{"devDependencies": {"eslint": "9"}}\n',
    });
    repo.commit('drop eslint', { 'package.json': '{}\n' });
    const marker = armEverything(repo);
    repo.write({ 'README.md': '# Readme\n\nSee [the design](docs/design.md), still.\n' });
    const env = { STW_NOW: '2026-12-01T00:00:00Z' };
    for (const args of [
      ['hygiene', 'remind'],
      ['hygiene', 'status'],
      ['hygiene', 'context'],
      ['hygiene', 'scan', '--json'],
      ['hygiene', 'check'],
      ['hygiene', 'sweep', '--dry-run'],
      ['hygiene', 'clean', '--dry-run', '--json'],
    ]) {
      const result = await runCli(args, { cwd: repo.dir, env });
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
      assert.equal(ran(marker), '', args.join(' '));
    }
  });
});
