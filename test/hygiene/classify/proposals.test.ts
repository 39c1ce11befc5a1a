import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ValidationError } from '../../../src/core/errors.js';
import {
  matchesCategoryFilter,
  parseCategoryFilter,
  parseProposals,
} from '../../../src/hygiene/classify/proposals.js';

/** A valid deterministic proposal; tests break one field at a time. */
export function goodProposal(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    path: 'docs/a.md',
    category: { class: 'stale', subtype: 'dangling-reference' },
    signals: [{ name: 'broken_reference', line: 2, detail: 'broken', data: { target: 'x.md' } }],
    op: 'Fix the link.',
    op_type: 'deterministic',
    exact_edit: {
      kind: 'replace-text',
      anchor: { start_line: 2, end_line: 2 },
      match: 'x.md',
      replacement: 'y.md',
    },
    confidence: 0.9,
    ...overrides,
  };
}

function rejects(value: unknown, pattern: RegExp): void {
  assert.throws(
    () => parseProposals(value),
    (error: unknown) => {
      assert.ok(error instanceof ValidationError, String(error));
      assert.match(error.message, /^invalid proposals: proposals/);
      assert.match(error.violations.join('\n'), pattern);
      return true;
    },
  );
}

describe('parseProposals', () => {
  it('accepts valid deterministic and generative proposals', () => {
    const generative = goodProposal({
      path: 'CLAUDE.md',
      category: { class: 'bloat', subtype: 'distill' },
      op_type: 'generative',
      exact_edit: undefined,
      reducible_range: { start_line: 1, end_line: 40 },
    });
    delete generative['exact_edit'];
    assert.equal(parseProposals([goodProposal(), generative]).length, 2);
    assert.deepEqual(parseProposals([]), []);
  });

  it('rejects each malformed case with its index and reason', () => {
    const edit = (e: Record<string, unknown>) => goodProposal({ exact_edit: e });
    const cases: [unknown, RegExp][] = [
      [goodProposal({ safety_tier: 'auto' }), /proposals\[1\]\.safety_tier: guarded field/],
      [goodProposal({ token_estimate: { raw_tokens: 1 } }), /proposals\[1\]\.token_estimate: guarded field/],
      [
        edit({
          kind: 'replace-text',
          anchor: { start_line: 2, end_line: 2 },
          match: 'a',
          replacement: 'b',
          expected_sha256: 'ab',
        }),
        /proposals\[1\]\.exact_edit\.expected_sha256: guarded field/,
      ],
      [
        edit({ anchor: { start_line: 2, end_line: 2 }, match: 'a', replacement: 'b' }),
        /proposals\[1\]\.exact_edit\.kind: is required/,
      ],
      [
        goodProposal({ category: { class: 'stale', subtype: 'rotten' } }),
        /proposals\[1\]\.category\.subtype: must be one of/,
      ],
      [
        goodProposal({ category: { class: 'bloat', subtype: 'orphaned' } }),
        /proposals\[1\]\.category\.subtype: 'orphaned' is not a bloat subtype/,
      ],
      [
        goodProposal({ op_type: 'generative' }),
        /proposals\[1\]\.exact_edit: must be absent when op_type is generative/,
      ],
      [
        (() => {
          const p = goodProposal();
          delete p['exact_edit'];
          return p;
        })(),
        /proposals\[1\]\.exact_edit: is required when op_type is deterministic/,
      ],
      [
        edit({ kind: 'replace-text', match: 'a', replacement: 'b' }),
        /proposals\[1\]\.exact_edit\.anchor: is required for replace-text/,
      ],
      [
        edit({ kind: 'move-to-archive', anchor: { start_line: 1, end_line: 1 }, dest_path: 'archive/a.md' }),
        /takes no anchor/,
      ],
      [
        edit({ kind: 'move-to-archive' }),
        /proposals\[1\]\.exact_edit\.dest_path: is required for move-to-archive/,
      ],
      [
        edit({ kind: 'move-to-archive', dest_path: '../outside.md' }),
        /dest_path: must be a project-relative path/,
      ],
      [
        edit({ kind: 'dedupe', anchor: { start_line: 1, end_line: 2 }, canonical_ref: 'b.md', match: 'x' }),
        /exact_edit\.match: is not a field of dedupe/,
      ],
      [
        edit({ kind: 'dedupe', anchor: { start_line: 3, end_line: 2 }, canonical_ref: 'b.md' }),
        /start_line is after end_line/,
      ],
      [edit({ kind: 'delete-path' }), /proposals\[1\]\.exact_edit\.recursive: is required for delete-path/],
      [
        edit({ kind: 'replace-text', anchor: { start_line: 0, end_line: 2 }, match: 'a', replacement: 'b' }),
        /anchor\.start_line: must be >= 1/,
      ],
      [goodProposal({ path: '/etc/passwd' }), /proposals\[1\]\.path: must be a project-relative path/],
      [goodProposal({ confidence: 2 }), /proposals\[1\]\.confidence: must be <= 1/],
      [goodProposal({ op: '' }), /proposals\[1\]\.op:/],
      [goodProposal({ surprise: 1 }), /proposals\[1\]\.surprise: unknown key/],
      [
        goodProposal({ reducible_range: { start_line: 1, end_line: 2 } }),
        /only generative proposals carry a reducible range/,
      ],
      ['not an object', /proposals\[1\]: must be an object/],
    ];
    for (const [bad, pattern] of cases) rejects([goodProposal({ path: 'ok.md' }), bad], pattern);
  });

  it('rejects a document that is not an array', () => {
    rejects({ proposals: [] }, /must be a JSON array/);
  });

  it('rejects proposals the applier could not combine in one file, naming the later index', () => {
    const move = goodProposal({
      category: { class: 'stale', subtype: 'superseded' },
      exact_edit: { kind: 'move-to-archive', dest_path: 'archive/a.md' },
    });
    rejects([goodProposal(), move], /proposals\[1\]: conflicts with proposals\[0\].*move-to-archive/);
    const overlapping = goodProposal({
      category: { class: 'stale', subtype: 'duplicated' },
      exact_edit: { kind: 'dedupe', anchor: { start_line: 1, end_line: 3 }, canonical_ref: 'b.md' },
    });
    rejects(
      [goodProposal(), overlapping],
      /proposals\[1\]: conflicts with proposals\[0\].*overlapping anchors/,
    );
    const generative = goodProposal({
      category: { class: 'bloat', subtype: 'distill' },
      op_type: 'generative',
    });
    delete generative['exact_edit'];
    rejects([goodProposal(), generative], /generative rewrite cannot share a file/);
    const freeze = (value: string) =>
      goodProposal({
        category: { class: 'stale', subtype: 'completed-in-place' },
        exact_edit: { kind: 'insert-frontmatter', key: 'hygiene', value },
      });
    rejects([freeze('frozen'), freeze('append-only')], /frontmatter key 'hygiene' set twice/);
    // Different files never conflict; disjoint anchors in one file are fine.
    const disjoint = goodProposal({
      category: { class: 'stale', subtype: 'duplicated' },
      exact_edit: { kind: 'dedupe', anchor: { start_line: 3, end_line: 5 }, canonical_ref: 'b.md' },
    });
    assert.equal(parseProposals([goodProposal(), disjoint, { ...move, path: 'other.md' }]).length, 3);
  });
});

describe('category filters', () => {
  it('accepts a class or a subtype and nothing else', () => {
    assert.deepEqual(parseCategoryFilter('stale'), { class: 'stale' });
    assert.deepEqual(parseCategoryFilter('distill'), { subtype: 'distill' });
    assert.equal(parseCategoryFilter('rotten'), undefined);
    assert.equal(matchesCategoryFilter({ class: 'bloat', subtype: 'distill' }, { class: 'stale' }), false);
    assert.equal(matchesCategoryFilter({ class: 'bloat', subtype: 'distill' }, { subtype: 'distill' }), true);
    assert.equal(matchesCategoryFilter({ class: 'bloat', subtype: 'distill' }, undefined), true);
  });
});
