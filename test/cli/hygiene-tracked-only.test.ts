import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { runCliJson } from '../helpers/cli.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';
import { makeEntry, makeReport, writeProjectReport } from '../helpers/report.js';

/**
 * Tracked files only, everywhere the tool writes (docs/hygiene-clean.md): a move's inbound
 * links are rewritten only in tracked docs git shows in `status`; a move whose inbound link
 * is in an untracked or hidden doc is skipped `would-break-reference`, naming the doc; and
 * a failed run never deletes an untracked file.
 */

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

const NOW = { STW_NOW: '2026-04-02T08:30:00Z' };
const PLAN = '# Old plan\n\nWithdrawn.\n';
const NOTES = '# My notes\n\nSee [the old plan](design/old-plan.md).\n';
const INDEX = '# Designs\n\n- [old plan](old-plan.md)\n';
const GUIDE = '# Guide\n\nSee [old](old.md).\n';

/** A move of design/old-plan.md, a tracked index linking to it, and an unrelated auto link fix. */
function project(): TestRepo {
  const repo = makeRepo();
  repos.push(repo);
  repo.commit('docs', {
    'design/old-plan.md': PLAN,
    'design/README.md': INDEX,
    'docs/guide.md': GUIDE,
    'docs/new.md': '# New\n',
  });
  return repo;
}

function writeReport(repo: TestRepo): void {
  writeProjectReport(
    repo.dir,
    makeReport(repo.dir, [
      makeEntry(repo.dir, {
        id: 'move',
        path: 'design/old-plan.md',
        kind: 'move-to-archive',
        dest_path: 'design/archive/old-plan.md',
      }),
      makeEntry(repo.dir, {
        id: 'fix',
        path: 'docs/guide.md',
        kind: 'replace-text',
        anchor: [3, 3],
        match: 'old.md',
        replacement: 'new.md',
      }),
    ]),
  );
}

const read = (repo: TestRepo, path: string) => readFileSync(repo.path(path), 'utf8');

interface Outcome {
  id: string;
  outcome: string;
  reason?: string;
  detail?: string;
}
const outcomeOf = (json: Record<string, unknown>, id: string) =>
  (json['entries'] as Outcome[]).find((entry) => entry.id === id)!;

describe('clean writes, moves and stages only tracked, visible files (built CLI)', () => {
  it('an untracked doc linking to a moved file: the move is skipped naming it; a refusing hook rolls back and the doc survives', async () => {
    const repo = project();
    writeFileSync(repo.path('notes.md'), NOTES);
    writeReport(repo);
    const hook = repo.path('.git', 'hooks', 'pre-commit');
    writeFileSync(hook, '#!/bin/sh\necho "refused by hook" >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    const head = repo.head();
    const result = await runCliJson(['hygiene', 'clean', '--approve', 'move'], { cwd: repo.dir, env: NOW });
    assert.equal(result.code, 1, result.stderr);
    const error = result.json['error'] as { details: { rolled_back: boolean } };
    assert.equal(error.details.rolled_back, true, result.stdout);
    assert.equal(existsSync(repo.path('notes.md')), true, 'the untracked doc must survive the rollback');
    assert.equal(read(repo, 'notes.md'), NOTES);
    assert.equal(read(repo, 'docs/guide.md'), GUIDE);
    assert.equal(read(repo, 'design/old-plan.md'), PLAN);
    assert.equal(repo.head(), head);
    const status = repo.git(['status', '--porcelain', '--untracked-files=all']).split('\n');
    assert.deepEqual(
      status.filter((line) => !line.includes('.dochygiene')),
      ['?? notes.md'],
    );
  });

  it('a successful clean never commits the untracked doc: the move is skipped would-break-reference, naming it', async () => {
    const repo = project();
    writeFileSync(repo.path('notes.md'), NOTES);
    writeReport(repo);
    const result = await runCliJson(['hygiene', 'clean', '--approve', 'move'], { cwd: repo.dir, env: NOW });
    // Partial: what applied is committed, the skipped move is listed (exit 1).
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.json['status'], 'partial');
    const move = outcomeOf(result.json, 'move');
    assert.equal(move.outcome, 'skipped');
    assert.equal(move.reason, 'would-break-reference');
    assert.match(move.detail!, /line 3 of notes\.md, which is not tracked by git/);
    assert.equal(outcomeOf(result.json, 'fix').outcome, 'applied');
    assert.equal(repo.git(['show', '--name-only', '--format=', 'HEAD']), 'docs/guide.md');
    assert.equal(repo.git(['ls-files', 'notes.md']), '');
    assert.equal(read(repo, 'notes.md'), NOTES);
    assert.equal(read(repo, 'design/old-plan.md'), PLAN);
  });

  it('with the untracked doc gone, the same move goes ahead and rewrites the tracked link only', async () => {
    const repo = project();
    writeReport(repo);
    const result = await runCliJson(['hygiene', 'clean', '--approve', 'move'], { cwd: repo.dir, env: NOW });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.json['status'], 'committed');
    assert.equal(read(repo, 'design/README.md'), '# Designs\n\n- [old plan](archive/old-plan.md)\n');
  });

  for (const flag of ['--assume-unchanged', '--skip-worktree']) {
    it(`a tracked doc marked ${flag} linking to a moved file: skipped naming it; the doc is never edited`, async () => {
      const repo = project();
      repo.git(['update-index', flag, 'design/README.md']);
      writeReport(repo);
      const result = await runCliJson(['hygiene', 'clean', '--approve', 'move'], {
        cwd: repo.dir,
        env: NOW,
      });
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.json['status'], 'partial');
      const move = outcomeOf(result.json, 'move');
      assert.equal(move.outcome, 'skipped');
      assert.equal(move.reason, 'would-break-reference');
      assert.match(move.detail!, /line 3 of design\/README\.md, which git hides from status/);
      assert.equal(read(repo, 'design/README.md'), INDEX);
      assert.equal(read(repo, 'design/old-plan.md'), PLAN);
      assert.equal(repo.git(['show', '--name-only', '--format=', 'HEAD']), 'docs/guide.md');
    });
  }

  it('apply holds the same line: the move is skipped naming the untracked doc', async () => {
    const repo = project();
    writeFileSync(repo.path('notes.md'), NOTES);
    writeReport(repo);
    const result = await runCliJson(
      ['hygiene', 'apply', '--report', '.dochygiene/report.json', '--only', 'move'],
      { cwd: repo.dir, env: NOW },
    );
    const files = result.json['files'] as { path: string; status: string; reason: string; detail: string }[];
    assert.deepEqual(
      files.map((f) => [f.path, f.status, f.reason]),
      [['design/old-plan.md', 'skipped', 'would-break-reference']],
    );
    assert.match(files[0]!.detail, /notes\.md, which is not tracked by git/);
    assert.equal(read(repo, 'notes.md'), NOTES);
    assert.equal(read(repo, 'design/old-plan.md'), PLAN);
  });
});
