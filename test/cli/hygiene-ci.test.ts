import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, runCliJson } from '../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo } from '../helpers/git-repo.js';

const env = { STW_NOW: '2026-03-01T12:00:00Z' };
const NOBODY = 65534;

interface CheckJson {
  findings: {
    rule: string;
    path: string;
    line?: number;
    fingerprint: string;
    entry?: { safety_tier: string };
  }[];
  gate: { counted: number; failed: boolean } | null;
  baselined: number;
  saved: boolean;
  history: { shallow: boolean; depth: number } | null;
}

let repo: TestRepo;
let scratch: string;

before(() => {
  repo = makeRepo();
  repo.commit('docs', {
    'README.md': '# Widgets\n\nSee the [old guide](docs/old.md).\n',
    'docs/old.md': '# Guide\n\nUse it.\n',
    'docs/notes.md': '# Notes\n\nA [dead link](nowhere.md).\n',
    'src/main.ts': 'export {};\n',
  });
  // The rename proves the README's link fix: an auto entry.
  repo.move('move the guide', 'docs/old.md', 'docs/new.md');
  scratch = makeTempDir();
});
after(() => repo.cleanup());

/** A copy of the repository that another user may read (tests run as root). */
function readableCopy(name: string): string {
  const dir = join(scratch, name);
  cpSync(repo.dir, dir, { recursive: true, filter: (path) => !path.endsWith('/.dochygiene') });
  execFileSync('chmod', ['-R', 'a+rX', scratch]);
  return dir;
}

describe('the gate', () => {
  it('without a flag the exit code is as before; over the gate it is 3, with path:line in the text', async () => {
    const plain = await runCli(['hygiene', 'check'], { cwd: repo.dir, env });
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /^ {2}docs\/notes\.md:3:15 {2}broken_reference {2}link target "nowhere\.md"/m);
    const gated = await runCli(['hygiene', 'check', '--fail-on', 'signals'], { cwd: repo.dir, env });
    assert.equal(gated.code, 3);
    assert.match(gated.stdout, /^Gate failed: 2 findings \(--fail-on signals\), at most 0 allowed\.$/m);
    const auto = await runCliJson<CheckJson>(['hygiene', 'check', '--fail-on', 'auto'], {
      cwd: repo.dir,
      env,
    });
    assert.equal(auto.code, 3);
    assert.equal(auto.json.gate!.counted, 1);
    const allowed = await runCli(['hygiene', 'check', '--max-findings', '2'], { cwd: repo.dir, env });
    assert.equal(allowed.code, 0, allowed.stdout);
    assert.match(allowed.stdout, /Gate passed: 2 findings/);
  });

  it('--format github marks what the gate counts as errors and the rest as warnings', async () => {
    const result = await runCli(['hygiene', 'check', '--format', 'github', '--fail-on', 'auto'], {
      cwd: repo.dir,
      env,
    });
    assert.equal(result.code, 3);
    const lines = result.stdout.trimEnd().split('\n');
    assert.deepEqual(
      lines.map((line) => line.slice(0, line.indexOf('title='))),
      ['::error file=README.md,line=3,col=21,', '::warning file=docs/notes.md,line=3,col=15,', '::error '],
    );
    assert.match(lines[2]!, /^::error title=stw gate::Gate failed: 1 finding \(--fail-on auto\)/);
    assert.match(result.stderr, /^Checked 3 docs/, 'the summary goes to stderr');
  });

  it('refuses bad gate and format flags as usage errors (exit 2)', async () => {
    for (const args of [
      ['hygiene', 'check', '--fail-on', 'brokn_reference'],
      ['hygiene', 'check', '--max-findings', '-1'],
      ['hygiene', 'check', '--format', 'xml'],
      ['hygiene', 'check', '--json', '--format', 'sarif'],
      ['hygiene', 'scan', '--fail-on', 'entries'],
    ]) {
      const result = await runCli(args, { cwd: repo.dir, env });
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.equal(result.stderr.split('\n')[0]!.startsWith('stw: '), true);
    }
  });

  it('scan takes the same formats and gate', async () => {
    const result = await runCli(['hygiene', 'scan', '--format', 'sarif', '--fail-on', 'broken_reference'], {
      cwd: repo.dir,
      env,
    });
    assert.equal(result.code, 3);
    const log = JSON.parse(result.stdout) as { runs: { results: { ruleId: string; level: string }[] }[] };
    assert.deepEqual(
      log.runs[0]!.results.map((r) => `${r.ruleId} ${r.level}`),
      ['broken_reference error', 'broken_reference error'],
    );
  });
});

describe('files and changes', () => {
  it('check PATH… reports only those files; links still resolve against the whole tree', async () => {
    const one = await runCliJson<CheckJson>(['hygiene', 'check', 'docs/notes.md', '--fail-on', 'signals'], {
      cwd: repo.dir,
      env,
    });
    assert.equal(one.code, 3);
    assert.deepEqual(
      one.json.findings.map((f) => f.path),
      ['docs/notes.md'],
    );
    const fromDocs = await runCliJson<CheckJson>(['hygiene', 'check', '../README.md'], {
      cwd: join(repo.dir, 'docs'),
      env,
    });
    assert.deepEqual(
      fromDocs.json.findings.map((f) => [f.path, f.entry?.safety_tier]),
      [['README.md', 'auto']],
      'the move is still proved: the whole tree was read',
    );
    const code = await runCli(['hygiene', 'check', 'src/main.ts', '--fail-on', 'signals'], {
      cwd: repo.dir,
      env,
    });
    assert.equal(code.code, 0, 'no finding on a file that is not a doc');
    const outside = await runCli(['hygiene', 'check', '/etc/passwd'], { cwd: repo.dir, env });
    assert.equal(outside.code, 2);
  });

  it('--baseline leaves out what a saved run had; a new broken link fails the gate (json and sarif baselines)', async () => {
    const copy = makeRepo();
    try {
      copy.commit('docs', { 'a.md': '# A\n\n[one](gone.md)\n', 'b.md': '# B\n' });
      const saved = await runCli(
        ['hygiene', 'check', '--format', 'json', '--sarif', join(scratch, 'base.sarif')],
        {
          cwd: copy.dir,
          env,
        },
      );
      writeFileSync(join(scratch, 'base.json'), saved.stdout);
      const clean = await runCli(
        ['hygiene', 'check', '--baseline', join(scratch, 'base.json'), '--fail-on', 'signals'],
        {
          cwd: copy.dir,
          env,
        },
      );
      assert.equal(clean.code, 0, clean.stdout);
      assert.match(clean.stdout, /^1 findings are in the baseline and not shown\.$/m);
      copy.commit('break a link', {
        'a.md': '# A\n\nNew line first.\n\n[one](gone.md)\n',
        'b.md': '# B\n\n[two](lost.md)\n',
      });
      for (const base of ['base.json', 'base.sarif']) {
        const result = await runCli(
          [
            'hygiene',
            'check',
            '--baseline',
            join(scratch, base),
            '--fail-on',
            'signals',
            '--format',
            'github',
          ],
          { cwd: copy.dir, env },
        );
        assert.equal(result.code, 3, result.stderr);
        assert.equal(
          result.stdout.split('\n')[0],
          '::error file=b.md,line=3,col=7,title=stw broken_reference::b.md:3:7: link target "lost.md" does not resolve',
        );
      }
      writeFileSync(join(scratch, 'not-a-baseline.json'), '{"entries": []}');
      const bad = await runCli(['hygiene', 'check', '--baseline', join(scratch, 'not-a-baseline.json')], {
        cwd: copy.dir,
        env,
      });
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /^stw: baseline file .* is neither/);
    } finally {
      copy.cleanup();
    }
  });

  it('--changed-since REF reports only findings on lines changed since its merge base', async () => {
    const copy = makeRepo();
    try {
      copy.commit('docs', { 'a.md': '# A\n\n[old](gone.md)\n', 'b.md': '# B\n\n[old](gone.md)\n' });
      copy.git(['checkout', '-q', '-b', 'topic']);
      copy.commit('more', { 'a.md': '# A\n\n[old](gone.md)\n\n[new](missing.md)\n' });
      // Uncommitted work counts too.
      writeFileSync(join(copy.dir, 'c.md'), '# C\n');
      copy.git(['add', 'c.md']);
      const result = await runCliJson<CheckJson>(
        ['hygiene', 'check', '--changed-since', 'main', '--fail-on', 'signals'],
        { cwd: copy.dir, env },
      );
      assert.equal(result.code, 3);
      assert.deepEqual(
        result.json.findings.map((f) => `${f.path}:${f.line}`),
        ['a.md:5'],
      );
      const unknown = await runCli(['hygiene', 'check', '--changed-since', 'no-such-ref'], {
        cwd: copy.dir,
        env,
      });
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /^stw: --changed-since no-such-ref is not a commit in this repository\n/);
    } finally {
      copy.cleanup();
    }
  });
});

describe('the environments CI runs in', () => {
  it('a read-only tree: findings printed, normal exit, one line that the report was not saved', async () => {
    const dir = readableCopy('readonly');
    const home = join(scratch, 'home');
    execFileSync('mkdir', ['-p', home]);
    writeFileSync(join(home, 'gitconfig'), `[safe]\n\tdirectory = ${dir}\n`);
    execFileSync('chmod', ['-R', 'a+rX,a-w', dir]);
    chmodSync(home, 0o755);
    const asNobody = { ...env, HOME: home, GIT_CONFIG_GLOBAL: join(home, 'gitconfig') };
    const result = await runCli(['hygiene', 'check', '--fail-on', 'auto'], {
      cwd: dir,
      env: asNobody,
      uid: NOBODY,
    });
    assert.equal(result.code, 3, result.stderr);
    assert.match(result.stdout, /README\.md:3:21 {2}broken_reference/);
    assert.doesNotMatch(result.stdout, /^Report:/m);
    const lines = result.stderr.split('\n').filter((line) => line.includes('could not be saved'));
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0]!, /^stw: the report could not be saved \(EACCES: .* is not writable\)$/);
    assert.equal(existsSync(join(dir, '.dochygiene')), false, 'nothing written');
    const json = await runCliJson<CheckJson>(['hygiene', 'check'], { cwd: dir, env: asNobody, uid: NOBODY });
    assert.equal(json.code, 0);
    assert.equal(json.json.saved, false);
    assert.equal(json.json.findings.length, 2);
  });

  it('--no-write does the same on purpose', async () => {
    const dir = readableCopy('nowrite');
    const result = await runCli(['hygiene', 'check', '--no-write'], { cwd: dir, env });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /docs\/notes\.md:3:15/);
    assert.match(result.stderr, /^stw: the report was not saved \(--no-write\)$/m);
    assert.equal(existsSync(join(dir, '.dochygiene')), false);
  });

  it('a shallow clone: history: shallow (depth N), the move unproved and marked so, one warning naming fetch-depth: 0', async () => {
    const dir = join(scratch, 'shallow');
    execFileSync('git', ['clone', '-q', '--depth', '1', `file://${repo.dir}`, dir], {
      env: { ...process.env },
    });
    const result = await runCliJson<CheckJson>(['hygiene', 'check'], { cwd: dir, env });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(result.json.history, { shallow: true, depth: 1 });
    assert.equal(
      result.json.findings.find((f) => f.path === 'README.md')?.entry,
      undefined,
      'no proof from history',
    );
    const warnings = result.stderr.split('\n').filter((line) => line.includes('shallow'));
    assert.deepEqual(warnings, [
      'stw: warning: history: shallow (depth 1): history-based signals and link proofs are unavailable; fetch the whole history (actions/checkout: fetch-depth: 0)',
    ]);
    const md = readFileSync(join(dir, '.dochygiene', 'report.md'), 'utf8');
    assert.match(md, /history: shallow \(depth 1\)/);
    assert.match(md, /history-based proof unavailable: shallow clone \(depth 1\)/);
  });

  it('safe.directory from the global config is honoured for a checkout another user owns; no hook or fsmonitor runs', async () => {
    const dir = readableCopy('owned');
    execFileSync('chown', ['-R', String(NOBODY), dir]);
    const marker = join(scratch, 'fsmonitor-ran');
    const monitor = join(scratch, 'fsmonitor.sh');
    writeFileSync(monitor, `#!/bin/sh\ntouch ${marker}\n`);
    chmodSync(monitor, 0o755);
    const config = join(scratch, 'owned.gitconfig');
    const scan = async (lines: string[]) => {
      writeFileSync(config, `${lines.join('\n')}\n`);
      return runCliJson<{ unavailable: { reason: string }[] }>(['hygiene', 'scan'], {
        cwd: dir,
        env: { ...env, GIT_CONFIG_GLOBAL: config },
      });
    };
    const refused = await scan([]);
    assert.equal(refused.code, 1, 'history lost: a partial scan, not a silent one');
    assert.ok(
      refused.json.unavailable.some((u) =>
        u.reason.startsWith('git refuses this repository: another user owns it'),
      ),
      JSON.stringify(refused.json.unavailable),
    );
    const trusted = await scan([
      '[safe]',
      `\tdirectory = ${dir}`,
      '[core]',
      `\tfsmonitor = ${monitor}`,
      `\thooksPath = ${scratch}`,
    ]);
    assert.equal(trusted.code, 0, trusted.stderr);
    assert.deepEqual(trusted.json.unavailable, [], 'history was read');
    assert.equal(existsSync(marker), false, 'the global fsmonitor never ran');
  });
});
