import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TidyPlanV1 } from '../../src/tidy/types.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/git-repo.js';
import { checkedPlan, STW_NOW, target } from '../tidy/helpers.js';
import { type JjRepo, jjTestEnv, makeJjRepo, trackWithRemote } from './helpers.js';

const env = () => jjTestEnv({ STW_NOW });

async function plan(repo: JjRepo, args: string[], cwd = repo.dir) {
  const result = await runCliJson(['tidy', 'plan', cwd, ...args], { cwd, env: env() });
  return { ...result, plan: checkedPlan(result.json) };
}

const reasonsOf = (p: TidyPlanV1) => Object.fromEntries(p.targets.map((t) => [t.ref, t.reasons]));

describe('tidy plan on jj: bookmarks at one pinned operation', () => {
  let repo: JjRepo;
  let remote: JjRepo;
  const ids: Record<string, { commit: string; change: string }> = {};
  before(() => {
    // done ← used ← feature ← main, and wip off done; a second workspace on `used`, the
    // default workspace's working copy on main, `feature` tracked with a remote.
    repo = makeJjRepo();
    for (const name of ['done', 'used', 'feature', 'main']) {
      repo.commit(name, { [`${name}.txt`]: `${name}\n` });
      repo.jj(['bookmark', 'create', name, '-r', '@-']);
      ids[name] = repo.ids('@-');
    }
    repo.jj(['new', 'done']);
    repo.commit('wip', { 'wip.txt': 'wip\n' });
    repo.jj(['bookmark', 'create', 'wip', '-r', '@-']);
    ids['wip'] = repo.ids('@-');
    repo.jj(['new', 'main']);
    repo.jj(['workspace', 'add', '--name', 'second', '-r', 'used', `${repo.dir}-second`]);
    remote = trackWithRemote(repo, 'feature', ids['feature']!.commit);
  });
  after(() => {
    repo.cleanup();
    remote.cleanup();
  });

  it('decides integrated, unintegrated, base, workspace-used and remote-associated bookmarks', async () => {
    const { code, stderr, plan: p } = await plan(repo, ['--base', 'main']);
    assert.equal(code, 0, stderr);
    assert.equal(p.status, 'complete');
    assert.equal(p.backend.name, 'jj');
    assert.deepEqual(reasonsOf(p), {
      done: ['integrated'],
      used: ['integrated', 'workspace-revision'],
      feature: ['integrated', 'remote-associated'],
      main: ['integrated', 'is-base', 'workspace-revision'],
      wip: ['not-integrated'],
    });
    assert.deepEqual(
      p.targets.filter((t) => t.decision === 'delete').map((t) => t.ref),
      ['done'],
    );
    const used = target(p, 'used');
    assert.deepEqual(used.blockers, [
      { reason: 'workspace-revision', worktree: `${repo.dir}-second`, workspace: 'second' },
    ]);
    const feature = target(p, 'feature');
    assert.deepEqual(feature.jj?.remotes, [
      { remote: 'origin', tracked: true, targets: [ids['feature']!.commit] },
    ]);
    // The colocated repository's `git` pseudo-remote is not a remote association.
    assert.deepEqual(target(p, 'done').jj?.remotes, []);
    assert.deepEqual(p.base, { selector: 'main', ref: 'main', oid: ids['main']!.commit });
    assert.deepEqual(
      p.effects.map((e) => [e.ref, e.old_oid, e.recovery_ref]),
      [['done', ids['done']!.commit, null]],
    );
  });

  it('keeps commit, change and operation ids apart and records the pinned operation', async () => {
    const op = repo.op();
    const { plan: p } = await plan(repo, ['--base', 'main', '--ref', 'done', '--ref', 'wip']);
    assert.equal(p.jj?.operation_id, op);
    assert.match(op, /^[0-9a-f]{128}$/);
    for (const name of ['done', 'wip']) {
      const t = target(p, name);
      assert.equal(t.oid, ids[name]!.commit);
      assert.equal(t.jj?.change_id, ids[name]!.change);
      assert.match(t.jj?.change_id ?? '', /^[k-z]{32}$/);
      assert.notEqual(t.oid, t.jj?.change_id);
    }
    assert.deepEqual(p.selection, { mode: 'explicit', refs: ['done', 'wip'] });
    assert.deepEqual(
      p.jj?.workspaces.map((w) => [w.name, w.root]),
      [
        ['default', repo.dir],
        ['second', `${repo.dir}-second`],
      ],
    );
    assert.equal(p.jj?.workspace, 'default');
    // From the second workspace, the same repository and its own workspace name.
    const fromSecond = await plan(repo, ['--base', 'main', '--ref', 'done'], `${repo.dir}-second`);
    assert.equal(fromSecond.plan.jj?.workspace, 'second');
    assert.equal(fromSecond.plan.repository?.common_dir, p.repository?.common_dir);
  });

  it('never snapshots: a dirty working copy stays unrecorded and the operation log is unchanged', async () => {
    writeFileSync(join(repo.dir, 'dirty.txt'), 'not snapshotted\n');
    const before = repo.opLog();
    const { code, plan: p } = await plan(repo, ['--base', 'main']);
    assert.equal(code, 0);
    assert.equal(repo.opLog(), before, 'planning ran no jj operation');
    assert.ok(p.limits.some((limit) => limit.includes('cleanliness is not established')));
    const human = await runCli(['tidy', 'plan', repo.dir, '--base', 'main'], { cwd: repo.dir, env: env() });
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /observed at operation [0-9a-f]{128} \(without snapshotting/);
    assert.match(human.stdout, /blocker: workspace-revision in workspace second at /);
    assert.equal(repo.opLog(), before);
  });

  it('refuses unknown and duplicate bookmarks, an unknown base, and takes names literally', async () => {
    const cases: [string[], string][] = [
      [['--base', 'main', '--ref', 'nope'], 'unknown-ref'],
      [['--base', 'main', '--ref', 'done', '--ref', 'done'], 'duplicate-ref'],
      [['--base', 'nope'], 'base-unresolved'],
      [['--base', 'refs/heads/main'], 'base-unresolved'],
      // Globs and revsets are not bookmark names.
      [['--base', 'main', '--ref', 'd*'], 'unknown-ref'],
      [['--base', 'main', '--ref', 'done | wip'], 'unknown-ref'],
      [['--base', 'main', '--ref', 'glob:*'], 'unknown-ref'],
    ];
    for (const [args, codeName] of cases) {
      const { code, plan: p } = await plan(repo, args);
      assert.equal(code, 1, args.join(' '));
      assert.equal(p.status, 'refused');
      assert.equal(p.refusal?.code, codeName, args.join(' '));
      assert.deepEqual(p.targets, []);
    }
  });

  it('stores a plan with the operation id and recovery bookmarks, bound to the jj repository', async () => {
    const stateDir = makeTempDir('stw-jj-state-');
    const { code, stderr, plan: p } = await plan(repo, ['--base', 'main', '--state-dir', stateDir]);
    assert.equal(code, 0, stderr);
    assert.match(p.plan_id, /^[0-9a-f]{32}$/);
    assert.deepEqual(
      p.effects.map((e) => e.recovery_ref),
      [`stw-recovery/${p.plan_id}/1`],
    );
    const record = JSON.parse(readFileSync(join(stateDir, 'plans', `${p.plan_id}.json`), 'utf8'));
    assert.equal(record.plan.jj.operation_id, p.jj?.operation_id);
    assert.equal(record.binding.metadata_dir, p.repository?.common_dir);
    assert.deepEqual(record.binding.root_commits, [ids['done']!.commit]);
    const shown = await runCliJson(['tidy', 'show', '--plan', p.plan_id, '--state-dir', stateDir], {
      cwd: stateDir,
      env: env(),
    });
    assert.equal(shown.code, 0, shown.stderr);
    // A state directory inside the repository is refused.
    const inside = join(repo.dir, 'state');
    mkdirSync(inside, { mode: 0o700 });
    const overlap = await plan(repo, ['--base', 'main', '--state-dir', inside]);
    assert.equal(overlap.plan.refusal?.code, 'state-dir-overlap');
  });
});

describe('tidy plan on jj: conflicted bookmarks', () => {
  let repo: JjRepo;
  let a: string;
  let c: string;
  before(() => {
    // Not colocated: jj's export to Git would settle the concurrent change instead.
    repo = makeJjRepo({ colocate: false });
    a = repo.commit('a', { 'a.txt': 'a\n' });
    repo.jj(['bookmark', 'create', 'main', '-r', '@-']);
    repo.jj(['new', 'root()']);
    c = repo.commit('c', { 'c.txt': 'c\n' });
    repo.jj(['new', 'main']);
    const beforeConflict = repo.op();
    repo.jj(['bookmark', 'create', 'split', '-r', a]);
    repo.jj(['--ignore-working-copy', `--at-op=${beforeConflict}`, 'bookmark', 'create', 'split', '-r', c]);
    repo.jj(['bookmark', 'list']); // reconciles the divergent operations
  });
  after(() => {
    repo.cleanup();
  });

  it('retains a conflicted bookmark with its sides and no single commit', async () => {
    const { code, stderr, plan: p } = await plan(repo, ['--base', 'main', '--ref', 'split']);
    assert.equal(code, 0, stderr);
    const split = target(p, 'split');
    assert.equal(split.decision, 'retain');
    assert.deepEqual(split.reasons, ['conflicted']);
    assert.equal(split.oid, null);
    assert.equal(split.jj?.targets.length, 3);
    assert.deepEqual(split.jj?.targets.filter((side) => side !== null).sort(), [a, c].sort());
    assert.deepEqual(p.effects, []);
  });

  it('refuses a conflicted base', async () => {
    const { code, plan: p } = await plan(repo, ['--base', 'split']);
    assert.equal(code, 1);
    assert.equal(p.refusal?.code, 'base-conflicted');
  });
});
