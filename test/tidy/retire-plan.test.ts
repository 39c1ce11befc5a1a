import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, cpSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import {
  blockerCodes,
  cleanupTaskFixtures,
  commitInTask,
  createTask,
  integratedTask,
  planRetire,
  STW_NOW,
  taskRepo,
} from '../task/fixture.js';

after(cleanupTaskFixtures);

/** Plans and asserts a complete plan that retains the task with (at least) `code`, naming `path`. */
async function assertRetains(
  f: Awaited<ReturnType<typeof integratedTask>>,
  code: string,
  path?: string,
  options = {},
) {
  const { json, code: exit, stdout } = await planRetire(f, options);
  assert.equal(exit, 0);
  assert.equal(json.status, 'complete');
  const r = json.retirement!;
  assert.equal(r.decision, 'retain');
  assert.deepEqual(r.effects, [], 'a retained plan has no effects');
  assert.ok(blockerCodes(json).includes(code), `expected ${code}, got ${JSON.stringify(r.blockers)}`);
  if (path !== undefined)
    assert.ok(
      r.blockers.some((b) => b.code === code && b.path === path),
      `expected ${code} at ${path}, got ${JSON.stringify(r.blockers)}`,
    );
  assert.ok(r.actions.every((a) => a.decision === 'retain' && a.reasons.includes(code as never)));
  assert.match(stdout, /"decision": "retain"/);
  return json;
}

describe('stw tidy plan --task: a clean integrated task', () => {
  it('retires with a full manifest, bound identities and ordered effects', async () => {
    const f = await integratedTask();
    const { json } = await planRetire(f);
    const r = json.retirement!;
    assert.equal(json.schema_version, 2);
    assert.equal(json.plan, null);
    assert.match(json.plan_id, /^[0-9a-f]{32}$/);
    assert.equal(r.decision, 'retire');
    assert.deepEqual(r.blockers, []);
    assert.deepEqual(
      r.actions.map((a) => [a.action, a.decision]),
      [
        ['remove-registration', 'retire'],
        ['remove-files', 'retire'],
      ],
    );
    assert.deepEqual(
      r.effects.map((e) => e.type),
      ['pin-recovery-ref', 'remove-files', 'remove-own-lock', 'remove-registration'],
    );
    assert.equal(r.effects[0]?.recovery_ref, `refs/stw-recovery/${json.plan_id}/1`);
    assert.equal(r.integration.ancestor_of_base, true);
    assert.equal(r.target.tip_oid, f.repo.head('refs/heads/main'));
    assert.deepEqual(
      r.manifest.entries.map((e) => [e.path, e.type, e.mode]),
      [
        ['.', 'directory', r.manifest.entries[0]!.mode],
        ['.git', 'file', '0644'],
        ['.gitignore', 'file', '0644'],
        ['README.md', 'file', '0644'],
        ['bin', 'directory', r.manifest.entries[4]!.mode],
        ['bin/run.sh', 'file', '0755'],
        ['docs', 'directory', r.manifest.entries[6]!.mode],
        ['docs/notes.md', 'file', '0644'],
        ['src', 'directory', r.manifest.entries[8]!.mode],
        ['src/a.txt', 'file', '0644'],
      ],
    );
    const readme = r.manifest.entries.find((e) => e.path === 'README.md')!;
    assert.equal(readme.blob_oid, f.repo.git(['rev-parse', 'HEAD:README.md']));
    assert.equal(r.registration.lock_owned, true);
    // Stored exactly as printed.
    const stored = JSON.parse(readFileSync(join(f.stateDir, 'plans', `${json.plan_id}.json`), 'utf8')) as {
      plan: unknown;
    };
    assert.deepEqual(stored.plan, json);
  });

  it('human output names the decision, the effects and the plan id', async () => {
    const f = await integratedTask();
    const result = await runCli(
      [
        'tidy',
        'plan',
        f.repo.dir,
        '--base',
        'refs/heads/main',
        '--state-dir',
        f.stateDir,
        '--task',
        f.taskId,
        '--owner',
        f.owner,
        '--remove-registration',
        '--remove-files',
        f.dest,
      ],
      { cwd: f.repo.dir, env: { STW_NOW } },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /complete — retire task task-1/);
    assert.match(result.stdout, /1\. pin-recovery-ref: create refs\/stw-recovery\/[0-9a-f]{32}\/1/);
    assert.match(result.stdout, /plan id: [0-9a-f]{32}/);
  });
});

describe('stw tidy plan --task: refusals (exit 1, one line naming the reason)', () => {
  it('an unknown task', async () => {
    const f = await integratedTask();
    const { json, stderr } = await planRetire({ ...f, taskId: 'nobody' });
    assert.equal(json.status, 'refused');
    assert.equal(json.refusal?.code, 'unknown-task');
    assert.equal(json.retirement, undefined);
    assert.match(stderr, /^stw: tidy plan refused: unknown-task: .*nobody\n$/);
  });

  it('another owner: a matching task id alone proves nothing', async () => {
    const f = await integratedTask();
    const { json } = await planRetire({ ...f, owner: 'mallory' });
    assert.equal(json.refusal?.code, 'owner-mismatch');
  });

  it('incomplete ownership: the creation journal did not complete', async () => {
    const f = await integratedTask();
    const journal = join(f.stateDir, 'tasks', `${f.taskId}.jsonl`);
    writeFileSync(journal, readFileSync(journal, 'utf8').split('\n').slice(0, 2).join('\n') + '\n');
    const { json } = await planRetire(f);
    assert.equal(json.refusal?.code, 'ownership-incomplete');
  });

  it('--remove-files other than the recorded destination', async () => {
    const f = await integratedTask();
    const { json } = await planRetire(f, { files: false, extra: ['--remove-files', f.parent] });
    assert.equal(json.refusal?.code, 'remove-files-mismatch');
  });

  it('a task from another repository', async () => {
    const f = await integratedTask();
    const other = taskRepo();
    const { json } = await planRetire(f, { path: other.repo.dir });
    assert.equal(json.refusal?.code, 'foreign-repository');
  });

  it('--ref together with --task, and a missing --remove-registration, are usage errors', async () => {
    const f = await integratedTask();
    const withRef = await runCli(
      [
        'tidy',
        'plan',
        f.repo.dir,
        '--base',
        'refs/heads/main',
        '--state-dir',
        f.stateDir,
        '--task',
        f.taskId,
        '--owner',
        f.owner,
        '--remove-registration',
        '--ref',
        'refs/heads/main',
      ],
      { cwd: f.repo.dir },
    );
    assert.equal(withRef.code, 2);
    const noSelection = await runCli(
      [
        'tidy',
        'plan',
        f.repo.dir,
        '--base',
        'refs/heads/main',
        '--state-dir',
        f.stateDir,
        '--task',
        f.taskId,
        '--owner',
        f.owner,
      ],
      { cwd: f.repo.dir },
    );
    assert.equal(noSelection.code, 2);
    assert.match(noSelection.stderr, /--remove-registration/);
  });
});

describe('stw tidy plan --task: each retain case', () => {
  it('registration only: git cannot forget a present worktree (unsupported)', async () => {
    const f = await integratedTask();
    const json = await assertRetains(f, 'unsupported', undefined, { files: false });
    assert.deepEqual(
      json.retirement!.actions.map((a) => a.action),
      ['remove-registration'],
    );
  });

  it('the source worktree: PATH inside the task worktree', async () => {
    const f = await integratedTask();
    await assertRetains(f, 'source-worktree', f.dest, { path: f.dest });
  });

  it('the current worktree: run from inside the task worktree', async () => {
    const f = await integratedTask();
    await assertRetains(f, 'current-worktree', f.dest, { cwd: join(f.dest, 'src') });
  });

  it('a modified tracked file (dirty)', async () => {
    const f = await integratedTask();
    writeFileSync(join(f.dest, 'src/a.txt'), 'changed\n');
    await assertRetains(f, 'dirty', join(f.dest, 'src/a.txt'));
  });

  it('an untracked file', async () => {
    const f = await integratedTask();
    writeFileSync(join(f.dest, 'scratch.txt'), 'mine\n');
    await assertRetains(f, 'untracked', join(f.dest, 'scratch.txt'));
  });

  it('an ignored file (git worktree remove would delete it silently)', async () => {
    const f = await integratedTask();
    writeFileSync(join(f.dest, 'debug.log'), 'output\n');
    await assertRetains(f, 'ignored', join(f.dest, 'debug.log'));
  });

  it('a merge conflict', async () => {
    const f = await createTask(taskRepo());
    commitInTask(f, { 'src/a.txt': 'task side\n' }, false);
    f.repo.commit('main side', { 'src/a.txt': 'main side\n' });
    f.repo.git(['-C', f.dest, 'branch', '-q', 'other', 'refs/heads/main']);
    try {
      f.repo.git(['-C', f.dest, 'merge', '-q', 'other']);
    } catch {
      // the conflict is the point
    }
    const json = await assertRetains(f, 'conflict', join(f.dest, 'src/a.txt'));
    assert.ok(blockerCodes(json).includes('operation-in-progress'), 'MERGE_HEAD in the admin dir');
  });

  it('a symbolic link in the worktree', async () => {
    const f = await integratedTask();
    symlinkSync('/etc/passwd', join(f.dest, 'src/link'));
    await assertRetains(f, 'symlink', join(f.dest, 'src/link'));
  });

  it('a special file (FIFO)', async () => {
    const f = await integratedTask();
    execFileSync('mkfifo', [join(f.dest, 'pipe')]);
    await assertRetains(f, 'special-file', join(f.dest, 'pipe'));
  });

  it('a transformed tree: skip-worktree (sparse) bit', async () => {
    const f = await integratedTask();
    f.repo.git(['-C', f.dest, 'update-index', '--skip-worktree', 'src/a.txt']);
    await assertRetains(f, 'transformed', join(f.dest, 'src/a.txt'));
  });

  it('a transformed tree: line endings converted on checkout, which git status does not show', async () => {
    const base = taskRepo();
    base.repo.commit('crlf', { '.gitattributes': '*.txt text eol=crlf\n' });
    const f = await createTask(base);
    assert.equal(f.repo.git(['-C', f.dest, 'status', '--porcelain']), '', 'git calls it clean');
    const json = await assertRetains(f, 'transformed', join(f.dest, 'src/a.txt'));
    assert.match(json.retirement!.blockers.find((b) => b.code === 'transformed')!.message, /content differs/);
  });

  it('a transformed tree: an edit hidden by assume-unchanged', async () => {
    const f = await integratedTask();
    f.repo.git(['-C', f.dest, 'update-index', '--assume-unchanged', 'README.md']);
    writeFileSync(join(f.dest, 'README.md'), 'hidden edit\n');
    await assertRetains(f, 'transformed', join(f.dest, 'README.md'));
  });

  it('a lock SourceSteward does not own', async () => {
    const f = await integratedTask();
    f.repo.git(['worktree', 'unlock', f.dest]);
    f.repo.git(['worktree', 'lock', '--reason', 'on a removable disk', f.dest]);
    const json = await assertRetains(f, 'lock-not-owned');
    assert.match(
      json.retirement!.blockers.find((b) => b.code === 'lock-not-owned')!.path!,
      /\/worktrees\/task-1\/locked$/,
    );
  });

  it('unsupported metadata: a per-worktree ref git worktree remove would delete', async () => {
    const f = await integratedTask();
    f.repo.git(['-C', f.dest, 'update-ref', 'refs/worktree/keep', 'HEAD']);
    const json = await assertRetains(f, 'unsupported-metadata');
    assert.ok(
      json.retirement!.blockers.some(
        (b) => b.code === 'unsupported-metadata' && /\/worktrees\/task-1\/refs\//.test(b.path ?? ''),
      ),
      JSON.stringify(json.retirement!.blockers),
    );
  });

  it('exceeded bounds: more entries than the bound', async () => {
    const f = await integratedTask();
    await assertRetains(f, 'bound-exceeded', undefined, {
      env: { STW_TEST_HOOKS: '1', STW_TEST_TIDY_BOUNDS: JSON.stringify({ maxEntries: 4 }) },
    });
  });

  it('exceeded bounds: a file over 64 KiB', async () => {
    const f = await createTask(taskRepo());
    commitInTask(f, { 'big.bin': 'x'.repeat(65_537) });
    await assertRetains(f, 'bound-exceeded', join(f.dest, 'big.bin'));
  });

  it('known activity: a process with its working directory in the worktree', async () => {
    const f = await integratedTask();
    const child = spawn(process.execPath, ['-e', 'process.stdin.resume()'], {
      cwd: join(f.dest, 'docs'),
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    try {
      const json = await assertRetains(f, 'activity', join(f.dest, 'docs'));
      assert.match(
        json.retirement!.blockers.find((b) => b.code === 'activity')!.message,
        new RegExp(`process ${child.pid}`),
      );
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('a non-integrated branch', async () => {
    const f = await createTask(taskRepo());
    commitInTask(f, { 'new.txt': 'work\n' }, false);
    await assertRetains(f, 'not-integrated');
  });

  it('a replaced destination (same path, new inode)', async () => {
    const f = await integratedTask();
    renameSync(f.dest, `${f.dest}.old`);
    cpSync(`${f.dest}.old`, f.dest, { recursive: true, preserveTimestamps: true });
    rmSync(`${f.dest}.old`, { recursive: true });
    await assertRetains(f, 'destination-replaced', f.dest);
  });

  it('a foreign worktree at the recorded path', async () => {
    const f = await integratedTask();
    f.repo.git(['worktree', 'remove', '--force', '--force', f.dest]);
    f.repo.git(['worktree', 'add', '-q', '-b', 'foreign', f.dest, 'refs/heads/main']);
    // The new folder may reuse the old inode (tmpfs does), so the replaced destination is not
    // always visible by identity; the foreign registration always is.
    const { json, code } = await planRetire(f, {});
    assert.equal(code, 0);
    assert.equal(json.retirement!.decision, 'retain');
    assert.deepEqual(json.retirement!.effects, []);
    const codes = blockerCodes(json);
    assert.ok(
      codes.includes('foreign-worktree') || codes.includes('registration-changed'),
      JSON.stringify(json.retirement!.blockers),
    );
    assert.ok(json.retirement!.blockers.some((b) => b.path === f.dest));
  });

  it('a missing destination', async () => {
    const f = await integratedTask();
    rmSync(f.dest, { recursive: true });
    await assertRetains(f, 'destination-missing', f.dest);
  });

  it('a mode change of a tracked file (executable bit)', async () => {
    const f = await integratedTask();
    chmodSync(join(f.dest, 'src/a.txt'), 0o755);
    await assertRetains(f, 'dirty', join(f.dest, 'src/a.txt'));
  });
});
