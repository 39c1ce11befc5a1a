import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPlainJson, jsonChunks } from '../../src/core/json-text.js';
import { fc } from '../helpers/property.js';

/** JSON values as `JSON.parse` gives them (so: plain), keys and strings with quotes, newlines and lone surrogates. */
const plain = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown);

describe('jsonChunks', () => {
  it('joins to JSON.stringify(value, null, 2) at every depth', () => {
    fc.assert(
      fc.property(plain, fc.integer({ min: 0, max: 4 }), (value, depth) => {
        assert.ok(isPlainJson(value));
        assert.equal([...jsonChunks(value, depth)].join(''), JSON.stringify(value, null, 2));
      }),
    );
  });

  it('writes a report-shaped value member by member', () => {
    const report = {
      entries: [
        { path: 'a.md', n: 1 },
        { path: 'b\n"c".md', n: [] },
      ],
      empty: {},
      none: [],
      s: '\ud800',
    };
    const chunks = [...jsonChunks(report)];
    assert.ok(chunks.length > 10);
    assert.equal(chunks.join(''), JSON.stringify(report, null, 2));
  });
});

describe('isPlainJson', () => {
  it('refuses what JSON would not give back as it is', () => {
    for (const value of [
      { a: undefined },
      [1, undefined],
      // biome-ignore lint/suspicious/noSparseArray: a hole is the point
      [1, , 2],
      Number.NaN,
      -0,
      new Date(0),
      new Map(),
      { toJSON: () => 1 },
      JSON.parse('{"__proto__": 1}'),
    ])
      assert.equal(isPlainJson(value), false, String(value));
    assert.equal(isPlainJson({ a: [1, 'x', null, true, { b: 0.5 }] }), true);
  });
});
