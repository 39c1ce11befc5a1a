import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { runCli, runCliJson } from '../../../helpers/cli.js';
import { makeRepo, type TestRepo } from '../../../helpers/git-repo.js';

const env = { STW_NOW: '2026-03-01T12:00:00Z' };
const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

interface ScanJson {
  signals: Record<string, { name: string; line?: number; data?: Record<string, unknown> }[]>;
  withheld: { hidden: Record<string, number>; hidden_classes: string[] };
}

const named = (json: ScanJson, path: string) =>
  (json.signals[path] ?? []).map((s) => `${s.name}:${s.line ?? '-'}:${String(s.data?.['target'] ?? '')}`);

function repoWith(files: Record<string, string>): TestRepo {
  const repo = makeRepo();
  repos.push(repo);
  repo.commit('docs', files);
  return repo;
}

describe('code_reference (a backticked path, apart from links)', () => {
  it('shows a path history proves was here, holds back one only a folder vouches for, and --signals all shows both', async () => {
    const repo = repoWith({
      'tools/build.ts': 'export {};\n',
      'tools/release.ts': 'export {};\n',
      'tools/README.md': '# Tools\n\nRun `tools/build.ts`, then `tools/publish.ts`.\n',
      'docs/guide.md': '# Guide\n\nEdit `tools/release.ts` and read [the tools](../tools/README.md).\n',
    });
    repo.move('rename the release script', 'tools/release.ts', 'tools/ship.ts');
    const shown = await runCliJson<ScanJson>(['hygiene', 'scan'], { cwd: repo.dir, env });
    assert.equal(shown.code, 0, shown.stderr);
    // The renamed script: history proves the path was this repository's.
    assert.deepEqual(named(shown.json, 'docs/guide.md'), ['code_reference:3:tools/release.ts']);
    // `tools/publish.ts` never existed: only its folder says it was meant here.
    assert.deepEqual(named(shown.json, 'tools/README.md'), []);
    assert.equal(shown.json.withheld.hidden['code_reference'], 1);
    assert.ok(!shown.json.withheld.hidden_classes.includes('code_reference'));

    const all = await runCliJson<ScanJson>(['hygiene', 'scan', '--signals', 'all'], { cwd: repo.dir, env });
    assert.deepEqual(named(all.json, 'tools/README.md'), ['code_reference:3:tools/publish.ts']);
    const text = await runCli(['hygiene', 'scan'], { cwd: repo.dir, env });
    assert.match(text.stdout, /1 finding hidden \(code_reference 1; shown with --signals all\)/);
  });

  it('holds back a path that once existed directly under a common folder (`src/index.ts`): most often package-relative', async () => {
    const repo = repoWith({ 'src/index.ts': 'export {};\n', 'lib/core.ts': 'export {};\n' });
    repo.remove('move to packages', ['src/index.ts', 'lib/core.ts']);
    repo.commit('guide', {
      'packages/a/src/index.ts': 'export {};\n',
      'CONTRIBUTING.md':
        '# Contributing\n\nEach package starts at `src/index.ts`; the core was `lib/core.ts`.\n',
    });
    const { json } = await runCliJson<ScanJson>(['hygiene', 'scan'], { cwd: repo.dir, env });
    assert.deepEqual(named(json, 'CONTRIBUTING.md'), []);
    const all = await runCliJson<ScanJson>(['hygiene', 'scan', '--signals', 'all'], { cwd: repo.dir, env });
    assert.deepEqual(named(all.json, 'CONTRIBUTING.md').sort(), [
      'code_reference:3:lib/core.ts',
      'code_reference:3:src/index.ts',
    ]);
  });

  it('holds back a moved path named in a record (a design doc names the paths of its day)', async () => {
    const repo = repoWith({
      'tools/release.ts': 'export {};\n',
      'design/release-flow.md': '# Release flow\n\nThe flow lives in `tools/release.ts`.\n',
      'CONTRIBUTING.md': '# Contributing\n\nThe flow lives in `tools/release.ts`.\n',
    });
    repo.move('rename the release script', 'tools/release.ts', 'tools/ship.ts');
    const { json } = await runCliJson<ScanJson>(['hygiene', 'scan'], { cwd: repo.dir, env });
    assert.deepEqual(named(json, 'CONTRIBUTING.md'), ['code_reference:3:tools/release.ts']);
    assert.deepEqual(named(json, 'design/release-flow.md'), []);
    assert.equal(json.withheld.hidden['code_reference'], 1);
  });

  it('check proposes the moved path fix from a shown code_reference, and none from a held-back one', async () => {
    const repo = repoWith({
      'tools/release.ts': 'export {};\n',
      'CONTRIBUTING.md': '# Contributing\n\nThe flow lives in `tools/release.ts`.\n',
      'design/release-flow.md': '# Release flow\n\nThe flow lives in `tools/release.ts`.\n',
    });
    repo.move('rename the release script', 'tools/release.ts', 'tools/ship.ts');
    const { json, code, stderr } = await runCliJson<{
      findings: { rule: string; path: string; entry?: { safety_tier: string } }[];
    }>(['hygiene', 'check', '--no-write'], { cwd: repo.dir, env });
    assert.equal(code, 0, stderr);
    const fixed = json.findings.filter((f) => f.entry !== undefined).map((f) => `${f.rule} ${f.path}`);
    assert.deepEqual(fixed, ['code_reference CONTRIBUTING.md']);
    // --fail-on and --signals all show the held-back finding and count it; neither makes it
    // proposed for (clean would otherwise rewrite a record doc nobody asked to change).
    for (const flags of [
      ['--fail-on', 'code_reference'],
      ['--signals', 'all'],
    ]) {
      const shown = await runCliJson<{
        findings: { rule: string; path: string; entry?: { safety_tier: string } }[];
      }>(['hygiene', 'check', '--no-write', ...flags], { cwd: repo.dir, env });
      const rows = shown.json.findings.map((f) => `${f.rule} ${f.path} ${f.entry !== undefined}`);
      assert.ok(rows.includes('code_reference design/release-flow.md false'), rows.join('\n'));
      assert.ok(rows.includes('code_reference CONTRIBUTING.md true'), rows.join('\n'));
    }
  });
});

describe('broken_reference held back where the tree cannot judge the link', () => {
  it('a link to a built page from a doc no site builds (a redirect stub) is hidden, counted, and shown with --signals all', async () => {
    const repo = repoWith({
      'book.toml': '[book]\ntitle = "Book"\n',
      'src/SUMMARY.md': '# Summary\n\n- [Intro](ch01-intro.md)\n',
      'src/ch01-intro.md': '# Intro\n\nHello.\n',
      'redirects/intro.md': '% Intro\n\nThis page moved: [the intro](ch01-intro.html).\n',
      'README.md': '# Book\n\nSee [the guide](guide.md).\n',
    });
    const { json } = await runCliJson<ScanJson>(['hygiene', 'scan'], { cwd: repo.dir, env });
    assert.deepEqual(named(json, 'redirects/intro.md'), []);
    assert.deepEqual(named(json, 'README.md'), ['broken_reference:3:guide.md']);
    assert.equal(json.withheld.hidden['broken_reference'], 1);
    const all = await runCliJson<ScanJson>(['hygiene', 'scan', '--signals', 'all'], { cwd: repo.dir, env });
    assert.deepEqual(named(all.json, 'redirects/intro.md'), ['broken_reference:3:ch01-intro.html']);
  });
});

describe('--fail-on a class hidden by default', () => {
  it('counts that class: it was asked for by name (and shows it in that run)', async () => {
    const repo = repoWith({ 'drafts/plan.md': '# Plan\n\nSoon.\n' });
    const plain = await runCliJson<ScanJson>(['hygiene', 'scan'], { cwd: repo.dir, env });
    assert.deepEqual(named(plain.json, 'drafts/plan.md'), []);
    assert.equal(plain.json.withheld.hidden['stale_name_location'], 1);
    const gated = await runCli(['hygiene', 'scan', '--fail-on', 'stale_name_location'], {
      cwd: repo.dir,
      env,
    });
    assert.equal(gated.code, 3, gated.stderr);
    assert.match(
      gated.stdout,
      /^Gate failed: 1 finding \(--fail-on stale_name_location\), at most 0 allowed\.$/m,
    );
    assert.match(gated.stdout, /drafts\/plan\.md {2}stale_name_location/);
    // Naming another class leaves the hidden one hidden.
    const other = await runCli(['hygiene', 'scan', '--fail-on', 'broken_reference'], { cwd: repo.dir, env });
    assert.equal(other.code, 0, other.stdout);
  });
});
