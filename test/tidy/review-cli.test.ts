import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { branchFromPinNote, pinNoteMessage } from '../../src/tidy/pin-note.js';
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

  it('without --state-dir each pin describes itself from its reflog: branch, time and restore command', async () => {
    const f = fixture();
    const p = await plan(f);
    await apply(f, p.plan_id);
    const listed = await runCliJson<PinsListing>(['tidy', 'pins'], { cwd: f.repo.dir });
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.json.state_dir, null);
    assert.deepEqual(
      listed.json.pins.map((pin) => [pin.branch, pin.plan_id, pin.action_id, pin.oid]),
      [
        ['refs/heads/done', p.plan_id, 1, f.oids['done']],
        ['refs/heads/done2', p.plan_id, 2, f.oids['done2']],
      ],
    );
    // One transaction pinned both: each pin's reflog names its own branch.
    const reflog = f.repo.git(['reflog', 'show', '--format=%gs', `refs/stw-recovery/${p.plan_id}/2`]);
    assert.match(reflog, /^stw-recovery \{"plan":"[0-9a-f]{32}","pins":\{/);
    for (const pin of listed.json.pins) assert.notEqual(pin.pinned_at, null, 'the reflog entry dates it');
    execFileSync('sh', ['-c', listed.json.pins[1]!.restore_command!], { cwd: f.repo.dir, env: testEnv() });
    assert.equal(refMap(f.repo).get('refs/heads/done2'), f.oids['done2']);
    const human = await runCli(['tidy', 'pins'], { cwd: f.repo.dir });
    assert.ok(human.stdout.includes(`branch refs/heads/done, plan ${p.plan_id} action 1`), human.stdout);
    assert.doesNotMatch(human.stdout, /give --state-dir DIR/);
  });

  it('a pin without a note (made by hand or by an older version) has no branch, and says so', async () => {
    const f = fixture();
    const p = await plan(f, ['done']);
    await apply(f, p.plan_id);
    const other = `refs/stw-recovery/${'f'.repeat(32)}/1`;
    f.repo.git(['update-ref', other, f.oids['done']!]);
    const listed = await runCliJson<PinsListing>(['tidy', 'pins'], { cwd: f.repo.dir });
    assert.equal(listed.code, 0);
    const byRef = new Map(listed.json.pins.map((pin) => [pin.recovery_ref, pin]));
    assert.equal(byRef.get(`refs/stw-recovery/${p.plan_id}/1`)?.branch, 'refs/heads/done');
    assert.equal(byRef.get(other)?.branch, null);
    assert.equal(byRef.get(other)?.restore_command, null);
    const human = await runCli(['tidy', 'pins'], { cwd: f.repo.dir });
    assert.match(human.stdout, /give --state-dir DIR/);
  });
});

describe('pin notes', () => {
  it('name each pin of a batch by plan and action, and nothing else', () => {
    const plan = 'a'.repeat(32);
    const message = pinNoteMessage([
      { ref: 'refs/heads/one', recovery_ref: `refs/stw-recovery/${plan}/1` },
      { ref: 'refs/heads/\u00e9t\u00e9', recovery_ref: `refs/stw-recovery/${plan}/2` },
    ]);
    assert.equal(branchFromPinNote(message, `refs/stw-recovery/${plan}/1`), 'refs/heads/one');
    assert.equal(branchFromPinNote(message, `refs/stw-recovery/${plan}/2`), 'refs/heads/\u00e9t\u00e9');
    assert.equal(branchFromPinNote(message, `refs/stw-recovery/${plan}/3`), null);
    assert.equal(branchFromPinNote(message, `refs/stw-recovery/${'b'.repeat(32)}/1`), null, 'another plan');
    assert.equal(branchFromPinNote('update-ref: by hand', `refs/stw-recovery/${plan}/1`), null);
    assert.equal(branchFromPinNote('stw-recovery {torn', `refs/stw-recovery/${plan}/1`), null);
  });
});
