import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
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

describe('the rank table built from the package', () => {
  it("counts exactly as the package's own o200k_base encoder, a repeated text included", () => {
    const { countTokens: packageCount } = createRequire(import.meta.url)(
      'gpt-tokenizer/encoding/o200k_base',
    ) as {
      countTokens: (text: string, options: object) => number;
    };
    const samples = [
      '# Title\n\nSome *prose* with [a link](../docs/x.md#part) and `code`.\n',
      'Unicode: 日本語のテキスト, émigré, Ελληνικά, русский, 😀👍🏽, \u{10FFFF}, a lone \uD800.',
      '<|endoftext|> and <|im_start|> are plain text here',
      `| a | b |\n|${'-'.repeat(300)}|\n${'word '.repeat(2000)}`,
      '\t  \n\r\n   trailing   ',
    ];
    for (const text of [...samples, ...samples])
      assert.equal(
        countTokens(text),
        packageCount(text, { disallowedSpecial: new Set() }),
        text.slice(0, 40),
      );
  });
});

describe('the tokenizer tables', () => {
  it('are loaded on the first count, not when the module is imported (the encoder copied at build time)', () => {
    const tokens = new URL('../../src/hygiene/tokens.js', import.meta.url).href;
    const script = `
      import { createRequire } from 'node:module';
      const { countTokens } = await import(${JSON.stringify(tokens)});
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('/hygiene/tokenizer/'));
      const before = loaded();
      const n = countTokens('hello world');
      console.log(JSON.stringify({ before, after: loaded(), n }));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out), { before: false, after: true, n: 2 });
  });
});
