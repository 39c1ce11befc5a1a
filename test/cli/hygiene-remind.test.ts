import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { HygieneState } from '../../src/hygiene/types.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo } from '../helpers/git-repo.js';

const NOW = '2026-11-29T10:00:00Z';
const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

function project(state?: Partial<HygieneState> | string): TestRepo {
  const repo = makeRepo();
  repos.push(repo);
  if (state !== undefined) {
    mkdirSync(join(repo.dir, '.dochygiene'));
    const text =
      typeof state === 'string'
        ? state
        : JSON.stringify({ last_check: null, last_clean: null, last_reminded: null, ...state });
    writeFileSync(join(repo.dir, '.dochygiene', 'state.json'), text);
  }
  return repo;
}

const remind = (cwd: string, env: NodeJS.ProcessEnv = {}) =>
  runCli(['hygiene', 'remind'], { cwd, env: { STW_NOW: NOW, ...env } });
const readState = (repo: TestRepo) =>
  JSON.parse(readFileSync(join(repo.dir, '.dochygiene', 'state.json'), 'utf8')) as HygieneState;

function assertBanner(stdout: string): string {
  assert.ok(stdout.endsWith('\n') && !stdout.slice(0, -1).includes('\n'), `exactly one line: ${stdout}`);
  const parsed = JSON.parse(stdout) as Record<string, unknown>;
  assert.deepEqual(Object.keys(parsed), ['systemMessage']);
  const message = parsed['systemMessage'] as string;
  assert.match(message, /Run \/stw:hygiene check \(or stw hygiene check\)/);
  return message;
}

describe('stw hygiene remind', () => {
  it('never checked: one banner line saying so, and stamps last_reminded only', async () => {
    const repo = project();
    const result = await remind(repo.dir);
    assert.equal(result.code, 0);
    assert.match(assertBanner(result.stdout), /No docs hygiene check has been run/);
    assert.equal(result.stderr, '');
    assert.deepEqual(readState(repo), { last_check: null, last_clean: null, last_reminded: NOW });
    assert.deepEqual(
      readdirSync(join(repo.dir, '.dochygiene')),
      ['.gitignore', 'state.json'],
      'writes nothing else but the folder’s own .gitignore',
    );
    assert.equal(
      repo.status(),
      '!! .dochygiene/.gitignore\0!! .dochygiene/state.json\0',
      'nothing else in the work tree changed; the tool state is ignored',
    );
  });

  it('checked recently: prints nothing and writes nothing', async () => {
    const state = { last_check: '2026-11-25T10:00:00Z', last_reminded: '2026-11-01T09:00:00Z' };
    const repo = project(state);
    const before = readFileSync(join(repo.dir, '.dochygiene', 'state.json'), 'utf8');
    const result = await remind(repo.dir);
    assert.deepEqual([result.code, result.stdout, result.stderr], [0, '', '']);
    assert.equal(readFileSync(join(repo.dir, '.dochygiene', 'state.json'), 'utf8'), before);
  });

  it('stale but already reminded today: prints nothing', async () => {
    const repo = project({ last_check: '2026-11-10T10:00:00Z', last_reminded: '2026-11-29T00:05:00Z' });
    const result = await remind(repo.dir);
    assert.deepEqual([result.code, result.stdout, result.stderr], [0, '', '']);
    assert.equal(readState(repo).last_reminded, '2026-11-29T00:05:00Z');
  });

  it('stale and reminded yesterday: banner with the age of the last check, then stamps', async () => {
    const repo = project({ last_check: '2026-11-10T10:00:00Z', last_reminded: '2026-11-28T22:00:00Z' });
    const result = await remind(repo.dir);
    assert.equal(result.code, 0);
    assert.match(assertBanner(result.stdout), /last docs hygiene check was 19 days ago/);
    assert.deepEqual(readState(repo), {
      last_check: '2026-11-10T10:00:00Z',
      last_clean: null,
      last_reminded: NOW,
    });
  });

  it('"today" is the local calendar day (TZ)', async () => {
    // 23:30Z on the 28th and 00:30Z on the 29th: different days in UTC, the same evening in New York.
    const state = { last_check: '2026-11-01T10:00:00Z', last_reminded: '2026-11-28T23:30:00Z' };
    const env = { STW_NOW: '2026-11-29T00:30:00Z' };
    const newYork = await remind(project(state).dir, { ...env, TZ: 'America/New_York' });
    assert.deepEqual([newYork.code, newYork.stdout], [0, '']);
    const utc = await remind(project(state).dir, { ...env, TZ: 'UTC' });
    assertBanner(utc.stdout);
  });

  it('reminder.stale_after_days from .dochygiene.yml sets the threshold', async () => {
    const repo = project({ last_check: '2026-11-26T09:00:00Z' });
    assert.equal((await remind(repo.dir)).stdout, '', '3 days is not stale by default');
    writeFileSync(join(repo.dir, '.dochygiene.yml'), 'reminder:\n  stale_after_days: 2\n');
    assert.match(assertBanner((await remind(repo.dir)).stdout), /was 3 days ago/);
  });

  it('corrupt state.json: nothing on stdout, one short stderr line, exit 0, file untouched', async () => {
    const repo = project('{"last_check": "2026-');
    const result = await remind(repo.dir);
    assert.deepEqual([result.code, result.stdout], [0, '']);
    assert.match(
      result.stderr,
      /^stw hygiene remind: \.dochygiene\/state\.json: not valid JSON \(no reminder shown\)\n$/,
    );
    assert.equal(readFileSync(join(repo.dir, '.dochygiene', 'state.json'), 'utf8'), '{"last_check": "2026-');
  });

  it('unwritable .dochygiene/ (a regular file; a dangling symlink): no banner, exit 0', async () => {
    // Tests run as root, where chmod does not stop writes. A regular file named .dochygiene, or
    // a symlink to a path that does not exist, makes creating .dochygiene/state.json fail for real.
    const asFile = project();
    writeFileSync(join(asFile.dir, '.dochygiene'), 'in the way\n');
    const dangling = project();
    symlinkSync(join(makeTempDir(), 'gone', 'deeper'), join(dangling.dir, '.dochygiene'));
    for (const repo of [asFile, dangling]) {
      const result = await remind(repo.dir);
      assert.deepEqual([result.code, result.stdout], [0, '']);
      assert.match(result.stderr, /^stw hygiene remind: .+\(no reminder shown\)\n$/);
      assert.equal(result.stderr.split('\n').length, 2, 'one line');
    }
    assert.equal(readFileSync(join(asFile.dir, '.dochygiene'), 'utf8'), 'in the way\n');
  });

  it('not a repository: prints nothing and creates nothing', async () => {
    const dir = makeTempDir();
    const result = await remind(dir);
    assert.deepEqual([result.code, result.stdout, result.stderr], [0, '', '']);
    assert.deepEqual(readdirSync(dir), []);
  });

  it('bad config or a malformed STW_NOW: nothing on stdout, exit 0', async () => {
    // Three days since the check: whether to remind depends on the configured threshold.
    const repo = project({ last_check: '2026-11-26T09:00:00Z' });
    writeFileSync(join(repo.dir, '.dochygiene.yml'), 'reminder:\n  stale_after_days: soon\n');
    const badConfig = await remind(repo.dir);
    assert.deepEqual([badConfig.code, badConfig.stdout], [0, '']);
    assert.match(badConfig.stderr, /reminder\.stale_after_days: must be a positive integer/);
    writeFileSync(join(repo.dir, '.dochygiene.yml'), 'reminder: [stale_after_days\n');
    const badYaml = await remind(repo.dir);
    assert.deepEqual([badYaml.code, badYaml.stdout], [0, '']);
    assert.match(badYaml.stderr, /\.dochygiene\.yml: not valid YAML/);
    const badNow = await remind(project().dir, { STW_NOW: 'next tuesday' });
    assert.deepEqual([badNow.code, badNow.stdout], [0, '']);
    assert.match(badNow.stderr, /not an RFC 3339 instant/);
  });

  it('never loads ajv or the yaml package; js-yaml only when the threshold decides', async () => {
    // NODE_DEBUG=module,esm traces both module loaders; js-yaml appearing when the
    // threshold is needed proves the trace is working.
    const traced = (repo: TestRepo) =>
      runCli(['hygiene', 'remind'], { cwd: repo.dir, env: { STW_NOW: NOW, NODE_DEBUG: 'module,esm' } });
    const config = 'reminder:\n  stale_after_days: 2\n';
    const threeDays = project({ last_check: '2026-11-26T09:00:00Z' });
    writeFileSync(join(threeDays.dir, '.dochygiene.yml'), config);
    const needed = await traced(threeDays);
    assertBanner(needed.stdout);
    assert.match(needed.stderr, /node_modules\/js-yaml\//);
    assert.doesNotMatch(needed.stderr, /node_modules\/(yaml|ajv)\//);
    // Never checked (no threshold needed), or a config that does not set the key: no yaml.
    const neverChecked = project();
    writeFileSync(join(neverChecked.dir, '.dochygiene.yml'), config);
    const otherKeys = project({ last_check: '2026-11-20T09:00:00Z' });
    writeFileSync(join(otherKeys.dir, '.dochygiene.yml'), 'context:\n  budget_tokens: 900\n');
    for (const repo of [neverChecked, otherKeys, project()]) {
      const result = await traced(repo);
      assertBanner(result.stdout);
      assert.doesNotMatch(result.stderr, /node_modules\/(js-yaml|yaml|ajv)\//);
    }
  });

  it('finds the work tree without git in the plain cases: a subdirectory, a linked worktree', async () => {
    const repo = project();
    mkdirSync(join(repo.dir, 'docs', 'deep'), { recursive: true });
    assertBanner((await remind(join(repo.dir, 'docs', 'deep'))).stdout);
    assert.equal(readState(repo).last_reminded, NOW, 'stamped at the work tree root');
    const linked = join(makeTempDir(), 'linked');
    repo.worktree(linked, { newBranch: 'side' });
    assertBanner((await remind(linked)).stdout);
    const linkedState = JSON.parse(readFileSync(join(linked, '.dochygiene', 'state.json'), 'utf8'));
    assert.equal(linkedState.last_reminded, NOW, 'the linked worktree has its own state');
  });

  it('asks git when the file system cannot tell (inside .git, a bare repository); GIT_DIR plays no part', async () => {
    const repo = project();
    const elsewhere = makeTempDir();
    // Like every git call stw makes, the reminder ignores inherited GIT_* variables.
    const viaEnv = await remind(elsewhere, { GIT_DIR: join(repo.dir, '.git'), GIT_WORK_TREE: repo.dir });
    assert.deepEqual([viaEnv.code, viaEnv.stdout, viaEnv.stderr], [0, '', '']);
    assert.deepEqual(readdirSync(elsewhere), [], 'nothing written where the session started');
    assert.equal(existsSync(join(repo.dir, '.dochygiene')), false);
    const inGitDir = await remind(join(repo.dir, '.git'));
    assert.deepEqual([inGitDir.code, inGitDir.stdout, inGitDir.stderr], [0, '', '']);
    const bare = makeRepo({ bare: true });
    repos.push(bare);
    const inBare = await remind(bare.dir);
    assert.deepEqual([inBare.code, inBare.stdout, inBare.stderr], [0, '', '']);
    assert.equal(readdirSync(bare.dir).includes('.dochygiene'), false);
  });
});
