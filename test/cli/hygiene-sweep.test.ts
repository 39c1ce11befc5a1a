import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { runCli, runCliJson } from '../helpers/cli.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';
import { snapshotTree } from '../helpers/report.js';

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

const NOW = { STW_NOW: '2026-05-01T09:00:00Z' };
const ROLLOUT = '---\nstatus: done\n---\n# Rollout plan\n\n- [x] Ship to staging\n- [x] Ship to production\n';

function project(): TestRepo {
  const repo = makeRepo();
  repos.push(repo);
  repo.commit('docs', {
    'README.md': '# Widget service\n\nSee the [rollout plan](docs/plans/rollout.md).\n',
    'docs/plans/rollout.md': ROLLOUT,
  });
  return repo;
}

describe('stw hygiene sweep (built CLI)', () => {
  it('checks, then cleans behind the same gate, in exactly one commit; a second sweep finds nothing', async () => {
    const repo = project();
    const start = repo.head();
    const result = await runCliJson(['hygiene', 'sweep'], { cwd: repo.dir, env: NOW });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.json['status'], 'committed');
    assert.equal(repo.git(['rev-parse', 'HEAD~1']), start);
    assert.equal(
      readFileSync(repo.path('docs/plans/rollout.md'), 'utf8'),
      ROLLOUT.replace('status: done\n', 'status: done\nhygiene: frozen\n'),
    );
    assert.match(repo.git(['log', '-1', '--format=%s']), /^docs: hygiene cleanup \(1 edit across 1 file\)$/);
    assert.equal(repo.git(['show', '--name-only', '--format=', 'HEAD']), 'docs/plans/rollout.md');
    const check = result.json['check'] as { report_json_path: string };
    assert.ok(existsSync(check.report_json_path));
    const state = JSON.parse(readFileSync(repo.path('.dochygiene/state.json'), 'utf8'));
    assert.equal(state.last_check, '2026-05-01T09:00:00Z');
    assert.equal(state.last_clean, '2026-05-01T09:00:00Z');

    const again = await runCliJson(['hygiene', 'sweep'], { cwd: repo.dir, env: NOW });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.json['status'], 'nothing');
    assert.equal(repo.git(['rev-list', '--count', 'HEAD']), '3');
  });

  it('keeps the gate: a confirm entry waits for --approve, then applies in its own sweep', async () => {
    const repo = project();
    repo.commit('idea', {
      // Ideas under plans/ expire here: stale_name_location (hidden by default) is on.
      '.dochygiene.yml': 'signals:\n  stale_name_location: on\n',
      'docs/plans/caching-idea.md':
        '# Caching idea\n\nMaybe cache widget renders in memory.\nNobody picked this up.\n',
    });
    const first = await runCliJson(['hygiene', 'sweep'], { cwd: repo.dir, env: NOW });
    assert.equal(first.code, 0, first.stderr);
    const entries = first.json['entries'] as {
      id: string;
      path: string;
      kind: string;
      outcome: string;
      irreversible: boolean;
    }[];
    const orphan = entries.find((e) => e.path === 'docs/plans/caching-idea.md');
    assert.ok(orphan, JSON.stringify(entries));
    assert.deepEqual(
      [orphan.kind, orphan.outcome, orphan.irreversible],
      ['delete-range', 'needs-approval', true],
    );
    assert.ok(existsSync(repo.path('docs/plans/caching-idea.md')));

    const second = await runCliJson(['hygiene', 'sweep', '--approve', orphan.id], {
      cwd: repo.dir,
      env: NOW,
    });
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.json['status'], 'committed');
    // The orphan's delete-range covers every line, so the doc itself goes (git history keeps it).
    assert.equal(existsSync(repo.path('docs/plans/caching-idea.md')), false);
    assert.match(
      repo.git(['log', '-1', '--format=%B']),
      /Confirmed: 1 \(move-to-archive ×0, replace-text ×0, freeze ×0, delete ×0, delete-range ×1, dedupe ×0, distill ×0, split ×0\)/,
    );
  });

  it('--dry-run changes nothing: no commit, no report, no state', async () => {
    const repo = project();
    const before = snapshotTree(repo.dir);
    const head = repo.head();
    const result = await runCliJson(['hygiene', 'sweep', '--dry-run'], { cwd: repo.dir, env: NOW });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.json['status'], 'dry-run');
    const entries = result.json['entries'] as { outcome: string; kind: string }[];
    assert.deepEqual(
      entries.map((e) => [e.kind, e.outcome]),
      [['insert-frontmatter', 'would-apply']],
    );
    assert.equal(repo.head(), head);
    assert.deepEqual(snapshotTree(repo.dir), before);
  });

  it('refuses an unknown --approve id after the check, with no commit', async () => {
    const repo = project();
    const refused = await runCli(['hygiene', 'sweep', '--approve', 'nope'], { cwd: repo.dir, env: NOW });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /--approve "nope": no such entry in the report/);
    assert.equal(repo.git(['rev-list', '--count', 'HEAD']), '2');
  });

  it('takes --scope relative to the current folder, like check; a scope outside the project is usage', async () => {
    const repo = project();
    const outside = await runCli(['hygiene', 'sweep', '--scope', '/'], { cwd: repo.dir, env: NOW });
    assert.equal(outside.code, 2);
    assert.match(outside.stderr, /outside the project root/);
    // From docs/plans, `--scope rollout.md` names docs/plans/rollout.md.
    const scoped = await runCliJson(['hygiene', 'sweep', '--dry-run', '--scope', 'rollout.md'], {
      cwd: repo.path('docs/plans'),
      env: NOW,
    });
    assert.equal(scoped.code, 0, scoped.stderr);
    const entries = scoped.json['entries'] as { path: string }[];
    assert.deepEqual(
      entries.map((entry) => entry.path),
      ['docs/plans/rollout.md'],
    );
  });
});
