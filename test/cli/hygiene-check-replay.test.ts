import assert from 'node:assert/strict';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SELF_IGNORE } from '../../src/hygiene/state/store.js';
import { type CliResult, runCli } from '../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo } from '../helpers/git-repo.js';
import { REPO_ROOT } from '../helpers/paths.js';

const NOW = '2026-03-01T12:00:00Z';
const cleanups: (() => void)[] = [];
after(() => {
  for (const cleanup of cleanups) cleanup();
});

interface Setup {
  repo: TestRepo;
  env: NodeJS.ProcessEnv;
  log: string;
  configHome: string;
}

/** A repository whose docs link to each other, to a missing doc, and to a git-ignored file. */
function setup(): Setup {
  const repo = makeRepo();
  const home = makeTempDir('stw-replay-home-');
  cleanups.push(() => {
    repo.cleanup();
    rmSync(home, { recursive: true, force: true });
  });
  repo.commit('docs', {
    '.gitignore': 'build/\n',
    'README.md':
      '# Widgets\n\nSee the [guide](docs/guide.md#use), [gone](docs/old.md) and [out](build/out.html).\n',
    'docs/guide.md': '# Guide\n\n## Use\n\nUse it. Run `src/main.ts`.\n',
    'docs/plans/done.md': '---\nstatus: done\n---\n# Done\n',
    'CLAUDE.md': '# Notes\n\nSee @docs/guide.md.\n',
    'src/main.ts': 'export {};\n',
  });
  // As the first check leaves it (a run that creates its state folder changed an input meanwhile, so keeps nothing).
  repo.write({ '.dochygiene/.gitignore': SELF_IGNORE });
  const log = join(home, 'replay.log');
  writeFileSync(log, '');
  const configHome = join(home, 'config');
  mkdirSync(configHome);
  // A change is trusted as soon as the run starts (by default, two seconds later): tests write and check at once.
  const env = {
    STW_NOW: NOW,
    STW_TEST_HOOKS: '1',
    STW_TEST_RACY_MS: '0',
    STW_TEST_REPLAY_LOG: log,
    XDG_CONFIG_HOME: configHome,
  };
  return { repo, env, log, configHome };
}

interface Run extends CliResult {
  replayed: boolean;
  json: string;
  md: string;
  state: string;
}

async function check(s: Setup, flags: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const before = readFileSync(s.log, 'utf8').length;
  const result = await runCli(['hygiene', 'check', ...flags], { cwd: s.repo.dir, env: { ...s.env, ...env } });
  const read = (name: string) =>
    existsSync(s.repo.path('.dochygiene', name))
      ? readFileSync(s.repo.path('.dochygiene', name), 'utf8')
      : '';
  return {
    ...result,
    replayed: readFileSync(s.log, 'utf8').length > before,
    json: read('report.json'),
    md: read('report.md'),
    state: read('state.json'),
  };
}

/** The same output, exit code, report pair and state as a full run (`--no-cache`) of the same flags at the same time. */
async function assertAsFullRun(s: Setup, run: Run, flags: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const full = await check(s, [...flags, '--no-cache'], env);
  assert.equal(full.replayed, false);
  assert.equal(run.code, full.code, full.stderr);
  assert.equal(run.stdout, full.stdout);
  assert.equal(run.stderr, full.stderr);
  assert.equal(run.json, full.json);
  assert.equal(run.md, full.md);
  assert.equal(run.state, full.state);
}

/** A run that stores its result, then one that replays it. */
async function storeThenReplay(s: Setup, flags: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  await check(s, flags, env);
  const replayed = await check(s, flags, env);
  assert.equal(replayed.replayed, true, `replayed: ${replayed.stderr}`);
  return replayed;
}

describe('stw hygiene check: the result cache', () => {
  it('replays a run whose inputs are all as they were: the output and report pair of a full run', async () => {
    const s = setup();
    const first = await check(s);
    assert.equal(first.replayed, false);
    assert.equal(first.code, 0, first.stderr);
    const replayed = await check(s);
    assert.equal(replayed.replayed, true);
    await assertAsFullRun(s, replayed);
    const json = await storeThenReplay(s, ['--json']);
    await assertAsFullRun(s, json, ['--json']);
    const gated = await storeThenReplay(s, ['--fail-on', 'signals', 'README.md']);
    assert.equal(gated.code, 3);
    await assertAsFullRun(s, gated, ['--fail-on', 'signals', 'README.md']);
    const unsaved = await storeThenReplay(s, ['--no-write', '--format', 'github']);
    await assertAsFullRun(s, unsaved, ['--no-write', '--format', 'github']);
  });

  it("puts the run's instant in place: a replay at another time is a full run at that time", async () => {
    const s = setup();
    await storeThenReplay(s, ['--json']);
    await storeThenReplay(s);
    const later = { STW_NOW: '2031-07-15T08:30:00Z' };
    for (const flags of [['--json'], []]) {
      const run = await check(s, flags, later);
      assert.equal(run.replayed, true, 'the clock is not a key: only the instant moves');
      assert.equal(JSON.parse(run.json).generated_at, later.STW_NOW);
      assert.equal(JSON.parse(run.state).last_check, later.STW_NOW);
      await assertAsFullRun(s, run, flags, later);
    }
  });

  const changes: [string, (s: Setup) => void][] = [
    ['HEAD moves on', (s) => s.repo.commit('more', { 'src/other.ts': 'export {};\n' })],
    ['a doc is edited', (s) => s.repo.write({ 'docs/guide.md': '# Guide\n\n## Usage\n\nUse it.\n' })],
    [
      'a doc is edited to the same size and given its old modification time back',
      (s) => {
        const path = s.repo.path('docs/guide.md');
        const { atime, mtime } = statSync(path);
        writeFileSync(path, readFileSync(path, 'utf8').replace('## Use', '## Usf'));
        utimesSync(path, atime, mtime);
      },
    ],
    ['an untracked doc appears', (s) => s.repo.write({ 'notes/new.md': '# New\n\n[x](../missing.md)\n' })],
    ['an untracked file a link names appears', (s) => s.repo.write({ 'docs/old.md': '# Old\n' })],
    ['a git-ignored file a link names appears', (s) => s.repo.write({ 'build/out.html': '<p>out</p>\n' })],
    [
      'a doc is removed from the index only',
      (s) => s.repo.git(['rm', '-q', '--cached', 'docs/plans/done.md']),
    ],
    ['a mode is staged', (s) => s.repo.git(['update-index', '--chmod=+x', 'docs/guide.md'])],
    [
      'the repository config changes',
      (s) => s.repo.write({ '.dochygiene.yml': 'context:\n  budget_tokens: 5\n' }),
    ],
    [
      'the user config changes',
      (s) => {
        mkdirSync(join(s.configHome, 'sourcesteward'), { recursive: true });
        writeFileSync(join(s.configHome, 'sourcesteward', 'config.yml'), 'classifier: rules\n');
      },
    ],
    [
      'git ignores another file',
      (s) => appendFileSync(s.repo.path('.git', 'info', 'exclude'), 'docs/plans/\n'),
    ],
    [
      "the user's git attributes mark a doc generated",
      (s) => {
        mkdirSync(join(s.configHome, 'git'), { recursive: true });
        writeFileSync(join(s.configHome, 'git', 'attributes'), 'README.md linguist-generated\n');
      },
    ],
    [
      'the state folder stops ignoring itself',
      (s) => writeFileSync(s.repo.path('.dochygiene', '.gitignore'), '# mine\n'),
    ],
  ];
  for (const [what, change] of changes)
    it(`misses when ${what}, and agrees with a full run`, async () => {
      const s = setup();
      await storeThenReplay(s);
      change(s);
      const run = await check(s);
      assert.equal(run.replayed, false);
      await assertAsFullRun(s, run);
    });

  it('misses when a config file the repository includes names another attributes file, and agrees with a full run', async () => {
    const s = setup();
    const included = join(s.configHome, 'included.cfg');
    writeFileSync(included, '');
    s.repo.git(['config', 'include.path', included]);
    await storeThenReplay(s);
    const attributes = join(s.configHome, 'attributes');
    writeFileSync(attributes, 'README.md linguist-generated\n');
    writeFileSync(included, `[core]\n\tattributesFile = ${attributes}\n`);
    const run = await check(s);
    assert.equal(run.replayed, false);
    await assertAsFullRun(s, run);
    // The file it names is an input too.
    await storeThenReplay(s);
    writeFileSync(attributes, '');
    const again = await check(s);
    assert.equal(again.replayed, false);
    await assertAsFullRun(s, again);
  });

  it('misses for other flags, scopes or environment, and for another tool build', async () => {
    const s = setup();
    await storeThenReplay(s);
    for (const flags of [
      ['--scope', 'docs'],
      ['--signals', 'all'],
      ['--category', 'stale'],
    ])
      assert.equal((await check(s, flags)).replayed, false, flags.join(' '));
    assert.equal((await check(s, [], { STW_CACHE_MAX_MIB: '64' })).replayed, false);
    // A copy of the build: the same version, but any file of it rebuilt misses.
    const copy = makeTempDir('stw-replay-build-');
    cleanups.push(() => rmSync(copy, { recursive: true, force: true }));
    cpSync(join(REPO_ROOT, 'dist', 'src'), join(copy, 'dist', 'src'), { recursive: true });
    cpSync(join(REPO_ROOT, 'package.json'), join(copy, 'package.json'));
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(copy, 'node_modules'));
    const bin = join(copy, 'dist', 'src', 'cli', 'bin.js');
    const runCopy = async () => {
      const before = readFileSync(s.log, 'utf8').length;
      const result = await runCli(['hygiene', 'check'], { cwd: s.repo.dir, env: s.env, bin });
      assert.equal(result.code, 0, result.stderr);
      return readFileSync(s.log, 'utf8').length > before;
    };
    assert.equal(await runCopy(), false, 'another build');
    assert.equal(await runCopy(), true);
    const rebuilt = join(copy, 'dist', 'src', 'hygiene', 'report', 'report-md.js');
    writeFileSync(rebuilt, `${readFileSync(rebuilt, 'utf8')}\n`);
    assert.equal(await runCopy(), false, 'a rebuilt module');
  });

  it('keeps nothing where the result moves with the clock, nor for a change too recent to trust', async () => {
    const s = setup();
    s.repo.commit('rules', {
      '.dochygiene.yml':
        'lifecycle:\n  rules:\n    - match: "tmp/*"\n      type: file\n      older_than_days: 30\n',
    });
    s.repo.write({ 'tmp/scratch.txt': 'x\n' });
    await check(s);
    assert.equal((await check(s)).replayed, false, 'lifecycle ages depend on the instant');
    // Every file of the fixture changed within the window (an hour here, two seconds by default):
    // their stat data is not trusted, so nothing is kept, however often the check runs.
    const fresh = setup();
    const recent = { STW_TEST_RACY_MS: String(3_600_000) };
    for (let i = 0; i < 3; i++) assert.equal((await check(fresh, [], recent)).replayed, false);
    assert.equal((await check(fresh)).replayed, false, 'stored now that the window has passed');
    assert.equal((await check(fresh)).replayed, true);
  });

  it('never replays nor stores with --no-cache, STW_NO_CACHE=1, or flags that read or write other files', async () => {
    const s = setup();
    await check(s, ['--no-cache']);
    assert.equal((await check(s, ['--no-cache'])).replayed, false);
    await check(s, [], { STW_NO_CACHE: '1' });
    assert.equal((await check(s, [], { STW_NO_CACHE: '1' })).replayed, false);
    const sarif = join(s.configHome, 'out.sarif');
    for (const flags of [
      ['--sarif', sarif],
      ['--changed-since', 'HEAD'],
    ]) {
      await check(s, flags);
      assert.equal((await check(s, flags)).replayed, false, flags.join(' '));
    }
  });

  it('ignores an entry altered, cut short, renamed or signed with another key, and stores it again', async () => {
    const s = setup();
    await storeThenReplay(s);
    const entry = await resultEntry(s);
    const bytes = readFileSync(entry);
    const other = readdirSync(cacheDir(s))
      .map((name) => join(cacheDir(s), name))
      .find((path) => path !== entry && /[0-9a-f]{64}$/.test(path))!;
    const damages: [string, () => void][] = [
      ['altered', () => writeFileSync(entry, Buffer.concat([bytes.subarray(0, -3), Buffer.from('xyz')]))],
      ['cut short', () => writeFileSync(entry, bytes.subarray(0, bytes.length >> 1))],
      ['another entry under its name', () => writeFileSync(entry, readFileSync(other))],
      ['garbage', () => writeFileSync(entry, 'STWC1 nothing\n')],
    ];
    for (const [what, damage] of damages) {
      damage();
      const run = await check(s);
      assert.equal(run.replayed, false, what);
      await assertAsFullRun(s, run);
      assert.equal((await check(s)).replayed, true, `stored again after: ${what}`);
    }
    // Another user's key: the same bytes are not this user's.
    const cacheHome = makeTempDir('stw-replay-key-');
    cleanups.push(() => rmSync(cacheHome, { recursive: true, force: true }));
    assert.equal((await check(s, [], { XDG_CACHE_HOME: cacheHome })).replayed, false);
  });

  it("keeps nothing where the common git dir is not the repository's own (a shipped commondir)", async () => {
    const s = setup();
    const victim = makeRepo();
    cleanups.push(() => victim.cleanup());
    victim.commit('init', { 'README.md': '# Other\n' });
    writeFileSync(s.repo.path('.git', 'commondir'), `${victim.path('.git')}\n`);
    await check(s);
    const second = await check(s);
    assert.equal(second.replayed, false);
    assert.equal(existsSync(victim.path('.git', 'sourcesteward-cache')), false);
  });

  it('two concurrent runs agree, both keep their result whole, and the next run replays it', async () => {
    // --no-write: two checks writing one report pair at once is not supported (StateStore.writeReport);
    // the result entry is what both write here.
    const s = setup();
    const flags = ['--no-write', '--json'];
    await check(s, flags);
    s.repo.write({ 'docs/guide.md': '# Guide\n\n## Use\n\nUse it twice.\n' });
    const [a, b] = await Promise.all([check(s, flags), check(s, flags)]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    assert.deepEqual([a.replayed, b.replayed], [false, false]);
    assert.equal(a.stdout, b.stdout);
    const next = await check(s, flags);
    assert.equal(next.replayed, true);
    await assertAsFullRun(s, next, flags);
    assert.deepEqual(
      readdirSync(cacheDir(s)).filter((name) => name.startsWith('.tmp-')),
      [],
      'no temp file is left',
    );
  });
});

function cacheDir(s: Setup): string {
  return s.repo.path('.git', 'sourcesteward-cache');
}

/** The result entry: the one a replay reads (a read refreshes its time; the others stay old). */
async function resultEntry(s: Setup): Promise<string> {
  const dir = cacheDir(s);
  const old = new Date('2020-01-01T00:00:00Z');
  for (const name of readdirSync(dir)) utimesSync(join(dir, name), old, old);
  assert.equal((await check(s)).replayed, true);
  const fresh = readdirSync(dir).filter((name) => statSync(join(dir, name)).mtimeMs > old.getTime());
  assert.equal(fresh.length, 1, `one entry read: ${fresh.join(', ')}`);
  return join(dir, fresh[0]!);
}
