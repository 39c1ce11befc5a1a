// The precision bench's scoring (bench/precision/run.mjs, issue 31 item 1) on fixture labels:
// a tiny real-git repository, label files pinned to one of its commits, the real runner.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { makeRepo, makeTempDir, testEnv } from '../helpers/git-repo.js';
import { REPO_ROOT } from '../helpers/paths.js';

const RUNNER = join(REPO_ROOT, 'bench', 'precision', 'run.mjs');

interface Row {
  shown: number;
  sampled: number;
  real: number;
  false: number;
  unsure: number;
  gone: number;
  gone_real: number;
  unlabelled: number;
  hidden: number;
  hidden_labels: number;
  suppressed: number;
  precision: number | null;
  estimated_real?: number;
  extrapolated?: number;
}
interface BenchJson {
  classes: Record<string, Row>;
  overall: { shown: number; shown_measured: number; unmeasured: number; real_ratio: number | null };
  repositories: {
    repo: string;
    commit: string;
    rows: Record<string, Row>;
    gone: { file: string; line?: number; signal: string; key?: string; verdict: string }[];
  }[];
  missing: { repo: string; missing: string }[];
  failed: { repo: string; error: string }[];
}

function bench(args: string[]) {
  const r = spawnSync(process.execPath, [RUNNER, ...args], { encoding: 'utf8', env: testEnv() });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function labelFile(dir: string, name: string, doc: unknown): void {
  writeFileSync(join(dir, name), `${JSON.stringify(doc, null, 2)}\n`);
}

describe('bench:precision scores labelled findings per signal class', () => {
  const repo = makeRepo();
  const clones = makeTempDir('stw-bench-clones-');
  const manifest = makeTempDir('stw-bench-manifest-');
  const work = makeTempDir('stw-bench-work-');
  after(() => {
    for (const d of [repo.dir, clones, manifest, work]) spawnSync('rm', ['-rf', d]);
  });
  // scripts/ci/build.sh was this repository's (history proves it): its backticked path is shown.
  repo.commit('build script', { 'scripts/ci/build.sh': 'echo\n' });
  repo.remove('drop the build script', ['scripts/ci/build.sh']);
  // The pinned commit: three broken links and a backticked path to nothing.
  const pinned = repo.commit('docs', {
    'docs/guide.md': [
      '# Guide',
      '',
      'See [setup](setup.md).',
      '',
      'And [api](api.md) and [faq](faq.md).',
      '',
      // History shows scripts/ci/build.sh was this repository's.
      'Run `scripts/ci/build.sh` first, then `scripts/run.sh`.',
      '',
    ].join('\n'),
    'scripts/run.sh': 'echo\n',
  });
  // A later commit the user's clone is on: the bench must score the pinned one, not this.
  repo.commit('fixed', { 'docs/setup.md': '# Setup\n', 'docs/api.md': '# API\n' });
  const userHead = repo.head();
  symlinkSync(repo.dir, join(clones, 'acme__widgets'));
  labelFile(manifest, 'acme__widgets.json', {
    repo: 'acme/widgets',
    commit: pinned,
    kind: 'github',
    labels: [
      {
        file: 'docs/guide.md',
        line: 3,
        signal: 'broken_reference',
        key: 'setup.md',
        verdict: 'real',
        reason: 'no page',
      },
      {
        file: 'docs/guide.md',
        line: 5,
        signal: 'broken_reference',
        key: 'api.md',
        verdict: 'false',
        reason: 'fixture',
      },
      {
        file: 'docs/guide.md',
        line: 9,
        signal: 'broken_reference',
        key: 'gone.md',
        verdict: 'real',
        reason: 'was found',
      },
      {
        file: 'docs/guide.md',
        line: 7,
        signal: 'code_reference',
        key: 'scripts/ci/build.sh',
        verdict: 'unsure',
        reason: 'maybe another repository',
      },
    ],
  });
  // A second file of the same repository (as the site helpers write) is merged in.
  labelFile(manifest, 'acme__widgets.site.json', {
    repo: 'acme/widgets',
    commit: pinned,
    kind: 'hugo',
    labels: [
      {
        file: 'docs/guide.md',
        line: 5,
        signal: 'broken_reference',
        key: 'faq.md',
        verdict: 'real',
        reason: 'no page',
      },
    ],
  });
  labelFile(manifest, 'acme__absent.json', {
    repo: 'acme/absent',
    commit: pinned,
    kind: 'agent',
    labels: [],
  });

  it('matches by (file, line, signal, key) at the pinned commit and reports gone and missing', () => {
    const r = bench([clones, '--manifest', manifest, '--work', work, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as BenchJson;
    assert.deepEqual(out.failed, []);
    const links = out.classes['broken_reference'];
    assert.ok(links);
    assert.equal(links.shown, 3);
    assert.equal(links.sampled, 3);
    assert.equal(links.real, 2);
    assert.equal(links.false, 1);
    assert.equal(links.gone, 1);
    assert.equal(links.gone_real, 1);
    assert.equal(links.unlabelled, 0);
    assert.equal(links.precision, 2 / 3);
    assert.deepEqual(
      out.repositories
        .find((r) => r.repo === 'acme/widgets')
        ?.gone.map((g) => [g.file, g.line, g.key, g.verdict]),
      [['docs/guide.md', 9, 'gone.md', 'real']],
    );
    const code = out.classes['code_reference'];
    assert.ok(code);
    assert.deepEqual([code.shown, code.sampled, code.unsure, code.precision], [1, 1, 1, null]);
    // Overall: 2/3 of the 3 links are estimated real; the unsure-only class is unmeasured.
    assert.equal(out.overall.shown, 4);
    assert.equal(out.overall.shown_measured, 3);
    assert.equal(out.overall.unmeasured, 1);
    assert.equal(out.overall.real_ratio, 2 / 3);
    assert.equal(out.missing.length, 1);
    assert.match(out.missing[0]?.missing ?? '', /^git clone https:\/\/github\.com\/acme\/absent /);
  });

  it("never writes the user's clone: its HEAD, branches and work tree stay as they were", () => {
    const refs = repo.refs();
    bench([clones, '--manifest', manifest, '--work', work, '--repo', 'acme/widgets']);
    assert.equal(repo.head(), userHead);
    assert.equal(repo.refs(), refs);
    assert.equal(repo.status(), '');
    assert.equal(repo.git(['worktree', 'list', '--porcelain']).split('\n\n').length, 1);
  });

  it('prints the table, the ratio and the clone line for a missing repository', () => {
    const r = bench([clones, '--manifest', manifest, '--work', work]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^class\s+shown\s+sampled\s+real\s+false\s+unsure\s+gone/m);
    assert.match(r.stdout, /^broken_reference\s+3\s+3\s+2\s+1\s+0\s+1\s+1\s+0\s+0\s+0\s+0\.67$/m);
    assert.match(r.stdout, /real finds \/ shown by default: 0\.67/);
    assert.match(
      r.stdout,
      /lost recall: 1 labelled-real finding\(s\) no longer shown:\n {2}acme\/widgets docs\/guide\.md:9 broken_reference gone\.md \(was found\)/,
    );
    assert.match(r.stdout, /missing acme\/absent: git clone https:\/\/github\.com\/acme\/absent/);
  });

  it('samples label stubs with a fixed seed, leaving out what is labelled', () => {
    const args = [clones, '--manifest', manifest, '--work', work, '--sample', '--repo', 'acme/widgets'];
    const first = bench(args);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(bench(args).stdout, first.stdout);
    const stub = JSON.parse(first.stdout) as { commit: string; labels: { key: string }[] };
    assert.equal(stub.commit, pinned);
    assert.deepEqual(stub.labels, []);
  });

  it('refuses a label file with a bad verdict, or two files of one repository at different commits', () => {
    const bad = makeTempDir('stw-bench-bad-');
    labelFile(bad, 'x__y.json', {
      repo: 'x/y',
      commit: pinned,
      kind: 'github',
      labels: [{ file: 'a.md', signal: 'duplicate_content', verdict: 'maybe', reason: 'r' }],
    });
    let r = bench([clones, '--manifest', bad]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /x__y\.json: labels\[0\]\.verdict must be real, false or unsure/);
    labelFile(bad, 'x__y.json', { repo: 'x/y', commit: pinned, kind: 'github', labels: [] });
    labelFile(bad, 'x__y.site.json', { repo: 'x/y', commit: userHead, kind: 'hugo', labels: [] });
    r = bench([clones, '--manifest', bad]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /x__y\.site\.json: commit [0-9a-f]{40} differs from x__y\.json's/);
    r = bench([clones, '--manifest', bad, '--cli', join(bad, 'no-such-cli.js')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /the CLI is not built/);
    spawnSync('rm', ['-rf', bad]);
  });
});

describe('bench:precision summary', () => {
  it('counts labels of a class the CLI hides as hidden, not gone, and the withheld counts per class', async () => {
    const url = pathToFileURL(join(REPO_ROOT, 'bench', 'precision', 'score.mjs')).href;
    const { scoreRepo, withheldOf, findingsOf } = (await import(url)) as {
      scoreRepo: (
        labels: Map<string, unknown>,
        findings: unknown[],
        withheld: unknown,
      ) => Record<string, Row>;
      withheldOf: (scan: unknown) => unknown;
      findingsOf: (scan: unknown) => unknown[];
    };
    const label = (file: string, signal: string, verdict: string) => ({ file, signal, verdict, reason: 'r' });
    const labels = new Map([
      [
        JSON.stringify(['a.md', null, 'duplicate_content', null]),
        label('a.md', 'duplicate_content', 'false'),
      ],
      [JSON.stringify(['b.md', null, 'version_skew', null]), label('b.md', 'version_skew', 'real')],
    ]);
    const artifact = {
      signals: {},
      withheld: {
        hidden_classes: ['duplicate_content'],
        hidden: { duplicate_content: 3 },
        suppressed: { broken_reference: 2 },
        suppressed_signals: [],
        show_hidden_with: '--signals all',
      },
    };
    const rows = scoreRepo(labels, findingsOf(artifact), withheldOf(artifact));
    assert.deepEqual(
      [
        rows['duplicate_content']?.hidden,
        rows['duplicate_content']?.hidden_labels,
        rows['duplicate_content']?.gone,
      ],
      [3, 1, 0],
    );
    assert.deepEqual([rows['version_skew']?.gone, rows['version_skew']?.gone_real], [1, 1]);
    assert.equal(rows['broken_reference']?.suppressed, 2);
  });

  it('weights each repository by its own sampled precision and extrapolates the pooled one', async () => {
    const url = pathToFileURL(join(REPO_ROOT, 'bench', 'precision', 'score.mjs')).href;
    const { summarize } = (await import(url)) as {
      summarize: (results: { rows: Record<string, Row> }[]) => BenchJson;
    };
    const row = (shown: number, real: number, wrong: number): Row => ({
      shown,
      sampled: real + wrong,
      real,
      false: wrong,
      unsure: 0,
      gone: 0,
      gone_real: 0,
      unlabelled: shown - real - wrong,
      hidden: 0,
      hidden_labels: 0,
      suppressed: 0,
      precision: real + wrong === 0 ? null : real / (real + wrong),
    });
    // Repository a: 100 shown, 1 of 4 sampled real; b: 10 shown, all 4 sampled real; c: 6, none sampled.
    const out = summarize([
      { rows: { duplicate_content: row(100, 1, 3) } },
      { rows: { duplicate_content: row(10, 4, 0) } },
      { rows: { duplicate_content: row(6, 0, 0), version_skew: row(5, 0, 0) } },
    ]);
    const dup = out.classes['duplicate_content'];
    assert.ok(dup);
    assert.equal(dup.precision, 5 / 8);
    assert.equal(dup.extrapolated, 6);
    assert.equal(dup.estimated_real, 25 + 10 + 6 * (5 / 8));
    assert.equal(out.overall.unmeasured, 5);
    assert.equal(out.overall.real_ratio, (25 + 10 + 6 * (5 / 8)) / 116);
  });
});

describe('bench:precision label sets', () => {
  it('the bench set and the holdout set load, and no repository the bench is tuned on is in the holdout', async () => {
    const url = pathToFileURL(join(REPO_ROOT, 'bench', 'precision', 'score.mjs')).href;
    const { loadManifest } = (await import(url)) as {
      loadManifest: (dir: string) => { repo: string; commit: string; labels: Map<string, unknown> }[];
    };
    const bench = loadManifest(join(REPO_ROOT, 'bench', 'precision', 'repos'));
    const holdout = loadManifest(join(REPO_ROOT, 'bench', 'precision', 'holdout'));
    assert.ok(holdout.length >= 5, 'five holdout repositories or more');
    for (const r of holdout) assert.ok(r.labels.size > 0, `${r.repo} has labels`);
    const tuned = new Set(bench.map((r) => r.repo.toLowerCase()));
    assert.deepEqual(
      holdout.filter((r) => tuned.has(r.repo.toLowerCase())).map((r) => r.repo),
      [],
    );
  });
});
