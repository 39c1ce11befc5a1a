import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatJsonPath } from '../../src/core/schema.js';

describe('formatJsonPath', () => {
  it('prints JSON paths the way violations name them', () => {
    assert.equal(formatJsonPath(['entries', 3, 'safety_tier']), 'entries[3].safety_tier');
    assert.equal(formatJsonPath(['signals', 'docs/a b.md', 0]), 'signals["docs/a b.md"][0]');
    assert.equal(formatJsonPath([]), '(root)');
  });
});
