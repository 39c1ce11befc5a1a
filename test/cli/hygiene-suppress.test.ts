import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { schemaValidator } from '../../src/core/schema.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo } from '../helpers/git-repo.js';

const env = { STW_NOW: '2026-03-01T12:00:00Z' };

/** One whole prose section (each paragraph long enough to be a duplicate block), shared by two docs. */
const SHARED = [
  '## Installing the widget',
  '',
  'The widget installs from the package registry with the usual client, and it needs a running',
  'daemon on the same machine before the first start. Configure the daemon socket in the settings',
  'file, then restart the service so that it picks the new socket up on its next start.',
  '',
  'Every option of the daemon is described in the reference, with its default value and the',
  'release that introduced it; options marked experimental may change without notice, and the',
  'reference says which of them a restart of the service is needed for.',
  '',
].join('\n');

const NOTES = [
  '# Notes', // 1
  '', // 2
  '[a](missing-a.md) <!-- stw-ignore-line -->', // 3
  '<!-- stw-ignore-next-line broken_reference -->', // 4
  '[b](missing-b.md)', // 5
  '<!-- stw-disable -->', // 6
  '[c](missing-c.md)', // 7
  '<!-- stw-enable -->', // 8
  '<!-- markdown-link-check-disable-next-line -->', // 9
  '[d](missing-d.md)', // 10
  '[e](missing-e.md)', // 11
  '[f](legacy/old.md)', // 12
  '<!-- stw-ignore-next-line version_skew -->', // 13
  '[g](generated/api.md)', // 14
  '',
  '```md',
  '<!-- stw-disable -->', // 17: in a code block, no directive
  '```',
  '[h](missing-h.md)', // 19
  '',
].join('\n');

let repo: TestRepo;
let scratch: string;

interface Counts {
  shown: number;
  hidden: number;
  suppressed: number;
  by_signal: Record<string, { shown: number; hidden: number; suppressed: number }>;
  hidden_classes: string[];
  show_hidden_with: string;
}
interface CheckJson {
  summary: { signal_counts: Counts };
  findings: { path: string; line?: number; rule: string }[];
  unused_suppressions?: { path: string; line?: number; suppression: string; reason: string }[];
}

const check = (args: string[] = []) =>
  runCliJson<CheckJson>(['hygiene', 'check', '--no-write', ...args], { cwd: repo.dir, env });
const findingsOf = (json: CheckJson) => json.findings.map((f) => `${f.path}:${f.line ?? ''} ${f.rule}`);
const hasDuplicate = (json: CheckJson) => findingsOf(json).some((f) => f.endsWith(' duplicate_content'));

before(() => {
  repo = makeRepo();
  repo.commit('docs', {
    'README.md': '# Widgets\n\nSee the [setup guide](docs/setup.md).\n',
    'docs/setup.md': '# Setup\n\nRun it.\n',
    'docs/a.md': `# A\n\n${SHARED}`,
    'docs/b.md': `# B\n\n${SHARED}`,
    'docs/notes.md': NOTES,
  });
  // A move in history: the README's link gets a proved (auto) fix.
  repo.move('rename', 'docs/setup.md', 'docs/install.md');
  scratch = makeTempDir();
});
after(() => {
  repo.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

describe('signals shown by default, and --signals all', () => {
  it('hides duplicate_content, version_skew, stale_name_location … by default: counted per class with the switch, never a finding', async () => {
    const { code, json, stderr } = await check();
    assert.equal(code, 0, stderr);
    const counts = json.summary.signal_counts;
    assert.deepEqual(counts.hidden_classes.sort(), [
      'append_only_growth',
      'context_growth',
      'duplicate_content',
      'edit_recency_vs_churn',
      'near_duplicate',
      'stale_name_location',
      'tool_specific_wording',
      'version_skew',
    ]);
    assert.equal(counts.show_hidden_with, '--signals all');
    assert.ok((counts.by_signal['duplicate_content']?.hidden ?? 0) >= 1, JSON.stringify(counts));
    assert.equal(counts.by_signal['duplicate_content']?.shown, 0);
    assert.ok(!hasDuplicate(json));

    const all = await check(['--signals', 'all']);
    assert.equal(all.json.summary.signal_counts.hidden, 0);
    assert.deepEqual(all.json.summary.signal_counts.hidden_classes, []);
    assert.ok(hasDuplicate(all.json), findingsOf(all.json).join('\n'));

    const bad = await runCli(['hygiene', 'check', '--signals', 'some'], { cwd: repo.dir, env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--signals some: use all \(every class\) or default/);
  });

  it('the human summary line and report.md (its opening table) say what was hidden and suppressed', async () => {
    const human = await runCli(['hygiene', 'check'], { cwd: repo.dir, env });
    assert.equal(human.code, 0, human.stderr);
    const first = human.stdout.split('\n')[0]!;
    assert.match(
      first,
      /finding(s)? hidden \(duplicate_content \d+; shown with --signals all\); 4 suppressed \(broken_reference 4\)/,
    );
    const md = readFileSync(join(repo.dir, '.dochygiene', 'report.md'), 'utf8');
    assert.match(
      md,
      /^# Docs hygiene report\n\n## Signals\n\n\| signal \| shown \| hidden \| suppressed \|\n/,
    );
    assert.match(md, /\| `duplicate_content` \(hidden class\) \| 0 \| \d+ \| 0 \|/);
    assert.match(md, /\| `broken_reference` \| \d+ \| 0 \| 4 \|/);
    assert.match(md, /`--signals all` \(or `signals: \{NAME: on\}` in the config\) shows them/);
    const report = JSON.parse(readFileSync(join(repo.dir, '.dochygiene', 'report.json'), 'utf8'));
    assert.equal(report.signal_counts.by_signal.broken_reference.suppressed, 4);
    const validated = await runCli(['hygiene', 'validate', '.dochygiene/report.json'], { cwd: repo.dir });
    assert.equal(validated.code, 0, validated.stdout + validated.stderr);
  });

  it('scan: the same counts in --json (withheld) and a "Not shown" line', async () => {
    const scan = await runCliJson<{
      withheld: { suppressed: Record<string, number>; hidden: Record<string, number> };
    }>(['hygiene', 'scan'], { cwd: repo.dir, env });
    assert.equal(scan.code, 0, scan.stderr);
    assert.equal(scan.json.withheld.suppressed['broken_reference'], 4);
    const { status: _status, ...artifact } = scan.json as unknown as Record<string, unknown>;
    assert.deepEqual(schemaValidator('scan.schema.json')(artifact), []);
    assert.ok((scan.json.withheld.hidden['duplicate_content'] ?? 0) >= 1);
    const human = await runCli(['hygiene', 'scan'], { cwd: repo.dir, env });
    assert.match(
      human.stdout,
      /^Not shown: \d+ findings? hidden \(duplicate_content \d+; shown with --signals all\); 4 suppressed/m,
    );
  });
});

describe('inline suppression', () => {
  it('each form silences its finding, counted; a comment in a code block is no directive', async () => {
    const { json } = await check();
    const notes = findingsOf(json).filter((f) => f.startsWith('docs/notes.md'));
    // a (ignore-line), b (ignore-next-line), c (disable…enable), d (markdown-link-check) are silenced.
    assert.deepEqual(notes, [
      'docs/notes.md:11 broken_reference',
      'docs/notes.md:12 broken_reference',
      'docs/notes.md:14 broken_reference',
      'docs/notes.md:19 broken_reference',
    ]);
    assert.equal(json.summary.signal_counts.by_signal['broken_reference']?.suppressed, 4);
  });

  it('a suppressed link fix leaves no entry: clean --dry-run no longer carries it', async () => {
    const before = await runCliJson<{ entries: { path: string }[] }>(['hygiene', 'sweep', '--dry-run'], {
      cwd: repo.dir,
      env,
    });
    assert.equal(before.code, 0, before.stderr);
    assert.ok(
      before.json.entries.some((e) => e.path === 'README.md'),
      JSON.stringify(before.json.entries),
    );
    repo.commit('silence', {
      'README.md': '# Widgets\n\n<!-- stw-ignore-next-line -->\nSee the [setup guide](docs/setup.md).\n',
    });
    try {
      const checked = await runCli(['hygiene', 'check'], { cwd: repo.dir, env });
      assert.equal(checked.code, 0, checked.stderr);
      const dry = await runCliJson<{ entries: { path: string }[] }>(['hygiene', 'clean', '--dry-run'], {
        cwd: repo.dir,
        env,
      });
      assert.equal(dry.code, 0, dry.stderr);
      assert.ok(!dry.json.entries.some((e) => e.path === 'README.md'), JSON.stringify(dry.json.entries));
    } finally {
      repo.git(['reset', '-q', '--hard', 'HEAD~1']);
    }
  });
});

describe('config: signals:, links.ignore, --config, .dochygiene.yaml', () => {
  const configFile = () => join(scratch, 'stw.yml');

  it('signals: on shows a hidden class, off hides a shown one (through --config FILE)', async () => {
    writeFileSync(configFile(), 'signals:\n  duplicate_content: on\n  broken_reference: off\n');
    const { code, json, stderr } = await check(['--config', configFile()]);
    assert.equal(code, 0, stderr);
    const found = findingsOf(json);
    assert.ok(hasDuplicate(json), found.join('\n'));
    assert.ok(!found.some((f) => f.endsWith('broken_reference')));
    assert.deepEqual(json.summary.signal_counts.hidden_classes.sort(), [
      'append_only_growth',
      'broken_reference',
      'context_growth',
      'edit_recency_vs_churn',
      'near_duplicate',
      'stale_name_location',
      'tool_specific_wording',
      'version_skew',
    ]);
    assert.ok((json.summary.signal_counts.by_signal['broken_reference']?.hidden ?? 0) >= 4);
  });

  it('links.ignore: a glob and a /regex/ silence matching targets, counted', async () => {
    writeFileSync(configFile(), 'links:\n  ignore:\n    - "legacy/**"\n    - "/^generated\\\\//"\n');
    const { json } = await check(['--config', configFile()]);
    const notes = findingsOf(json).filter((f) => f.startsWith('docs/notes.md'));
    assert.deepEqual(notes, ['docs/notes.md:11 broken_reference', 'docs/notes.md:19 broken_reference']);
    assert.equal(json.summary.signal_counts.by_signal['broken_reference']?.suppressed, 4 + 2);
  });

  it('--report-unused-suppressions lists directives (path:line) and config entries that silenced nothing', async () => {
    writeFileSync(
      configFile(),
      'signals:\n  frontmatter_marker: on\n  context_weight: off\nlinks:\n  ignore: ["nowhere/**"]\n',
    );
    const { json } = await check(['--config', configFile(), '--report-unused-suppressions']);
    assert.deepEqual(json.unused_suppressions, [
      {
        path: 'docs/notes.md',
        line: 13,
        suppression: 'stw-ignore-next-line version_skew',
        reason: 'silenced nothing',
      },
      {
        path: configFile(),
        suppression: 'signals.frontmatter_marker: on',
        reason: 'frontmatter_marker is shown by default',
      },
      {
        path: configFile(),
        suppression: 'signals.context_weight: off',
        reason: 'hid nothing: the scan found no such signal',
      },
      { path: configFile(), suppression: 'links.ignore[0] nowhere/**', reason: 'silenced nothing' },
    ]);
    const human = await runCli(
      ['hygiene', 'scan', '--config', configFile(), '--report-unused-suppressions'],
      {
        cwd: repo.dir,
        env,
      },
    );
    assert.match(
      human.stdout,
      /^Unused suppressions \(4\):\n {2}docs\/notes\.md:13 {2}stw-ignore-next-line version_skew: silenced nothing$/m,
    );
    const without = await check();
    assert.equal(without.json.unused_suppressions, undefined);
  });

  it('.dochygiene.yaml is read; with .dochygiene.yml beside it the run stops in one line', async () => {
    repo.write({ '.dochygiene.yaml': 'signals:\n  duplicate_content: on\n' });
    try {
      const { json } = await check();
      assert.ok(hasDuplicate(json));
      repo.write({ '.dochygiene.yml': 'signals: {}\n' });
      const both = await runCli(['hygiene', 'check'], { cwd: repo.dir, env });
      assert.equal(both.code, 1);
      assert.equal(both.stderr.trim().split('\n').length, 1, both.stderr);
      assert.match(both.stderr, /\.dochygiene\.yml and \.dochygiene\.yaml both exist; keep one of them/);
    } finally {
      rmSync(repo.path('.dochygiene.yaml'), { force: true });
      rmSync(repo.path('.dochygiene.yml'), { force: true });
    }
  });

  it('an unknown signals: name is one line naming the valid ones; a user-only key in --config is refused', async () => {
    writeFileSync(configFile(), 'signals:\n  dup: off\n');
    const unknown = await runCli(['hygiene', 'scan', '--config', configFile()], { cwd: repo.dir, env });
    assert.equal(unknown.code, 1);
    assert.match(
      unknown.stderr,
      /signals\.dup: unknown signal "dup"; valid: broken_reference, version_skew,/,
    );
    writeFileSync(configFile(), 'lifecycle:\n  vault_command: [sh, -c, "touch pwned"]\n');
    const refused = await runCli(['hygiene', 'check', '--config', configFile()], { cwd: repo.dir, env });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /lifecycle\.vault_command may come only from you, not from the repository/);
  });
});

describe('a proposal citing a signal the user was not shown', () => {
  it('is refused with the reason: a hidden class, a suppressed finding', async () => {
    const proposals = join(scratch, 'proposals.json');
    const dedupe = {
      path: 'docs/b.md',
      category: { class: 'stale', subtype: 'duplicated' },
      signals: [{ name: 'duplicate_content', line: 3, detail: 'dup' }],
      op: 'link to the other copy',
      op_type: 'deterministic',
      exact_edit: { kind: 'dedupe', anchor: { start_line: 3, end_line: 10 }, canonical_ref: 'docs/a.md' },
      confidence: 0.9,
    };
    const fix = {
      path: 'docs/notes.md',
      category: { class: 'stale', subtype: 'dangling-reference' },
      signals: [{ name: 'broken_reference', line: 5, detail: 'x' }],
      op: 'drop the dead link',
      op_type: 'deterministic',
      exact_edit: { kind: 'delete-range', anchor: { start_line: 5, end_line: 5 } },
      confidence: 0.9,
    };
    writeFileSync(proposals, JSON.stringify([dedupe, fix]));
    const refused = await runCli(['hygiene', 'check', '--no-write', '--proposals', proposals], {
      cwd: repo.dir,
      env,
    });
    assert.equal(refused.code, 1, refused.stdout);
    const all = refused.stdout + refused.stderr;
    assert.match(
      all,
      /proposals\[0\]\.signals\[0\]: "duplicate_content" is a hidden signal class, so no entry may cite it \(shown with --signals all or signals: \{duplicate_content: on\}\)/,
    );
    const json = await runCliJson<{ error: { details?: string[] } }>(
      ['hygiene', 'check', '--no-write', '--proposals', proposals],
      { cwd: repo.dir, env },
    );
    assert.ok(
      JSON.stringify(json.json).includes(
        'proposals[1].signals[0]: the \\"broken_reference\\" signal on line 5 is suppressed (docs/notes.md:4 stw-ignore-next-line broken_reference), so no entry may cite it',
      ),
      JSON.stringify(json.json),
    );
  });
});
