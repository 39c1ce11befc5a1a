import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { RefusalError } from '../../src/core/errors.js';
import { discardTornTail, journalPath, openJournal, tornTailRecord } from '../../src/tidy/engine/journal.js';
import { ApplyLock } from '../../src/tidy/engine/lock.js';
import { type JournalAction, loadJournal } from '../../src/tidy/journal.js';
import { makeTempDir } from '../helpers/git-repo.js';

const PLAN = '0123456789abcdef0123456789abcdef';
const OID = 'a'.repeat(40);
const ACTIONS: JournalAction[] = [
  { action_id: 1, ref: 'refs/heads/one', old_oid: OID, recovery_ref: `refs/stw-recovery/${PLAN}/1` },
  { action_id: 2, ref: 'refs/heads/two', old_oid: OID, recovery_ref: `refs/stw-recovery/${PLAN}/2` },
];
const AT = '2026-01-01T00:00:00Z';

function intent(id: number) {
  const action = ACTIONS[id - 1]!;
  return { type: 'intent', ...action, at: AT };
}

function stateDir(): string {
  const dir = makeTempDir('stw-state-');
  return dir;
}

async function writeRecords(dir: string, records: unknown[]): Promise<string> {
  const journal = await openJournal(dir, PLAN);
  for (const record of records) journal.append(record);
  journal.close();
  return journalPath(dir, PLAN);
}

describe('apply journal', () => {
  it('treats a missing journal as empty: every action is unstarted', async () => {
    const loaded = await loadJournal(journalPath(stateDir(), PLAN), ACTIONS, 1 << 20);
    assert.deepEqual(
      [...loaded.states.values()].map((s) => s.phase),
      ['none', 'none'],
    );
    assert.equal(loaded.tornTail, undefined);
  });

  it('folds intent → outcome → verified per action', async () => {
    const dir = stateDir();
    const path = await writeRecords(dir, [
      intent(1),
      { type: 'outcome', action_id: 1, result: 'deleted', at: AT },
      { type: 'verified', action_id: 1, at: AT },
      intent(2),
    ]);
    const loaded = await loadJournal(path, ACTIONS, 1 << 20);
    assert.equal(loaded.states.get(1)?.phase, 'verified');
    assert.equal(loaded.states.get(2)?.phase, 'open');
    assert.equal(loaded.states.get(2)?.attempts, 1);
  });

  it('keeps the jj operation ids a record names', async () => {
    const op = 'c'.repeat(128);
    const path = await writeRecords(stateDir(), [
      { ...intent(1), operation: op },
      { type: 'outcome', action_id: 1, result: 'deleted', operation: op, at: AT },
      { type: 'verified', action_id: 1, operation: op, at: AT },
    ]);
    const loaded = await loadJournal(path, ACTIONS, 1 << 20);
    assert.equal(loaded.states.get(1)?.phase, 'verified');
    assert.deepEqual(
      loaded.records.map((record) => (record as { operation?: string }).operation),
      [op, op, op],
    );
  });

  it('allows a new attempt after an outcome that found no effect', async () => {
    const dir = stateDir();
    const path = await writeRecords(dir, [
      intent(1),
      { type: 'outcome', action_id: 1, result: 'failed', reason: 'transaction-failed', at: AT },
      intent(1),
    ]);
    const state = (await loadJournal(path, ACTIONS, 1 << 20)).states.get(1);
    assert.equal(state?.phase, 'open');
    assert.equal(state?.attempts, 2);
  });

  for (const [name, records] of [
    ['an outcome without an intent', [{ type: 'outcome', action_id: 1, result: 'deleted', at: AT }]],
    ['a verification without a deletion', [intent(1), { type: 'verified', action_id: 1, at: AT }]],
    [
      'an intent after a deletion',
      [intent(1), { type: 'outcome', action_id: 1, result: 'deleted', at: AT }, intent(1)],
    ],
    ['an action that is not in the plan', [{ ...intent(1), action_id: 9 }]],
    ['an intent that names another OID', [{ ...intent(1), old_oid: 'b'.repeat(40) }]],
    ['an intent that names another pin', [{ ...intent(1), recovery_ref: 'refs/heads/main' }]],
    ['an unknown record type', [{ type: 'rollback', action_id: 1, at: AT }]],
    ['a jj operation id that is not 128 hex digits', [{ ...intent(1), operation: 'abc' }]],
  ] as const) {
    it(`refuses ${name} as journal-corrupt`, async () => {
      const path = await writeRecords(stateDir(), [...records]);
      await assert.rejects(
        loadJournal(path, ACTIONS, 1 << 20),
        (error) => error instanceof RefusalError && error.code === 'journal-corrupt',
      );
    });
  }

  it('refuses a malformed complete line as journal-corrupt', async () => {
    const dir = stateDir();
    const path = await writeRecords(dir, [intent(1)]);
    appendFileSync(path, '{"type":\n');
    await assert.rejects(
      loadJournal(path, ACTIONS, 1 << 20),
      (error) => error instanceof RefusalError && error.code === 'journal-corrupt',
    );
  });

  it('refuses a journal over its size bound', async () => {
    const path = await writeRecords(stateDir(), [intent(1), intent(2)]);
    await assert.rejects(
      loadJournal(path, ACTIONS, 100),
      (error) => error instanceof RefusalError && error.code === 'bound-exceeded',
    );
  });

  it('refuses a journal that is a symlink', async () => {
    const dir = stateDir();
    const real = join(dir, 'elsewhere.jsonl');
    writeFileSync(real, '');
    mkdirSync(join(dir, 'journals'), { mode: 0o700 });
    symlinkSync(real, journalPath(dir, PLAN));
    await assert.rejects(
      loadJournal(journalPath(dir, PLAN), ACTIONS, 1 << 20),
      (error) => error instanceof RefusalError && error.code === 'journal-corrupt',
    );
  });

  it('reports a torn tail without trusting it, and discards it before the next append', async () => {
    const dir = stateDir();
    const path = await writeRecords(dir, [intent(1)]);
    const torn = '{"type":"outcome","action_id":1,"res';
    appendFileSync(path, torn);
    const loaded = await loadJournal(path, ACTIONS, 1 << 20);
    assert.equal(loaded.tornTail, torn);
    assert.equal(loaded.states.get(1)?.phase, 'open', 'the torn outcome is not counted');

    await discardTornTail(path, torn);
    const journal = await openJournal(dir, PLAN);
    journal.append(tornTailRecord(torn, AT));
    journal.append({ type: 'outcome', action_id: 1, result: 'deleted', recovered: true, at: AT });
    journal.close();

    const reloaded = await loadJournal(path, ACTIONS, 1 << 20);
    assert.equal(reloaded.tornTail, undefined);
    assert.equal(reloaded.states.get(1)?.phase, 'settled');
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    assert.equal(lines.length, 3);
    assert.deepEqual(JSON.parse(lines[1]!), {
      type: 'torn-tail-discarded',
      bytes: torn.length,
      text: torn,
      at: AT,
    });
  });

  it('refuses to discard a tail that is no longer at the end of the file', async () => {
    const dir = stateDir();
    const path = await writeRecords(dir, [intent(1)]);
    appendFileSync(path, '{"partial');
    await assert.rejects(
      discardTornTail(path, '{"other'),
      (error) => error instanceof RefusalError && error.code === 'journal-corrupt',
    );
    assert.ok(readFileSync(path, 'utf8').endsWith('{"partial'));
  });
});

describe('apply lock', () => {
  it('admits one holder, refuses a live second one, and is released', async () => {
    const dir = stateDir();
    const lock = await ApplyLock.acquire(dir, PLAN);
    await assert.rejects(
      ApplyLock.acquire(dir, PLAN),
      (error) => error instanceof RefusalError && error.code === 'apply-in-progress',
    );
    lock.release();
    assert.equal(existsSync(lock.path), false);
    (await ApplyLock.acquire(dir, PLAN)).release();
  });

  it('takes over a lock left by a process that no longer exists', async () => {
    const dir = stateDir();
    mkdirSync(join(dir, 'journals'), { mode: 0o700 });
    // pid_max on Linux is at most 2^22; this pid cannot be alive.
    writeFileSync(join(dir, 'journals', `${PLAN}.lock`), '4194305\n');
    const lock = await ApplyLock.acquire(dir, PLAN);
    assert.equal(readFileSync(lock.path, 'utf8'), `${process.pid}\n`);
    lock.release();
  });
});
