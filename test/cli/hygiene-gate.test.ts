import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import type { CommandContext } from '../../src/cli/command.js';
import { askGate, gatedPlan } from '../../src/cli/commands/hygiene-clean.js';
import { fixedClock } from '../../src/core/clock.js';
import type { PlannedEntry } from '../../src/hygiene/apply/clean.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';
import { makeEntry, makeReport, writeProjectReport } from '../helpers/report.js';

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

function sink(): Writable & { text: string } {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      stream.text += chunk.toString();
      done();
    },
  }) as Writable & { text: string };
  stream.text = '';
  return stream;
}

function context(cwd: string, stderr = sink()): CommandContext {
  return {
    argv: [],
    cwd,
    env: { NO_COLOR: '1' },
    streams: { stdout: sink(), stderr },
    isInteractive: true,
    clock: fixedClock('2026-01-01T00:00:00Z'),
    signal: new AbortController().signal,
  };
}

function project(): TestRepo {
  const repo = makeRepo();
  repos.push(repo);
  repo.commit('docs', { 'a.md': 'a\nold\n', 'b.md': 'b\nx\n' });
  writeProjectReport(
    repo.dir,
    makeReport(repo.dir, [
      makeEntry(repo.dir, { id: 'del', path: 'a.md', kind: 'delete-range', anchor: [2, 2] }),
      makeEntry(repo.dir, {
        id: 'fix',
        path: 'b.md',
        kind: 'replace-text',
        anchor: [2, 2],
        match: 'x',
        replacement: 'y',
      }),
    ]),
  );
  return repo;
}

describe('the interactive gate', () => {
  it('offers every entry pre-selected; what the user keeps is approved, what they drop is rejected', async () => {
    const repo = project();
    let offered: PlannedEntry[] = [];
    const plan = await gatedPlan(context(repo.dir), { cwd: repo.dir }, false, async (_ctx, entries) => {
      offered = entries;
      return ['del'];
    });
    assert.deepEqual(
      offered.map((e) => [e.id, e.tier, e.irreversible, e.decision]),
      [
        ['del', 'confirm', true, 'needs-approval'],
        ['fix', 'auto', false, 'approved'],
      ],
    );
    assert.deepEqual(
      plan.entries.map((e) => [e.id, e.decision]),
      [
        ['del', 'approved'],
        ['fix', 'rejected'],
      ],
    );
    assert.deepEqual(plan.apply, ['del']);
  });

  it('is not shown for a dry run or off a terminal', async () => {
    const repo = project();
    const never = async () => {
      throw new Error('the gate must not prompt here');
    };
    const dry = await gatedPlan(context(repo.dir), { cwd: repo.dir }, true, never);
    assert.deepEqual(dry.apply, ['fix']);
    const ctx = { ...context(repo.dir), isInteractive: false };
    const plain = await gatedPlan(ctx, { cwd: repo.dir }, false, never);
    assert.deepEqual(plain.apply, ['fix']);
  });

  it('the real batch list marks irreversible entries and honours an opt-out keystroke', async () => {
    const repo = project();
    const stderr = sink();
    const ctx = context(repo.dir, stderr);
    const plan = await gatedPlan(ctx, { cwd: repo.dir }, false, (c, entries) => {
      const input = new PassThrough();
      const answer = askGate(c, entries, input);
      // De-select the first entry (the delete), then confirm.
      setImmediate(() => {
        input.write(' ');
        setImmediate(() => input.write('\r'));
      });
      return answer;
    });
    assert.match(stderr.text, /IRREVERSIBLE \[confirm\] del a\.md/);
    assert.deepEqual(plan.apply, ['fix']);
    assert.equal(plan.entries[0]?.decision, 'rejected');
  });
});
