import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  codeSpan,
  escapeMarkdown,
  renderReportMarkdown,
  signalsWithoutEntry,
} from '../../../src/hygiene/report/report-md.js';
import type { Entry, Report } from '../../../src/hygiene/types.js';

function entry(overrides: Partial<Entry>): Entry {
  return {
    id: 'aaaa1111',
    path: 'docs/a.md',
    category: { class: 'stale', subtype: 'dangling-reference' },
    signals: [{ name: 'broken_reference', line: 3, detail: 'guide.md does not exist' }],
    op: 'Point the broken reference guide.md on line 3 at docs/guide.md.',
    op_type: 'deterministic',
    exact_edit: {
      kind: 'replace-text',
      anchor: { start_line: 3, end_line: 3 },
      match: 'guide.md',
      replacement: 'docs/guide.md',
      expected_sha256: '0'.repeat(64),
    },
    is_destructive: false,
    is_reversible: true,
    safety_tier: 'auto',
    token_estimate: { raw_tokens: 7, injection_frequency: 0, weighted_tokens: 0 },
    confidence: 0.9,
    generated_at: '2026-03-01T10:00:00Z',
    ...overrides,
  };
}

function report(entries: Entry[], shortlist: string[]): Report {
  return {
    schema_version: '1.0',
    tool_version: '0.1.0',
    generated_at: '2026-03-01T10:00:00Z',
    scan: {
      project_root: '/repo',
      scope_globs: ['docs/**'],
      excluded_dirs: [],
      files_scanned: shortlist.length,
      category_filter: 'stale',
      tokenizer: 'gpt-tokenizer/o200k_base',
    },
    shortlist,
    entries,
    totals: { tokens_saved_per_session: entries.reduce((s, e) => s + e.token_estimate.weighted_tokens, 0) },
  };
}

describe('renderReportMarkdown', () => {
  it('renders the header, Stale / Bloat / Cleared sections and every entry field', () => {
    const md = renderReportMarkdown(
      report(
        [
          entry({}),
          entry({
            id: 'bbbb2222',
            path: 'plans/idea.md',
            category: { class: 'stale', subtype: 'orphaned' },
            op: 'Delete all 3 lines.',
            exact_edit: {
              kind: 'delete-range',
              anchor: { start_line: 1, end_line: 3 },
              expected_sha256: '1'.repeat(64),
            },
            is_destructive: true,
            is_reversible: false,
            safety_tier: 'confirm',
          }),
          entry({
            id: 'cccc3333',
            path: 'CLAUDE.md',
            category: { class: 'bloat', subtype: 'distill' },
            signals: [{ name: 'context_weight', detail: '≈4000 tokens, budget 2000' }],
            op: 'Distil it.',
            op_type: 'generative',
            exact_edit: undefined,
            safety_tier: 'confirm',
            token_estimate: { raw_tokens: 4000, injection_frequency: 1, weighted_tokens: 4000 },
          }),
        ],
        ['CLAUDE.md', 'README.md', 'docs/a.md', 'plans/idea.md'],
      ),
    );
    for (const expected of [
      '# Docs hygiene report',
      '- **Generated:** 2026-03-01T10:00:00Z',
      '- **Scope:** `docs/**`',
      '- **Category filter:** `stale`',
      '- **Files scanned:** 4',
      '- **Candidates:** 3 entries in 3 files — 1 auto, 2 need confirmation (1 irreversible)',
      '- **Cleared:** 1 file (cleared: scanned and found with no signal, so nothing to do there)',
      '- **Tokens saved per agent session if all are applied:** ≈4000 (counted with `gpt-tokenizer/o200k_base`)',
      '## Stale (2 entries)',
      '### `aaaa1111` `docs/a.md`',
      '- **Category:** stale / dangling-reference',
      '- **Edit:** replace-text (deterministic) · lines 3–3',
      '- **Tier:** auto',
      '- **Tokens:** ≈7',
      '- **Signal:** `broken_reference` (line 3) — guide.md does not exist',
      '- **Tier:** confirm · ⚠ **irreversible**',
      '## Bloat (1 entry)',
      '- **Edit:** generative rewrite',
      '- **Tokens:** ≈4000 (≈4000 per agent session)',
      '## Cleared (1 file)',
      '- `README.md`',
    ]) {
      assert.ok(md.includes(expected), `missing ${JSON.stringify(expected)} in\n${md}`);
    }
    assert.ok(
      md.indexOf('## Stale') < md.indexOf('## Bloat') && md.indexOf('## Bloat') < md.indexOf('## Cleared'),
    );
  });

  it('renders an empty report with all three sections', () => {
    const md = renderReportMarkdown(report([], ['a.md']));
    assert.match(md, /## Stale \(0 entries\)\n\nNone\./);
    assert.match(md, /## Bloat \(0 entries\)\n\nNone\./);
    assert.match(md, /## Cleared \(1 file\)/);
    assert.match(md, /- \*\*Candidates:\*\* 0 entries in 0 files/);
  });

  it('escapes paths and prose so they cannot break the Markdown or reach the terminal raw', () => {
    const nasty = 'docs/`weird`*name*\u001b[31m\n.md';
    const md = renderReportMarkdown(
      report([entry({ path: nasty, op: 'Fix [x](y) <b>*now*</b> & more' })], [nasty, 'a|b_c.md']),
    );
    assert.ok(!md.includes('\u001b'), 'no raw escape character');
    assert.ok(md.includes('``docs/`weird`*name*\\e[31m\\n.md``'), md);
    assert.ok(md.includes('Fix \\[x\\](y) \\<b\\>\\*now\\*\\</b\\> \\& more'), md);
    assert.equal(codeSpan('`x'), '`` `x ``');
    assert.equal(escapeMarkdown('a_b'), 'a\\_b');
  });

  it('lists at most 200 cleared paths and says how many more there are', () => {
    const shortlist = Array.from({ length: 205 }, (_, i) => `d/${String(i).padStart(3, '0')}.md`);
    const md = renderReportMarkdown(report([], shortlist));
    assert.ok(md.includes('- `d/199.md`'));
    assert.ok(!md.includes('- `d/200.md`'));
    assert.ok(md.includes('… and 5 more'));
  });

  it('lists every signal no entry carries, also on files that got a fix, and shows each exact edit', () => {
    const fixed = { name: 'broken_reference', line: 3, detail: 'guide.md does not exist' } as const;
    const md = renderReportMarkdown(report([entry({})], ['docs/a.md', 'docs/lost.md', 'docs/ok.md']), {
      unfixed: signalsWithoutEntry(
        {
          'docs/a.md': [
            fixed,
            { name: 'version_skew', line: 9, detail: 'states Node 18; package.json has 20' },
          ],
          'docs/lost.md': [{ name: 'broken_reference', line: 4, detail: 'gone.md does not exist' }],
        },
        [entry({})],
      ),
    });
    assert.match(md, /- \*\*Signals with no proposed fix:\*\* 2 signals in 2 files \(review them by hand\)/);
    assert.match(
      md,
      /## Signals with no proposed fix \(2 files\)\n\n.*\n\n- `docs\/a.md` \(its other signals have entries above\)\n {2}- `version_skew` \(line 9\) — states Node 18; package.json has 20\n- `docs\/lost.md`\n {2}- `broken_reference` \(line 4\) — gone.md does not exist\n/,
    );
    // The fixed signal is shown under its entry, not again as unfixed.
    assert.equal(md.split('guide.md does not exist').length - 1, 1);
    assert.match(
      md,
      /## Cleared \(1 file\)\n\nScanned with no signal and no proposed change:\n\n- `docs\/ok.md`\n/,
    );
    assert.match(
      md,
      /- \*\*Edit:\*\* replace-text \(deterministic\) · lines 3–3 · `guide.md` → `docs\/guide.md`/,
    );
  });

  it('names the files whose entries the category filter left out, never calling them cleared', () => {
    const md = renderReportMarkdown(report([], ['docs/a.md', 'CLAUDE.md']), { filteredOut: ['CLAUDE.md'] });
    assert.match(md, /- \*\*Left out by the category filter:\*\* 1 file/);
    assert.match(md, /## Left out by the category filter \(1 file\)\n\n.*\n\n- `CLAUDE.md`\n/);
    assert.match(md, /## Cleared \(1 file\)\n\n.*\n\n- `docs\/a.md`\n/);
  });
});
