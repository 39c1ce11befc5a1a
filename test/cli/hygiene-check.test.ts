import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, runCliJson } from '../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo } from '../helpers/git-repo.js';

const NOW = '2026-03-01T12:00:00Z';
const env = { STW_NOW: NOW };

let repo: TestRepo;
let scratch: string;

before(() => {
  repo = makeRepo();
  repo.commit('docs', {
    'README.md': '# Widgets\n\nSee the [guide](docs/guide.md).\n',
    'docs/guide.md': '# Guide\n\nUse it.\n',
    'docs/plans/idea.md': '# Idea\n\nNobody links here.\n',
    'docs/plans/done.md': '---\nstatus: done\n---\n# Done\n',
    // This repository's plans/ expire: stale_name_location (hidden by default) is on.
    '.dochygiene.yml': 'signals:\n  stale_name_location: on\n',
  });
  scratch = makeTempDir();
});
after(() => repo.cleanup());

describe('stw hygiene check', () => {
  it('scan prints one path:line signal line per signal after the counts', async () => {
    const result = await runCli(['hygiene', 'scan'], { cwd: repo.dir, env });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Signals:$/m);
    assert.match(result.stdout, /^Findings:$/m);
    assert.match(
      result.stdout,
      /^ {2}docs\/plans\/done\.md:2:1 {2}frontmatter_marker {2}frontmatter status: done$/m,
    );
    assert.match(
      result.stdout,
      /^ {2}docs\/plans\/idea\.md {2}stale_name_location {2}lives under "docs\/plans\/"$/m,
    );
    assert.doesNotMatch(result.stdout, /Files with signals/);
  });

  it('prints the top findings grouped by what to do (fix, look at), each capped, the rest in report.md', async () => {
    const own = makeRepo();
    try {
      const links = Array.from({ length: 12 }, (_, i) => `- [gone ${i + 1}](gone-${i + 1}.md)`);
      own.commit('docs', {
        'README.md': `# Widgets\n\nSee [setup](docs/setup.md).\n\n${links.join('\n')}\n`,
        'docs/setup.md': '# Setup\n',
        'docs/plans/idea.md': '# Idea\n\nNobody links here.\n',
        '.dochygiene.yml': 'signals:\n  stale_name_location: on\n',
      });
      own.move('move setup', 'docs/setup.md', 'docs/install.md');
      const result = await runCli(['hygiene', 'check'], { cwd: own.dir, env });
      assert.equal(result.code, 0, result.stderr);
      const lines = result.stdout.split('\n');
      const fix = lines.indexOf('Fix — 2 (stw hygiene clean applies them):');
      assert.ok(fix !== -1, result.stdout);
      assert.match(
        lines[fix + 1]!,
        /^ {2}README\.md:3:\d+ {2}broken_reference {2}link target "docs\/setup\.md" .*\[[^,\]]+, auto\]$/,
      );
      assert.match(
        lines[fix + 2]!,
        /^ {2}docs\/plans\/idea\.md {2}stale_name_location {2}.*\[[^,\]]+, confirm\]$/,
      );
      const look = lines.indexOf('Look at — 12 (signals with no proposed fix):');
      assert.ok(look > fix, result.stdout);
      assert.match(lines[look + 1]!, /^ {2}README\.md:5:\d+ {2}broken_reference {2}link target "gone-1\.md"/);
      assert.equal(lines[look + 11], '  … 2 more in report.md');
      assert.ok(!lines.some((line) => line.startsWith('Review')), 'no group without findings');
    } finally {
      own.cleanup();
    }
  });

  it('writes a report that stw hygiene validate accepts, prints the summary and both paths; .dochygiene/ ignores itself', async () => {
    const result = await runCli(['hygiene', 'check'], { cwd: repo.dir, env });
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      /^Checked 4 docs: 2 entries in 2 files \(1 auto, 1 need confirmation\); 1 signal with no proposed fix in 1 file; 2 files cleared \(no signal\)\.\n/,
    );
    assert.ok(result.stdout.includes(join(repo.dir, '.dochygiene', 'report.md')));
    assert.ok(result.stdout.includes(join(repo.dir, '.dochygiene', 'report.json')));
    assert.doesNotMatch(result.stdout, /add this line to \.gitignore/, 'the folder ignores itself');
    assert.equal(
      readFileSync(join(repo.dir, '.dochygiene', '.gitignore'), 'utf8')
        .split('\n')
        .includes('*'),
      true,
    );
    assert.equal(
      repo.git(['status', '--porcelain', '--untracked-files=all']),
      '',
      'git add -A would add nothing',
    );
    assert.doesNotMatch(result.stdout, /^Scope:/m, 'no scope line when the check was not narrowed');
    assert.equal(existsSync(join(repo.dir, '.gitignore')), false, '.gitignore is never created or edited');

    const validated = await runCli(['hygiene', 'validate', '.dochygiene/report.json'], { cwd: repo.dir });
    assert.equal(validated.code, 0, validated.stdout + validated.stderr);

    const again = await runCliJson(['hygiene', 'check'], {
      cwd: join(repo.dir, 'docs'),
      env: { STW_NOW: '2026-03-02T00:00:00Z' },
    });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.json['status'], 'complete');
    assert.equal(again.json['generated_at'], '2026-03-02T00:00:00Z');
    const { signal_counts: counts, ...summary } = again.json['summary'] as Record<string, unknown>;
    // Per class, what was shown, hidden and suppressed (test/cli/hygiene-suppress.test.ts has the rest).
    assert.deepEqual((counts as { suppressed: number; hidden: number }).suppressed, 0);
    assert.deepEqual(summary, {
      candidates: 2,
      files_with_entries: 2,
      signals_without_entry: 1,
      files_with_unfixed_signals: 1,
      unverifiable_references: 0,
      cleared: 2,
      auto: 1,
      confirm: 1,
      tokens_saved_per_session: 0,
      agents: [],
    });
    assert.equal(again.json['gitignore_line'], null);
    assert.equal(again.json['classifier'], 'rules');
    assert.deepEqual(
      readdirSync(join(repo.dir, '.dochygiene'))
        .filter((n) => n.startsWith('report'))
        .sort(),
      ['report.json', 'report.md'],
    );
  });

  it('--scope is relative to the current directory and --category filters entries; both reach the report', async () => {
    const result = await runCliJson(['hygiene', 'check', '--scope', 'plans', '--category', 'orphaned'], {
      cwd: join(repo.dir, 'docs'),
      env,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(result.json['scope_globs'], ['docs/plans/**']);
    assert.equal(result.json['category_filter'], 'orphaned');
    const report = JSON.parse(readFileSync(join(repo.dir, '.dochygiene', 'report.json'), 'utf8'));
    assert.deepEqual(report.shortlist, ['docs/plans/done.md', 'docs/plans/idea.md']);
    const human = await runCli(['hygiene', 'check', '--scope', 'docs/plans', '--category', 'stale'], {
      cwd: repo.dir,
      env,
    });
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^Scope: docs\/plans\/\*\*; category: stale\.$/m);
    assert.deepEqual(
      report.entries.map((e: { path: string }) => e.path),
      ['docs/plans/idea.md'],
    );
  });

  it('rejects an unknown category and a scope outside the project as usage errors', async () => {
    const bad = await runCli(['hygiene', 'check', '--category', 'rotten'], { cwd: repo.dir, env });
    assert.equal(bad.code, 2);
    assert.match(
      bad.stderr,
      /^stw: unknown category rotten\nhint: use a class or a subtype: stale, bloat, orphaned/,
    );
    const outside = await runCli(['hygiene', 'check', '--scope', '/'], { cwd: repo.dir, env });
    assert.equal(outside.code, 2);
    assert.match(outside.stderr, /outside the project root/);
  });

  it('a --scope that matches no doc is a usage error and keeps the previous report', async () => {
    const first = await runCli(['hygiene', 'check'], { cwd: repo.dir, env });
    assert.equal(first.code, 0, first.stderr);
    const before = readFileSync(join(repo.dir, '.dochygiene', 'report.json'));
    const typo = await runCli(['hygiene', 'check', '--scope', 'dosc'], { cwd: repo.dir, env });
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /matched no scannable doc; the previous report is kept/);
    assert.deepEqual(readFileSync(join(repo.dir, '.dochygiene', 'report.json')), before);
  });

  it('writes a valid report but exits 1 (partial) when history cannot be read, proposing nothing that needs it', async () => {
    const moved = makeRepo();
    try {
      // Two files named setup.md: only git history can tell which one the link meant.
      moved.commit('docs', {
        'docs/setup.md': '# Setup\n',
        'docs/guide.md': '# Guide\n\nSee [setup](setup.md).\n',
        'tools/setup.md': '# Tool setup\n',
      });
      moved.move('move', 'docs/setup.md', 'docs/start/setup.md');
      const healthy = await runCliJson(['hygiene', 'check'], { cwd: moved.dir, env });
      assert.equal(healthy.code, 0, healthy.stderr);
      const withHistory = JSON.parse(readFileSync(join(moved.dir, '.dochygiene', 'report.json'), 'utf8'));
      assert.deepEqual(
        withHistory.entries.map((e: { exact_edit?: { replacement?: string } }) => e.exact_edit?.replacement),
        ['](start/setup.md'],
      );

      // A git that fails `git log`: the rename evidence is gone, so no link fix is proposed.
      const bin = join(makeTempDir('stw-gitwrap-'), 'bin');
      mkdirSync(bin);
      const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
      writeFileSync(
        join(bin, 'git'),
        `#!/bin/sh\nfor a in "$@"; do [ "$a" = log ] && { echo "fatal: injected" >&2; exit 128; }; done\nexec '${realGit}' "$@"\n`,
      );
      chmodSync(join(bin, 'git'), 0o755);
      // --no-cache: the cache holds this HEAD's history pass, and a run that replays it asks
      // git for no log at all.
      const partial = await runCliJson(['hygiene', 'check', '--no-cache'], {
        cwd: moved.dir,
        env: { ...env, PATH: `${bin}:${process.env['PATH']}` },
      });
      assert.equal(partial.code, 1);
      assert.equal(partial.json['status'], 'partial');
      assert.match(partial.stderr, /the scan is incomplete/);
      const report = JSON.parse(readFileSync(join(moved.dir, '.dochygiene', 'report.json'), 'utf8'));
      assert.deepEqual(report.entries, []);
      const validated = await runCli(['hygiene', 'validate', '.dochygiene/report.json'], { cwd: moved.dir });
      assert.equal(validated.code, 0, validated.stdout + validated.stderr);
    } finally {
      moved.cleanup();
    }
  });

  it('--help tells what it does', async () => {
    const help = await runCli(['hygiene', 'check', '--help'], { cwd: repo.dir });
    assert.equal(help.code, 0);
    assert.match(
      help.stdout,
      /^Usage: stw hygiene check \[PATH…\] \[--scope GLOB\|PATH\]… \[--category CLASS\|SUBTYPE\]\n +\[--classifier NAME \[--model NAME\] \| --proposals FILE\]\n +\[--format text\|json\|sarif\|github\] \[--fail-on LEVEL\]/,
    );
  });
});

describe('stw hygiene finalize', () => {
  let scanFile: string;
  before(async () => {
    const scanned = await runCli(['hygiene', 'scan', '--json'], { cwd: repo.dir, env });
    assert.equal(scanned.code, 0, scanned.stderr);
    scanFile = join(scratch, 'scan.json');
    writeFileSync(scanFile, scanned.stdout);
  });

  it('builds a valid report from a scan artifact and proposals', async () => {
    const proposalsFile = join(scratch, 'proposals.json');
    writeFileSync(
      proposalsFile,
      JSON.stringify([
        {
          path: 'docs/guide.md',
          category: { class: 'bloat', subtype: 'distill' },
          signals: [],
          op: 'Tighten the guide.',
          op_type: 'generative',
          confidence: 0.5,
        },
        {
          path: 'docs/plans/idea.md',
          category: { class: 'stale', subtype: 'orphaned' },
          signals: [],
          op: 'Delete the idea.',
          op_type: 'deterministic',
          exact_edit: { kind: 'delete-range', anchor: { start_line: 1, end_line: 3 } },
          confidence: 0.6,
        },
      ]),
    );
    const out = join(scratch, 'report.json');
    const built = await runCli(
      ['hygiene', 'finalize', '--scan', scanFile, '--proposals', proposalsFile, '--out', out],
      {
        cwd: repo.dir,
        env,
      },
    );
    assert.equal(built.code, 0, built.stderr);
    assert.match(built.stdout, /^Wrote a report with 2 entries \(0 auto, 2 need confirmation/);
    const report = JSON.parse(readFileSync(out, 'utf8'));
    assert.equal(report.generated_at, NOW);
    assert.equal(report.entries[1].exact_edit.expected_sha256.length, 64);
    assert.deepEqual(
      report.entries.map((e: { safety_tier: string }) => e.safety_tier),
      ['confirm', 'confirm'],
    );
    const validated = await runCli(['hygiene', 'validate', out], { cwd: repo.dir });
    assert.equal(validated.code, 0, validated.stdout + validated.stderr);

    // Without --out the report itself goes to stdout; --json wraps it with a status.
    const piped = await runCli(['hygiene', 'finalize', '--scan', scanFile, '--proposals', proposalsFile], {
      cwd: repo.dir,
      env,
    });
    assert.equal(piped.code, 0, piped.stderr);
    assert.deepEqual(JSON.parse(piped.stdout), report);
    const wrapped = await runCliJson(
      ['hygiene', 'finalize', '--scan', scanFile, '--proposals', proposalsFile],
      { cwd: repo.dir, env },
    );
    assert.equal(wrapped.json['status'], 'complete');
    assert.deepEqual(wrapped.json['report'], report);
  });

  // Every malformed case is covered by the unit tests (finalize.test.ts, proposals.test.ts); here a few end to end.
  it('rejects a malformed proposal with its index and reason, writing nothing', async () => {
    const good = {
      path: 'docs/plans/idea.md',
      category: { class: 'stale', subtype: 'orphaned' },
      signals: [],
      op: 'Delete the idea.',
      op_type: 'deterministic',
      exact_edit: { kind: 'delete-range', anchor: { start_line: 1, end_line: 3 } },
      confidence: 0.6,
    };
    const cases: [unknown, RegExp][] = [
      [
        { ...good, exact_edit: { kind: 'delete-range', anchor: { start_line: 2, end_line: 40 } } },
        /proposals\[1\]\.exact_edit\.anchor: lines 2–40 are outside the file \(3 lines\)/,
      ],
      [
        { ...good, exact_edit: { anchor: { start_line: 1, end_line: 1 } } },
        /proposals\[1\]\.exact_edit\.kind: is required/,
      ],
      [
        { ...good, category: { class: 'stale', subtype: 'mouldy' } },
        /proposals\[1\]\.category\.subtype: must be one of/,
      ],
    ];
    for (const [bad, pattern] of cases) {
      const proposalsFile = join(scratch, 'bad.json');
      writeFileSync(
        proposalsFile,
        JSON.stringify([
          {
            ...good,
            path: 'docs/guide.md',
            exact_edit: { kind: 'delete-range', anchor: { start_line: 1, end_line: 1 } },
          },
          bad,
        ]),
      );
      const out = join(scratch, 'never.json');
      const result = await runCliJson(
        ['hygiene', 'finalize', '--scan', scanFile, '--proposals', proposalsFile, '--out', out],
        { cwd: repo.dir, env },
      );
      assert.equal(result.code, 1, result.stdout);
      assert.match(result.stderr, pattern);
      assert.equal((result.json['error'] as { code: string }).code, 'invalid-proposals');
      assert.equal(existsSync(out), false);
    }
  });

  it('proves every link fix as check does: a fix that resolves is kept (confirm: no scanner evidence names its target), one that does not is dropped and named', async () => {
    const linked = makeRepo();
    try {
      linked.commit('docs', {
        'README.md': '# R\n\nSee [setup](docs/old.md#setup).\n',
        'docs/a.md': '# A\n\nSee [setup](old.md#setup).\n',
        'docs/setup.md': '# Setup\n\n## Setup\n',
      });
      const scanned = await runCli(['hygiene', 'scan', '--json'], { cwd: linked.dir, env });
      assert.equal(scanned.code, 0, scanned.stderr);
      const scan = join(scratch, 'linked-scan.json');
      writeFileSync(scan, scanned.stdout);
      const fix = (path: string, match: string, replacement: string) => ({
        path,
        category: { class: 'stale', subtype: 'dangling-reference' },
        signals: [{ name: 'broken_reference', line: 3, detail: 'broken' }],
        op: 'Fix the link.',
        op_type: 'deterministic',
        exact_edit: { kind: 'replace-text', anchor: { start_line: 3, end_line: 3 }, match, replacement },
        confidence: 0.9,
      });
      const proposalsFile = join(scratch, 'linked-proposals.json');
      writeFileSync(
        proposalsFile,
        JSON.stringify([
          fix('README.md', '](docs/old.md#setup', '](docs/setup.md#setup'),
          fix('docs/a.md', '](old.md#setup', '](setup.md#install'),
        ]),
      );
      const result = await runCliJson(['hygiene', 'finalize', '--scan', scan, '--proposals', proposalsFile], {
        cwd: linked.dir,
        env,
      });
      assert.equal(result.code, 0, result.stderr);
      const report = result.json['report'] as { entries: { path: string; safety_tier: string }[] };
      assert.deepEqual(
        report.entries.map((e) => [e.path, e.safety_tier]),
        [['README.md', 'confirm']],
      );
      assert.deepEqual(result.json['unproved'], [
        { path: 'docs/a.md', reason: 'the new target setup.md#install does not resolve' },
      ]);
      assert.match(
        result.stderr,
        /dropped an unproved link fix in docs\/a\.md: the new target setup\.md#install does not resolve/,
      );
    } finally {
      linked.cleanup();
    }
  });

  it('requires both inputs', async () => {
    const result = await runCli(['hygiene', 'finalize', '--scan', 'x.json'], { cwd: repo.dir });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /missing --proposals FILE/);
  });
});
