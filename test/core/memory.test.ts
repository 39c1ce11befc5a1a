import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { collectGarbageNow } from '../../src/core/memory.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('collectGarbageNow', () => {
  it('collects what nothing refers to any more, and leaves no global gc behind', async () => {
    let held: { payload: string[] } | undefined = {
      payload: Array.from({ length: 1000 }, (_, i) => `x${i}`),
    };
    const ref = new WeakRef(held);
    held = undefined;
    // A WeakRef's target is kept until the end of the turn that made or read it.
    await nextTurn();
    collectGarbageNow();
    await nextTurn();
    assert.equal(ref.deref(), undefined);
    assert.equal((globalThis as { gc?: unknown }).gc, undefined);
    // A second call reuses the same collector.
    collectGarbageNow();
  });
});
