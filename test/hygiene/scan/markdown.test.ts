import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseMarkdown } from '../../../src/hygiene/scan/markdown.js';

describe('parseMarkdown', () => {
  it("gives the text's lines, split when asked for and again once let go, never in JSON", () => {
    const texts = Array.from({ length: 80 }, (_, i) => `# Doc ${i}\r\n\nline ${i}\n`);
    const parsed = texts.map((text) => parseMarkdown(text));
    // More docs than are kept split: the first ones are split again, the same lines.
    for (let round = 0; round < 2; round++)
      parsed.forEach((doc, i) => {
        assert.deepEqual(doc.lines, texts[i]!.split('\n'));
      });
    assert.equal(parsed[0]!.lines, parsed[0]!.lines);
    const json = JSON.parse(JSON.stringify(parsed[3]));
    assert.equal('lines' in json, false);
    assert.deepEqual(Object.keys(json).sort(), Object.keys(parsed[3]!).sort());
    assert.deepEqual(json.anchors, {});
  });

  it('reads CRLF, a lone CR and NUL as markdown-it does (the scanner rewrites them itself)', () => {
    const lf = parseMarkdown('# Title\n\nSee [a](a.md)\nand [b][b].\n\n[b]: b.md\n');
    const crlf = parseMarkdown('# Title\r\n\r\nSee [a](a.md)\r\nand [b][b].\r\n\r\n[b]: b.md\r\n');
    assert.deepEqual(crlf.refs, lf.refs);
    assert.deepEqual(
      lf.refs.map((r) => [r.line, r.kind, r.target]),
      [
        [3, 'link', 'a.md'],
        [6, 'definition', 'b.md'],
      ],
    );
    assert.deepEqual([...crlf.anchors], ['title']);
    // A lone CR ends a line for markdown-it: the heading after it is a heading.
    assert.deepEqual([...parseMarkdown('intro\r# Heading\r\n').anchors], ['heading']);
    // NUL becomes U+FFFD, so the target is not the text on the line and is not reported.
    assert.deepEqual(parseMarkdown('[n](x\0y.md)\n').refs, []);
    assert.equal(parseMarkdown('[n](xy.md)\n').refs.length, 1);
  });

  it('finds each reference on its line; a link that spans lines on the line of its `[`', () => {
    const doc = parseMarkdown(
      [
        '---', // 1
        'title: "x"', // 2
        'status: done', // 3
        '---', // 4
        '# Title', // 5
        '', // 6
        'A [link that wraps', // 7
        'over lines](wrapped.md) and [a ref][r] and [again](wrapped.md).', // 8
        '', // 9
        '> quoted [q](quoted.md)', // 10
        '', // 11
        '<!-- [hidden](in-comment.md) -->', // 12
        '', // 13
        '[r]: <my file.md> "Title"', // 14
        '',
      ].join('\n'),
    );
    assert.deepEqual(
      doc.refs.map((r) => [r.line, r.kind, r.target]),
      [
        [7, 'link', 'wrapped.md'],
        [8, 'link', 'wrapped.md'],
        [10, 'link', 'quoted.md'],
        [14, 'definition', 'my file.md'],
      ],
    );
    assert.equal(doc.frontmatter.keyLines.get('status'), 3);
    assert.equal(doc.frontmatter.endLine, 4);
    assert.deepEqual(doc.commentBlocks, [[11, 12]]);
  });

  it('finds links, images and code paths in GFM table cells on their row', () => {
    const doc = parseMarkdown(
      [
        '# Table', // 1
        '', // 2
        '| Name | Where |', // 3
        '| ---- | ----- |', // 4
        '| api | [l](api.md) |', // 5
        '| img | ![i](pic.png) and `src/main.ts` |', // 6
        '| [a](a.md) | [b](b.md) |', // 7
        '| html | <a href="h.md">h</a> |', // 8
        '', // 9
        'After [x](after.md).', // 10
      ].join('\n'),
    );
    assert.deepEqual(
      doc.refs.map((r) => [r.line, r.kind, r.target]),
      [
        [5, 'link', 'api.md'],
        [6, 'image', 'pic.png'],
        [6, 'code-path', 'src/main.ts'],
        [7, 'link', 'a.md'],
        [7, 'link', 'b.md'],
        [8, 'html', 'h.md'],
        [10, 'link', 'after.md'],
      ],
    );
  });

  it('makes GitHub heading slugs, numbering repeats, and reads explicit anchors', () => {
    const doc = parseMarkdown(
      '# Hello, World!\n\n## Hello, World!\n\n### The `scan()` API\n\n<a name="Custom-Anchor"></a>\n',
    );
    assert.deepEqual([...doc.anchors].sort(), [
      'custom-anchor',
      'hello-world',
      'hello-world-1',
      'the-scan-api',
    ]);
  });

  it('never takes references out of code, and reads @imports only outside it', () => {
    const doc = parseMarkdown(
      [
        'Import @docs/a.md, mail me at me@example.com.',
        '',
        '```',
        '@docs/b.md [x](c.md)',
        '```',
        '',
        '`@docs/d.md`',
        '',
      ].join('\n'),
    );
    assert.deepEqual(
      doc.imports.map((r) => [r.line, r.target]),
      [[1, 'docs/a.md']],
    );
    assert.deepEqual(doc.refs, []);
    assert.deepEqual([...doc.codeLines], [3, 4, 5]);
  });

  it('survives invalid frontmatter and unclosed fences', () => {
    const doc = parseMarkdown('---\n: : bad\n  - [\n---\n# T\n\n```\n[x](y.md)\n');
    assert.equal(doc.frontmatter.data, undefined);
    assert.ok(doc.frontmatter.error);
    assert.deepEqual(doc.refs, []);
  });

  it('survives a YAML alias with no anchor (Cursor writes `globs: *.ts`)', () => {
    const doc = parseMarkdown('---\nglobs: *.ts\n---\n# Rule\n');
    assert.equal(doc.frontmatter.data, undefined);
    assert.match(doc.frontmatter.error ?? '', /alias/i);
    assert.equal(doc.frontmatter.endLine, 3);
  });
});
