import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeDoc, encodeDoc } from '../../../src/hygiene/scan/cache/parsed-doc-codec.js';
import { parseMarkdown } from '../../../src/hygiene/scan/markdown.js';
import { fc } from '../../helpers/property.js';

/** Through JSON and back, as the cache stores it. */
function roundTrip(text: string) {
  const encoded = encodeDoc(parseMarkdown(text));
  return encoded === undefined ? undefined : decodeDoc(JSON.parse(JSON.stringify(encoded)), text);
}

const PIECES = [
  '# Title',
  '## Install it',
  '---',
  'title: x',
  'tags: [a, b]',
  'status: done',
  '[link](docs/a.md#part)',
  '![img](img/x.png)',
  '[ref]: ../b.md',
  '<a href="c.md" id="Anchor">c</a>',
  '<!-- comment -->',
  '```sh',
  '`src/x/main.ts`',
  '@docs/agents.md',
  '- [x] done',
  '- [ ] todo',
  '| a | [b](b.md) |',
  '|---|---|',
  'Status: draft',
  '    indented code',
  'A paragraph long enough to be a duplicated block if it were repeated often enough here. '.repeat(3),
  '',
];

describe('parse facts through the cache codec', () => {
  it('decode(encode(parse(text))) is parse(text), for any text made of Markdown pieces', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...PIECES), { maxLength: 30 }),
        fc.constantFrom('\n', '\r\n'),
        (lines, eol) => {
          const text = lines.join(eol);
          assert.deepEqual(roundTrip(text), parseMarkdown(text));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('any text at all', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        const back = roundTrip(text);
        if (back !== undefined) assert.deepEqual(back, parseMarkdown(text));
      }),
      { numRuns: 300 },
    );
  });

  it('frontmatter JSON cannot carry as it is makes the doc uncacheable', () => {
    for (const value of ['.inf', '-.inf', '.nan', '-0']) {
      const text = `---\nx: ${value}\n---\n# Doc\n`;
      assert.equal(encodeDoc(parseMarkdown(text)), undefined, value);
    }
    assert.notEqual(encodeDoc(parseMarkdown('---\nx: 1\ny: [a, {b: null}]\n---\n# Doc\n')), undefined);
  });

  it('an encoded doc of another shape decodes to nothing', () => {
    const good = encodeDoc(parseMarkdown('# A\n\n[b](b.md)\n'))!;
    const bad: unknown[] = [
      null,
      [],
      'text',
      { ...good, r: [['b.md', 'link']] },
      { ...good, r: [['b.md', 'telepathy', 3]] },
      { ...good, a: [1] },
      { ...good, t: [1, 2] },
      { ...good, c: [[-1, 2]] },
      { ...good, fe: '0' },
      { ...good, fd: [] },
      { ...good, b: [[1, 2, 3]] },
      { ...good, s: ['done'] },
    ];
    for (const value of bad) assert.equal(decodeDoc(value, '# A\n'), undefined, JSON.stringify(value));
  });
});
