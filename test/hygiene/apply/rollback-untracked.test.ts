import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { Deadline } from '../../../src/core/deadline.js';
import { saveIndex } from '../../../src/core/git-index.js';
import type { RecordedEdit } from '../../../src/hygiene/apply/applier.js';
import { rollBack } from '../../../src/hygiene/apply/unwind.js';
import { makeRepo, type TestRepo, testEnv } from '../../helpers/git-repo.js';
import { sha256 } from '../../helpers/report.js';

/**
 * The rollback's last line (docs/hygiene-clean.md, "Rollback"): it removes only what the run
 * created (a move's destination). A file the run edited in place that the baseline lacks —
 * untracked, however the edit came about — is never deleted: it is named as not put back.
 * A file hidden from status during the run gets its bytes back from the baseline, when the
 * baseline holds exactly them; never is a hidden local edit overwritten.
 */

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});
const deadline = Deadline.none();

/** A repository with `files` committed, and the rollBack of a run begun there that recorded `edits`. */
async function runFrom(files: Record<string, string>) {
  const repo = makeRepo();
  repos.push(repo);
  repo.commit('docs', files);
  const head = repo.head();
  const index = await saveIndex(repo.dir, deadline);
  const undo = (edits: RecordedEdit[]) =>
    rollBack(repo.dir, testEnv(), deadline, {
      head,
      branch: 'refs/heads/main',
      index,
      commitStarted: false,
      edits,
    });
  return { repo, undo };
}

const inPlace = (path: string, before: string, written: string): RecordedEdit => ({
  path,
  before_sha256: sha256(before),
  written_sha256: sha256(written),
});

describe('rollBack never deletes a file it did not create, nor leaves its own edit', () => {
  it('an in-place edit of an untracked file is left, named; a moved-to file the run created is removed', async () => {
    const { repo, undo } = await runFrom({ 'docs/plan.md': '# Plan\n' });
    const before = '# Notes\n\nSee [plan](docs/plan.md).\n';
    const written = '# Notes\n\nSee [plan](docs/archive/plan.md).\n';
    writeFileSync(repo.path('notes.md'), written);
    // The run's move: plan.md went to docs/archive/plan.md (a path it created).
    mkdirSync(repo.path('docs/archive'));
    repo.git(['mv', 'docs/plan.md', 'docs/archive/plan.md']);
    const result = await undo([
      inPlace('notes.md', before, written),
      {
        ...inPlace('docs/plan.md', '# Plan\n', '# Plan\n'),
        moved_to: 'docs/archive/plan.md',
        created_dirs: ['docs/archive'],
      },
    ]);
    assert.ok(!result.ok);
    assert.match(result.problem, /not in the checkpoint .*left: notes\.md/);
    assert.deepEqual(result.left_alone, ['notes.md']);
    assert.ok(existsSync(repo.path('notes.md')), 'the untracked file survives');
    assert.equal(readFileSync(repo.path('notes.md'), 'utf8'), written);
    // The move itself was undone.
    assert.equal(readFileSync(repo.path('docs/plan.md'), 'utf8'), '# Plan\n');
    assert.equal(existsSync(repo.path('docs/archive')), false);
    assert.equal(repo.git(['status', '--porcelain']), '?? notes.md');
  });

  for (const flag of ['--assume-unchanged', '--skip-worktree'])
    it(`a file marked ${flag} during the run gets its bytes back from the checkpoint`, async () => {
      const before = '# Guide\n\nSee [old](old.md).\n';
      const written = '# Guide\n\nSee [old](archive/old.md).\n';
      const { repo, undo } = await runFrom({ 'docs/guide.md': before });
      writeFileSync(repo.path('docs/guide.md'), written);
      repo.git(['update-index', flag, 'docs/guide.md']);
      const result = await undo([inPlace('docs/guide.md', before, written)]);
      assert.ok(result.ok, result.ok ? '' : result.problem);
      assert.deepEqual(result.restored, ['docs/guide.md']);
      assert.equal(readFileSync(repo.path('docs/guide.md'), 'utf8'), before);
    });

  it('a hidden file whose bytes before the run the checkpoint lacks is left as written, and said so', async () => {
    const { repo, undo } = await runFrom({ 'docs/guide.md': 'committed\n' });
    // A local edit git never saw (assume-unchanged), then the run's edit on top of it.
    repo.git(['update-index', '--assume-unchanged', 'docs/guide.md']);
    const local = 'committed\nmy hidden local line\n';
    const written = 'edited\nmy hidden local line\n';
    writeFileSync(repo.path('docs/guide.md'), written);
    const result = await undo([inPlace('docs/guide.md', local, written)]);
    assert.ok(!result.ok);
    assert.match(
      result.problem,
      /hidden from status since the cleanup wrote it .*left as written: docs\/guide\.md/,
    );
    assert.deepEqual(result.left_alone, ['docs/guide.md']);
    assert.equal(readFileSync(repo.path('docs/guide.md'), 'utf8'), written, 'the local line is not lost');
  });
});
