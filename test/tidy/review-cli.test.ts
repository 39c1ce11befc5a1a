import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { PinsListing } from '../../src/tidy/review.js';
import type { TidyPlanV1 } from '../../src/tidy/types.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { testEnv } from '../helpers/git-repo.js';
import { apply, cleanupFixtures, fixture, plan, refMap, STW_NOW } from './apply-fixture.js';
import { checkedPlan } from './helpers.js';

after(cleanupFixtures);

describe('stw tidy show', () => {
  it('prints a stored plan exactly as tidy plan did, and changes nothing', async () => {
    const f = fixture();
    const p = await plan(f);
    const before = f.repo.refs();
    const shown = await runCliJson<TidyPlanV1>(
      ['tidy', 'show', '--plan', p.plan_id, '--state-dir', f.stateDir],
      {
        cwd: f.stateDir,
      },
    );
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual(checkedPlan(shown.json), p);
    const human = await runCli(['tidy', 'show', '--plan', p.plan_id, '--state-dir', f.stateDir], {
      cwd: f.stateDir,
    });
    assert.equal(human.code, 0);
    assert.match(human.stdout, /^tidy plan: complete — 2 delete, 1 retain$/m);
    assert.ok(human.stdout.includes(`plan id: ${p.plan_id}`));
    assert.equal(f.repo.refs(), before);
  });

  it('refuses a tampered record (exit 1, one line) and a missing --plan (exit 2)', async () => {
    const f = fixture();
    const p = await plan(f);
    const path = join(f.stateDir, 'plans', `${p.plan_id}.json`);
    writeFileSync(path, readFileSync(path, 'utf8').replace('"decision": "retain"', '"decision": "delete"'));
    const tampered = await runCli(['tidy', 'show', '--plan', p.plan_id, '--state-dir', f.stateDir], {
      cwd: f.stateDir,
    });
    assert.equal(tampered.code, 1);
    assert.equal(tampered.stdout, '');
    assert.match(tampered.stderr, /^stw: plan record \S+ fails its authentication check/);
    assert.equal(tampered.stderr.trimEnd().split('\n').length, 1);
    const usage = await runCli(['tidy', 'show', '--state-dir', f.stateDir], { cwd: f.stateDir });
    assert.equal(usage.code, 2);
  });
});

describe('stw tidy pins', () => {
  it('lists each recovery ref with its plan, branch, commit, age and restore command; removes nothing', async () => {
    const f = fixture();
    const p = await plan(f);
    await apply(f, p.plan_id);
    const refsBefore = f.repo.refs();
    const later = '2026-03-03T12:00:00Z'; // two days after the apply's pinned clock
    const listed = await runCliJson<PinsListing>(['tidy', 'pins', f.repo.dir, '--state-dir', f.stateDir], {
      cwd: f.stateDir,
      env: { STW_NOW: later },
    });
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      listed.json.pins.map((pin) => [
        pin.branch,
        pin.plan_id,
        pin.action_id,
        pin.oid,
        pin.pinned_at,
        pin.age_seconds,
      ]),
      [
        ['refs/heads/done', p.plan_id, 1, f.oids['done'], STW_NOW, 172_800],
        ['refs/heads/done2', p.plan_id, 2, f.oids['done2'], STW_NOW, 172_800],
      ],
    );
    assert.equal(f.repo.refs(), refsBefore, 'nothing removed');
    // The listed command restores the branch.
    execFileSync('sh', ['-c', listed.json.pins[0]!.restore_command!], { cwd: f.repo.dir, env: testEnv() });
    assert.equal(refMap(f.repo).get('refs/heads/done'), f.oids['done']);

    const human = await runCli(['tidy', 'pins', f.repo.dir, '--state-dir', f.stateDir], {
      cwd: f.stateDir,
      env: { STW_NOW: later },
    });
    assert.equal(human.code, 0);
    assert.ok(human.stdout.includes(`refs/stw-recovery/${p.plan_id}/2 at ${f.oids['done2']}`), human.stdout);
    assert.ok(
      human.stdout.includes(
        `branch refs/heads/done2, plan ${p.plan_id} action 2, pinned ${STW_NOW} (2 days ago)`,
      ),
    );
    assert.ok(human.stdout.includes(`git update-ref refs/heads/done2 refs/stw-recovery/${p.plan_id}/2 ''`));
  });

  it('without --state-dir the branch is unknown and said to be', async () => {
    const f = fixture();
    const p = await plan(f, ['done']);
    await apply(f, p.plan_id);
    const listed = await runCliJson<PinsListing>(['tidy', 'pins'], { cwd: f.repo.dir });
    assert.equal(listed.code, 0);
    assert.equal(listed.json.pins.length, 1);
    assert.equal(listed.json.pins[0]?.branch, null);
    assert.equal(listed.json.pins[0]?.restore_command, null);
    const human = await runCli(['tidy', 'pins'], { cwd: f.repo.dir });
    assert.match(human.stdout, /give --state-dir DIR/);
  });
});
