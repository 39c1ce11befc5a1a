import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { TidyApplyResult } from '../../src/tidy/apply.js';
import { ApplyLock } from '../../src/tidy/engine/lock.js';
import { loadPlanKey, planKeyPath } from '../../src/tidy/plan-key.js';
import { planIntegrity } from '../../src/tidy/store.js';
import type { RepositoryBinding, TidyPlanV1 } from '../../src/tidy/types.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { makeTempDir, testEnv } from '../helpers/git-repo.js';
import {
  apply,
  cleanupFixtures,
  type Fixture,
  fixture,
  journalOf,
  journalRecords,
  plan,
  refMap,
} from './apply-fixture.js';
import { snapshotTree } from './helpers.js';

after(cleanupFixtures);

describe('stw tidy apply: deletion with a recovery pin', () => {
  for (const objectFormat of ['sha1', 'sha256'] as const) {
    it(`deletes merged branches, pins their old OIDs, and the printed command restores them (${objectFormat})`, async () => {
      const f = fixture(objectFormat);
      const p = await plan(f);
      assert.deepEqual(
        p.effects.map((e) => e.ref),
        ['refs/heads/done', 'refs/heads/done2'],
      );
      const { json } = await apply(f, p.plan_id);
      assert.equal(json.status, 'complete');
      assert.deepEqual(
        json.actions.map((a) => [a.ref, a.outcome, a.verified]),
        [
          ['refs/heads/done', 'deleted', true],
          ['refs/heads/done2', 'deleted', true],
        ],
      );
      const refs = refMap(f.repo);
      assert.equal(refs.has('refs/heads/done'), false);
      assert.equal(refs.has('refs/heads/done2'), false);
      assert.equal(refs.get('refs/heads/wip'), f.oids['wip'], 'the retained branch is untouched');
      assert.equal(refs.get(`refs/stw-recovery/${p.plan_id}/1`), f.oids['done']);
      assert.equal(refs.get(`refs/stw-recovery/${p.plan_id}/2`), f.oids['done2']);
      assert.equal(json.journal, journalOf(f, p.plan_id));
      assert.deepEqual(
        journalRecords(f, p.plan_id).map((r) => `${r['type']}:${r['action_id']}`),
        ['intent:1', 'outcome:1', 'verified:1', 'intent:2', 'outcome:2', 'verified:2'],
      );
      assert.deepEqual(json.recovery, [
        {
          ref: 'refs/heads/done',
          recovery_ref: `refs/stw-recovery/${p.plan_id}/1`,
          oid: f.oids['done'],
          restore_command: `git update-ref refs/heads/done refs/stw-recovery/${p.plan_id}/1 ''`,
        },
        {
          ref: 'refs/heads/done2',
          recovery_ref: `refs/stw-recovery/${p.plan_id}/2`,
          oid: f.oids['done2'],
          restore_command: `git update-ref refs/heads/done2 refs/stw-recovery/${p.plan_id}/2 ''`,
        },
      ]);
      assert.ok(json.limitations.some((l) => l.includes('untracked')));
      assert.ok(json.limitations.some((l) => l.includes('no general undo')));

      // The exact printed command restores the branch at its old commit; the pin stays.
      for (const entry of json.recovery)
        execFileSync('sh', ['-c', entry.restore_command], { cwd: f.repo.dir, env: testEnv() });
      const restored = refMap(f.repo);
      assert.equal(restored.get('refs/heads/done'), f.oids['done']);
      assert.equal(restored.get('refs/heads/done2'), f.oids['done2']);
      assert.equal(restored.get(`refs/stw-recovery/${p.plan_id}/1`), f.oids['done']);
    });
  }

  it('human output reports outcomes, the journal, each recovery ref with its restore command, and limitations', async () => {
    const f = fixture();
    const p = await plan(f, ['done']);
    const result = await runCli(
      ['tidy', 'apply', '--plan', p.plan_id, '--state-dir', f.stateDir, '--authorize'],
      {
        cwd: f.stateDir,
      },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^tidy apply: complete — 1 deleted/);
    assert.match(result.stdout, /1\. deleted +refs\/heads\/done at [0-9a-f]{40} \(verified\)/);
    assert.ok(result.stdout.includes(`journal: ${journalOf(f, p.plan_id)}`));
    assert.ok(
      result.stdout.includes(`    git update-ref refs/heads/done refs/stw-recovery/${p.plan_id}/1 ''\n`),
    );
    assert.match(result.stdout, /limitations:\n {2}- untracked and ignored files are not backed up/);
  });

  it('quotes odd branch names for the terminal and for the shell restore command', async () => {
    const f = fixture();
    const odd = `it's$odd;name`;
    const oid = f.repo.branch(odd, f.oids['done']);
    const p = await plan(f, [odd]);
    const human = await runCli(
      ['tidy', 'apply', '--plan', p.plan_id, '--state-dir', f.stateDir, '--authorize'],
      {
        cwd: f.stateDir,
      },
    );
    assert.equal(human.code, 0, human.stderr);
    assert.ok(human.stdout.includes(`"refs/heads/it's$odd;name" at ${oid}`), human.stdout);
    const restore = `git update-ref 'refs/heads/it'\\''s$odd;name' refs/stw-recovery/${p.plan_id}/1 ''`;
    assert.ok(human.stdout.includes(restore), human.stdout);
    execFileSync('sh', ['-c', restore], { cwd: f.repo.dir, env: testEnv() });
    assert.equal(refMap(f.repo).get(`refs/heads/${odd}`), oid);
  });

  it('the printed restore command works when pasted, for a branch named HEAD and for bidi and C1 names', async () => {
    const f = fixture();
    const names = ['HEAD', 'a\u202eb', 'c\u0085d'];
    for (const name of names) f.repo.git(['update-ref', `refs/heads/${name}`, f.oids['done']!]);
    const p = await plan(f, names);
    const human = await runCli(
      ['tidy', 'apply', '--plan', p.plan_id, '--state-dir', f.stateDir, '--authorize'],
      { cwd: f.stateDir },
    );
    assert.equal(human.code, 0, human.stderr);
    // What a person copies: the lines printed under each recovery ref, as shown.
    const pasted = human.stdout
      .split('\n')
      .filter((line) => line.startsWith('    git update-ref '))
      .map((line) => line.trim());
    assert.equal(pasted.length, names.length, human.stdout);
    for (const command of pasted) {
      assert.match(command, /^[\x20-\x7e]+$/, 'printable ASCII: nothing is escaped for display');
      execFileSync('sh', ['-c', command], { cwd: f.repo.dir, env: testEnv() });
    }
    const refs = refMap(f.repo);
    for (const name of names) assert.equal(refs.get(`refs/heads/${name}`), f.oids['done'], name);
  });

  it('a second apply is a verified no-op: nothing repeated, nothing journaled', async () => {
    const f = fixture();
    const p = await plan(f);
    await apply(f, p.plan_id);
    const journalBefore = readFileSync(journalOf(f, p.plan_id), 'utf8');
    const refsBefore = f.repo.refs();
    const { json } = await apply(f, p.plan_id);
    assert.equal(json.status, 'complete');
    assert.deepEqual(
      json.actions.map((a) => [a.outcome, a.verified]),
      [
        ['already-done', true],
        ['already-done', true],
      ],
    );
    assert.equal(readFileSync(journalOf(f, p.plan_id), 'utf8'), journalBefore, 'no new journal record');
    assert.equal(f.repo.refs(), refsBefore);
    assert.equal(json.recovery.length, 2);
  });

  it('a recorded postcondition that no longer holds is reported, never silently accepted', async () => {
    const f = fixture();
    const p = await plan(f, ['done']);
    const first = await apply(f, p.plan_id);
    execFileSync('sh', ['-c', first.json.recovery[0]!.restore_command], { cwd: f.repo.dir, env: testEnv() });
    const { json } = await apply(f, p.plan_id);
    assert.equal(json.status, 'failed');
    assert.equal(json.actions[0]?.outcome, 'failed');
    assert.equal(json.actions[0]?.reason, 'postcondition-changed');
    assert.equal(refMap(f.repo).get('refs/heads/done'), f.oids['done'], 'the restored branch is left alone');
  });

  it('a plan that deletes nothing completes with nothing to do', async () => {
    const f = fixture();
    const p = await plan(f, ['wip']);
    assert.deepEqual(p.effects, []);
    const { json } = await apply(f, p.plan_id);
    assert.equal(json.status, 'complete');
    assert.deepEqual(json.actions, []);
    assert.equal(json.journal, null);
  });
});

describe('stw tidy apply: revalidation', () => {
  it('refuses a branch moved after planning as stale and leaves it untouched; others proceed', async () => {
    const f = fixture();
    const p = await plan(f);
    f.repo.checkout('done');
    const moved = f.repo.commit('late work', { 'late.txt': 'late\n' });
    f.repo.checkout('main');
    const { json } = await apply(f, p.plan_id);
    assert.equal(json.status, 'partial');
    assert.equal(json.actions[0]?.outcome, 'refused');
    assert.equal(json.actions[0]?.reason, 'stale-proof');
    assert.match(json.actions[0]?.message ?? '', /tip moved/);
    assert.equal(json.actions[1]?.outcome, 'deleted');
    const refs = refMap(f.repo);
    assert.equal(refs.get('refs/heads/done'), moved);
    assert.equal(refs.has(`refs/stw-recovery/${p.plan_id}/1`), false, 'no pin for a refused action');
    assert.deepEqual(
      json.recovery.map((r) => r.ref),
      ['refs/heads/done2'],
    );
  });

  it('refuses a branch that was moved away and back only if its proof changed (ABA at the same commit passes)', async () => {
    const f = fixture();
    const p = await plan(f, ['done']);
    f.repo.git(['update-ref', 'refs/heads/done', f.oids['wip']!]);
    f.repo.git(['update-ref', 'refs/heads/done', f.oids['done']!]);
    const { json } = await apply(f, p.plan_id);
    assert.equal(json.status, 'complete', 'same commit, same proof: sampled checks cannot see ABA');
  });

  it('refuses the whole plan when a worktree is added after planning, before any effect', async () => {
    const f = fixture();
    const p = await plan(f);
    const before = f.repo.refs();
    f.repo.worktree(join(makeTempDir('stw-wt-'), 'extra'), { branch: 'wip' });
    const { json } = await apply(f, p.plan_id);
    assert.equal(json.status, 'refused');
    assert.equal(json.refusal?.code, 'worktrees-changed');
    assert.deepEqual(
      json.actions.map((a) => [a.outcome, a.reason]),
      [
        ['not-attempted', 'plan-refused'],
        ['not-attempted', 'plan-refused'],
      ],
    );
    assert.equal(f.repo.refs(), before);
    assert.equal(json.journal, null, 'nothing was journaled');
  });

  it('a whole-plan refusal still reports actions done by earlier runs, with their recovery refs', async () => {
    const f = fixture();
    const p = await plan(f);
    f.repo.git(['update-ref', 'refs/heads/done', f.oids['wip']!]);
    const first = await apply(f, p.plan_id);
    assert.deepEqual(
      first.json.actions.map((a) => a.outcome),
      ['refused', 'deleted'],
    );
    f.repo.worktree(join(makeTempDir('stw-wt-'), 'late'), { branch: 'wip' });
    const { json } = await apply(f, p.plan_id);
    assert.equal(json.status, 'partial');
    assert.equal(json.refusal?.code, 'worktrees-changed');
    assert.deepEqual(
      json.actions.map((a) => [a.outcome, a.reason, a.verified]),
      [
        ['not-attempted', 'plan-refused', false],
        ['already-done', null, false],
      ],
    );
    assert.deepEqual(
      json.recovery.map((r) => [r.ref, r.oid]),
      [['refs/heads/done2', f.oids['done2']]],
    );
  });

  it('refuses the whole plan when the base moved after planning', async () => {
    const f = fixture();
    const p = await plan(f);
    f.repo.commit('base moves on', { 'd.txt': 'd\n' });
    const { json } = await apply(f, p.plan_id);
    assert.equal(json.status, 'refused');
    assert.equal(json.refusal?.code, 'base-moved');
    const refs = refMap(f.repo);
    assert.equal(refs.get('refs/heads/done'), f.oids['done']);
    assert.equal(refs.get('refs/heads/done2'), f.oids['done2']);
    assert.equal(json.journal, null);
  });

  it('refuses a target checked out after planning (a worktree HEAD change refuses the plan)', async () => {
    const f = fixture();
    const p = await plan(f, ['done']);
    f.repo.checkout('done');
    const { json } = await apply(f, p.plan_id);
    assert.equal(json.status, 'refused');
    assert.equal(json.refusal?.code, 'worktrees-changed');
    assert.equal(refMap(f.repo).get('refs/heads/done'), f.oids['done']);
  });

  it('refuses a target deleted by someone else after planning as stale', async () => {
    const f = fixture();
    const p = await plan(f, ['done']);
    f.repo.git(['branch', '-D', 'done']);
    const { json } = await apply(f, p.plan_id);
    assert.equal(json.status, 'refused');
    assert.equal(json.actions[0]?.reason, 'stale-proof');
    assert.match(json.actions[0]?.message ?? '', /no longer exists/);
  });

  it('refuses an action whose recovery ref already exists (manual review), changing nothing', async () => {
    const f = fixture();
    const p = await plan(f, ['done']);
    f.repo.git(['update-ref', `refs/stw-recovery/${p.plan_id}/1`, f.oids['wip']!]);
    const before = f.repo.refs();
    const { json } = await apply(f, p.plan_id);
    assert.equal(json.actions[0]?.outcome, 'refused');
    assert.equal(json.actions[0]?.reason, 'manual-review-required');
    assert.equal(f.repo.refs(), before);
    assert.equal(json.journal, null);
  });
});

describe('stw tidy apply: authorization and input refusals', () => {
  it('without --authorize it refuses before reading or writing anything', async () => {
    const f = fixture();
    const p = await plan(f);
    const refsBefore = f.repo.refs();
    const stateBefore = snapshotTree(f.stateDir);
    const { json, stderr } = await apply(f, p.plan_id, {}, []);
    assert.equal(json.status, 'refused');
    assert.equal(json.refusal?.code, 'authorization-required');
    assert.equal(json.repository, null, 'the plan was not even read');
    assert.match(stderr, /--authorize/);
    assert.equal(f.repo.refs(), refsBefore);
    assert.deepEqual(snapshotTree(f.stateDir), stateBefore, 'no journal, no lock, not even an mtime');

    // Even a nonexistent store is not looked at: authorization is checked first.
    const missing = await runCliJson<TidyApplyResult>(
      ['tidy', 'apply', '--plan', p.plan_id, '--state-dir', join(f.stateDir, 'nope')],
      { cwd: f.stateDir },
    );
    assert.equal(missing.code, 1);
    assert.equal(missing.json.refusal?.code, 'authorization-required');
  });

  it('refuses an unknown plan id, a stateless plan and a malformed id', async () => {
    const f = fixture();
    await plan(f);
    const refsBefore = f.repo.refs();
    for (const [id, code] of [
      ['0123456789abcdef0123456789abcdef', 'unknown-plan'],
      ['', 'stateless-plan'],
      ['../plans/x', 'invalid-plan-id'],
    ] as const) {
      const { json } = await apply(f, id);
      assert.equal(json.status, 'refused', id);
      assert.equal(json.refusal?.code, code, id);
    }
    assert.equal(f.repo.refs(), refsBefore);
  });

  function recordPath(f: Fixture, id: string): string {
    return join(f.stateDir, 'plans', `${id}.json`);
  }

  /** Rewrites a stored record (the store made it read-only: 0600 stays writable for its owner). */
  async function rewrite(
    f: Fixture,
    id: string,
    edit: (record: Record<string, unknown>) => void | Promise<void>,
  ): Promise<void> {
    const path = recordPath(f, id);
    const record = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    await edit(record);
    writeFileSync(path, JSON.stringify(record, null, 2));
  }

  /** The plan key the CLI used (the test runner points XDG_STATE_HOME at a temp dir). */
  const key = (f: Fixture) => loadPlanKey(planKeyPath(), f.stateDir);

  it('refuses a plan whose base or repository was edited and re-hashed without the key', async () => {
    const f = fixture();
    f.repo.branch('release');
    for (const edit of [
      (planned: TidyPlanV1) => {
        planned.base = { ...planned.base, selector: 'refs/heads/release', ref: 'refs/heads/release' };
      },
      (planned: TidyPlanV1) => {
        planned.repository = { ...planned.repository!, path: f.stateDir };
      },
    ]) {
      const p = await plan(f);
      await rewrite(f, p.plan_id, (record) => {
        const planned = record['plan'] as TidyPlanV1;
        edit(planned);
        record['integrity'] = `sha256:${createHash('sha256').update(JSON.stringify(planned)).digest('hex')}`;
      });
      const before = f.repo.refs();
      const { json } = await apply(f, p.plan_id);
      assert.equal(json.refusal?.code, 'tampered-plan');
      assert.equal(f.repo.refs(), before);
    }
  });

  it('refuses a plan for a repository replaced at the same path (recloned: another inode)', async () => {
    const f = fixture();
    const p = await plan(f);
    const moved = `${f.repo.dir}-moved`;
    renameSync(f.repo.dir, moved);
    try {
      execFileSync('git', ['clone', '-q', '--mirror', moved, join(f.repo.dir, '.git')], { env: testEnv() });
      execFileSync('git', ['config', 'core.bare', 'false'], { cwd: f.repo.dir, env: testEnv() });
      const before = f.repo.refs();
      assert.equal(refMap(f.repo).get('refs/heads/done'), f.oids['done'], 'same refs, same commits');
      const { json } = await apply(f, p.plan_id);
      assert.equal(json.status, 'refused');
      assert.equal(json.refusal?.code, 'repository-changed');
      assert.equal(f.repo.refs(), before);
    } finally {
      rmSync(moved, { recursive: true, force: true });
    }
  });

  it('refuses a tampered record: a changed effect fails the integrity check', async () => {
    const f = fixture();
    const p = await plan(f);
    await rewrite(f, p.plan_id, async (record) => {
      const planned = record['plan'] as TidyPlanV1;
      planned.effects[0]!.old_oid = f.oids['wip']!;
    });
    const before = f.repo.refs();
    const { json } = await apply(f, p.plan_id);
    assert.equal(json.refusal?.code, 'tampered-plan');
    assert.equal(f.repo.refs(), before);
  });

  it('refuses a record that fails its schema even with a matching integrity hash', async () => {
    const f = fixture();
    const p = await plan(f);
    await rewrite(f, p.plan_id, async (record) => {
      const planned = record['plan'] as TidyPlanV1 & { extra?: boolean };
      planned.extra = true;
      record['integrity'] = planIntegrity(planned, record['binding'] as RepositoryBinding, await key(f));
    });
    const { json } = await apply(f, p.plan_id);
    assert.equal(json.refusal?.code, 'tampered-plan');
  });

  it('refuses effects that do not match the plan targets even when hashed consistently', async () => {
    const f = fixture();
    const p = await plan(f);
    await rewrite(f, p.plan_id, async (record) => {
      const planned = record['plan'] as TidyPlanV1;
      // Sneak the retained branch in as a delete effect.
      planned.effects.push({
        action_id: 3,
        type: 'delete-ref',
        ref: 'refs/heads/wip',
        old_oid: f.oids['wip']!,
        recovery_ref: `refs/stw-recovery/${p.plan_id}/3`,
      });
      record['integrity'] = planIntegrity(planned, record['binding'] as RepositoryBinding, await key(f));
    });
    const before = f.repo.refs();
    const { json } = await apply(f, p.plan_id);
    assert.equal(json.refusal?.code, 'tampered-plan');
    assert.equal(f.repo.refs(), before);
  });

  it('refuses an older planning-only record as replan-required', async () => {
    const f = fixture();
    const p = await plan(f);
    await rewrite(f, p.plan_id, async (record) => {
      record['record_format'] = 1;
      delete (record['plan'] as Partial<TidyPlanV1>).effects;
    });
    const { json } = await apply(f, p.plan_id);
    assert.equal(json.refusal?.code, 'replan-required');
  });

  it('refuses a store that fails the plan-time checks (mode, symlink, overlap)', async () => {
    const f = fixture();
    const p = await plan(f);
    const before = f.repo.refs();
    chmodSync(f.stateDir, 0o755);
    assert.equal((await apply(f, p.plan_id)).json.refusal?.code, 'state-dir-mode');
    chmodSync(f.stateDir, 0o700);

    const link = join(makeTempDir('stw-link-'), 'state');
    execFileSync('ln', ['-s', f.stateDir, link]);
    const viaLink = await runCliJson<TidyApplyResult>(
      ['tidy', 'apply', '--plan', p.plan_id, '--state-dir', link, '--authorize'],
      { cwd: f.stateDir },
    );
    assert.equal(viaLink.json.refusal?.code, 'state-dir-symlink');

    // The same record in a private directory inside the repository's git dir.
    const inside = join(f.repo.dir, '.git', 'stw-state');
    mkdirSync(join(inside, 'plans'), { recursive: true, mode: 0o700 });
    chmodSync(inside, 0o700);
    copyFileSync(join(f.stateDir, 'plans', `${p.plan_id}.json`), join(inside, 'plans', `${p.plan_id}.json`));
    const overlapping = await runCliJson<TidyApplyResult>(
      ['tidy', 'apply', '--plan', p.plan_id, '--state-dir', inside, '--authorize'],
      { cwd: f.stateDir },
    );
    assert.equal(overlapping.code, 1);
    assert.equal(overlapping.json.refusal?.code, 'state-dir-overlap');
    assert.equal(f.repo.refs(), before);
  });

  it('refuses while another apply of the same plan holds the lock', async () => {
    const f = fixture();
    const p = await plan(f);
    const lock = await ApplyLock.acquire(f.stateDir, p.plan_id);
    try {
      const before = f.repo.refs();
      const { json } = await apply(f, p.plan_id);
      assert.equal(json.refusal?.code, 'apply-in-progress');
      assert.equal(f.repo.refs(), before);
    } finally {
      lock.release();
    }
  });

  it('rejects invalid usage with exit 2', async () => {
    const cwd = makeTempDir();
    for (const args of [
      ['tidy', 'apply', '--state-dir', cwd, '--authorize'],
      ['tidy', 'apply', '--plan', 'x', '--authorize'],
      ['tidy', 'apply', '--plan', 'x', '--state-dir', cwd, '--authorize', '--force'],
      ['tidy', 'apply', 'somewhere', '--plan', 'x', '--state-dir', cwd, '--authorize'],
    ]) {
      const result = await runCli(args, { cwd });
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, /^stw: /);
    }
  });

  it('--help states the authorization, recovery and limits', async () => {
    const result = await runCli(['tidy', 'apply', '--help'], { cwd: makeTempDir() });
    assert.equal(result.code, 0);
    for (const needle of [
      '--authorize',
      'refs/stw-recovery/<plan_id>/<action_id>',
      'git update-ref refs/heads/',
      '60 s',
      'untracked',
    ])
      assert.ok(result.stdout.includes(needle), needle);
  });
});

describe('stw tidy apply: hooks', () => {
  it('no repository hook ever runs (hooks dir and core.hooksPath both armed)', async () => {
    const f = fixture();
    const marker = join(makeTempDir('stw-marker-'), 'hook-ran');
    const script = `#!/bin/sh\necho "$0" >> '${marker}'\ncat >/dev/null\nexit 1\n`;
    const custom = join(f.repo.dir, '.git', 'custom-hooks');
    mkdirSync(custom, { recursive: true });
    for (const dir of [join(f.repo.dir, '.git', 'hooks'), custom])
      for (const name of ['reference-transaction', 'post-checkout', 'pre-auto-gc', 'post-index-change']) {
        writeFileSync(join(dir, name), script);
        chmodSync(join(dir, name), 0o755);
      }
    f.repo.git(['config', 'core.hooksPath', custom]);
    // The hook is live for plain git (it would even veto the transaction with exit 1).
    assert.throws(() => f.repo.git(['update-ref', 'refs/heads/probe', 'HEAD']));
    assert.ok(existsSync(marker));
    execFileSync('rm', ['-f', marker]);

    const p = await plan(f);
    const { json } = await apply(f, p.plan_id);
    assert.equal(json.status, 'complete');
    assert.equal(existsSync(marker), false, 'no hook ran during plan or apply');
  });
});
