import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseMarkdown } from '../../../src/hygiene/scan/markdown.js';
import {
  defaultParseWorkers,
  MIN_DOCS_FOR_WORKERS,
  ParsePool,
  parseAll,
  parseWorkersFromEnv,
} from '../../../src/hygiene/scan/parse-pool.js';
import { fixtureRepo, scanDir } from './helpers.js';

/** Texts that exercise every part of a parsed doc: frontmatter, tables, definitions, HTML, code, imports. */
function texts(n: number): string[] {
  return Array.from({ length: n }, (_, i) =>
    [
      '---',
      `title: Doc ${i}`,
      'date: 2024-01-02',
      'status: done',
      '---',
      `# Doc ${i}`,
      '',
      `See [next](d${i + 1}.md#doc-${i + 1}), ![img](img/${i}.png) and [ref][r${i}].`,
      '',
      '| a | b |',
      '|---|---|',
      `| [cell](c${i}.md) | \`src/x${i}.ts\` |`,
      '',
      '<!-- a comment -->',
      `<a id="anchor-${i}" href="h${i}.md">h</a>`,
      '',
      '```sh',
      '[not a link](x.md)',
      '```',
      '',
      `- [x] task ${i}`,
      '- [ ] open',
      '',
      `@docs/import-${i}.md`,
      '',
      `[r${i}]: defs/r${i}.md`,
      `[r${i}]: defs/again-${i}.md`,
      '',
      `${'A long paragraph that repeats itself to be counted as a block. '.repeat(5)}`,
      '',
    ].join('\n'),
  );
}

describe('parsing on threads', () => {
  it('gives exactly what parsing in this thread gives, in order', async () => {
    const all = texts(70);
    const expected = all.map((text) => parseMarkdown(text));
    const threaded = await parseAll(all, 2);
    assert.deepEqual(threaded, expected);
    assert.deepEqual(await parseAll(all, 0), expected);
    assert.deepEqual(await parseAll([], 2), []);
    // Lines are not sent between threads (nor compared above): each parse splits its own text.
    assert.deepEqual(
      threaded.map((parsed) => parsed.lines),
      all.map((text) => text.split('\n')),
    );
  });

  it('a pool filled while docs are read starts its threads once enough text waits, and parses the same', async () => {
    const all = texts(70);
    const expected = all.map((text) => parseMarkdown(text));
    const half = all.slice(0, 35).reduce((sum, text) => sum + text.length, 0);
    const pool = new ParsePool(2, half);
    for (const [i, text] of all.entries()) {
      assert.equal(pool.add(text), i);
      // Below the threshold no thread runs; from it on, both do.
      assert.equal(pool.threadsStarted, i < 34 ? 0 : 2, `after ${i + 1} texts`);
      // The caller's reading loop lets the threads' replies in as it goes.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    assert.deepEqual(await pool.finish(), expected);
    // A pool that never gets enough text parses it all here, with no thread.
    const small = new ParsePool(2, half);
    for (const text of all.slice(0, 10)) small.add(text);
    assert.deepEqual(await small.finish(), expected.slice(0, 10));
    assert.equal(small.threadsStarted, 0);
  });

  it('STW_PARSE_WORKERS forces a number of threads (0 to 16), and only a number', () => {
    assert.equal(parseWorkersFromEnv({ STW_PARSE_WORKERS: '0' }), 0);
    assert.equal(parseWorkersFromEnv({ STW_PARSE_WORKERS: '3' }), 3);
    assert.equal(parseWorkersFromEnv({ STW_PARSE_WORKERS: '16' }), 16);
    for (const value of [undefined, '', '17', '-1', '2.5', 'two', '999'])
      assert.equal(parseWorkersFromEnv(value === undefined ? {} : { STW_PARSE_WORKERS: value }), undefined);
  });

  it('a scan forced onto threads by STW_PARSE_WORKERS makes the same artifact as one without', async () => {
    const files: Record<string, string> = {};
    texts(MIN_DOCS_FOR_WORKERS).forEach((text, i) => {
      files[`docs/d${i}.md`] = text;
    });
    const repo = fixtureRepo(files);
    const saved = process.env['STW_PARSE_WORKERS'];
    try {
      process.env['STW_PARSE_WORKERS'] = '2';
      const forced = await scanDir(repo.dir);
      process.env['STW_PARSE_WORKERS'] = '0';
      const off = await scanDir(repo.dir);
      assert.equal(off.files_scanned, MIN_DOCS_FOR_WORKERS);
      assert.deepEqual(forced, off);
    } finally {
      if (saved === undefined) delete process.env['STW_PARSE_WORKERS'];
      else process.env['STW_PARSE_WORKERS'] = saved;
    }
  });

  it('starts threads only for a large scan, on the cores beyond this thread and the history pass', () => {
    assert.equal(defaultParseWorkers(MIN_DOCS_FOR_WORKERS - 1, 16), 0);
    assert.equal(defaultParseWorkers(5000, 1), 0);
    assert.equal(defaultParseWorkers(5000, 2), 0);
    assert.equal(defaultParseWorkers(5000, 4), 2);
    assert.equal(defaultParseWorkers(5000, 64), 4);
  });

  it('a scan with parsing threads makes the same artifact as one without', async () => {
    const files: Record<string, string> = {};
    texts(40).forEach((text, i) => {
      files[`docs/d${i}.md`] = text;
    });
    const repo = fixtureRepo(files);
    const withThreads = await scanDir(repo.dir, { parseWorkers: 2 });
    const without = await scanDir(repo.dir, { parseWorkers: 0 });
    assert.equal(without.files_scanned, 40);
    assert.deepEqual(withThreads, without);
  });
});
