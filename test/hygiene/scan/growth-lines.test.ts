import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type DocBlob, lineCount, onlyAddsLines } from '../../../src/hygiene/scan/history-facts.js';

const blob = (bytes: Buffer): DocBlob => {
  const text = bytes.toString('utf8');
  return { oid: '', text, lineCount: lineCount(text) };
};

/** The definition the byte checks must agree with: decode, split keeping terminators, compare. */
function naiveLines(bytes: Buffer): string[] {
  return bytes.toString('utf8').match(/[^\n]*\n|[^\n]+$/g) ?? [];
}
function naiveOnlyAdds(before: Buffer, after: Buffer): boolean {
  const a = naiveLines(before);
  const b = naiveLines(after);
  let i = 0;
  for (let j = 0; j < b.length && i < a.length; j++) if (a[i] === b[j]) i++;
  return b.length > a.length && i === a.length;
}

// Short lines from a few pieces, so that equal lines, CRs, a missing final newline,
// multi-byte text and bytes that are not UTF-8 all occur often.
const piece = fc.constantFrom('a', 'b', 'ab', '', '\r', 'é', '\u{1F600}');
const line = fc.array(piece, { maxLength: 3 }).map((parts) => parts.join(''));
const text = fc
  .tuple(fc.array(line, { maxLength: 8 }), fc.boolean(), fc.boolean())
  .map(([lines, finalNewline, invalid]) => {
    const joined = lines.join('\n') + (finalNewline && lines.length > 0 ? '\n' : '');
    const bytes = Buffer.from(joined, 'utf8');
    return invalid
      ? Buffer.concat([
          bytes.subarray(0, bytes.length >> 1),
          Buffer.from([0xc3]),
          bytes.subarray(bytes.length >> 1),
        ])
      : bytes;
  });
/** `before` with text inserted at the start, the end or a random place, or another text. */
const pair = fc.oneof(
  fc.tuple(text, text).map(([a, b]) => [a, b] as const),
  fc.tuple(text, text, fc.nat()).map(([a, extra, at]) => {
    const cut = a.length === 0 ? 0 : at % (a.length + 1);
    return [a, Buffer.concat([a.subarray(0, cut), extra, a.subarray(cut)])] as const;
  }),
  fc.tuple(text, text).map(([a, extra]) => [a, Buffer.concat([extra, a])] as const),
  fc.tuple(text, text).map(([a, extra]) => [a, Buffer.concat([a, extra])] as const),
);

describe('growth: lines only added between two versions', () => {
  it('counts lines as splitting the decoded text does', () => {
    fc.assert(
      fc.property(text, (bytes) => {
        assert.equal(lineCount(bytes.toString('utf8')), naiveLines(bytes).length);
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees with decoding, splitting and comparing the lines, whatever was inserted where', () => {
    fc.assert(
      fc.property(pair, ([before, after]) => {
        const a = blob(before);
        const b = blob(after);
        assert.equal(b.lineCount > a.lineCount && onlyAddsLines(a, b), naiveOnlyAdds(before, after));
      }),
      { numRuns: 5000 },
    );
  });

  it('never takes a line extended at the end, or a line cut at the start, for an added one', () => {
    const check = (before: string, after: string) =>
      onlyAddsLines(blob(Buffer.from(before)), blob(Buffer.from(after)));
    assert.equal(check('one\ntwo', 'one\ntwo more\n'), false);
    assert.equal(check('two\n', 'one two\n'), false);
    assert.equal(check('one\n', 'one\ntwo\n'), true);
    assert.equal(check('two\n', 'one\ntwo\n'), true);
    assert.equal(check('one\nthree\n', 'one\ntwo\nthree\n'), true);
  });
});
