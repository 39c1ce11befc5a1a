import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fixedClock } from '../../../src/core/clock.js';
import { discoverRepo } from '../../../src/core/git.js';
import { clean, planClean } from '../../../src/hygiene/apply/clean.js';
import { runCheck } from '../../../src/hygiene/check.js';
import { RunLock } from '../../../src/hygiene/state/run-lock.js';
import type { Entry } from '../../../src/hygiene/types.js';
import { makeRepo, makeTempDir, type TestRepo, testEnv } from '../../helpers/git-repo.js';
import { makeEntry, makeReport, snapshotTree, writeProjectReport } from '../../helpers/report.js';

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

const env = testEnv();
const clock = fixedClock('2026-03-01T10:00:00Z');

function project(files: Record<string, string>, entries: (root: string) => Entry[]): TestRepo {
  const repo = makeRepo();
  repos.push(repo);
  repo.commit('docs', files);
  writeProjectReport(repo.dir, makeReport(repo.dir, entries(repo.dir)));
  return repo;
}

const read = (repo: TestRepo, path: string) => readFileSync(repo.path(path), 'utf8');
const fix = (root: string, path = 'docs/guide.md', line = 2) =>
  makeEntry(root, {
    id: 'fix',
    path,
    kind: 'replace-text',
    anchor: [line, line],
    match: 'old',
    replacement: 'new',
  });
const GUIDE = { 'docs/guide.md': 'Guide\nsee old.md\n' };
const COMMIT_REFUSED = {
  beforeCommit: () => {
    throw new Error('commit refused (simulated)');
  },
};

/** HEAD, refs, the whole index (flags and intent-to-add included), status and every worktree byte. */
function fingerprint(repo: TestRepo) {
  return {
    head: repo.head(),
    refs: repo.refs(),
    index: repo.git(['ls-files', '-s']),
    flags: repo.git(['ls-files', '-v']),
    status: repo.status(),
    tree: snapshotTree(repo.dir),
  };
}

type ErrorWithDetails = Error & { code?: string; details?: Record<string, unknown> };

describe('clean: the checkpoint keeps the index and the worktree apart', () => {
  it('a file staged, then edited again: the WIP commit has the worktree version, the named ref the staged one', async () => {
    const repo = project({ ...GUIDE, 'src/a.txt': 'a1\n' }, (root) => [fix(root)]);
    const start = repo.head();
    writeFileSync(repo.path('src/a.txt'), 'a2 staged\n');
    repo.git(['add', 'src/a.txt']);
    writeFileSync(repo.path('src/a.txt'), 'a3 edited after staging\n');
    const result = await clean({ cwd: repo.dir, clock, env });
    assert.equal(result.status, 'committed');
    assert.equal(repo.git(['rev-parse', 'HEAD~2']), start, 'one WIP commit and one cleanup commit');
    assert.equal(repo.git(['show', 'HEAD~1:src/a.txt']), 'a3 edited after staging');
    assert.ok(result.staged_ref?.startsWith('refs/stw-hygiene/staged/'), `named: ${result.staged_ref}`);
    assert.equal(repo.git(['show', `${result.staged_ref}:src/a.txt`]), 'a2 staged');
    assert.equal(repo.git(['rev-parse', `${result.staged_ref}^`]), start);
  });

  it('everything staged, nothing edited since: no private ref (the WIP commit is that index)', async () => {
    const repo = project({ ...GUIDE, 'src/a.txt': 'a1\n' }, (root) => [fix(root)]);
    writeFileSync(repo.path('src/a.txt'), 'a2 staged\n');
    repo.git(['add', 'src/a.txt']);
    const result = await clean({ cwd: repo.dir, clock, env });
    assert.equal(result.staged_ref, undefined);
    assert.equal(repo.git(['for-each-ref', 'refs/stw-hygiene']), '');
    assert.equal(repo.git(['show', 'HEAD~1:src/a.txt']), 'a2 staged');
  });

  it('a change staged then reverted in the worktree makes no empty checkpoint; the staged version is kept', async () => {
    const repo = project({ ...GUIDE, 'src/a.txt': 'a1\n' }, (root) => [fix(root)]);
    const start = repo.head();
    writeFileSync(repo.path('src/a.txt'), 'a2 staged\n');
    repo.git(['add', 'src/a.txt']);
    writeFileSync(repo.path('src/a.txt'), 'a1\n');
    const result = await clean({ cwd: repo.dir, clock, env });
    assert.equal(result.status, 'committed');
    assert.equal(result.wip_commit, undefined);
    assert.equal(repo.git(['rev-parse', 'HEAD~1']), start, 'exactly one commit');
    assert.equal(repo.git(['show', `${result.staged_ref}:src/a.txt`]), 'a2 staged');
  });

  it('a rollback restores the whole index exactly, intent-to-add entries included', async () => {
    const repo = project({ ...GUIDE, 'src/a.txt': 'a1\n' }, (root) => [fix(root)]);
    repo.write({ 'notes/new.md': 'an idea\n' });
    repo.git(['add', '-N', 'notes/new.md']);
    writeFileSync(repo.path('src/a.txt'), 'a2 staged\n');
    repo.git(['add', 'src/a.txt']);
    writeFileSync(repo.path('src/a.txt'), 'a3\n');
    const before = fingerprint(repo);
    await assert.rejects(
      clean({ cwd: repo.dir, clock, env, faults: COMMIT_REFUSED }),
      /rolled back; nothing changed/,
    );
    assert.deepEqual(fingerprint(repo), before);
    assert.match(repo.git(['status', '--porcelain']), /^ A notes\/new\.md$/m);
    assert.equal(repo.git(['for-each-ref', 'refs/stw-hygiene']), '', 'no private ref once the index is back');
  });
});

describe('clean: moves land only in plain folders', () => {
  it('a destination inside a submodule is refused (destination-not-a-folder); the gitlink stays as it was', async () => {
    const sub = makeRepo();
    repos.push(sub);
    const repo = project({ ...GUIDE, 'docs/old.md': 'old\n' }, () => []);
    repo.git(['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub.dir, 'docs/archive']);
    repo.git(['commit', '-qm', 'archive is a submodule']);
    writeProjectReport(
      repo.dir,
      makeReport(repo.dir, [
        fix(repo.dir),
        makeEntry(repo.dir, {
          id: 'mv',
          path: 'docs/old.md',
          kind: 'move-to-archive',
          dest_path: 'docs/archive/old.md',
        }),
      ]),
    );
    const gitlink = repo.git(['ls-files', '-s', 'docs/archive']);
    const result = await clean({ cwd: repo.dir, clock, env, approve: ['mv'] });
    assert.equal(result.status, 'partial');
    assert.deepEqual(
      result.entries.map((e) => [e.id, e.outcome, e.reason]),
      [
        ['fix', 'applied', undefined],
        ['mv', 'skipped', 'destination-not-a-folder'],
      ],
    );
    assert.equal(repo.git(['ls-files', '-s', 'docs/archive']), gitlink);
    assert.equal(repo.git(['show', '--name-only', '--format=', 'HEAD']), 'docs/guide.md');
    assert.equal(read(repo, 'docs/old.md'), 'old\n');
  });

  it('check proposes no move into a submodule', async () => {
    const sub = makeRepo();
    repos.push(sub);
    const repo = makeRepo();
    repos.push(repo);
    repo.commit('docs', {
      'docs/design-v1.md': '---\nsuperseded_by: design-v2.md\n---\n# Design v1\n',
      'docs/design-v2.md': '# Design v2\n',
    });
    const plain = await runCheck({ cwd: repo.dir, clock });
    assert.ok(
      plain.report.entries.some((e) => e.exact_edit?.kind === 'move-to-archive'),
      'control: a plain archive folder gets the move',
    );
    repo.git(['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub.dir, 'docs/archive']);
    repo.git(['commit', '-qm', 'archive is a submodule']);
    const checked = await runCheck({ cwd: repo.dir, clock });
    assert.deepEqual(
      checked.report.entries.filter((e) => e.exact_edit?.kind === 'move-to-archive'),
      [],
    );
  });

  it('a destination under a plain file (ENOTDIR) is that file’s outcome; the edit already written is committed, not stranded', async () => {
    const repo = project(
      { 'docs/a.md': 'A\nsee old.md\n', 'docs/old.md': 'old\n', 'docs/archive': 'a file\n' },
      (root) => [
        fix(root, 'docs/a.md'),
        makeEntry(root, {
          id: 'mv',
          path: 'docs/old.md',
          kind: 'move-to-archive',
          dest_path: 'docs/archive/old.md',
        }),
      ],
    );
    const result = await clean({ cwd: repo.dir, clock, env, approve: ['mv'] });
    assert.equal(result.status, 'partial');
    assert.deepEqual(
      result.entries.map((e) => [e.id, e.outcome, e.reason]),
      [
        ['fix', 'applied', undefined],
        ['mv', 'skipped', 'destination-not-a-folder'],
      ],
    );
    assert.equal(repo.git(['status', '--porcelain', '--untracked-files=no']), '');
    assert.equal(repo.git(['show', 'HEAD:docs/a.md']), 'A\nsee new.md');
  });
});

describe('clean: one lock per repository; a rollback trusts only its own record', () => {
  it('refuses (locked) while another run holds the lock, and changes nothing', async () => {
    const repo = project(GUIDE, (root) => [fix(root)]);
    const layout = await discoverRepo(repo.dir);
    // This process holds it, as a concurrent clean would.
    const { lock } = await RunLock.acquire(layout!.gitDir, 'clean', '2026-03-01T09:59:00Z');
    const before = fingerprint(repo);
    try {
      const held = JSON.parse(readFileSync(lock.lockPath, 'utf8'));
      held.pid = process.ppid; // a live process other than this one
      writeFileSync(lock.lockPath, JSON.stringify(held));
      await assert.rejects(clean({ cwd: repo.dir, clock, env }), (error: ErrorWithDetails) => {
        assert.equal(error.code, 'locked');
        assert.match(error.message, /another stw clean \(pid \d+, since 2026-03-01T09:59:00Z\)/);
        return true;
      });
      assert.deepEqual(fingerprint(repo), before);
    } finally {
      await lock.release();
    }
    const after = await clean({ cwd: repo.dir, clock, env });
    assert.equal(after.status, 'committed', 'the lock is free again');
  });

  it('HEAD moved by someone else mid-run: the edits are undone, HEAD and that commit are left, and it says so', async () => {
    const repo = project({ ...GUIDE, 'src/w.txt': '1\n' }, (root) => [fix(root)]);
    writeFileSync(repo.path('src/w.txt'), '2 (my work)\n');
    let theirs = '';
    await assert.rejects(
      clean({
        cwd: repo.dir,
        clock,
        env,
        faults: {
          beforeCommit: () => {
            repo.git(['commit', '-q', '--no-verify', '--allow-empty', '-m', 'someone else']);
            theirs = repo.head();
            throw new Error('commit refused (simulated)');
          },
        },
      }),
      (error: ErrorWithDetails) => {
        assert.equal(error.code, 'clean-failed');
        assert.equal(error.details?.['rolled_back'], false);
        assert.match(error.message, /HEAD moved to [0-9a-f]{40} during the run/);
        assert.ok(typeof error.details?.['wip_commit'] === 'string');
        return true;
      },
    );
    assert.equal(repo.head(), theirs);
    assert.equal(read(repo, 'docs/guide.md'), GUIDE['docs/guide.md'], 'the cleanup’s edit is gone');
    assert.equal(read(repo, 'src/w.txt'), '2 (my work)\n');
  });
});

describe('clean: reports are accepted only from this project’s scan', () => {
  it('refuses a report whose project_root is "." (it would name any project)', async () => {
    const repo = project(GUIDE, (root) => [fix(root)]);
    const report = JSON.parse(read(repo, '.dochygiene/report.json'));
    writeProjectReport(repo.dir, { ...report, scan: { ...report.scan, project_root: '.' } });
    await assert.rejects(
      planClean({ cwd: repo.dir }),
      (error: ErrorWithDetails) => error.code === 'foreign-report',
    );
  });

  it('refuses entries on files the scan would not read: .gitignore, a .js file, an excluded folder', async () => {
    for (const [path, why] of [
      ['.gitignore', /does not match the scan globs/],
      ['src/app.js', /does not match the scan globs/],
      ['node_modules/pkg/README.md', /excluded folder node_modules/],
    ] as const) {
      const repo = project({ ...GUIDE, [path]: 'x\nold\n' }, (root) => [fix(root, path)]);
      const head = repo.head();
      await assert.rejects(clean({ cwd: repo.dir, clock, env }), (error: ErrorWithDetails) => {
        assert.equal(error.code, 'entry-outside-scan', path);
        assert.match(error.message, why);
        return true;
      });
      assert.equal(repo.head(), head);
      assert.equal(read(repo, path), 'x\nold\n');
    }
  });

  it('the plan shows the real edit, derived from exact_edit, whatever the report’s op says', async () => {
    const repo = project(GUIDE, (root) => [{ ...fix(root), op: 'Fix a typo in the title.' }]);
    const plan = await planClean({ cwd: repo.dir });
    assert.equal(plan.entries[0]?.edit, 'replace "old" with "new" on line 2');
  });
});

describe('clean: a result says what happened', () => {
  it('a corrupt state.json: committed, with the commit id and a warning that the stamp failed', async () => {
    const repo = project(GUIDE, (root) => [fix(root)]);
    writeFileSync(repo.path('.dochygiene/state.json'), '{not json');
    const result = await clean({ cwd: repo.dir, clock, env });
    assert.equal(result.status, 'committed');
    assert.equal(result.commit, repo.head());
    assert.equal(result.last_clean, undefined);
    assert.equal(result.warnings?.length, 1);
    assert.match(
      result.warnings![0]!,
      /the commit was made, but last_clean could not be stamped: .*state\.json/,
    );
  });

  it('check with a corrupt state.json writes the report and warns that last_check was not stamped', async () => {
    const repo = makeRepo();
    repos.push(repo);
    repo.commit('docs', { 'docs/plans/idea.md': '# Idea\n\nNobody links here.\n' });
    mkdirSync(repo.path('.dochygiene'));
    writeFileSync(repo.path('.dochygiene/state.json'), '[]');
    const result = await runCheck({ cwd: repo.dir, clock });
    assert.ok(existsSync(result.reportJsonPath));
    assert.match(result.warnings?.[0] ?? '', /the report was written, but last_check could not be stamped/);
  });
});

describe('clean: the cleanup commit is the user’s commit', () => {
  /** Hooks that append their name to a log outside the repository; `fail` makes pre-commit refuse. */
  function installHooks(repo: TestRepo, fail = false): string {
    const log = join(makeTempDir('stw-hooks-'), 'log');
    writeFileSync(log, '');
    for (const hook of ['pre-commit', 'commit-msg', 'prepare-commit-msg', 'post-commit']) {
      const path = repo.path('.git', 'hooks', hook);
      const refuse =
        fail && hook === 'pre-commit' ? 'echo "lint: docs/guide.md has 1 problem" >&2\nexit 1\n' : '';
      // pre-commit also lists the staged docs by a glob, as lint hooks do: globs must work there.
      const list = hook === 'pre-commit' ? `git diff --cached --name-only -- '*.md' >> "${log}"\n` : '';
      writeFileSync(path, `#!/bin/sh\necho ${hook} >> "${log}"\n${list}${refuse}`);
      chmodSync(path, 0o755);
    }
    return log;
  }

  it('runs the user’s hooks on the cleanup commit only; the WIP checkpoint runs none', async () => {
    const repo = project({ ...GUIDE, 'src/w.txt': '1\n' }, (root) => [fix(root)]);
    writeFileSync(repo.path('src/w.txt'), '2\n');
    const log = installHooks(repo);
    const result = await clean({ cwd: repo.dir, clock, env });
    assert.equal(result.status, 'committed');
    assert.ok(result.wip_commit !== undefined);
    assert.equal(result.hooks_ran, true);
    assert.equal(
      readFileSync(log, 'utf8'),
      'pre-commit\ndocs/guide.md\nprepare-commit-msg\ncommit-msg\npost-commit\n',
    );
  });

  it('noVerify skips pre-commit and commit-msg, as git commit --no-verify does', async () => {
    const repo = project(GUIDE, (root) => [fix(root)]);
    const log = installHooks(repo);
    const result = await clean({ cwd: repo.dir, clock, env, noVerify: true });
    assert.equal(result.hooks_ran, false);
    assert.equal(readFileSync(log, 'utf8'), 'prepare-commit-msg\npost-commit\n');
  });

  it('a refusing pre-commit hook rolls everything back and hands over its output', async () => {
    const repo = project({ ...GUIDE, 'src/w.txt': '1\n' }, (root) => [fix(root)]);
    writeFileSync(repo.path('src/w.txt'), '2\n');
    installHooks(repo, true);
    const before = fingerprint(repo);
    await assert.rejects(clean({ cwd: repo.dir, clock, env }), (error: ErrorWithDetails) => {
      assert.equal(error.code, 'clean-failed');
      assert.equal(error.details?.['rolled_back'], true);
      assert.match(String(error.details?.['tool_output']), /lint: docs\/guide\.md has 1 problem/);
      return true;
    });
    assert.deepEqual(fingerprint(repo), before);
  });

  it('signs the commits as the user’s global config says (ssh signing)', async () => {
    const repo = project(GUIDE, (root) => [fix(root)]);
    const dir = makeTempDir('stw-sign-');
    const key = join(dir, 'key');
    execKeygen(key);
    const config = join(dir, 'gitconfig');
    writeFileSync(
      config,
      `${readFileSync(env['GIT_CONFIG_GLOBAL']!, 'utf8').replace('gpgSign = false', 'gpgSign = true')}[gpg]\n\tformat = ssh\n[user]\n\tsigningkey = ${key}\n`,
    );
    const result = await clean({ cwd: repo.dir, clock, env: { ...env, GIT_CONFIG_GLOBAL: config } });
    assert.equal(result.status, 'committed');
    assert.match(repo.git(['cat-file', 'commit', 'HEAD']), /^gpgsig -----BEGIN SSH SIGNATURE-----/m);
  });
});

describe('clean: temp files never land where a scan or git add would see them', () => {
  it('a write’s temp file is inside the git dir, not beside the doc', async () => {
    const repo = project(GUIDE, (root) => [fix(root)]);
    let beside: string[] = [];
    let inGitDir: string[] = [];
    const result = await clean({
      cwd: repo.dir,
      clock,
      env,
      faults: {
        beforeRename: () => {
          beside = readdirSync(repo.path('docs')).filter((name) => name.includes('.tmp-'));
          inGitDir = readdirSync(repo.path('.git', 'sourcesteward', 'tmp'));
        },
      },
    });
    assert.equal(result.status, 'committed');
    assert.deepEqual(beside, []);
    assert.equal(inGitDir.length, 1);
    assert.equal(
      existsSync(repo.path('.git', 'sourcesteward')),
      false,
      'nothing is left in the git dir after the run',
    );
  });

  it('removes the temp files a killed run of an older release left beside docs', async () => {
    const repo = project(GUIDE, (root) => [fix(root)]);
    const stale = 'docs/.guide.md.tmp-999999999-0123456789ab';
    writeFileSync(repo.path(stale), 'half-written\n');
    const result = await clean({ cwd: repo.dir, clock, env });
    assert.deepEqual(result.removed_temp_files, [stale]);
    assert.equal(existsSync(repo.path(stale)), false);
  });
});

function execKeygen(key: string): void {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'test', '-f', key]);
}
