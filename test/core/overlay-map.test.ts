import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Overlay } from '../../src/core/overlay-map.js';
import { fc } from '../helpers/property.js';

type Op = { kind: 'set'; key: string; value: number } | { kind: 'delete'; key: string };

const key: fc.Arbitrary<string> = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), key, value: fc.integer() }),
  fc.record({ kind: fc.constant('delete' as const), key }),
);

describe('Overlay', () => {
  it('reads as a copied Map after any sequence of sets and deletes, in the same order, and leaves its base alone', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(key, fc.integer()), { selector: ([k]) => k }),
        fc.array(op),
        (start, ops) => {
          const base = new Map<string, number>(start);
          const copy = new Map(base);
          const overlay = new Overlay(base);
          for (const o of ops) {
            if (o.kind === 'set') {
              copy.set(o.key, o.value);
              assert.equal(overlay.set(o.key, o.value), overlay);
            } else assert.equal(overlay.delete(o.key), copy.delete(o.key));
            assert.equal(overlay.size, copy.size);
          }
          assert.deepEqual([...overlay], [...copy]);
          assert.deepEqual([...overlay.keys()], [...copy.keys()]);
          assert.deepEqual([...overlay.values()], [...copy.values()]);
          const seen: [string, number][] = [];
          overlay.forEach((v, k, map) => {
            assert.equal(map, overlay);
            seen.push([k, v]);
          });
          assert.deepEqual(seen, [...copy.entries()]);
          for (const k of ['a', 'b', 'c', 'd', 'e', 'f', 'z']) {
            assert.equal(overlay.get(k), copy.get(k));
            assert.equal(overlay.has(k), copy.has(k));
          }
          assert.deepEqual([...base], start);
        },
      ),
    );
  });
});
