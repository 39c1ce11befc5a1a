import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countTokens, TOKENIZER_NAME } from '../../src/hygiene/tokens.js';

describe('countTokens', () => {
  it('counts with a real tokenizer, not characters / 4', () => {
    assert.equal(countTokens(''), 0);
    assert.equal(countTokens('hello world'), 2);
    // A long Markdown table rule is one run of a repeated character; it must stay cheap and sane.
    const rule = `|${'-'.repeat(20000)}|`;
    const n = countTokens(rule);
    assert.ok(n > 0 && n < rule.length / 4, `${n} tokens`);
    assert.match(TOKENIZER_NAME, /o200k_base/);
  });

  it('treats special-token text in a doc as plain text', () => {
    assert.ok(countTokens('<|endoftext|>') > 1);
  });
});
