import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { fixedClock } from '../../src/core/clock.js';
import { ConfigError, UsageError, ValidationError } from '../../src/core/errors.js';
import { runCheck } from '../../src/hygiene/check.js';
import { validateReport } from '../../src/hygiene/report/validate.js';
import { StateStore } from '../../src/hygiene/state/store.js';
import { makeRepo, makeTempDir, type TestRepo } from '../helpers/git-repo.js';
import { userConfig } from '../helpers/user-config.js';

const NOW = '2026-03-01T12:00:00Z';
const LATER = '2026-03-02T12:00:00Z';

/** A small project with one candidate of each kind the rules classifier makes. */
export const FIXTURE_TREE: Record<string, string> = {
  'README.md':
    '# Widgets\n\nStart with the [guide](docs/guide.md) and the [rollout](docs/plans/rollout.md).\n',
  'docs/guide.md': '# Guide\n\nSee [setup](setup.md) for the toolchain.\n',
  'docs/install.md': '# Install\n\nRun the installer.\n',
  'docs/plans/idea.md': '# An idea\n\nNobody links here.\n',
  'docs/plans/rollout.md': '---\nstatus: done\n---\n# Rollout\n\n- [x] ship\n',
  'docs/design-v1.md': '---\nsuperseded_by: design-v2.md\n---\n# Design v1\n',
  'docs/design-v2.md': '# Design v2\n',
  'CLAUDE.md': `# Agent notes\n\n${Array.from({ length: 60 }, (_, i) => `- Note ${i}: keep the widget renderer pure and test it before committing change ${i}.`).join('\n')}\n`,
  // The plans/ folder's ideas expire here: stale_name_location (hidden by default) is turned on.
  '.dochygiene.yml': 'context:\n  budget_tokens: 300\nsignals:\n  stale_name_location: on\n',
};

/** The `broken_reference` targets of a report, in entries and unresolved signals alike (of one doc, or all). */
function brokenTargets(report: Awaited<ReturnType<typeof runCheck>>['report'], doc?: string): unknown[] {
  const signals = [
    ...report.entries.filter((e) => doc === undefined || e.path === doc).flatMap((e) => e.signals),
    ...(doc === undefined
      ? Object.values(report.unresolved_signals ?? {}).flat()
      : (report.unresolved_signals?.[doc] ?? [])),
  ];
  return signals.filter((s) => s.name === 'broken_reference').map((s) => s.data?.['target']);
}

/** A report's link-fix entries (`stale/dangling-reference`), in the report's order. */
function linkFixes(report: Awaited<ReturnType<typeof runCheck>>['report']) {
  return report.entries.filter((e) => e.category.subtype === 'dangling-reference');
}

function fixtureRepo(): TestRepo {
  const repo = makeRepo();
  repo.commit('docs', FIXTURE_TREE, { date: '2026-01-02T00:00:00Z' });
  // docs/setup.md was renamed: the guide's link now dangles, and history knows where it went.
  repo.commit(
    'setup',
    { 'docs/setup.md': '# Setup\n\nInstall the toolchain.\n' },
    { date: '2026-01-03T00:00:00Z' },
  );
  repo.move('rename setup', 'docs/setup.md', 'docs/getting-started/setup.md', {
    date: '2026-01-04T00:00:00Z',
  });
  return repo;
}

function reportFiles(root: string): string[] {
  return readdirSync(join(root, '.dochygiene'))
    .filter((name) => name.startsWith('report'))
    .sort();
}

const repos: TestRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.cleanup();
});
function track(repo: TestRepo): TestRepo {
  repos.push(repo);
  return repo;
}

describe('runCheck', () => {
  it('writes a valid report pair, stamps last_check, and a second check leaves exactly one pair', async () => {
    const repo = track(fixtureRepo());
    const first = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW) });
    assert.equal(first.report.generated_at, NOW);
    assert.deepEqual(validateReport(JSON.parse(readFileSync(first.reportJsonPath, 'utf8'))), []);
    assert.ok(readFileSync(first.reportMdPath, 'utf8').startsWith('# Docs hygiene report'));
    assert.equal((await new StateStore(repo.dir).read()).last_check, NOW);
    assert.equal(first.classifier, 'rules');
    assert.equal(first.partial, false);

    const kinds = first.report.entries.map((e) => [
      e.path,
      e.category.subtype,
      e.exact_edit?.kind ?? 'generative',
      e.safety_tier,
    ]);
    assert.deepEqual(kinds, [
      ['CLAUDE.md', 'distill', 'generative', 'confirm'],
      ['docs/design-v1.md', 'superseded', 'move-to-archive', 'confirm'],
      ['docs/guide.md', 'dangling-reference', 'replace-text', 'auto'],
      ['docs/plans/idea.md', 'orphaned', 'delete-range', 'confirm'],
      ['docs/plans/rollout.md', 'completed-in-place', 'insert-frontmatter', 'auto'],
    ]);
    const link = first.report.entries.find((e) => e.path === 'docs/guide.md')!;
    assert.equal(link.exact_edit?.match, '](setup.md');
    assert.equal(link.exact_edit?.replacement, '](getting-started/setup.md');
    const distill = first.report.entries.find((e) => e.path === 'CLAUDE.md')!;
    assert.equal(distill.token_estimate.injection_frequency, 1);
    assert.equal(first.summary.tokens_saved_per_session, distill.token_estimate.weighted_tokens);
    assert.ok(first.summary.tokens_saved_per_session > 300);
    const { signal_counts: counts, ...summary } = first.summary;
    // Nothing suppressed; the hidden classes listed (docs/scanner-and-classifiers.md, "Which signals are shown").
    assert.equal(counts?.suppressed, 0);
    assert.deepEqual(counts?.hidden_classes.sort(), [
      'append_only_growth',
      'context_growth',
      'duplicate_content',
      'edit_recency_vs_churn',
      'near_duplicate',
      'tool_specific_wording',
      'version_skew',
    ]);
    assert.equal(counts?.shown, Object.values(first.signals).flat().length);
    assert.deepEqual(summary, {
      candidates: 5,
      files_with_entries: 5,
      signals_without_entry: 1,
      files_with_unfixed_signals: 1,
      unverifiable_references: 0,
      cleared: 4,
      auto: 2,
      confirm: 3,
      tokens_saved_per_session: distill.token_estimate.weighted_tokens,
      // A distill saves what is over the 300-token budget, counted for the agent that loads it.
      agents: [
        {
          agent: 'claude-code',
          name: 'Claude Code',
          startup_files: 1,
          startup_tokens: distill.token_estimate.raw_tokens,
          tokens_saved_per_session: distill.token_estimate.raw_tokens - 300,
        },
      ],
    });
    assert.equal(first.gitignoreLine, undefined, '.dochygiene/ was created with its own .gitignore');

    const second = await runCheck({ cwd: repo.dir, clock: fixedClock(LATER) });
    assert.deepEqual(reportFiles(repo.dir), ['report.json', 'report.md']);
    assert.equal(JSON.parse(readFileSync(second.reportJsonPath, 'utf8')).generated_at, LATER);
    assert.equal((await new StateStore(repo.dir).read()).last_check, LATER);
    // Ids are stable across re-checks of unchanged files.
    assert.deepEqual(
      second.report.entries.map((e) => e.id),
      first.report.entries.map((e) => e.id),
    );
    // Nothing outside .dochygiene/ was touched.
    assert.match(repo.status(), /^(!! \.dochygiene\/[^\0]*\0)+$/);
  });

  it('counts the tokens a distill saves once per real file, however many names lead to it', async () => {
    const repo = track(makeRepo());
    repo.commit('agents', {
      'AGENTS.md': `# Rules\n\n${Array.from({ length: 80 }, (_, i) => `- Rule ${i}: keep the widget renderer pure.`).join('\n')}\n`,
      '.dochygiene.yml': 'context:\n  budget_tokens: 300\n',
    });
    symlinkSync('AGENTS.md', join(repo.dir, 'CLAUDE.md'));
    repo.git(['add', '-A']);
    repo.commit('link');
    const { summary } = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW) });
    const byAgent = new Map(summary.agents!.map((a) => [a.agent, a]));
    const codex = byAgent.get('codex')!;
    assert.equal(codex.tokens_saved_per_session, codex.startup_tokens - 300);
    // Claude Code reaches the same file through CLAUDE.md: the same saving, not twice it.
    assert.equal(byAgent.get('claude-code')!.tokens_saved_per_session, codex.tokens_saved_per_session);
  });

  it('never writes a report that fails validation: the previous pair stays byte-identical', async () => {
    const repo = track(fixtureRepo());
    const good = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW) });
    const before = [readFileSync(good.reportJsonPath), readFileSync(good.reportMdPath)];
    const corruptions: ((report: import('../../src/hygiene/types.js').Report) => void)[] = [
      (report) => {
        report.entries[0]!.safety_tier = report.entries[0]!.safety_tier === 'auto' ? 'confirm' : 'auto';
      },
      (report) => {
        report.entries[1]!.path = 'not/in/the/shortlist.md';
      },
      (report) => {
        (report as { schema_version: string }).schema_version = '2.0';
      },
    ];
    for (const corrupt of corruptions) {
      await assert.rejects(
        runCheck({ cwd: repo.dir, clock: fixedClock(LATER), faults: { corruptReport: corrupt } }),
        (error: unknown) => {
          assert.ok(error instanceof ValidationError, String(error));
          assert.match(error.message, /nothing was written/);
          return true;
        },
      );
      assert.deepEqual(readFileSync(good.reportJsonPath), before[0]);
      assert.deepEqual(readFileSync(good.reportMdPath), before[1]);
      assert.deepEqual(reportFiles(repo.dir), ['report.json', 'report.md']);
      assert.equal((await new StateStore(repo.dir).read()).last_check, NOW, 'last_check is not stamped');
    }
  });

  it('narrows the scan with scopes and records them', async () => {
    const repo = track(fixtureRepo());
    const result = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW), scopes: ['docs/plans'] });
    assert.deepEqual(result.report.shortlist, ['docs/plans/idea.md', 'docs/plans/rollout.md']);
    assert.deepEqual(
      result.report.entries.map((e) => e.path),
      ['docs/plans/idea.md', 'docs/plans/rollout.md'],
    );
    assert.deepEqual(result.report.scan.scope_globs, ['docs/plans/**']);
    assert.match(readFileSync(result.reportMdPath, 'utf8'), /\*\*Scope:\*\* `docs\/plans\/\*\*`/);
  });

  it('filters entries by class or subtype, records the filter, and refuses an unknown one before writing', async () => {
    const repo = track(fixtureRepo());
    const bloat = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW), category: 'bloat' });
    assert.deepEqual(
      bloat.report.entries.map((e) => e.category.subtype),
      ['distill'],
    );
    assert.equal(bloat.report.scan.category_filter, 'bloat');
    assert.equal(bloat.report.shortlist.length, bloat.report.scan.files_scanned);
    const orphaned = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW), category: 'orphaned' });
    assert.deepEqual(
      orphaned.report.entries.map((e) => e.path),
      ['docs/plans/idea.md'],
    );
    assert.match(readFileSync(orphaned.reportMdPath, 'utf8'), /\*\*Category filter:\*\* `orphaned`/);
    const before = readFileSync(orphaned.reportJsonPath);
    await assert.rejects(
      runCheck({ cwd: repo.dir, clock: fixedClock(LATER), category: 'rotten' }),
      UsageError,
    );
    assert.deepEqual(readFileSync(orphaned.reportJsonPath), before);
  });

  it('writes a valid empty report and stamps when there is nothing to propose', async () => {
    const repo = track(makeRepo());
    const result = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW) });
    assert.deepEqual(result.report.entries, []);
    assert.deepEqual(result.report.shortlist, ['README.md']);
    assert.deepEqual(validateReport(JSON.parse(readFileSync(result.reportJsonPath, 'utf8'))), []);
    assert.equal((await new StateStore(repo.dir).read()).last_check, NOW);
    assert.match(readFileSync(result.reportMdPath, 'utf8'), /## Cleared \(1 file\)/);
  });

  it('prints the .gitignore line once for a .dochygiene/ made without its own .gitignore (an older release)', async () => {
    const repo = track(makeRepo());
    repo.commit('docs', { 'docs/a.md': '# A\n' });
    mkdirSync(join(repo.dir, '.dochygiene'));
    const result = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW) });
    assert.equal(result.gitignoreLine, '.dochygiene/');
    assert.equal(
      existsSync(join(repo.dir, '.dochygiene', '.gitignore')),
      false,
      'an existing folder is left as it is',
    );
  });

  it('does not print the .gitignore line when .dochygiene/ is ignored', async () => {
    const repo = track(makeRepo());
    repo.commit('ignore state', { '.gitignore': '.dochygiene/\n' });
    const result = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW) });
    assert.equal(result.gitignoreLine, undefined);
    assert.equal(readFileSync(join(repo.dir, '.gitignore'), 'utf8'), '.dochygiene/\n');
  });

  it('takes proposals from a file instead of the rules classifier, and rejects a malformed one before writing', async () => {
    const repo = track(fixtureRepo());
    const scratch = makeTempDir();
    const file = join(scratch, 'proposals.json');
    writeFileSync(
      file,
      JSON.stringify([
        {
          path: 'docs/install.md',
          category: { class: 'bloat', subtype: 'redundant' },
          signals: [],
          op: 'Fold this into the guide.',
          op_type: 'generative',
          reducible_range: { start_line: 1, end_line: 3 },
          confidence: 0.5,
        },
      ]),
    );
    const result = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW), proposalsFile: file });
    assert.equal(result.classifier, 'proposals-file');
    assert.deepEqual(
      result.report.entries.map((e) => [e.path, e.category.subtype, e.safety_tier]),
      [['docs/install.md', 'redundant', 'confirm']],
    );
    const before = readFileSync(result.reportJsonPath);
    writeFileSync(
      file,
      JSON.stringify([
        {
          path: 'docs/install.md',
          category: { class: 'stale', subtype: 'orphaned' },
          signals: [],
          op: 'Delete.',
          op_type: 'deterministic',
          exact_edit: { kind: 'delete-range', anchor: { start_line: 1, end_line: 30 } },
          confidence: 0.5,
        },
      ]),
    );
    await assert.rejects(
      runCheck({ cwd: repo.dir, clock: fixedClock(LATER), proposalsFile: file }),
      /proposals\[0\]\.exact_edit\.anchor: lines 1–30 are outside the file/,
    );
    writeFileSync(file, '[{"path": "docs/install.md"}]');
    await assert.rejects(
      runCheck({ cwd: repo.dir, clock: fixedClock(LATER), proposalsFile: file }),
      /proposals\[0\]\.category: is required/,
    );
    assert.deepEqual(readFileSync(result.reportJsonPath), before);
    assert.equal((await new StateStore(repo.dir).read()).last_check, NOW);
  });

  it("proves a proposals file's link fix as it proves the rules': one that does not resolve is dropped and its signal listed", async () => {
    const repo = track(fixtureRepo());
    const file = join(makeTempDir(), 'proposals.json');
    const linkFix = (replacement: string) => [
      {
        path: 'docs/guide.md',
        category: { class: 'stale', subtype: 'dangling-reference' },
        // The scanner's signal, as the Claude Code skill copies it from the scan artifact.
        signals: [
          {
            name: 'broken_reference',
            line: 3,
            detail: 'link target "setup.md" does not resolve; moved to "docs/getting-started/setup.md"?',
          },
        ],
        op: 'Point the setup link at its new place.',
        op_type: 'deterministic',
        exact_edit: {
          kind: 'replace-text',
          anchor: { start_line: 3, end_line: 3 },
          match: '(setup.md)',
          replacement,
        },
        confidence: 0.9,
      },
    ];
    writeFileSync(file, JSON.stringify(linkFix('(getting-started/setup.md)')));
    const proved = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW), proposalsFile: file });
    assert.deepEqual(
      proved.report.entries.map((e) => [e.path, e.exact_edit?.kind, e.safety_tier]),
      [['docs/guide.md', 'replace-text', 'auto']],
    );
    // The citation stands for the scanner's signal: its evidence (history shows the move) is
    // what makes the fix auto, and only for the target that evidence names.
    assert.equal(proved.report.entries[0]!.signals[0]!.data?.['suggested_by'], 'rename-history');
    writeFileSync(file, JSON.stringify(linkFix('(install.md)')));
    const elsewhere = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW), proposalsFile: file });
    assert.deepEqual(
      elsewhere.report.entries.map((e) => [e.path, e.exact_edit?.kind, e.safety_tier]),
      [['docs/guide.md', 'replace-text', 'confirm']],
    );
    writeFileSync(file, JSON.stringify(linkFix('(getting-started/set-up.md)')));
    const dropped = await runCheck({ cwd: repo.dir, clock: fixedClock(LATER), proposalsFile: file });
    assert.deepEqual(dropped.report.entries, []);
    assert.equal(dropped.summary.signals_without_entry >= 1, true);
    const md = readFileSync(dropped.reportMdPath, 'utf8');
    assert.match(md, /`docs\/guide\.md`\n {2}- `broken_reference` \(line 3\)[^\n]*no link fix: /);
  });

  it('makes a backticked path fix auto only when history shows the move, never from a file that merely ends in it', async () => {
    const repo = track(makeRepo());
    repo.commit(
      'code',
      {
        'CLAUDE.md':
          '# Notes\n\n- Schemas: `src/schemas.ts` (in packages/core).\n- Helpers: `lib/old-helpers.ts`.\n',
        'packages/core/src/schemas.ts': 'export const schema = 1;\n',
        'lib/old-helpers.ts': 'export const help = () => 1;\n',
      },
      { date: '2026-01-02T00:00:00Z' },
    );
    repo.move('rename helpers', 'lib/old-helpers.ts', 'lib/helpers.ts', { date: '2026-01-03T00:00:00Z' });
    const { report } = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW) });
    const fixes = linkFixes(report).map((e) => [
      e.exact_edit?.anchor?.start_line,
      e.signals[0]!.data?.['suggested_by'],
      e.safety_tier,
    ]);
    // The package-relative path is written from packages/core: rewriting it from the root is
    // a change of convention, so only its signal is reported; the renamed file is proved by
    // history.
    assert.deepEqual(fixes, [[4, 'rename-history', 'auto']]);
    assert.deepEqual(
      report.entries.flatMap((e) => e.signals).filter((s) => s.line === 3),
      [],
    );
  });

  it('makes a rename-history fix confirm when the rename may have split the file (low score, files of its kind added beside)', async () => {
    const repo = track(makeRepo());
    const lines = (name: string, n: number, from = 0) =>
      Array.from({ length: n }, (_, i) => `export const ${name}${from + i} = ${from + i};\n`).join('');
    repo.commit(
      'code',
      {
        'CLAUDE.md': [
          '# Notes',
          '',
          '- Client: `src/acp/client.ts`.', // 3: split into session.ts and dispatcher.ts
          '- Guide: [guide](docs/old-guide.md).', // 4: renamed whole, a doc added beside it
          '- Notes: [notes](notes/old.md).', // 5: renamed and much rewritten, nothing added
          '',
        ].join('\n'),
        'src/acp/client.ts': lines('c', 40),
        'docs/old-guide.md': `# Guide\n\n${lines('g', 10)}`,
        'notes/old.md': `# Notes\n\n${lines('n', 10)}`,
      },
      { date: '2026-01-02T00:00:00Z' },
    );
    repo.git(['mv', 'src/acp/client.ts', 'src/acp/session.ts']);
    repo.commit(
      'split the client',
      { 'src/acp/session.ts': lines('c', 26), 'src/acp/dispatcher.ts': lines('c', 14, 26) },
      { date: '2026-01-03T00:00:00Z' },
    );
    repo.git(['mv', 'docs/old-guide.md', 'docs/guide.md']);
    repo.commit('rename the guide', { 'docs/faq.md': '# FAQ\n' }, { date: '2026-01-04T00:00:00Z' });
    repo.git(['mv', 'notes/old.md', 'notes/new.md']);
    repo.commit(
      'rewrite the notes',
      { 'notes/new.md': `# Notes\n\n${lines('n', 7)}` },
      {
        date: '2026-01-05T00:00:00Z',
      },
    );
    // The scores git gives these renames, as the rule reads them.
    const scores = repo
      .git(['log', '-M', '--format=', '--name-status', '--diff-filter=R'])
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.split('\t'));
    assert.deepEqual(
      scores.map(([status, from]) => [from, Number(status!.slice(1)) >= 90]),
      [
        ['notes/old.md', false],
        ['docs/old-guide.md', true],
        ['src/acp/client.ts', false],
      ],
    );
    const { report } = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW) });
    const fixes = linkFixes(report).map((e) => [
      e.exact_edit?.anchor?.start_line,
      e.signals[0]!.data?.['suggested_target'],
      e.signals[0]!.data?.['rename_may_be_split'] ?? false,
      e.safety_tier,
    ]);
    assert.deepEqual(fixes, [
      [3, 'src/acp/session.ts', true, 'confirm'],
      [4, 'docs/guide.md', false, 'auto'],
      [5, 'notes/new.md', false, 'auto'],
    ]);
    // The entry says why history does not settle it, and claims less.
    const split = report.entries.find((e) => e.exact_edit?.anchor?.start_line === 3)!;
    assert.match(split.op, /\(git history shows where it moved, but the rename may have split the file\)/);
    assert.equal(split.confidence, 0.7);
  });

  it('makes a rename-history fix confirm when the commit that moved the file added copies of it (same name, any score)', async () => {
    const repo = track(makeRepo());
    const manifest = (name: string) => `[package]\nname = "${name}"\nversion = "1.0.0"\nedition = "2021"\n`;
    repo.commit(
      'code',
      {
        'CLAUDE.md': [
          '# Notes',
          '',
          '- Bump the version in `py/Cargo.toml`.', // 3: moved to one of three runtime packages
          '- Build with `py/build.rs`.', // 4: moved whole, nothing of its name added
          '',
        ].join('\n'),
        'py/Cargo.toml': manifest('polars'),
        'py/build.rs': 'fn main() {}\n',
      },
      { date: '2026-01-02T00:00:00Z' },
    );
    mkdirSync(join(repo.dir, 'py/runtime/rt-32'), { recursive: true });
    repo.git(['mv', 'py/Cargo.toml', 'py/runtime/rt-32/Cargo.toml']);
    repo.git(['mv', 'py/build.rs', 'py/runtime/build.rs']);
    repo.commit(
      'runtime packages from a template',
      {
        'py/runtime/rt-64/Cargo.toml': manifest('polars-64'),
        'py/runtime/compat/Cargo.toml': manifest('polars-compat'),
        'py/runtime/README.md': '# Runtimes\n',
      },
      { date: '2026-01-03T00:00:00Z' },
    );
    // Git scores both renames whole: the score alone does not show the copies.
    const scores = repo
      .git(['log', '-M', '--format=', '--name-status', '--diff-filter=R'])
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.split('\t'));
    assert.deepEqual(
      scores.map(([status, from, to]) => [from, to, Number(status!.slice(1)) >= 90]),
      [
        ['py/build.rs', 'py/runtime/build.rs', true],
        ['py/Cargo.toml', 'py/runtime/rt-32/Cargo.toml', true],
      ],
    );
    const { report } = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW) });
    const fixes = report.entries
      .filter((e) => e.category.subtype === 'dangling-reference')
      .map((e) => [
        e.exact_edit?.anchor?.start_line,
        e.signals[0]!.data?.['suggested_target'],
        e.signals[0]!.data?.['rename_may_be_split'] ?? false,
        e.safety_tier,
      ]);
    assert.deepEqual(fixes, [
      [3, 'py/runtime/rt-32/Cargo.toml', true, 'confirm'],
      [4, 'py/runtime/build.rs', false, 'auto'],
    ]);
  });

  it('makes a fix from history auto only for a reference written before the move, and none to a path still written after it', async () => {
    const repo = track(makeRepo());
    repo.commit(
      'docs',
      {
        'docs/a.md': '# A\n\nSee [the guide](guide.md).\n',
        'docs/guide.md': '# Guide\n',
        'docs/b.md': '# B\n\nSee [the API](api.md).\n',
        'docs/api.md': '# API\n',
        'CLAUDE.md': '# Notes\n',
        'pkg/utils.py': 'x = 1\n',
      },
      { date: '2026-01-02T00:00:00Z' },
    );
    repo.move('move the guide', 'docs/guide.md', 'docs/manual/guide.md', { date: '2026-01-03T00:00:00Z' });
    repo.move('move the api page', 'docs/api.md', 'docs/api-js.md', { date: '2026-01-03T00:00:00Z' });
    repo.move('move the package', 'pkg/utils.py', 'slim/pkg/utils.py', { date: '2026-01-03T00:00:00Z' });
    repo.commit(
      'written after the moves',
      {
        // A site generator resolves api.md to api-js.md: the old name is still how pages link it.
        'docs/c.md': '# C\n\nSee [the API](api.md).\n',
        'CLAUDE.md': '# Notes\n\n- Helpers live in `pkg/utils.py`.\n',
      },
      { date: '2026-01-04T00:00:00Z' },
    );
    const { report } = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW) });
    const fixes = linkFixes(report).map((e) => [
      e.path,
      e.exact_edit?.replacement,
      e.signals[0]!.data?.['suggested_by'],
      e.safety_tier,
    ]);
    assert.deepEqual(fixes, [
      ['CLAUDE.md', '`slim/pkg/utils.py`', 'rename-history', 'confirm'],
      ['docs/a.md', '](manual/guide.md', 'rename-history', 'auto'],
      ['docs/b.md', '](api-js.md', 'rename-history', 'confirm'],
      ['docs/c.md', '](api-js.md', 'rename-history', 'confirm'],
    ]);
  });

  it('makes a link fix confirm when the doc names the old path where the fix does not reach (link text, transcript)', async () => {
    const repo = track(makeRepo());
    repo.commit(
      'docs',
      {
        // ruff: the label names the old file; the edit rewrites only the link's syntax.
        'docs/a.md': '# A\n\nSee the [`details.md`](./details.md) test.\n',
        'docs/details.md': '# Details\n',
        // aider: a chat transcript records the old path in its quoted lines and edit blocks.
        'docs/chat.md': [
          '# Transcript', // 1
          '', // 2
          '> Added tests/test_io.py to the chat', // 3
          '', // 4
          'I will add a test to the `tests/test_io.py` file.', // 5
          '', // 6
          '```python', // 7
          'tests/test_io.py', // 8
          '```', // 9
          '',
        ].join('\n'),
        'tests/test_io.py': 'x = 1\n',
        // The control: two links to one moved page, each fixed, and a label of its own.
        'docs/b.md': '# B\n\nRead [the guide](guide.md) and [again](guide.md#top).\n',
        'docs/guide.md': '# Guide\n\n## Top\n',
        // The label names the old file name, the link a path to it: a rename leaves the label wrong.
        'docs/c.md': '# C\n\nSee [`notes.md`](ref/notes.md).\n',
        'docs/ref/notes.md': '# Notes\n',
        // The control: a move that keeps the name keeps the label true.
        'docs/d.md': '# D\n\nSee [`tips.md`](ref/tips.md).\n',
        'docs/ref/tips.md': '# Tips\n',
      },
      { date: '2026-01-02T00:00:00Z' },
    );
    repo.move('rename notes', 'docs/ref/notes.md', 'docs/ref/overview.md', { date: '2026-01-03T00:00:00Z' });
    repo.move('move tips', 'docs/ref/tips.md', 'docs/more/tips.md', { date: '2026-01-03T00:00:00Z' });
    repo.move('rename details', 'docs/details.md', 'docs/error-context.md', { date: '2026-01-03T00:00:00Z' });
    repo.move('move tests', 'tests/test_io.py', 'tests/basic/test_io.py', { date: '2026-01-03T00:00:00Z' });
    repo.move('move guide', 'docs/guide.md', 'docs/manual/guide.md', { date: '2026-01-03T00:00:00Z' });
    const { report } = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW) });
    const fixes = linkFixes(report).map((e) => [
      e.path,
      e.exact_edit?.anchor?.start_line,
      e.signals.map((s) => s.data?.['old_path_named_elsewhere'] ?? null),
      e.safety_tier,
    ]);
    assert.deepEqual(fixes, [
      ['docs/a.md', 3, [3], 'confirm'],
      ['docs/b.md', 3, [null, null], 'auto'],
      ['docs/c.md', 3, [3], 'confirm'],
      ['docs/chat.md', 5, [3], 'confirm'],
      ['docs/d.md', 3, [null], 'auto'],
    ]);
    const chat = report.entries.find((e) => e.path === 'docs/chat.md');
    assert.match(chat?.op ?? '', /names the old path on line 3 too/);
  });

  it('makes a fix from history confirm when the moved doc is still served under its old name (frontmatter id)', async () => {
    const repo = track(makeRepo());
    repo.commit(
      'docs',
      {
        'docs/a.md': '# A\n\nSee [the CLI](cli.md).\n\nSee [setup](setup.md).\n',
        'docs/cli.md': '---\nid: cli\ntitle: CLI\n---\n# CLI\n',
        'docs/setup.md': '---\ntitle: Setup\n---\n# Setup\n',
      },
      { date: '2026-01-02T00:00:00Z' },
    );
    repo.move('language pages', 'docs/cli.md', 'docs/cli-js.md', { date: '2026-01-03T00:00:00Z' });
    repo.move('setup page', 'docs/setup.md', 'docs/install.md', { date: '2026-01-03T00:00:00Z' });
    const { report } = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW) });
    const fixes = linkFixes(report).flatMap((e) =>
      e.signals.map((s) => [s.data?.['suggested_target'], s.data?.['old_name_served'] ?? false]),
    );
    assert.deepEqual(fixes, [
      ['cli-js.md', true],
      ['install.md', false],
    ]);
    assert.deepEqual(
      report.entries.map((e) => e.safety_tier),
      ['confirm', 'auto'],
    );
  });

  it('makes a path-suffix link fix confirm when the found file ends in the whole written path, and proposes none for a /-rooted one', async () => {
    const repo = track(makeRepo());
    repo.commit(
      'docs',
      {
        // Written from another folder: broken where it is read, so a person decides.
        'docs/ja/agents.md': '# Agents\n\nSee [the API](ref/lifecycle.md).\n',
        'docs/ja/sandbox/guide.md': '# Guide\n\n![Chart](../assets/chart.png)\n',
        'docs/ref/lifecycle.md': '# Lifecycle\n',
        'docs/assets/chart.png': 'png\n',
        // fastapi: a site serves docs/en/docs/ at its root, so /img/logo.png works there.
        'docs/es/docs/index.md': '# Inicio\n\n<img src="/img/logo.png">\n',
        'docs/en/docs/img/logo.png': 'png\n',
        'docs/guide.md': '# Guide\n\nSee [SIG X](old/sig-x/README.md).\n',
        'groups/sig-x/README.md': '# SIG X\n',
      },
      { date: '2026-01-02T00:00:00Z' },
    );
    const { report } = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW) });
    const fixes = linkFixes(report).map((e) => [
      e.path,
      e.exact_edit?.anchor?.start_line,
      e.signals[0]!.data?.['suggestion_match'],
      e.safety_tier,
    ]);
    // The written path is kept whole inside the found one: only the base differs, so a
    // person decides; a differing folder on the way to the same folder and name stays auto.
    assert.deepEqual(fixes, [
      ['docs/guide.md', 3, 'path-suffix', 'auto'],
      ['docs/ja/agents.md', 3, 'path-suffix', 'confirm'],
      ['docs/ja/sandbox/guide.md', 3, 'path-suffix', 'confirm'],
    ]);
    // A /-rooted link the root lacks and a folder has was written for a site: no fix, and
    // the signal is reported with the file it found.
    assert.deepEqual(
      (report.unresolved_signals?.['docs/es/docs/index.md'] ?? []).map((s) => [
        s.name,
        s.line,
        s.data?.['suggested_path'],
      ]),
      [['broken_reference', 3, 'docs/en/docs/img/logo.png']],
    );
  });

  it('makes a same-name link fix confirm when the target is a URL in a mangled link or a bundler alias, not a path', async () => {
    const repo = track(makeRepo());
    repo.commit(
      'docs',
      {
        // `[x]((url))`: the destination is `(url)`, a relative path on GitHub.
        'keps/sig-a/2-b/README.md':
          '# B\n\nSee [watch]((https://github.com/o/r/blob/master/keps/sig-a/1-watch/README.md#watch)).\n',
        'keps/sig-a/1-watch/README.md': '# Watch\n\n## Watch\n',
        // VitePress resolves `@theme` to .vitepress/theme.
        'src/guide/intro.md': '# Intro\n\n<style src="@theme/styles/mastery.css"></style>\n',
        '.vitepress/theme/styles/mastery.css': 'a {}\n',
        // A path written one folder off, found by its folder and name: still proved.
        'docs/guide.md': '# Guide\n\nSee [SIG X](old/sig-x/README.md).\n',
        'groups/sig-x/README.md': '# SIG X\n',
      },
      { date: '2026-01-02T00:00:00Z' },
    );
    const { report } = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW) });
    const fixes = linkFixes(report).map((e) => [
      e.path,
      e.signals[0]!.data?.['suggestion_match'],
      e.exact_edit?.replacement,
      e.safety_tier,
    ]);
    assert.deepEqual(fixes, [
      ['docs/guide.md', 'path-suffix', '](../groups/sig-x/README.md', 'auto'],
      ['keps/sig-a/2-b/README.md', 'path-suffix', '](../1-watch/README.md#watch', 'confirm'],
      ['src/guide/intro.md', 'path-suffix', '="../../.vitepress/theme/styles/mastery.css"', 'confirm'],
    ]);
  });

  it("reads a VitePress page's root-relative links from its source folder and public folder, not the repository's root", async () => {
    const repo = track(makeRepo());
    repo.commit(
      'docs',
      {
        'docs/.vitepress/config.ts': "export default { title: 'Site' }\n",
        'docs/guide/index.md': '# Guide\n\n## Setup\n',
        'docs/guide/build.md':
          '# Build\n\nSee [setup](/guide/index.md#setup), [the guide](/guide/), [build](/guide/build),\n' +
          '![Logo](/logo.png), [gone](/guide/gone.md) and [no anchor](/guide/index.md#nowhere).\n',
        'docs/public/logo.png': 'png\n',
        'docs/other/gone.md': '# Gone\n',
        // The same links outside the site are read from the repository's root.
        'notes/todo.md': '# Todo\n\nSee [setup](/guide/index.md#setup).\n',
      },
      { date: '2026-01-02T00:00:00Z' },
    );
    const { report } = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW) });
    const byDoc = (doc: string) => brokenTargets(report, doc).sort();
    // The page, the folder's index, the extensionless page and the public file resolve on the
    // site; a page that exists only elsewhere and a missing anchor are still broken. The
    // same-named guess (`/docs/other/gone.md`, written from the repository's root) does not
    // resolve on the site, so no fix is proposed: both signals are listed in report.md.
    assert.deepEqual(byDoc('docs/guide/build.md'), ['/guide/gone.md', '/guide/index.md#nowhere']);
    assert.match(
      readFileSync(join(repo.dir, '.dochygiene', 'report.md'), 'utf8'),
      /fragment "#nowhere" matches no heading in "docs\/guide\/index\.md" on the VitePress site/,
    );
    assert.deepEqual(byDoc('notes/todo.md'), ['/guide/index.md#setup']);
  });

  it("reads a Docusaurus site's root-relative image from its static folder, for docs inside the site's folder only", async () => {
    const repo = track(makeRepo());
    repo.commit(
      'docs',
      {
        'website/docusaurus.config.js': 'module.exports = { title: "Site" };\n',
        'website/versions.json': '["stable"]\n',
        'website/static/images/logo.png': 'png\n',
        'website/versioned_docs/version-stable/index.md':
          '# Home\n\n![Logo](/images/logo.png) ![Gone](/images/gone.png)\n',
        // Outside the site's folder the link is read from the repository's root.
        'docs/index.md': '# Home\n\n![Logo](/images/logo.png)\n',
      },
      { date: '2026-01-02T00:00:00Z' },
    );
    const { report } = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW) });
    const byDoc = (doc: string) => brokenTargets(report, doc);
    assert.deepEqual(byDoc('website/versioned_docs/version-stable/index.md'), ['/images/gone.png']);
    assert.deepEqual(byDoc('docs/index.md'), ['/images/logo.png']);
  });

  it("reads a Jekyll site's root-relative links from its source folder, not for a _config.yml without Jekyll's marks", async () => {
    const repo = track(makeRepo());
    repo.commit(
      'docs',
      {
        // aider: the site's source is aider/website/, served at the site's root.
        'site/_config.yml': 'theme: just-the-docs\nexclude:\n  - OLD\n',
        'site/CNAME': 'docs.example.com\n',
        'site/_includes/head.html': '<meta>\n',
        'site/assets/chart.svg': '<svg/>\n',
        'site/_posts/2024-01-01-post.md': '# Post\n\n![Chart](/assets/chart.svg) ![Gone](/assets/gone.svg)\n',
        // Files Jekyll reads but does not serve: a `_` folder, an excluded or default-excluded one.
        'site/_posts/2024-01-02-next.md':
          '# Next\n\n[Post](/_posts/2024-01-03-own.md) [Head](/_includes/head.html) ' +
          '[Old](/OLD/chart.svg)\n',
        'site/_posts/2024-01-04-gems.md': '# Gems\n\n[Gems](/Gemfile)\n',
        'site/_posts/2024-01-03-own.md': '# Own\n',
        'site/OLD/chart.svg': '<svg/>\n',
        'site/Gemfile': 'source "https://rubygems.org"\n',
        // A config that sets source: is not read; nor a _config.yml with no sign of Jekyll.
        'moved/_config.yml': 'source: src\n',
        'moved/_layouts/default.html': '<html/>\n',
        'moved/assets/chart.svg': '<svg/>\n',
        'moved/index.md': '# Home\n\n![Chart](/assets/chart.svg)\n',
        'other/_config.yml': 'title: not a site\n',
        'other/assets/chart.svg': '<svg/>\n',
        'other/index.md': '# Home\n\n![Chart](/assets/chart.svg)\n',
        // Served under /project: /assets/chart.svg leaves the site.
        'project/_config.yml': 'baseurl: "/project"\n',
        'project/_posts/2024-01-01-post.md': '# Post\n\n![Chart](/assets/chart.svg)\n',
        'project/assets/chart.svg': '<svg/>\n',
        'rooted/_config.yml': 'baseurl: "" # served at the root\n',
        'rooted/_posts/2024-01-01-post.md': '# Post\n\n![Chart](/assets/chart.svg)\n',
        'rooted/assets/chart.svg': '<svg/>\n',
        // A url: on a domain of its own says the site is served at that domain's root.
        'own/_config.yml': 'url: "https://docs.example.com"\n',
        'own/_posts/2024-01-01-post.md': '# Post\n\n![Chart](/assets/chart.svg)\n',
        'own/assets/chart.svg': '<svg/>\n',
        // No domain and no baseurl of its own: GitHub Pages serves a project site under /<repo>.
        'pages/_config.yml': 'theme: minima\n',
        'pages/_posts/2024-01-01-post.md': '# Post\n\n![Chart](/assets/chart.svg)\n',
        'pages/assets/chart.svg': '<svg/>\n',
        // Outside the site's folder the link is read from the repository's root.
        'docs/index.md': '# Home\n\n![Chart](/assets/chart.svg)\n',
      },
      { date: '2026-01-02T00:00:00Z' },
    );
    const { report } = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW) });
    const byDoc = (doc: string) => brokenTargets(report, doc);
    assert.deepEqual(byDoc('site/_posts/2024-01-01-post.md'), ['/assets/gone.svg']);
    assert.deepEqual(byDoc('site/_posts/2024-01-04-gems.md'), ['/Gemfile']);
    assert.deepEqual(byDoc('site/_posts/2024-01-02-next.md').sort(), [
      '/OLD/chart.svg',
      '/_includes/head.html',
      '/_posts/2024-01-03-own.md',
    ]);
    assert.deepEqual(byDoc('moved/index.md'), ['/assets/chart.svg']);
    assert.deepEqual(byDoc('other/index.md'), ['/assets/chart.svg']);
    assert.deepEqual(byDoc('project/_posts/2024-01-01-post.md'), ['/assets/chart.svg']);
    assert.deepEqual(byDoc('rooted/_posts/2024-01-01-post.md'), []);
    assert.deepEqual(byDoc('own/_posts/2024-01-01-post.md'), []);
    assert.deepEqual(byDoc('pages/_posts/2024-01-01-post.md'), ['/assets/chart.svg']);
    assert.deepEqual(byDoc('docs/index.md'), ['/assets/chart.svg']);
  });

  it("reads a VitePress page's root-relative links from the plain srcDir its config names", async () => {
    const repo = track(makeRepo());
    repo.commit(
      'docs',
      {
        // vuejs/docs: the config at the root, the pages and their public folder in src/.
        '.vitepress/config.ts':
          "export default {\n  title: 'Vue',\n  srcDir: 'src',\n  srcExclude: ['tutorial/**/description.md'],\n}\n",
        'src/guide/index.md': '# Guide\n\n## Setup\n',
        'src/guide/build.md':
          '# Build\n\nSee [setup](/guide/index.md#setup), ![Logo](/images/logo.svg) and [gone](/guide/gone.md).\n',
        // srcExclude: the step's description is not a page of its own.
        'src/tutorial/step-1/description.md': '# Step 1\n',
        'src/tutorial/index.md': '# Tutorial\n\n[Step 1](/tutorial/step-1/description.md)\n',
        'src/public/images/logo.svg': '<svg/>\n',
        // Outside the source folder the link is read from the repository's root.
        'notes/todo.md': '# Todo\n\nSee [setup](/guide/index.md#setup).\n',
      },
      { date: '2026-01-02T00:00:00Z' },
    );
    const { report } = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW) });
    assert.deepEqual(brokenTargets(report, 'src/guide/build.md'), ['/guide/gone.md']);
    assert.deepEqual(brokenTargets(report, 'src/tutorial/index.md'), ['/tutorial/step-1/description.md']);
    assert.deepEqual(brokenTargets(report, 'notes/todo.md'), ['/guide/index.md#setup']);
    // No fix points a page's image at `/src/public/…`, which the site does not serve.
    assert.deepEqual(
      report.entries.filter((e) => e.path === 'src/guide/build.md'),
      [],
    );
  });

  it('reads root-relative links from the repository root when a VitePress config sets rewrites, srcExclude or a srcDir it cannot read', async () => {
    for (const config of [
      // Read as the site's root, each would resolve the link: the config is not read.
      'export default { srcDir: process.env.SRC }\n',
      "export default { srcDir: '.', vite: { srcDir: 'x' } }\n",
      "export default { rewrites: { 'a/:p': ':p' } }\n",
      // An excluded page is not built: a link to it is broken on the site.
      "export default { srcExclude: ['guide/**'] }\n",
      // A computed srcExclude: which pages it leaves out is not known, so the config is not read.
      'export default { srcExclude: excluded }\n',
    ]) {
      const repo = track(makeRepo());
      repo.commit(
        'docs',
        {
          'docs/.vitepress/config.ts': config,
          'docs/guide/index.md': '# Guide\n',
          'docs/guide/build.md': '# Build\n\nSee [the guide](/guide/index.md).\n',
        },
        { date: '2026-01-02T00:00:00Z' },
      );
      const { report } = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW) });
      const targets = brokenTargets(report);
      assert.deepEqual(targets, ['/guide/index.md'], config);
    }
  });

  it('writes nothing when cancelled', async () => {
    const repo = track(fixtureRepo());
    const good = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW) });
    const before = readFileSync(good.reportJsonPath);
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(
      runCheck({ cwd: repo.dir, clock: fixedClock(LATER), signal: controller.signal }),
      /cancelled/,
    );
    assert.deepEqual(readFileSync(good.reportJsonPath), before);
    assert.equal((await new StateStore(repo.dir).read()).last_check, NOW);
  });

  it('refuses a model classifier without its key before any work, and a --proposals file needs no key', async () => {
    const repo = track(makeRepo());
    const user = userConfig('classifier: anthropic\n');
    await assert.rejects(runCheck({ cwd: repo.dir, clock: fixedClock(NOW), env: user }), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.code, 'missing-api-key');
      assert.match(error.message, /classifier 'anthropic' needs ANTHROPIC_API_KEY/);
      return true;
    });
    assert.equal(existsSync(join(repo.dir, '.dochygiene', 'report.json')), false);
    const proposalsFile = join(repo.dir, '.git', 'proposals.json');
    writeFileSync(proposalsFile, '[]');
    const result = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW), env: {}, proposalsFile });
    assert.equal(result.classifier, 'proposals-file');
  });
});
