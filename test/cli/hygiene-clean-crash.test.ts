import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli, runCliJson } from '../helpers/cli.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';
import { makeEntry, makeReport, writeProjectReport } from '../helpers/report.js';

/**
 * Crash injection for `clean`: the built CLI is killed with SIGKILL at every step
 * boundary (after the checkpoint, mid-write with the temp file on disk, after each file
 * write, after staging, after the commit). After each kill every byte of the user's work
 * is recoverable, the next run reports the interrupted one, leaves no temp file, and
 * ends with the repository exactly as one uninterrupted run would have left it.
 */

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

const NOW = { STW_NOW: '2026-04-02T08:30:00Z' };
const DOCS = {
  'docs/a.md': 'A\nsee old.md\n',
  'docs/b.md': 'B\nsee old.md\n',
  'docs/c.md': 'C\nsee old.md\n',
};
const STAGED = 'work v2, staged\n';
const EDITED = 'work v3, edited after staging\n';
const UNTRACKED = 'my untracked notes\n';

const OLD = 'superseded plan\n';

/** Three docs to fix and one to move, a file staged and then edited again, and an untracked file. */
function project(): { repo: TestRepo; start: string } {
  const repo = makeRepo();
  repos.push(repo);
  repo.commit('docs', { ...DOCS, 'docs/old.md': OLD, 'src/work.txt': 'work v1\n' });
  const start = repo.head();
  writeProjectReport(
    repo.dir,
    makeReport(repo.dir, [
      ...['a', 'b', 'c'].map((name) =>
        makeEntry(repo.dir, {
          id: name,
          path: `docs/${name}.md`,
          kind: 'replace-text',
          anchor: [2, 2],
          match: 'old',
          replacement: 'new',
        }),
      ),
      makeEntry(repo.dir, {
        id: 'mv',
        path: 'docs/old.md',
        kind: 'move-to-archive',
        dest_path: 'docs/archive/old.md',
      }),
    ]),
  );
  writeFileSync(repo.path('src/work.txt'), STAGED);
  repo.git(['add', 'src/work.txt']);
  writeFileSync(repo.path('src/work.txt'), EDITED);
  writeFileSync(repo.path('notes.txt'), UNTRACKED);
  return { repo, start };
}

/** Every `.NAME.tmp-PID-HEX` anywhere in the worktree, and anything left in the tool's temp folder. */
function tempFiles(repo: TestRepo): string[] {
  const found: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(repo.dir, rel), { withFileTypes: true })) {
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (path === '.git') continue;
      if (entry.isDirectory()) walk(path);
      else if (/\.tmp-\d+-[0-9a-f]+$/.test(entry.name)) found.push(path);
    }
  };
  walk('');
  const tmp = repo.path('.git', 'sourcesteward', 'tmp');
  if (existsSync(tmp)) found.push(...readdirSync(tmp).map((name) => `.git/sourcesteward/tmp/${name}`));
  return found;
}

/** Every byte of the user's work is somewhere git or the worktree keeps it. */
function assertRecoverable(repo: TestRepo, start: string): void {
  assert.equal(readFileSync(repo.path('notes.txt'), 'utf8'), UNTRACKED, 'untracked work untouched');
  const edited = readFileSync(repo.path('src/work.txt'), 'utf8');
  const inWip = repo
    .git(['log', '--format=%H', `${start}..HEAD`])
    .split('\n')
    .filter(Boolean);
  const blobs = [edited, ...inWip.map((c) => `${repo.git(['show', `${c}:src/work.txt`])}\n`)];
  assert.ok(blobs.includes(EDITED), 'the worktree version is in the worktree or a commit');
  const staged = [
    `${repo.git(['show', ':src/work.txt'])}\n`,
    ...repo
      .git(['for-each-ref', '--format=%(refname)', 'refs/stw-hygiene'])
      .split('\n')
      .filter(Boolean)
      .map((ref) => `${repo.git(['show', `${ref}:src/work.txt`])}\n`),
  ];
  assert.ok(staged.includes(STAGED) || blobs.includes(STAGED), 'the staged version is in the index or a ref');
  for (const [path, text] of Object.entries(DOCS)) {
    const now = readFileSync(repo.path(path), 'utf8');
    assert.ok(
      now === text || now === text.replace('old', 'new'),
      `${path} holds the old or the cleaned text`,
    );
  }
  const moved = ['docs/old.md', 'docs/archive/old.md'].filter((path) => existsSync(repo.path(path)));
  assert.equal(moved.length, 1, 'the moved doc is in exactly one place');
  assert.equal(readFileSync(repo.path(moved[0]!), 'utf8'), OLD);
}

const STEPS = [
  ['after-checkpoint', 'rolled-back'],
  ['before-rename:1', 'rolled-back'],
  ['after-write:1', 'rolled-back'],
  ['before-rename:2', 'rolled-back'],
  ['after-write:2', 'rolled-back'],
  ['after-write:3', 'rolled-back'],
  ['after-write:4', 'rolled-back'],
  ['before-commit', 'rolled-back'],
  ['after-commit', 'committed'],
] as const;

describe('stw hygiene clean: SIGKILL at every step boundary', () => {
  for (const [step, outcome] of STEPS) {
    it(`killed at ${step}: nothing is lost, and the next run reports it (${outcome}) and finishes the job`, async () => {
      const { repo, start } = project();
      const crashed = await runCli(['hygiene', 'clean', '--approve', 'mv'], {
        cwd: repo.dir,
        env: { ...NOW, STW_TEST_HOOKS: '1', STW_TEST_CRASH_AT: step },
      });
      assert.equal(
        crashed.code,
        null,
        `the process was killed (stdout: ${crashed.stdout} stderr: ${crashed.stderr})`,
      );
      assertRecoverable(repo, start);

      const next = await runCliJson(['hygiene', 'clean', '--approve', 'mv'], { cwd: repo.dir, env: NOW });
      const interrupted = next.json['interrupted_run'] as Record<string, unknown> | undefined;
      assert.equal(interrupted?.['outcome'], outcome, JSON.stringify(next.json));
      assert.equal(interrupted?.['command'], 'clean');
      assert.equal(interrupted?.['original_head'], start);
      if (step !== 'after-commit') assert.match(String(interrupted?.['wip_commit']), /^[0-9a-f]{40}$/);
      assert.deepEqual(tempFiles(repo), [], 'no temp file is left');
      assert.equal(existsSync(repo.path('.git', 'sourcesteward')), false, 'no lock or journal is left');
      assertRecoverable(repo, start);

      // Exactly what one uninterrupted run leaves: one WIP commit, one cleanup commit.
      assert.equal(repo.git(['rev-list', '--count', `${start}..HEAD`]), '2');
      assert.equal(
        repo.git(['log', '-1', '--format=%s', 'HEAD~1']),
        'wip: checkpoint before docs hygiene cleanup',
      );
      assert.equal(repo.git(['show', 'HEAD~1:src/work.txt']), EDITED.trimEnd());
      for (const path of Object.keys(DOCS))
        assert.equal(
          repo.git(['show', `HEAD:${path}`]),
          DOCS[path as keyof typeof DOCS].replace('old', 'new').trimEnd(),
        );
      assert.equal(
        repo.git(['show', 'HEAD:docs/archive/old.md']),
        OLD.trimEnd(),
        'the move is in the commit',
      );
      assert.equal(existsSync(repo.path('docs/old.md')), false);
      assert.equal(
        repo.git(['status', '--porcelain', '--untracked-files=all', '--', '.', ':!.dochygiene']),
        '?? notes.txt',
      );
      if (outcome === 'rolled-back') {
        assert.equal(next.code, 0, next.stderr);
        assert.equal(next.json['status'], 'committed');
        const ref = String(next.json['staged_ref']);
        assert.equal(
          repo.git(['show', `${ref}:src/work.txt`]),
          STAGED.trimEnd(),
          'the staged version is named',
        );
        assert.equal(
          repo.git(['for-each-ref', 'refs/stw-hygiene']).split('\n').length,
          1,
          'one ref, not two',
        );
      } else {
        // The commit stood; the report no longer matches the cleaned files.
        assert.equal(next.json['status'], 'partial');
      }
    });
  }

  it('the human output names the interrupted run and its checkpoint', async () => {
    const { repo } = project();
    // Moves run first (a link rewrite applies only after its move), so the first write is the move.
    await runCli(['hygiene', 'clean', '--approve', 'mv'], {
      cwd: repo.dir,
      env: { ...NOW, STW_TEST_HOOKS: '1', STW_TEST_CRASH_AT: 'after-write:1' },
    });
    const wip = repo.head();
    const next = await runCli(['hygiene', 'clean', '--approve', 'mv'], { cwd: repo.dir, env: NOW });
    assert.equal(next.code, 0, next.stderr);
    assert.match(
      next.stdout,
      new RegExp(
        `^An earlier stw clean \\(pid \\d+, started 2026-04-02T08:30:00Z\\) was interrupted after its checkpoint ${wip.slice(0, 12)}; it was rolled back \\(HEAD is at [0-9a-f]{12} again\\), restoring docs/old\\.md docs/archive/old\\.md\\.$`,
        'm',
      ),
    );
  });
});
