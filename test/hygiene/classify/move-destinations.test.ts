/**
 * Where a `move-to-archive` may go (docs/trust.md, "Moves"), through the built CLI: a
 * `--proposals` file (or a model) may move a doc only into an archive folder, under its own
 * name, and never move, or move onto, a file that configures a tool or an agent.
 */
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCliJson } from '../../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo } from '../../helpers/git-repo.js';
import { FIXTURES } from '../../helpers/paths.js';

const NOW = '2026-02-01T00:00:00Z';
const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

/** The superseded-design fixture (docs/design-v1.md), a CLAUDE.md, and `config` added to its `.dochygiene.yml`. */
function project(config = ''): TestRepo {
  const repo = makeRepo({ initialCommit: false });
  repos.push(repo);
  cpSync(join(FIXTURES, 'classifier', '02-superseded', 'input'), repo.dir, { recursive: true });
  writeFileSync(repo.path('CLAUDE.md'), '# Agent notes\n\nRun `make test` before committing.\n');
  // Added to the fixture's own config (which turns stale_name_location on).
  if (config !== '') appendFileSync(repo.path('.dochygiene.yml'), config);
  repo.git(['add', '-A']);
  repo.commit('fixture', {}, { date: '2026-01-15T00:00:00Z' });
  return repo;
}

const move = (path: string, dest: string) => ({
  path,
  category: { class: 'stale', subtype: 'superseded' },
  signals: [{ name: 'stale_name_location', detail: 'a newer version sits beside it' }],
  op: `Move ${path} to ${dest}.`,
  op_type: 'deterministic',
  exact_edit: { kind: 'move-to-archive', dest_path: dest },
  confidence: 0.9,
});

type CheckJson = { status: string; error?: { code: string; message: string; details?: unknown } };

async function checkWith(repo: TestRepo, proposals: unknown[]) {
  const file = join(makeTempDir('stw-proposals-'), 'proposals.json');
  writeFileSync(file, JSON.stringify(proposals));
  return runCliJson<CheckJson>(['hygiene', 'check', '--proposals', file], {
    cwd: repo.dir,
    env: { STW_NOW: NOW },
  });
}

describe('move-to-archive destinations, whoever proposes them', () => {
  it('a move out of the archive, onto agent context, this config or a workflow is refused, naming it', async () => {
    const repo = project();
    const cases: [unknown, RegExp][] = [
      [
        move('docs/design-v1.md', '.github/workflows/design-v1.md'),
        /"\.github\/workflows\/design-v1\.md" would configure a tool or an agent/,
      ],
      [move('docs/design-v1.md', 'CLAUDE.md'), /dest_path: "CLAUDE\.md" would configure a tool or an agent/],
      [
        move('docs/design-v1.md', 'docs/archive/CLAUDE.md'),
        /"docs\/archive\/CLAUDE\.md" would configure a tool or an agent/,
      ],
      [
        move('docs/design-v1.md', '.dochygiene.yml'),
        /"\.dochygiene\.yml" would configure a tool or an agent/,
      ],
      [move('docs/design-v1.md', 'docs/design-v1-old.md'), /keeps the file name "design-v1\.md"/],
      [move('docs/design-v1.md', 'guide/design-v1.md'), /must be inside an archive folder \(archive, /],
      [
        move('CLAUDE.md', 'archive/CLAUDE.md'),
        /path: "CLAUDE\.md" configures a tool or an agent; it is never moved/,
      ],
    ];
    for (const [proposal, message] of cases) {
      const result = await checkWith(repo, [proposal]);
      assert.equal(result.code, 1, JSON.stringify(proposal));
      assert.equal(result.json.error!.code, 'invalid-proposals');
      const { violations } = result.json.error!.details as { violations: string[] };
      assert.ok(
        violations.some((v) => message.test(v)),
        violations.join('\n'),
      );
      assert.equal(existsSync(repo.path('.dochygiene', 'report.json')), false);
    }
  });

  it('the rules classifier proposes no such move: a superseded template under .github/, an archive.dir there', async () => {
    const repo = project('archive:\n  dir: .github/old\n');
    const template = '---\nstatus: superseded\nsuperseded_by: bug-v2.md\n---\n# Bug report\n';
    repo.commit('templates', {
      '.github/ISSUE_TEMPLATE/bug-v1.md': template,
      '.github/ISSUE_TEMPLATE/bug-v2.md': '# Bug report\n',
    });
    const result = await runCliJson<CheckJson>(['hygiene', 'check'], {
      cwd: repo.dir,
      env: { STW_NOW: NOW },
    });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const report = JSON.parse(readFileSync(repo.path('.dochygiene', 'report.json'), 'utf8')) as {
      entries: { path: string; exact_edit?: { kind: string } }[];
    };
    assert.deepEqual(
      report.entries.filter((e) => e.exact_edit?.kind === 'move-to-archive'),
      [],
    );
  });

  it('a move into an archive folder, or into archive.dir, under its own name is accepted (confirm)', async () => {
    for (const [config, dest] of [
      ['', 'docs/archive/design-v1.md'],
      ['', 'attic/design-v1.md'],
      ['archive:\n  dir: docs/history\n', 'docs/history/design-v1.md'],
    ] as const) {
      const repo = project(config);
      const result = await checkWith(repo, [move('docs/design-v1.md', dest)]);
      assert.equal(result.code, 0, `${dest}: ${result.stdout}${result.stderr}`);
    }
  });
});
