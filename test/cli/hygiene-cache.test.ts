import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli, runCliJson } from '../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo } from '../helpers/git-repo.js';

const env = { STW_NOW: '2026-03-01T12:00:00Z' };
const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

function fixture(): TestRepo {
  const repo = makeRepo();
  repos.push(repo);
  repo.commit('docs', {
    'README.md': '# Widgets\n\nSee the [guide](docs/guide.md#use) and [gone](docs/old.md).\n',
    'docs/guide.md': '# Guide\n\n## Use\n\nUse it.\n',
    'docs/plans/done.md': '---\nstatus: done\n---\n# Done\n',
    'CLAUDE.md': '# Notes\n\nSee @docs/guide.md.\n',
  });
  repo.move('move', 'docs/plans/done.md', 'docs/plans/finished.md');
  return repo;
}

function reportPair(repo: TestRepo): [string, string] {
  return [
    readFileSync(repo.path('.dochygiene', 'report.json'), 'utf8'),
    readFileSync(repo.path('.dochygiene', 'report.md'), 'utf8'),
  ];
}

const cacheDir = (repo: TestRepo) => repo.path('.git', 'sourcesteward-cache');

describe('stw hygiene check/scan with the cache', () => {
  it('writes the same report pair cold, warm, after an edit, and with --no-cache', async () => {
    const repo = fixture();
    const check = async (...flags: string[]) => {
      const result = await runCli(['hygiene', 'check', ...flags], { cwd: repo.dir, env });
      assert.equal(result.code, 0, result.stderr);
      return reportPair(repo);
    };
    const cold = await check();
    assert.ok(readdirSync(cacheDir(repo)).length > 0, 'the cache is written under the git dir');
    assert.deepEqual(await check(), cold, 'warm');
    assert.deepEqual(await check('--no-cache'), cold, '--no-cache');
    writeFileSync(repo.path('docs/guide.md'), '# Guide\n\n## Usage\n\nUse it. [x](missing.md)\n');
    const edited = await check();
    assert.notDeepEqual(edited, cold);
    assert.deepEqual(await check('--no-cache'), edited, 'after an edit');
    repo.commit('edit', { 'docs/guide.md': '# Guide\n\n## Use\n\nUse it again.\n' });
    const committed = await check();
    assert.deepEqual(await check('--no-cache'), committed, 'after a commit');
  });

  it('--no-cache and STW_NO_CACHE=1 read and write no cache', async () => {
    const repo = fixture();
    const flagged = await runCli(['hygiene', 'scan', '--no-cache'], { cwd: repo.dir, env });
    assert.equal(flagged.code, 0, flagged.stderr);
    const viaEnv = await runCli(['hygiene', 'check'], { cwd: repo.dir, env: { ...env, STW_NO_CACHE: '1' } });
    assert.equal(viaEnv.code, 0, viaEnv.stderr);
    assert.equal(existsSync(cacheDir(repo)), false);
  });

  it('cache clear removes every entry and says so; nothing to clear outside a repository', async () => {
    const repo = fixture();
    assert.equal((await runCli(['hygiene', 'scan'], { cwd: repo.dir, env })).code, 0);
    const count = readdirSync(cacheDir(repo)).length;
    const cleared = await runCliJson(['hygiene', 'cache', 'clear'], { cwd: repo.path('docs'), env });
    assert.equal(cleared.code, 0, cleared.stderr);
    assert.equal(cleared.json['status'], 'ok');
    assert.equal(cleared.json['cache_dir'], cacheDir(repo));
    const removed = cleared.json['removed'] as { entries: number; bytes: number };
    assert.equal(removed.entries, count);
    assert.ok(removed.bytes > 0);
    assert.deepEqual(readdirSync(cacheDir(repo)), []);
    const human = await runCli(['hygiene', 'cache', 'clear'], { cwd: repo.dir, env });
    assert.match(human.stdout, /^Removed 0 cache entries \(0 bytes\) from /);
    const dir = makeTempDir('stw-cache-cli-');
    try {
      const outside = await runCliJson(['hygiene', 'cache', 'clear'], { cwd: dir, env });
      assert.equal(outside.code, 0, outside.stderr);
      assert.deepEqual(outside.json, { status: 'ok', cache_dir: null, removed: { entries: 0, bytes: 0 } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('help, a missing action and a bad size bound', async () => {
    const repo = fixture();
    const help = await runCli(['hygiene', 'cache', '--help'], { cwd: repo.dir, env });
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: stw hygiene cache clear \[--json\]/);
    assert.match(help.stdout, /STW_CACHE_MAX_MIB/);
    const scanHelp = await runCli(['hygiene', 'scan', '--help'], { cwd: repo.dir, env });
    assert.match(scanHelp.stdout, /--no-cache/);
    const missing = await runCli(['hygiene', 'cache'], { cwd: repo.dir, env });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /missing action: clear/);
    const bad = await runCli(['hygiene', 'scan'], {
      cwd: repo.dir,
      env: { ...env, STW_CACHE_MAX_MIB: 'lots' },
    });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^stw: STW_CACHE_MAX_MIB="lots" is not a whole number of MiB \(1 or more\)$/m);
  });

  it('a run past the bound removes the least recently used entries until the cache fits', async () => {
    const repo = fixture();
    assert.equal((await runCli(['hygiene', 'scan'], { cwd: repo.dir, env })).code, 0);
    const own = readdirSync(cacheDir(repo));
    // Two old entries of 600 KiB each: with the run's own, more than 1 MiB.
    const [older, newer] = ['1', '2'].map((c) => c.repeat(64));
    for (const [name, time] of [
      [older!, 1000],
      [newer!, 2000],
    ] as const) {
      writeFileSync(join(cacheDir(repo), name), randomBytes(600 * 1024));
      utimesSync(join(cacheDir(repo), name), time, time);
    }
    writeFileSync(repo.path('docs/guide.md'), '# Guide\n\nChanged.\n');
    const result = await runCli(['hygiene', 'scan'], {
      cwd: repo.dir,
      env: { ...env, STW_CACHE_MAX_MIB: '1' },
    });
    assert.equal(result.code, 0, result.stderr);
    const left = readdirSync(cacheDir(repo));
    assert.equal(left.includes(older!), false, 'the least recently used entry went');
    assert.equal(left.includes(newer!), true, 'one was enough');
    assert.ok(
      own.every((name) => left.includes(name)),
      'the entries this run used stay',
    );
    const total = left.reduce((sum, name) => sum + statSync(join(cacheDir(repo), name)).size, 0);
    assert.ok(total <= 1024 * 1024, `${total} bytes`);
  });
});

/** A `git` first on PATH that logs each invocation's arguments. */
function loggingGit(): {
  env: NodeJS.ProcessEnv;
  calls: () => string[];
  reset: () => void;
  cleanup: () => void;
} {
  const dir = makeTempDir('stw-cache-gitlog-');
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const log = join(dir, 'calls.log');
  writeFileSync(log, '');
  mkdirSync(join(dir, 'bin'));
  writeFileSync(
    join(dir, 'bin', 'git'),
    `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${realGit}' "$@"\n`,
  );
  chmodSync(join(dir, 'bin', 'git'), 0o755);
  return {
    env: { PATH: `${join(dir, 'bin')}:${process.env['PATH']}` },
    calls: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
    reset: () => writeFileSync(log, ''),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

describe('what git the cache saves', () => {
  it('a warm scan runs no git log; after new commits, only PREV..HEAD', async () => {
    const repo = fixture();
    const git = loggingGit();
    try {
      const scanLogs = async () => {
        git.reset();
        const result = await runCli(['hygiene', 'scan'], { cwd: repo.dir, env: { ...env, ...git.env } });
        assert.equal(result.code, 0, result.stderr);
        return git.calls().filter((call) => call.split(' ').includes('log'));
      };
      const prev = repo.head();
      const cold = await scanLogs();
      assert.equal(cold.length, 1);
      assert.match(cold[0]!, / HEAD --$/);
      assert.deepEqual(await scanLogs(), [], 'warm: the pass comes from the cache');
      repo.commit('more', { 'docs/more.md': '# More\n' });
      const since = await scanLogs();
      assert.equal(since.length, 1);
      assert.match(since[0]!, new RegExp(` ${prev}\\.\\.${repo.head()} --$`));
    } finally {
      git.cleanup();
    }
  });
});
