import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  applyRewriteToText,
  entrySpan,
  rewriteProblem,
  spanSha256,
  targetTokens,
} from '../../../src/hygiene/apply/generative.js';
import { countTokens } from '../../../src/hygiene/tokens.js';
import type { Entry } from '../../../src/hygiene/types.js';
import { makeTempDir } from '../../helpers/git-repo.js';

function tree(): string {
  const root = makeTempDir('stw-generative-');
  mkdirSync(join(root, 'docs'));
  writeFileSync(join(root, 'docs', 'setup.md'), '# Setup\n\n## Install\n\nRun make.\n');
  writeFileSync(join(root, 'README.md'), '# Project\n');
  return root;
}

const FILE =
  '# Rules\n\nNote one. Note one again.\nSee [setup](docs/setup.md).\nNote two, said twice. Note two.\n';
const RANGE = { start_line: 3, end_line: 5 };
const SPAN = entrySpan({ reducible_range: RANGE }, FILE)!.text;

function problem(root: string, text: string): string | undefined {
  return rewriteProblem({
    root,
    path: 'CLAUDE.md',
    fileText: FILE,
    range: RANGE,
    span: SPAN,
    text,
    target: 1000,
  });
}

/** The check for a CLAUDE.md whose span is its one line 3, `line`. */
function problemOfLine(root: string, line: string): (text: string) => string | undefined {
  const fileText = `# Rules\n\n${line}\n`;
  const range = { start_line: 3, end_line: 3 };
  const span = entrySpan({ reducible_range: range }, fileText)!.text;
  return (text) => rewriteProblem({ root, path: 'CLAUDE.md', fileText, range, span, text, target: 100 });
}

describe('rewriteProblem (the check before a rewrite is written)', () => {
  it('accepts a shorter text that keeps the span’s references, or has none', () => {
    const root = tree();
    assert.equal(problem(root, 'Note one. See [setup](docs/setup.md). Note two.'), undefined);
    assert.equal(problem(root, 'Note one; note two.'), undefined);
  });

  it('rejects any reference the span did not have, even one that resolves', () => {
    const root = tree();
    for (const text of [
      'Note one. See [install](docs/setup.md#install). Note two.',
      'Note one; [top](#rules).',
      'Note one; [site](https://docs.invalid/x.md).',
      'Note one. @README.md',
    ])
      assert.match(problem(root, text)!, /is not in the text it replaces \(a rewrite may not invent/, text);
  });

  it('never passes a reference out of the project: ~, absolute, above the root, through a symlink', () => {
    const root = tree();
    symlinkSync('/etc', join(root, 'outside'));
    for (const [text, why] of [
      ['Note one. @~/.ssh/id_rsa', /@~\/\.ssh\/id_rsa leads out of the project \(a path in a home folder\)/],
      ['Note one. @../../../../etc/passwd', /leads out of the project \(a path above the project root\)/],
      ['Note one. @/etc/passwd', /@\/etc\/passwd leads out of the project \(an absolute path\)/],
      ['Note one. @outside/passwd', /leads out of the project \(a path a symlink leads out of the project\)/],
      [
        'Note one. [p](../../../../etc/passwd)',
        /link target "\.\.\/\.\.\/\.\.\/\.\.\/etc\/passwd" leads out/,
      ],
      ['Note one. <a href="file:///etc/passwd">p</a>', /leads out of the project \(a file: URL\)/],
    ] as const)
      assert.match(problem(root, text)!, why, text);
    // Named in code, it is text, not a reference: nothing loads it.
    assert.equal(problem(root, 'Note one. `~/.ssh/id_rsa` is yours.'), undefined);
  });

  it('rejects an out-of-project import even when the span already had it', () => {
    const problem = problemOfLine(tree(), 'Personal: @~/.claude/mine.md, repeated, repeated, repeated.');
    assert.match(problem('Personal: @~/.claude/mine.md')!, /leads out of the project/);
  });

  it('rejects an invented link, a missing heading, an @import of nothing, an empty or longer text', () => {
    const root = tree();
    assert.match(problem(root, 'See [new](docs/new.md).')!, /link target "docs\/new\.md" does not exist/);
    assert.match(problem(root, 'See [x](docs/setup.md#uninstall).')!, /no heading #uninstall/);
    assert.match(problem(root, 'Rules: @docs/rules.md')!, /import target "docs\/rules\.md" does not exist/);
    assert.match(problem(root, '[gone](#nowhere)')!, /no heading #nowhere/);
    assert.match(problem(root, '   \n')!, /empty/);
    assert.match(problem(root, `${SPAN} And more.`)!, /not shorter/);
    assert.match(
      rewriteProblem({
        root,
        path: 'CLAUDE.md',
        fileText: FILE,
        range: RANGE,
        span: SPAN,
        text: 'Note one. Note two.',
        target: 2,
      })!,
      /over the target size \(≈2 tokens\)/,
    );
  });

  it('lets a reference copied unchanged from the span stand, even one already broken', () => {
    const problem = problemOfLine(tree(), 'Old [gone](docs/gone.md) note, repeated, repeated, repeated.');
    assert.equal(problem('Old [gone](docs/gone.md) note.'), undefined);
  });
});

describe('applyRewriteToText', () => {
  const rewrite = (fileText: string, range: { start_line: number; end_line: number }, text: string) => ({
    ok: true as const,
    id: 'x',
    range,
    source_sha256: spanSha256(entrySpan({ reducible_range: range }, fileText)!.text),
    text,
    source: 'generated' as const,
  });

  it('replaces exactly the span, keeping CRLF line breaks and a missing final newline', () => {
    const crlf = 'a\r\nb\r\nc\r\nd';
    const result = applyRewriteToText(crlf, rewrite(crlf, { start_line: 2, end_line: 3 }, 'B\nC2\nC3\n'));
    assert.deepEqual(result, { text: 'a\r\nB\r\nC2\r\nC3\r\nd' });
    const lf = 'a\nb\nc\n';
    assert.deepEqual(applyRewriteToText(lf, rewrite(lf, { start_line: 1, end_line: 3 }, 'abc')), {
      text: 'abc\n',
    });
  });

  it('skips when the span no longer hashes to what was distilled', () => {
    const before = 'a\nb\nc\n';
    const planned = rewrite(before, { start_line: 2, end_line: 2 }, 'B');
    assert.deepEqual(applyRewriteToText('a\nb2\nc\n', planned), {
      skip: 'content-changed-since-distill',
      detail: 'the span changed after it was distilled',
    });
  });
});

describe('targetTokens', () => {
  const entry = (frequency: number) =>
    ({ token_estimate: { raw_tokens: 0, injection_frequency: frequency, weighted_tokens: 0 } }) as Entry;
  const file = `# Title\n\n${'word '.repeat(400).trim()}\n`;
  const range = { start_line: 3, end_line: 3 };

  it('is half the span for an on-demand doc, the budget minus the rest for always-loaded context', () => {
    assert.equal(targetTokens(entry(0), file, range, 2000), 200);
    assert.equal(targetTokens(entry(1), file, range, 300), 300 - countTokens('# Title\n'));
    // The rest over budget: never less than half the span; never the whole span.
    assert.equal(targetTokens(entry(1), file, range, 1), 200);
    assert.equal(targetTokens(entry(1), file, range, 100_000), 399);
  });
});
