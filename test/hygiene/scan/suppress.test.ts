import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseMarkdown } from '../../../src/hygiene/scan/markdown.js';
import {
  DocSuppressions,
  isLinkFinding,
  parseDirective,
} from '../../../src/hygiene/scan/suppress/directives.js';
import { hiddenClasses, withhold } from '../../../src/hygiene/scan/suppress/index.js';
import { LinkIgnore, linkIgnoreProblem } from '../../../src/hygiene/scan/suppress/link-ignore.js';
import type { Signal } from '../../../src/hygiene/types.js';

const link = (line: number | undefined, target = 'x.md', kind = 'link'): Signal => ({
  name: 'broken_reference',
  ...(line !== undefined ? { line } : {}),
  detail: 'broken',
  data: { target, kind },
});
const other = (line: number | undefined): Signal => ({
  name: 'stale_name_location',
  ...(line !== undefined ? { line } : {}),
  detail: 'old',
});

/** Which of `signals` the doc's directives silence (by index). */
function silenced(text: string, signals: Signal[]): number[] {
  const doc = new DocSuppressions(parseMarkdown(text));
  return signals.flatMap((signal, i) => (doc.silencing(signal) !== undefined ? [i] : []));
}

describe('inline suppression directives', () => {
  it('stw-ignore-line silences its own line; with names, only those classes', () => {
    const text =
      '# T\n\n[a](a.md) <!-- stw-ignore-line -->\n[b](b.md) <!-- stw-ignore-line stale_name_location -->\n';
    assert.deepEqual(silenced(text, [link(3), other(3), link(4), other(4), link(5)]), [0, 1, 3]);
  });

  it('stw-ignore-next-line silences the line after the comment only', () => {
    const text = '# T\n\n<!-- stw-ignore-next-line broken_reference -->\n[a](a.md)\n[b](b.md)\n';
    assert.deepEqual(silenced(text, [link(4), link(5), other(4), link(3)]), [0]);
  });

  it('stw-disable … stw-enable silences the lines between; never enabled: to the end', () => {
    const text =
      '# T\n\n<!-- stw-disable -->\n[a](a.md)\n<!-- stw-enable -->\n[b](b.md)\n<!-- stw-disable broken_reference -->\n[c](c.md)\n';
    assert.deepEqual(silenced(text, [link(4), other(4), link(6), link(8), other(8), link(30)]), [0, 1, 3, 5]);
  });

  it('a stw-disable at the top of the file covers it from line 1 and its findings with no line; one lower down does not', () => {
    const top = '---\ntitle: x\n---\n\n<!-- stw-disable stale_name_location -->\n# T\n';
    assert.deepEqual(silenced(top, [other(undefined), link(undefined), other(1), other(9)]), [0, 2, 3]);
    const lower = '# T\n\n<!-- stw-disable -->\n';
    assert.deepEqual(silenced(lower, [other(undefined)]), []);
  });

  it('a comment inside a fenced block, an indented block or a code span is no directive', () => {
    const text = [
      '# T',
      '',
      '```md',
      '<!-- stw-disable -->',
      '```',
      '',
      '    <!-- stw-ignore-next-line -->',
      '[a](a.md)',
      '',
      'Write `<!-- stw-ignore-line -->` to silence a line. [b](b.md)',
      '',
    ].join('\n');
    assert.deepEqual(parseMarkdown(text).directives, []);
    assert.deepEqual(silenced(text, [link(4), link(8), link(10)]), []);
  });

  it("markdown-link-check's comments silence link findings only (not a backticked path, not another class)", () => {
    const text = [
      '# T',
      '<!-- markdown-link-check-disable-next-line -->',
      '[a](a.md) `src/a.ts`',
      'x <!-- markdown-link-check-disable-line -->',
      '<!-- markdown-link-check-disable -->',
      '[b](b.md)',
      '<!-- markdown-link-check-enable -->',
      '[c](c.md)',
    ].join('\n');
    const signals = [
      link(3),
      link(3, 'src/a.ts', 'code-path'),
      other(3),
      link(4, '#x', 'fragment'),
      link(6),
      link(8),
    ];
    assert.deepEqual(silenced(text, signals), [0, 3, 4]);
    assert.equal(isLinkFinding(link(1, 'x', 'image')), true);
    assert.equal(isLinkFinding(link(1, 'x', 'import')), false);
  });

  it('parses names, commas and a trailing -- note; names an unknown word and an unknown stw- form', () => {
    const d = parseDirective('stw-disable broken_reference, version_skew -- vendored docs', 1, 1)!;
    assert.deepEqual(d.names, ['broken_reference', 'version_skew']);
    assert.deepEqual(d.unknown, []);
    assert.deepEqual(parseDirective('stw-ignore-line brokn_reference', 1, 1)!.unknown, ['brokn_reference']);
    assert.match(parseDirective('stw-ignore', 1, 1)!.malformed!, /unknown directive "stw-ignore"/);
    assert.equal(parseDirective('markdown-link-check-something-else', 1, 1), undefined);
  });
});

describe('links.ignore', () => {
  it('matches a glob against the whole target, as written and without #fragment or ?query', () => {
    const ignore = new LinkIgnore(['https://example.com/**', 'legacy/*.md', '/\\.pdf$/i']);
    assert.equal(ignore.match('https://example.com/a/b?x=1'), 0);
    assert.equal(ignore.match('legacy/a.md#part'), 1);
    assert.equal(ignore.match('legacy/deeper/a.md'), undefined);
    assert.equal(ignore.match('files/Report.PDF'), 2);
    assert.equal(ignore.match('docs/a.md'), undefined);
  });

  it('a /regex/ is searched anywhere in the target, as lychee searches its exclude', () => {
    const ignore = new LinkIgnore(['/example\\.(com|org)/']);
    assert.equal(ignore.match('https://www.example.org/x'), 0);
    assert.equal(ignore.match('https://example.net/'), undefined);
  });

  it('refuses a regex RE2 cannot run in linear time, and a glob written in regex syntax', () => {
    assert.match(linkIgnoreProblem('/(a)\\1/')!, /not a regular expression RE2 accepts/);
    assert.match(linkIgnoreProblem('/(?=a)b/')!, /not a regular expression RE2 accepts/);
    assert.match(linkIgnoreProblem('^https://example\\.com')!, /write it between slashes: \/\^https/);
    assert.match(linkIgnoreProblem('docs/!(a).md')!, /extended globs/);
    assert.equal(linkIgnoreProblem('/(a+)+$/'), undefined);
    assert.equal(linkIgnoreProblem('**/*.pdf'), undefined);
  });

  it('a pattern that backtracks exponentially elsewhere answers at once (RE2 and the glob automaton)', () => {
    const ignore = new LinkIgnore(['/(a+)+$/', '/(a|aa)+b/', '*a*a*a*a*a*a*a*a*a*a*c']);
    const target = `${'a'.repeat(50_000)}!`;
    const started = performance.now();
    assert.equal(ignore.match(target), undefined);
    assert.equal(ignore.match(`${'a'.repeat(50_000)}b`), 1);
    // A backtracking engine takes longer than the age of the universe here; linear engines take milliseconds.
    assert.ok(performance.now() - started < 5_000);
  });
});

describe('withhold', () => {
  const docs = new Map([
    ['a.md', { parsed: parseMarkdown('# A\n\n<!-- stw-ignore-next-line -->\n[x](x.md)\n[y](y.md)\n') }],
  ]);
  const signals = () =>
    new Map<string, Signal[]>([
      ['a.md', [link(4, 'x.md'), link(5, 'y.md'), { name: 'duplicate_content', line: 1, detail: 'dup' }]],
      ['b.md', [link(2, 'legacy/z.md'), { name: 'version_skew', line: 3, detail: 'node 8' }]],
    ]);
  const config = (extra: Partial<{ signals: object; ignore: string[] }> = {}) => ({
    signals: extra.signals ?? {},
    links: { ignore: extra.ignore ?? ['legacy/**', 'never/**'] },
  });

  it('counts hidden and suppressed per class; only shown findings stay', () => {
    const { shown, withheld } = withhold({
      signals: signals(),
      docs,
      config: config(),
      configSource: '.dochygiene.yml',
      showAll: false,
      reportUnused: true,
    });
    assert.deepEqual([...shown.keys()], ['a.md']);
    assert.deepEqual(
      shown.get('a.md')!.map((s) => s.line),
      [5],
    );
    assert.deepEqual(withheld.hidden, { duplicate_content: 1, version_skew: 1 });
    assert.deepEqual(withheld.suppressed, { broken_reference: 2 });
    assert.deepEqual(
      withheld.suppressed_signals.map((s) => s.by),
      ['a.md:3 stw-ignore-next-line', 'links.ignore[0] legacy/**'],
    );
    assert.deepEqual(withheld.unused_suppressions, [
      { path: '.dochygiene.yml', suppression: 'links.ignore[1] never/**', reason: 'silenced nothing' },
    ]);
  });

  it('--signals all shows every class, signals: on/off switch one; an off that changes nothing is unused', () => {
    assert.deepEqual([...hiddenClasses({ signals: {} }, false)].sort(), [
      'append_only_growth',
      'context_growth',
      'duplicate_content',
      'edit_recency_vs_churn',
      'near_duplicate',
      'stale_name_location',
      'tool_specific_wording',
      'version_skew',
    ]);
    assert.deepEqual([...hiddenClasses({ signals: {} }, true)], []);
    assert.deepEqual(
      [...hiddenClasses({ signals: { version_skew: 'on', broken_reference: 'off' } }, false)].sort(),
      [
        'append_only_growth',
        'broken_reference',
        'context_growth',
        'duplicate_content',
        'edit_recency_vs_churn',
        'near_duplicate',
        'stale_name_location',
        'tool_specific_wording',
      ],
    );
    // A class named by --fail-on is never hidden.
    assert.ok(!hiddenClasses({ signals: {} }, false, ['stale_name_location']).has('stale_name_location'));
    const { withheld } = withhold({
      signals: signals(),
      docs,
      config: config({ signals: { duplicate_content: 'off', context_weight: 'off' }, ignore: [] }),
      configSource: 'my.yml',
      showAll: false,
      reportUnused: true,
    });
    assert.deepEqual(withheld.unused_suppressions, [
      {
        path: 'my.yml',
        suppression: 'signals.duplicate_content: off',
        reason: 'duplicate_content is hidden by default',
      },
      {
        path: 'my.yml',
        suppression: 'signals.context_weight: off',
        reason: 'hid nothing: the scan found no such signal',
      },
    ]);
  });
});
