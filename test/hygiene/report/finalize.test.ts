import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Clock } from '../../../src/core/clock.js';
import { UsageError, ValidationError } from '../../../src/core/errors.js';
import { assignEntryIds, finalizeReport } from '../../../src/hygiene/report/finalize.js';
import { validateReport } from '../../../src/hygiene/report/validate.js';
import { countTokens, TOKENIZER_NAME } from '../../../src/hygiene/tokens.js';
import type { Entry, Proposal, ScanArtifact } from '../../../src/hygiene/types.js';
import { makeTempDir } from '../../helpers/git-repo.js';
import { fc } from '../../helpers/property.js';

/** A clock that advances one second per reading, to show which reading stamped what. */
function tickingClock(start = '2026-03-01T10:00:00Z'): Clock & { readings: number } {
  const base = Date.parse(start);
  const clock = {
    readings: 0,
    now: () => new Date(base + clock.readings++ * 1000),
  };
  return clock;
}

const FILES: Record<string, string> = {
  'CLAUDE.md': `# Rules\n\n${'Always run the tests before committing. '.repeat(40)}\n\nSee [old](old.md).\n`,
  'docs/a.md': '# A\n\nSee [guide](guide.md).\nline 4\nline 5\n',
  'docs/plans/idea.md': 'one\ntwo\nthree\n',
  'docs/done.md': '---\nstatus: done\n---\n# Done\n',
  'docs/v1.md': '# v1\n',
  'docs/clear.md': '# nothing to see\n',
};

let root: string;
let artifact: ScanArtifact;

before(() => {
  root = makeTempDir();
  for (const [path, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  artifact = {
    project_root: root,
    scope_globs: ['**/*.md'],
    excluded_dirs: ['archive'],
    files_scanned: 6,
    shortlist: Object.keys(FILES).sort(),
    signals: {},
    excluded: [],
    agent_context: ['CLAUDE.md'],
  };
});
after(() => rmSync(root, { recursive: true, force: true }));

const signal = {
  name: 'broken_reference' as const,
  line: 3,
  detail: 'guide.md does not exist; moved to "docs/guide.md"?',
  data: {
    target: 'guide.md',
    suggested_target: 'docs/guide.md',
    suggested_by: 'rename-history',
    written_before_move: true,
  },
};

function proposals(): Proposal[] {
  return [
    {
      path: 'docs/a.md',
      category: { class: 'stale', subtype: 'dangling-reference' },
      signals: [signal],
      op: 'Fix the link.',
      op_type: 'deterministic',
      exact_edit: {
        kind: 'replace-text',
        anchor: { start_line: 3, end_line: 3 },
        match: 'guide.md',
        replacement: 'docs/guide.md',
      },
      confidence: 0.9,
    },
    {
      path: 'CLAUDE.md',
      category: { class: 'bloat', subtype: 'distill' },
      signals: [
        { name: 'context_weight', detail: 'heavy', data: { tokens: 400, budget: 100, injection: 'always' } },
      ],
      op: 'Distil it.',
      op_type: 'generative',
      reducible_range: { start_line: 1, end_line: 5 },
      confidence: 0.7,
      why: 'every session pays for it',
    },
    {
      path: 'docs/plans/idea.md',
      category: { class: 'stale', subtype: 'orphaned' },
      signals: [
        {
          name: 'stale_name_location',
          detail: 'plans/',
          data: { reason: 'location', inbound_references: 0 },
        },
      ],
      op: 'Delete it.',
      op_type: 'deterministic',
      exact_edit: { kind: 'delete-range', anchor: { start_line: 1, end_line: 3 } },
      confidence: 0.6,
    },
    {
      path: 'docs/done.md',
      category: { class: 'stale', subtype: 'completed-in-place' },
      signals: [
        {
          name: 'frontmatter_marker',
          line: 2,
          detail: 'status: done',
          data: { marker: 'status', value: 'done' },
        },
      ],
      op: 'Freeze it.',
      op_type: 'deterministic',
      exact_edit: { kind: 'insert-frontmatter', key: 'hygiene', value: 'frozen' },
      confidence: 0.8,
    },
    {
      path: 'docs/v1.md',
      category: { class: 'stale', subtype: 'superseded' },
      signals: [
        {
          name: 'frontmatter_marker',
          detail: 'superseded',
          data: { marker: 'superseded_by', value: 'v2.md' },
        },
      ],
      op: 'Archive it.',
      op_type: 'deterministic',
      exact_edit: { kind: 'move-to-archive', dest_path: 'docs/archive/v1.md' },
      confidence: 0.9,
    },
  ];
}

/** The signals of these proposals, per file, as a scan artifact holds them. */
function signalsOf(list: readonly Proposal[]): ScanArtifact['signals'] {
  const out: ScanArtifact['signals'] = {};
  for (const p of list) out[p.path] = [...(out[p.path] ?? []), ...p.signals];
  return out;
}

const sha = (path: string) =>
  createHash('sha256')
    .update(readFileSync(join(root, path)))
    .digest('hex');

describe('finalizeReport', () => {
  // What the scanner reported: the signals the proposals cite (a tier rests on none other).
  before(() => {
    artifact.signals = signalsOf(proposals());
  });

  it('computes every guarded field from the files, KIND_TABLE and the tokenizer', async () => {
    const clock = tickingClock();
    const report = await finalizeReport({
      artifact,
      proposals: proposals(),
      generatedAt: '2026-03-01T09:59:59Z',
      clock,
    });
    assert.equal(report.schema_version, '1.1');
    assert.equal(report.generated_at, '2026-03-01T09:59:59Z');
    assert.equal(report.scan.tokenizer, TOKENIZER_NAME);
    assert.equal(report.scan.category_filter, null);
    assert.deepEqual(report.shortlist, artifact.shortlist);
    assert.deepEqual(
      report.entries.map((e) => e.path),
      ['CLAUDE.md', 'docs/a.md', 'docs/done.md', 'docs/plans/idea.md', 'docs/v1.md'],
    );
    const byPath = new Map(report.entries.map((e) => [e.path, e]));

    const link = byPath.get('docs/a.md')!;
    assert.equal(link.exact_edit?.expected_sha256, sha('docs/a.md'));
    assert.deepEqual([link.is_destructive, link.is_reversible, link.safety_tier], [false, true, 'auto']);
    assert.equal(link.token_estimate.raw_tokens, countTokens('See [guide](guide.md).'));
    assert.deepEqual(link.signals, [signal]);

    const orphan = byPath.get('docs/plans/idea.md')!;
    assert.deepEqual(
      [orphan.is_destructive, orphan.is_reversible, orphan.safety_tier],
      [true, false, 'confirm'],
    );
    assert.equal(orphan.token_estimate.raw_tokens, countTokens('one\ntwo\nthree'));

    const distill = byPath.get('CLAUDE.md')!;
    assert.equal(distill.exact_edit, undefined);
    assert.deepEqual(
      [distill.is_destructive, distill.is_reversible, distill.safety_tier],
      [false, true, 'confirm'],
    );
    const claudeLines = FILES['CLAUDE.md']!.split('\n').slice(0, 5).join('\n');
    assert.deepEqual(distill.token_estimate, {
      raw_tokens: countTokens(claudeLines),
      injection_frequency: 1,
      weighted_tokens: countTokens(claudeLines),
    });
    assert.equal(distill.why, 'every session pays for it');
    assert.equal(report.totals?.tokens_saved_per_session, countTokens(claudeLines));

    const freeze = byPath.get('docs/done.md')!;
    assert.equal(
      freeze.exact_edit?.expected_sha256,
      undefined,
      'insert-frontmatter has no anchor, so no hash',
    );
    assert.equal(freeze.safety_tier, 'auto');
    assert.equal(freeze.token_estimate.raw_tokens, 0);

    const move = byPath.get('docs/v1.md')!;
    assert.equal(move.exact_edit?.expected_sha256, undefined);
    assert.equal(move.token_estimate.raw_tokens, countTokens('# v1'));
    assert.equal(move.token_estimate.injection_frequency, 0);
    assert.equal(move.token_estimate.weighted_tokens, 0);

    // One clock reading per file, taken when its bytes are hashed, in path order.
    assert.equal(clock.readings, 5);
    assert.deepEqual(
      report.entries.map((e) => e.generated_at),
      [
        '2026-03-01T10:00:00Z',
        '2026-03-01T10:00:01Z',
        '2026-03-01T10:00:02Z',
        '2026-03-01T10:00:03Z',
        '2026-03-01T10:00:04Z',
      ],
    );
    // Ids are short, unique and stable across runs and input order.
    const ids = report.entries.map((e) => e.id);
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ids) assert.match(id, /^[0-9a-f]{8}$/);
    const again = await finalizeReport({
      artifact,
      proposals: proposals().reverse(),
      generatedAt: '2026-03-02T00:00:00Z',
      clock: tickingClock('2026-03-02T00:00:00Z'),
    });
    assert.deepEqual(
      again.entries.map((e) => e.id),
      ids,
    );
  });

  it('a freeze is auto only on a status the author wrote in the frontmatter; on an in-body status line or a ticked checklist it is confirm', async () => {
    const freeze = proposals().find((p) => p.path === 'docs/done.md')!;
    const tiers: string[] = [];
    for (const data of [
      { marker: 'status', value: 'done' },
      { marker: 'body-status', value: 'done' },
      { marker: 'tasks-complete', value: '3/3' },
    ]) {
      const marked = {
        ...freeze,
        signals: [{ name: 'frontmatter_marker' as const, line: 2, detail: 'done', data }],
      };
      const report = await finalizeReport({
        artifact: { ...artifact, signals: signalsOf([marked]) },
        proposals: [marked],
        generatedAt: '2026-03-01T09:59:59Z',
        clock: tickingClock(),
      });
      tiers.push(report.entries[0]!.safety_tier);
    }
    assert.deepEqual(tiers, ['auto', 'confirm', 'confirm']);
  });

  it('filters entries by class or subtype and records the filter', async () => {
    const clock = tickingClock();
    const stale = await finalizeReport({
      artifact,
      proposals: proposals(),
      generatedAt: '2026-03-01T10:00:00Z',
      clock,
      categoryFilter: 'stale',
    });
    assert.equal(stale.scan.category_filter, 'stale');
    assert.ok(stale.entries.every((e) => e.category.class === 'stale'));
    assert.equal(stale.entries.length, 4);
    const orphaned = await finalizeReport({
      artifact,
      proposals: proposals(),
      generatedAt: '2026-03-01T10:00:00Z',
      clock,
      categoryFilter: 'orphaned',
    });
    assert.deepEqual(
      orphaned.entries.map((e) => e.path),
      ['docs/plans/idea.md'],
    );
    await assert.rejects(
      finalizeReport({
        artifact,
        proposals: [],
        generatedAt: '2026-03-01T10:00:00Z',
        clock,
        categoryFilter: 'rotten',
      }),
      UsageError,
    );
  });

  it('writes an empty report when there is nothing to propose', async () => {
    const report = await finalizeReport({
      artifact,
      proposals: [],
      generatedAt: '2026-03-01T10:00:00Z',
      clock: tickingClock(),
    });
    assert.deepEqual(report.entries, []);
    assert.deepEqual(report.totals, { tokens_saved_per_session: 0 });
  });

  it('rejects a malformed proposal with its index before computing anything', async () => {
    const cases: [(p: Proposal[]) => void, RegExp][] = [
      [
        (p) => (p[2]!.exact_edit!.anchor = { start_line: 2, end_line: 9 }),
        /proposals\[2\]\.exact_edit\.anchor: lines 2–9 are outside the file \(3 lines\)/,
      ],
      [
        (p) => (p[1]!.reducible_range = { start_line: 1, end_line: 99 }),
        /proposals\[1\]\.reducible_range: lines 1–99 are outside the file/,
      ],
      [
        (p) => (p[0]!.exact_edit!.match = 'nowhere.md'),
        /proposals\[0\]\.exact_edit\.match: does not occur on the anchored lines/,
      ],
      [
        (p) => (p[3]!.path = 'docs/not-scanned.md'),
        /proposals\[3\]\.path: "docs\/not-scanned\.md" is not in the scan's shortlist/,
      ],
      [
        (p) => delete (p[4]!.exact_edit as Record<string, unknown>)['kind'],
        /proposals\[4\]\.exact_edit\.kind: is required/,
      ],
      [
        (p) => ((p[4]!.category as { subtype: string }).subtype = 'rotten'),
        /proposals\[4\]\.category\.subtype: must be one of/,
      ],
      [
        (p) => ((p[0] as unknown as Record<string, unknown>)['raw_tokens'] = 3),
        /proposals\[0\]\.raw_tokens: guarded field/,
      ],
    ];
    for (const [breakIt, pattern] of cases) {
      const list = proposals();
      breakIt(list);
      const clock = tickingClock();
      await assert.rejects(
        finalizeReport({ artifact, proposals: list, generatedAt: '2026-03-01T10:00:00Z', clock }),
        (error: unknown) => {
          assert.ok(error instanceof ValidationError, String(error));
          assert.match(error.message, pattern);
          return true;
        },
      );
      assert.equal(clock.readings, 0, 'no file was hashed or stamped');
    }
  });

  it('rejects a proposal whose file has vanished since the scan', async () => {
    const list = proposals();
    list[3]!.path = 'docs/gone.md';
    const gone = {
      ...artifact,
      shortlist: [...artifact.shortlist, 'docs/gone.md'].sort(),
      signals: signalsOf(list),
    };
    await assert.rejects(
      finalizeReport({
        artifact: gone,
        proposals: list,
        generatedAt: '2026-03-01T10:00:00Z',
        clock: tickingClock(),
      }),
      /proposals\[3\]\.path: cannot read "docs\/gone\.md" \(ENOENT\)/,
    );
  });

  it('resolves an id collision deterministically', () => {
    const base = (path: string): Entry =>
      ({
        id: '',
        path,
        category: { class: 'stale', subtype: 'completed-in-place' },
        exact_edit: { kind: 'insert-frontmatter', key: 'hygiene', value: 'frozen' },
      }) as Entry;
    const entries = [base('a.md'), base('a.md'), base('b.md')];
    assignEntryIds(entries);
    assert.match(entries[0]!.id, /^[0-9a-f]{8}$/);
    assert.equal(entries[1]!.id, `${entries[0]!.id}-2`);
    assert.notEqual(entries[2]!.id, entries[0]!.id);
  });

  it('gives a different edit on the same lines a different id, and the same edit the same id', () => {
    const fix = (replacement: string, sha: string): Entry =>
      ({
        id: '',
        path: 'docs/a.md',
        category: { class: 'stale', subtype: 'dangling-reference' },
        exact_edit: {
          kind: 'replace-text',
          anchor: { start_line: 3, end_line: 3 },
          match: '](old.md',
          replacement,
          expected_sha256: sha,
        },
      }) as Entry;
    const first = [fix('](new.md', 'a'.repeat(64))];
    const again = [fix('](new.md', 'b'.repeat(64))];
    const other = [fix('](elsewhere.md', 'a'.repeat(64))];
    for (const entries of [first, again, other]) assignEntryIds(entries);
    assert.equal(again[0]!.id, first[0]!.id, 'stable across re-checks of a changed file');
    assert.notEqual(other[0]!.id, first[0]!.id);
  });

  it('always produces a report that validateReport accepts (property)', async () => {
    const kinds = [
      'delete-range',
      'replace-text',
      'dedupe',
      'move-to-archive',
      'insert-frontmatter',
      'generative',
    ] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            lines: fc.integer({ min: 1, max: 30 }),
            kind: fc.constantFrom(...kinds),
            start: fc.nat(),
            length: fc.nat(),
            alwaysLoaded: fc.boolean(),
          }),
          { minLength: 0, maxLength: 6 },
        ),
        async (specs) => {
          const dir = makeTempDir();
          try {
            const proposals: Proposal[] = [];
            const shortlist: string[] = [];
            const agentContext: string[] = [];
            specs.forEach((spec, i) => {
              const path = `d${i}.md`;
              const text = Array.from({ length: spec.lines }, (_, n) => `line ${n} of [doc](x${n}.md)`).join(
                '\n',
              );
              writeFileSync(join(dir, path), `${text}\n`);
              shortlist.push(path);
              if (spec.alwaysLoaded) agentContext.push(path);
              const start = 1 + (spec.start % spec.lines);
              const end = Math.min(spec.lines, start + (spec.length % 5));
              const anchor = { start_line: start, end_line: end };
              const common = { path, signals: [], op: 'Do it.', confidence: 0.5 };
              if (spec.kind === 'generative') {
                proposals.push({
                  ...common,
                  category: { class: 'bloat', subtype: 'distill' },
                  op_type: 'generative',
                  reducible_range: anchor,
                });
                return;
              }
              const edit =
                spec.kind === 'replace-text'
                  ? {
                      kind: spec.kind,
                      anchor: { start_line: start, end_line: start },
                      match: `x${start - 1}.md`,
                      replacement: 'y.md',
                    }
                  : spec.kind === 'dedupe'
                    ? { kind: spec.kind, anchor, canonical_ref: 'canon.md#L1-L2' }
                    : spec.kind === 'delete-range'
                      ? { kind: spec.kind, anchor }
                      : spec.kind === 'move-to-archive'
                        ? { kind: spec.kind, dest_path: `archive/${path}` }
                        : { kind: spec.kind, key: 'hygiene', value: 'frozen' };
              proposals.push({
                ...common,
                category: { class: 'stale', subtype: 'orphaned' },
                op_type: 'deterministic',
                exact_edit: edit,
              });
            });
            const report = await finalizeReport({
              artifact: {
                ...artifact,
                project_root: dir,
                shortlist,
                files_scanned: shortlist.length,
                agent_context: agentContext,
              },
              proposals,
              generatedAt: '2026-03-01T10:00:00Z',
              clock: tickingClock(),
            });
            assert.deepEqual(validateReport(report, { projectRoot: dir }), []);
            assert.equal(report.entries.length, proposals.length);
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("finalizeReport: the evidence is the scanner's", () => {
  it('refuses a link fix or a freeze citing a signal the scan did not report, so no auto entry rests on what a proposal wrote', async () => {
    const list = proposals().filter((p) => p.path === 'docs/a.md' || p.path === 'docs/done.md');
    // The scan reported nothing: the proposals' rename history and frontmatter status are their own.
    await assert.rejects(
      finalizeReport({
        artifact: { ...artifact, signals: {} },
        proposals: list,
        generatedAt: '2026-03-01T10:00:00Z',
        clock: tickingClock(),
      }),
      (error: unknown) => {
        assert.ok(error instanceof ValidationError);
        assert.deepEqual(error.violations, [
          'proposals[0].signals[0]: the scanner reported no "broken_reference" signal on line 3 for this file',
          'proposals[1].signals[0]: the scanner reported no "frontmatter_marker" signal on line 2 for this file',
        ]);
        return true;
      },
    );
    // Cited as the scan reported them, the same proposals are auto.
    const report = await finalizeReport({
      artifact: { ...artifact, signals: signalsOf(list) },
      proposals: list,
      generatedAt: '2026-03-01T10:00:00Z',
      clock: tickingClock(),
    });
    assert.deepEqual(
      report.entries.map((e) => [e.path, e.safety_tier]),
      [
        ['docs/a.md', 'auto'],
        ['docs/done.md', 'auto'],
      ],
    );
  });
});
