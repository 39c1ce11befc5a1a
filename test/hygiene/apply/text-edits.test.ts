import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyEditsToText, dedupeLine, splitLines } from '../../../src/hygiene/apply/text-edits.js';
import type { Entry } from '../../../src/hygiene/types.js';
import { fc } from '../../helpers/property.js';
import { type EntrySpec, makeEntry } from '../../helpers/report.js';

const entry = (text: string, spec: Omit<EntrySpec, 'text' | 'path'> & { path?: string }): Entry =>
  makeEntry(undefined, { path: 'docs/a.md', ...spec, text });

function applied(text: string, entries: Entry[]): string {
  const result = applyEditsToText(text, entries);
  assert.ok('text' in result, `expected an edit, got ${JSON.stringify(result)}`);
  return result.text;
}

describe('applyEditsToText', () => {
  it('applies delete-range, replace-text and dedupe against the original line numbers', () => {
    const text = 'one\ntwo\nthree\nfour\nfive\n';
    const out = applied(text, [
      entry(text, { id: 'd', kind: 'delete-range', anchor: [1, 1] }),
      entry(text, { id: 'r', kind: 'replace-text', anchor: [3, 3], match: 'hre', replacement: 'HRE' }),
      entry(text, { id: 'u', kind: 'dedupe', anchor: [4, 5], canonical_ref: 'guide/setup.md#install' }),
    ]);
    assert.equal(out, 'two\ntHREe\nSee [guide/setup.md](../guide/setup.md#install).\n');
  });

  it('preserves a BOM, CRLF line breaks and a missing final newline', () => {
    const text = '\uFEFFa\r\nb\r\nc';
    assert.equal(
      applied(text, [entry(text, { id: 'd', kind: 'delete-range', anchor: [3, 3] })]),
      '\uFEFFa\r\nb',
    );
    assert.equal(
      applied(text, [
        entry(text, { id: 'r', kind: 'replace-text', anchor: [2, 3], match: 'c', replacement: 'C' }),
      ]),
      '\uFEFFa\r\nb\r\nC',
    );
    const fm = applied(text, [
      entry(text, { id: 'f', kind: 'insert-frontmatter', key: 'hygiene', value: 'frozen' }),
    ]);
    assert.equal(fm, '\uFEFF---\r\nhygiene: frozen\r\n---\r\na\r\nb\r\nc');
  });

  it('skips the whole file when the content hash does not match', () => {
    const text = 'a\nb\n';
    const stale = entry('a\nB\n', { id: 'x', kind: 'delete-range', anchor: [1, 1] });
    const fresh = entry(text, { id: 'y', kind: 'delete-range', anchor: [2, 2] });
    const result = applyEditsToText(text, [fresh, stale]);
    assert.ok('skip' in result);
    assert.equal(result.skip, 'content-changed-since-check');
  });

  it('refuses overlapping anchors, moves with other ops and generative with deterministic', () => {
    const text = 'a\nb\nc\n';
    const overlap = applyEditsToText(text, [
      entry(text, { id: 'x', kind: 'delete-range', anchor: [1, 2] }),
      entry(text, { id: 'y', kind: 'replace-text', anchor: [2, 3], match: 'b', replacement: 'B' }),
    ]);
    assert.deepEqual('skip' in overlap && overlap.skip, 'incompatible-ops-on-file');
    const move = applyEditsToText(text, [
      entry(text, { id: 'm', kind: 'move-to-archive', dest_path: 'archive/a.md' }),
      entry(text, { id: 'f', kind: 'insert-frontmatter', key: 'k', value: 'v' }),
    ]);
    assert.deepEqual('skip' in move && move.skip, 'incompatible-ops-on-file');
    const mixed = applyEditsToText(text, [
      entry(text, { id: 'g', kind: 'generative' }),
      entry(text, { id: 'f', kind: 'insert-frontmatter', key: 'k', value: 'v' }),
    ]);
    assert.deepEqual('skip' in mixed && mixed.skip, 'incompatible-ops-on-file');
  });

  it('skips replace-text whose match is not within the anchored lines', () => {
    const text = 'alpha\nbeta\n';
    const result = applyEditsToText(text, [
      entry(text, { id: 'r', kind: 'replace-text', anchor: [2, 2], match: 'alpha', replacement: 'x' }),
    ]);
    assert.deepEqual('skip' in result && result.skip, 'match-not-found');
  });

  it('skips an anchor past the end of the file', () => {
    const text = 'a\n';
    const result = applyEditsToText(text, [entry(text, { id: 'd', kind: 'delete-range', anchor: [1, 2] })]);
    assert.deepEqual('skip' in result && result.skip, 'anchor-out-of-range');
  });

  it('insert-frontmatter: inserts into an existing block without re-serialising it', () => {
    const text = '---\ntitle:   "Spaced"   # keep me\ntags: [a,b]\n---\nbody\n';
    const out = applied(text, [
      entry(text, { id: 'f', kind: 'insert-frontmatter', key: 'hygiene', value: 'frozen' }),
    ]);
    assert.equal(out, '---\ntitle:   "Spaced"   # keep me\ntags: [a,b]\nhygiene: frozen\n---\nbody\n');
  });

  it('insert-frontmatter: the same value is a no-op, a different value a conflict', () => {
    const text = '---\nhygiene: frozen\n---\nbody\n';
    const same = applyEditsToText(text, [
      entry(text, { id: 'f', kind: 'insert-frontmatter', key: 'hygiene', value: 'frozen' }),
    ]);
    assert.deepEqual(same, { text, unchanged: ['f'] });
    const other = applyEditsToText(text, [
      entry(text, { id: 'f', kind: 'insert-frontmatter', key: 'hygiene', value: 'live' }),
    ]);
    assert.deepEqual('skip' in other && other.skip, 'frontmatter-key-conflict');
    const once = applied('body\n', [
      entry('body\n', { id: 'f', kind: 'insert-frontmatter', key: 'hygiene', value: 'frozen' }),
    ]);
    assert.deepEqual(
      applyEditsToText(once, [
        entry(once, { id: 'f', kind: 'insert-frontmatter', key: 'hygiene', value: 'frozen' }),
      ]),
      {
        text: once,
        unchanged: ['f'],
      },
    );
  });

  it('insert-frontmatter: quotes a value that would not read back as the same string', () => {
    const text = 'x\n';
    const out = applied(text, [
      entry(text, { id: 'f', kind: 'insert-frontmatter', key: 'note', value: 'a: b #c' }),
    ]);
    assert.equal(out, '---\nnote: "a: b #c"\n---\nx\n');
    const out2 = applied(text, [
      entry(text, { id: 'f', kind: 'insert-frontmatter', key: 'flag', value: 'true' }),
    ]);
    assert.equal(out2, '---\nflag: "true"\n---\nx\n');
  });

  it('insert-frontmatter: leaves unreadable frontmatter alone', () => {
    const text = '---\n: : bad: [\n---\nx\n';
    const result = applyEditsToText(text, [
      entry(text, { id: 'f', kind: 'insert-frontmatter', key: 'k', value: 'v' }),
    ]);
    assert.deepEqual('skip' in result && result.skip, 'frontmatter-unreadable');
  });

  it('dedupe drops a #L line range and links relative to the file', () => {
    assert.equal(dedupeLine('docs/a/b.md', 'docs/c.md#L3-L9'), 'See [docs/c.md](../c.md).');
    assert.equal(
      dedupeLine('README.md', 'docs/my guide.md#setup'),
      'See [docs/my guide.md](docs/my%20guide.md#setup).',
    );
    assert.equal(dedupeLine('docs/x.md', 'docs/y.md'), 'See [docs/y.md](y.md).');
  });
});

// ── Property: a batch equals each edit applied to the original on its own ─────────

const bodyArb = fc.stringMatching(/^[a-z #]{0,12}$/);
const eolArb = fc.constantFrom('\n', '\r\n');

interface Plan {
  gap: number;
  span: number;
  kind: 'delete-range' | 'replace-text' | 'dedupe';
  replacement: string;
}

const planArb = fc.record({
  gap: fc.nat({ max: 3 }),
  span: fc.integer({ min: 1, max: 3 }),
  kind: fc.constantFrom('delete-range', 'replace-text', 'dedupe') as fc.Arbitrary<Plan['kind']>,
  replacement: fc.stringMatching(/^[A-Z]{0,4}$/),
});

const caseArb = fc
  .record({
    plans: fc.array(planArb, { minLength: 1, maxLength: 6 }),
    tail: fc.nat({ max: 3 }),
    bom: fc.boolean(),
    seedBodies: fc.array(bodyArb, { minLength: 40, maxLength: 40 }),
    seedEols: fc.array(eolArb, { minLength: 40, maxLength: 40 }),
  })
  .map(({ plans, tail, bom, seedBodies, seedEols }) => {
    const total = plans.reduce((sum, plan) => sum + plan.gap + plan.span, 0) + tail;
    const lines = Array.from({ length: total }, (_, i) => ({
      body: `L${i}${seedBodies[i]!}`,
      eol: seedEols[i]!,
    }));
    let at = 0;
    const anchors = plans.map((plan) => {
      const start = at + plan.gap + 1;
      at = start + plan.span - 1;
      return { ...plan, start, end: at };
    });
    return { lines, anchors, bom };
  });

function buildEntries(
  text: string,
  lines: { body: string }[],
  anchors: (Plan & { start: number; end: number })[],
): Entry[] {
  return anchors.map((anchor, i) => {
    const spec: Omit<EntrySpec, 'text' | 'path'> = {
      id: `e${i}`,
      kind: anchor.kind,
      anchor: [anchor.start, anchor.end],
    };
    if (anchor.kind === 'replace-text') {
      // Every body starts with "L<n>", so the match always occurs in the anchored lines.
      spec.match = lines[anchor.start - 1]!.body.slice(0, 2);
      spec.replacement = anchor.replacement;
    }
    if (anchor.kind === 'dedupe') spec.canonical_ref = 'docs/canonical.md#L1-L2';
    return entry(text, spec);
  });
}

const join = (lines: { body: string; eol: string }[]) => lines.map((line) => line.body + line.eol).join('');

describe('applyEditsToText properties', () => {
  it('random non-overlapping anchor sets applied together equal each edit applied to the original alone', () => {
    fc.assert(
      fc.property(caseArb, ({ lines, anchors, bom }) => {
        const prefix = bom ? '\uFEFF' : '';
        const text = prefix + join(lines);
        const entries = buildEntries(text, lines, anchors);
        // Each edit on its own: it may change only its own lines; cut out what it made of them.
        const segments = entries.map((one, i) => {
          const alone = applied(text, [one]);
          const before = prefix + join(lines.slice(0, anchors[i]!.start - 1));
          const after = join(lines.slice(anchors[i]!.end));
          assert.ok(
            alone.startsWith(before) && alone.endsWith(after),
            'an edit touched lines outside its anchor',
          );
          return alone.slice(before.length, alone.length - after.length);
        });
        let expected = prefix;
        let next = 1;
        anchors.forEach((anchor, i) => {
          expected += join(lines.slice(next - 1, anchor.start - 1)) + segments[i]!;
          next = anchor.end + 1;
        });
        expected += join(lines.slice(next - 1));
        assert.equal(applied(text, entries), expected);
        // Entry order in the report does not matter.
        assert.equal(applied(text, [...entries].reverse()), expected);
      }),
      { numRuns: 300 },
    );
  });

  it('a file without a final newline gets the same edits and still has none', () => {
    fc.assert(
      fc.property(caseArb, ({ lines, anchors, bom }) => {
        const prefix = bom ? '\uFEFF' : '';
        const withNewline = prefix + join(lines);
        const without = withNewline.replace(/\r?\n$/, '');
        const lineCount = splitLines(without.replace(/^\uFEFF/, '')).length;
        fc.pre(lineCount === lines.length);
        const a = applied(withNewline, buildEntries(withNewline, lines, anchors));
        const b = applied(without, buildEntries(without, lines, anchors));
        assert.equal(b, a.replace(/\r?\n$/, ''));
      }),
      { numRuns: 200 },
    );
  });

  it('keeps every untouched line break as it was (CRLF stays CRLF)', () => {
    fc.assert(
      fc.property(caseArb, ({ lines, anchors }) => {
        const text = join(lines);
        const out = applied(text, buildEntries(text, lines, anchors));
        const kept = lines.filter((_, i) => !anchors.some((a) => i + 1 >= a.start && i + 1 <= a.end));
        const outLines = splitLines(out);
        for (const line of kept) assert.ok(outLines.some((o) => o.body === line.body && o.eol === line.eol));
      }),
      { numRuns: 100 },
    );
  });
});
