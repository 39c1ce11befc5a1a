import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import type { CommandContext } from '../../src/cli/command.js';
import { askGate, GateCancelled, gatedPlan, gateHeader } from '../../src/cli/gate.js';
import { fixedClock } from '../../src/core/clock.js';
import { InterruptedError } from '../../src/core/errors.js';
import { clean, type PlannedEntry } from '../../src/hygiene/apply/clean.js';
import { makeRepo, type TestRepo, testEnv } from '../helpers/git-repo.js';
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
  repo.commit('docs', {
    'a.md': 'a\nold\n',
    'b.md': 'b\nx\n',
    'c.md': 'c\ncopy\n',
    'd.md': 'd\nlong\n',
  });
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
      makeEntry(repo.dir, { id: 'dup', path: 'c.md', kind: 'dedupe', anchor: [2, 2], canonical_ref: 'b.md' }),
      makeEntry(repo.dir, { id: 'gen', path: 'd.md', kind: 'generative' }),
    ]),
  );
  return repo;
}

const flags = { dryRun: false, yes: false };

describe('the interactive gate', () => {
  it('offers what can run; irreversible entries start unticked, reversible ones ticked; generative ones are not offered', async () => {
    const repo = project();
    let offered: PlannedEntry[] = [];
    let needsModel = -1;
    const plan = await gatedPlan(context(repo.dir), { cwd: repo.dir }, flags, async (_ctx, entries, n) => {
      offered = entries;
      needsModel = n;
      return ['del'];
    });
    assert.deepEqual(
      offered.map((e) => [e.id, e.tier, e.irreversible, e.decision, e.default_selected]),
      [
        ['del', 'confirm', true, 'needs-approval', false],
        ['fix', 'auto', false, 'approved', true],
        ['dup', 'confirm', false, 'needs-approval', true],
      ],
    );
    assert.equal(needsModel, 1);
    assert.deepEqual(
      plan.entries.map((e) => [e.id, e.decision]),
      [
        ['del', 'approved'],
        ['fix', 'rejected'],
        ['dup', 'rejected'],
        ['gen', 'needs-model'],
      ],
    );
    assert.deepEqual(plan.apply, ['del']);
  });

  it('is not shown for a dry run or off a terminal; --yes (and a dry run on a terminal) takes the defaults unasked', async () => {
    const repo = project();
    const never = async (): Promise<string[]> => {
      throw new Error('the gate must not prompt here');
    };
    // A dry run on a terminal decides as the list would open: what Enter would apply.
    const dry = await gatedPlan(context(repo.dir), { cwd: repo.dir }, { dryRun: true, yes: false }, never);
    assert.deepEqual(dry.apply, ['fix', 'dup']);
    const ctx = { ...context(repo.dir), isInteractive: false };
    const plain = await gatedPlan(ctx, { cwd: repo.dir }, flags, never);
    assert.deepEqual(plain.apply, ['fix']);
    for (const interactive of [true, false]) {
      const yes = await gatedPlan(
        { ...context(repo.dir), isInteractive: interactive },
        { cwd: repo.dir },
        { dryRun: false, yes: true },
        never,
      );
      // The ticked defaults: the auto fix and the reversible dedupe; never the delete.
      assert.deepEqual(yes.apply, ['fix', 'dup']);
      assert.equal(yes.entries.find((e) => e.id === 'del')?.decision, 'rejected');
    }
  });

  it('the count header says how many entries, of which auto and confirm, in how many files', () => {
    const entry = (id: string, path: string, tier: 'auto' | 'confirm') =>
      ({ id, path, tier }) as PlannedEntry;
    assert.equal(
      gateHeader([entry('a', 'x.md', 'auto'), entry('b', 'x.md', 'confirm'), entry('c', 'y.md', 'auto')], 0),
      '3 entries (2 auto, 1 confirm) in 2 files',
    );
    assert.equal(
      gateHeader([entry('a', 'x.md', 'auto')], 2),
      '1 entry (1 auto, 0 confirm) in 1 file; 2 more entries need a model and are not offered',
    );
  });

  it('the real batch list marks irreversible entries, opens with the defaults and honours an opt-out keystroke', async () => {
    const repo = project();
    const stderr = sink();
    const ctx = context(repo.dir, stderr);
    const plan = await gatedPlan(ctx, { cwd: repo.dir }, flags, (c, entries, n) => {
      const input = new PassThrough();
      const answer = askGate(c, entries, input, n);
      // Move to the second entry (the link fix), de-select it, then confirm.
      setImmediate(() => {
        input.write('\u001b[B');
        setImmediate(() => {
          input.write(' ');
          setImmediate(() => input.write('\r'));
        });
      });
      return answer;
    });
    assert.match(stderr.text, /3 entries \(1 auto, 2 confirm\) in 3 files; 1 more entry needs a model/);
    assert.match(stderr.text, /IRREVERSIBLE \[confirm\] del a\.md/);
    // The delete was never ticked; the fix was un-ticked; the dedupe kept its tick.
    assert.deepEqual(plan.apply, ['dup']);
    assert.deepEqual(
      plan.entries.map((e) => [e.id, e.decision]),
      [
        ['del', 'rejected'],
        ['fix', 'rejected'],
        ['dup', 'approved'],
        ['gen', 'needs-model'],
      ],
    );
  });

  for (const [name, key] of [
    ['q', 'q'],
    ['Esc', '\u001b'],
  ] as const) {
    it(`${name} cancels the list`, async () => {
      const repo = project();
      const ctx = context(repo.dir);
      await assert.rejects(
        gatedPlan(ctx, { cwd: repo.dir }, flags, (c, entries) => {
          const input = new PassThrough();
          const answer = askGate(c, entries, input);
          setImmediate(() => input.write(key));
          return answer;
        }),
        GateCancelled,
      );
    });
  }

  it('Ctrl-C at the list is an interruption (exit 130)', async () => {
    const repo = project();
    const ctx = context(repo.dir);
    await assert.rejects(
      gatedPlan(ctx, { cwd: repo.dir }, flags, (c, entries) => {
        const input = new PassThrough();
        const answer = askGate(c, entries, input);
        setImmediate(() => input.write('\u0003'));
        return answer;
      }),
      (error: unknown) => error instanceof InterruptedError && error.exitCode === 130,
    );
  });
});

describe('--dry-run', () => {
  const defaults = async (_ctx: CommandContext, entries: PlannedEntry[]) =>
    entries.filter((e) => e.default_selected).map((e) => e.id);
  const clock = fixedClock('2026-01-01T00:00:00Z');
  const env = testEnv();
  // Every combination of --yes, --approve (any subset of the confirm entries) and the TTY
  // rule: the dry run's would-apply list is the set the same command then applies (the
  // batch list, on a terminal, accepted as it opens).
  const combinations = [false, true].flatMap((yes) =>
    [false, true].flatMap((interactive) =>
      [[], ['del'], ['dup'], ['del', 'dup']].map((approve) => ({ yes, interactive, approve })),
    ),
  );
  for (const { yes, interactive, approve } of combinations)
    it(`shows exactly what is then applied: --yes ${yes}, TTY ${interactive}, --approve [${approve.join(' ')}]`, async () => {
      const run = async (dryRun: boolean) => {
        const repo = project();
        const ctx = { ...context(repo.dir), isInteractive: interactive };
        const options = { cwd: repo.dir, approve };
        const plan = await gatedPlan(ctx, options, { dryRun, yes }, defaults);
        const result = await clean({ ...options, plan, dryRun, clock, env });
        const outcome = dryRun ? 'would-apply' : 'applied';
        return result.entries.filter((e) => e.outcome === outcome).map((e) => e.id);
      };
      const shown = await run(true);
      const applied = await run(false);
      assert.deepEqual(shown, applied);
      assert.ok(shown.includes('fix'), 'the auto entry always applies');
      assert.equal(
        shown.includes('del'),
        approve.includes('del'),
        'the irreversible delete only when approved',
      );
    });
});
