import assert from 'node:assert/strict';
import { existsSync, readlinkSync, statSync, symlinkSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { runCli, runCliJson } from '../helpers/cli.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';

/**
 * A symlink into a lifecycle unit is a reference to it (docs/hygiene-clean.md, "The reference
 * invariant"): an auto deletion never leaves a tracked symlink dangling. The unit is skipped
 * `would-break-reference`, naming the link, whether the link was there at check or came after.
 */

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

const NOW = { STW_NOW: '2026-12-01T00:00:00Z' };
const CONFIG = [
  'lifecycle:',
  '  rules:',
  '    - name: notes',
  '      match: "notes"',
  '      type: directory',
  '      lifetime: temporary',
  '      retain_recent: 0',
  '      max_age_days: 7',
  '',
].join('\n');
const AGENTS = '# Agents\n\nBuild with make.\n';

/** An expired `notes/` unit (committed two months ago); AGENTS.md links into it when `linked`. */
function project(linked: boolean): TestRepo {
  const repo = makeRepo({ initialCommit: false });
  repos.push(repo);
  repo.commit(
    'setup',
    {
      'README.md': '# Project\n',
      '.dochygiene.yml': CONFIG,
      '.gitignore': '.dochygiene/\n',
      'notes/agents-v1.md': AGENTS,
    },
    { date: '2026-10-01T00:00:00Z' },
  );
  if (linked) {
    symlinkSync('notes/agents-v1.md', repo.path('AGENTS.md'));
    repo.git(['add', 'AGENTS.md']);
    repo.commit('link', {}, { date: '2026-10-01T00:01:00Z' });
  }
  return repo;
}

async function check(repo: TestRepo): Promise<void> {
  const checked = await runCli(['hygiene', 'check'], { cwd: repo.dir, env: NOW });
  assert.equal(checked.code, 0, checked.stderr);
}

interface Outcome {
  path: string;
  outcome: string;
  tier: string;
  reason?: string;
  detail?: string;
}
const unitOutcome = (json: Record<string, unknown>) =>
  (json['entries'] as Outcome[]).find((entry) => entry.path === 'notes')!;

describe('an auto lifecycle deletion never leaves a symlink dangling (built CLI)', () => {
  it('AGENTS.md -> notes/agents-v1.md: the expired notes/ unit is skipped, naming the link; nothing is deleted', async () => {
    const repo = project(true);
    await check(repo);
    const head = repo.head();
    const result = await runCliJson(['hygiene', 'clean'], { cwd: repo.dir, env: NOW });
    const unit = unitOutcome(result.json);
    assert.equal(unit.tier, 'auto');
    assert.equal(unit.outcome, 'skipped');
    assert.equal(unit.reason, 'would-break-reference');
    assert.equal(unit.detail, 'would leave the symlink AGENTS.md dangling (it leads to notes/agents-v1.md)');
    assert.equal(repo.head(), head);
    assert.ok(statSync(repo.path('AGENTS.md')).isFile(), 'AGENTS.md still leads to a file');
    assert.equal(readlinkSync(repo.path('AGENTS.md')), 'notes/agents-v1.md');
  });

  it('a link made after check (stale plan) still keeps the unit; sweep says the same', async () => {
    const repo = project(false);
    await check(repo);
    symlinkSync('notes', repo.path('docs-link'));
    repo.git(['add', 'docs-link']);
    repo.commit('link the folder');
    const head = repo.head();
    const result = await runCliJson(['hygiene', 'clean'], { cwd: repo.dir, env: NOW });
    const unit = unitOutcome(result.json);
    assert.equal(unit.outcome, 'skipped');
    assert.equal(unit.detail, 'would leave the symlink docs-link dangling (it leads to notes)');
    assert.equal(repo.head(), head);
    assert.ok(existsSync(repo.path('notes/agents-v1.md')));

    const swept = await runCliJson(['hygiene', 'sweep'], { cwd: repo.dir, env: NOW });
    assert.equal(unitOutcome(swept.json).reason, 'would-break-reference');
    assert.equal(repo.head(), head);
    assert.ok(existsSync(repo.path('notes/agents-v1.md')));
  });

  it('without a link, the same unit is deleted at auto tier (the rule does fire)', async () => {
    const repo = project(false);
    await check(repo);
    const result = await runCliJson(['hygiene', 'clean'], { cwd: repo.dir, env: NOW });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(unitOutcome(result.json).outcome, 'applied');
    assert.equal(existsSync(repo.path('notes')), false);
  });

  it('apply keeps the unit too, naming the link', async () => {
    const repo = project(true);
    await check(repo);
    const result = await runCliJson(['hygiene', 'apply', '--report', '.dochygiene/report.json'], {
      cwd: repo.dir,
      env: NOW,
    });
    const files = result.json['files'] as { path: string; status: string; reason: string; detail: string }[];
    assert.deepEqual(
      files.map((f) => [f.path, f.status, f.reason, f.detail]),
      [
        [
          'notes',
          'skipped',
          'would-break-reference',
          'would leave the symlink AGENTS.md dangling (it leads to notes/agents-v1.md)',
        ],
      ],
    );
    assert.ok(existsSync(repo.path('notes/agents-v1.md')));
  });
});
