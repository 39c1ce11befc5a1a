import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findProposalConflicts, parseProposals } from '../../../src/hygiene/classify/proposals.js';
import { classifyWithRules, occursOnlyAsToken } from '../../../src/hygiene/classify/rules.js';
import { lineCount } from '../../../src/hygiene/line-span.js';
import {
  DEFAULT_CONFIG,
  type HygieneConfig,
  type ScanArtifact,
  type Signal,
} from '../../../src/hygiene/types.js';
import { fc } from '../../helpers/property.js';

function artifact(signals: Record<string, Signal[]>, extra: Partial<ScanArtifact> = {}): ScanArtifact {
  const shortlist = [...new Set([...Object.keys(signals), ...(extra.shortlist ?? [])])].sort();
  return {
    project_root: '/nowhere',
    scope_globs: [],
    excluded_dirs: [],
    files_scanned: shortlist.length,
    shortlist,
    signals,
    excluded: [],
    ...extra,
    ...(extra.shortlist ? { shortlist } : {}),
  };
}

const body = (n: number, prefix = 'line') =>
  `${Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`).join('\n')}\n`;

/** `n` lines of prose, about 60 characters each: a substantial block from 7 lines on. */
const prose = (n: number, word = 'widget') =>
  Array.from(
    { length: n },
    (_, i) => `The ${word} service keeps line ${i + 1} of this paragraph long enough.`,
  ).join('\n');

function classify(
  signals: Record<string, Signal[]>,
  texts: Record<string, string>,
  options: {
    config?: HygieneConfig;
    exists?: string[];
    agentContext?: string[];
    /** `from → to` pairs: which doc links to which. */
    links?: [string, string][];
    generated?: string[];
    onDeclined?: (path: string, signal: Signal, reason: string) => void;
  } = {},
) {
  const art = artifact(signals, {
    ...(options.agentContext ? { agent_context: options.agentContext } : {}),
    shortlist: Object.keys(texts),
  });
  return classifyWithRules(
    art,
    options.config ?? DEFAULT_CONFIG,
    (path) => texts[path],
    (path) => (options.exists ?? []).includes(path),
    {
      linksTo: (from, to) => (options.links ?? []).some(([a, b]) => a === from && b === to),
      isGenerated: (path) => (options.generated ?? []).includes(path),
      ...(options.onDeclined ? { onDeclined: options.onDeclined } : {}),
    },
  );
}

describe('classifyWithRules', () => {
  it('maps a broken reference with a suggested target to dangling-reference / replace-text on its line', () => {
    const text = '# Doc\n\nSee [the guide](guide.md) for more.\n';
    const proposals = classify(
      {
        'docs/a.md': [
          {
            name: 'broken_reference',
            line: 3,
            detail: 'link target guide.md does not exist',
            data: {
              target: 'guide.md',
              kind: 'link',
              suggested_target: 'docs/guide.md',
              suggested_by: 'rename-history',
            },
          },
        ],
      },
      { 'docs/a.md': text },
    );
    assert.equal(proposals.length, 1);
    const [p] = proposals;
    assert.deepEqual(p!.category, { class: 'stale', subtype: 'dangling-reference' });
    assert.equal(p!.op_type, 'deterministic');
    assert.deepEqual(p!.exact_edit, {
      kind: 'replace-text',
      anchor: { start_line: 3, end_line: 3 },
      match: '](guide.md',
      replacement: '](docs/guide.md',
    });
    assert.equal(p!.signals[0]!.name, 'broken_reference');
  });

  it('never guesses: no suggestion, no link syntax around the target, or a target inside a longer path gives nothing', () => {
    const signal = (line: number, data: Record<string, unknown>): Signal => ({
      name: 'broken_reference',
      line,
      detail: 'broken',
      data: { kind: 'link', ...data },
    });
    const proposals = classify(
      {
        'a.md': [signal(1, { target: 'x.md' })],
        'b.md': [signal(1, { target: 'x.md', suggested_target: 'y.md' })],
        'c.md': [signal(1, { target: 'a.md', suggested_target: 'b.md' })],
        'e.md': [signal(1, { target: 'a.md', suggested_target: 'b.md' })],
        'd.md': [signal(9, { target: 'x.md', suggested_target: 'y.md' })],
      },
      {
        'a.md': '[x](x.md)\n',
        'b.md': 'no link here\n',
        'c.md': 'see a.md (prose, not a link)\n',
        'e.md': '[a](a.md.bak)\n',
        'd.md': '[x](x.md)\n',
      },
    );
    assert.deepEqual(proposals, []);
  });

  it('recognises path tokens by their boundaries', () => {
    assert.equal(occursOnlyAsToken('[a](a.md) then a.md.', 'a.md'), true);
    assert.equal(occursOnlyAsToken('[d](data.md)', 'a.md'), false);
    assert.equal(occursOnlyAsToken('see a.md.bak', 'a.md'), false);
    assert.equal(occursOnlyAsToken('[a](a.md#intro)', 'a.md'), true);
    assert.equal(occursOnlyAsToken('nothing', 'a.md'), false);
  });

  it('freezes a doc whose status says it is done, never one with only a ticked checklist', () => {
    const ticked = classify(
      {
        'docs/plans/p.md': [
          {
            name: 'frontmatter_marker',
            line: 3,
            detail: 'all 12 tasks are ticked',
            data: { marker: 'tasks-complete', value: '12/12' },
          },
        ],
      },
      { 'docs/plans/p.md': '# Plan\n\n- [x] a\n' },
    );
    assert.deepEqual(ticked, []);
    for (const data of [
      { marker: 'status', value: 'Done' },
      { marker: 'body-status', value: 'implemented' },
    ]) {
      const proposals = classify(
        { 'docs/plans/p.md': [{ name: 'frontmatter_marker', line: 2, detail: 'completed', data }] },
        { 'docs/plans/p.md': '---\nstatus: done\n---\n# Plan\n' },
      );
      assert.equal(proposals.length, 1, JSON.stringify(data));
      assert.deepEqual(proposals[0]!.category, { class: 'stale', subtype: 'completed-in-place' });
      assert.deepEqual(proposals[0]!.exact_edit, {
        kind: 'insert-frontmatter',
        key: 'hygiene',
        value: 'frozen',
      });
    }
  });

  it('moves a superseded doc beside itself, into archive.dir when configured, and never onto an existing path', () => {
    const signals = {
      'docs/design-v1.md': [
        {
          name: 'frontmatter_marker' as const,
          line: 2,
          detail: 'superseded_by: design-v2.md',
          data: { marker: 'superseded_by', value: 'design-v2.md', superseded_by: 'design-v2.md' },
        },
      ],
      'notes-old.md': [
        {
          name: 'stale_name_location' as const,
          detail: 'an older version of notes-v2.md',
          data: { reason: 'older-version', newer_sibling: 'notes-v2.md', inbound_references: 2 },
        },
      ],
    };
    const texts = { 'docs/design-v1.md': '# v1\n', 'notes-old.md': '# old\n' };
    const beside = classify(signals, texts);
    assert.deepEqual(
      beside.map((p) => [p.path, p.category.subtype, p.exact_edit?.kind, p.exact_edit?.dest_path]),
      [
        ['docs/design-v1.md', 'superseded', 'move-to-archive', 'docs/archive/design-v1.md'],
        ['notes-old.md', 'superseded', 'move-to-archive', 'archive/notes-old.md'],
      ],
    );
    const configured = classify(signals, texts, {
      config: { ...DEFAULT_CONFIG, archive: { dir: 'attic/docs/' } },
    });
    assert.deepEqual(
      configured.map((p) => p.exact_edit?.dest_path),
      ['attic/docs/design-v1.md', 'attic/docs/notes-old.md'],
    );
    const occupied = classify(signals, texts, { exists: ['docs/archive/design-v1.md'] });
    assert.deepEqual(
      occupied.map((p) => p.path),
      ['notes-old.md'],
    );
    const outside = classify(signals, texts, {
      config: { ...DEFAULT_CONFIG, archive: { dir: '../elsewhere' } },
    });
    assert.deepEqual(outside, [], 'an archive.dir outside the project is never proposed');
  });

  it('never sends two files to the same archive path', () => {
    const marker: Signal = {
      name: 'frontmatter_marker',
      detail: 'superseded',
      data: { marker: 'status', value: 'superseded' },
    };
    const proposals = classify(
      { 'a/spec.md': [marker], 'b/spec.md': [marker] },
      { 'a/spec.md': 'x\n', 'b/spec.md': 'y\n' },
      { config: { ...DEFAULT_CONFIG, archive: { dir: 'archive' } } },
    );
    assert.deepEqual(
      proposals.map((p) => p.path),
      ['a/spec.md'],
    );
  });

  it('proposes a dedupe (judged, so confirm at finalize) only against the copy the other file links to', () => {
    const block = prose(8);
    const dup: Signal = {
      name: 'duplicate_content',
      line: 3,
      detail: 'lines 3–10 duplicate docs/setup.md',
      data: { canonical_ref: 'docs/setup.md#L3-L10', start_line: 3, end_line: 10 },
    };
    const texts = {
      'docs/copy.md': `# Copy\n\n${block}\n\nMore.\n`,
      'docs/setup.md': `# Setup\n\n${block}\n\nMore.\n`,
    };
    const linked = classify({ 'docs/copy.md': [dup] }, texts, { links: [['docs/copy.md', 'docs/setup.md']] });
    assert.equal(linked.length, 1);
    assert.deepEqual(linked[0]!.category, { class: 'stale', subtype: 'duplicated' });
    assert.deepEqual(linked[0]!.exact_edit, {
      kind: 'dedupe',
      anchor: { start_line: 3, end_line: 10 },
      canonical_ref: 'docs/setup.md',
    });
    assert.match(linked[0]!.why ?? '', /docs\/copy\.md already links to it/);
    // Linked the other way round, the other copy is the one replaced by a link.
    const reversed = classify({ 'docs/copy.md': [dup] }, texts, {
      links: [['docs/setup.md', 'docs/copy.md']],
    });
    assert.deepEqual(
      reversed.map((p) => [p.path, p.exact_edit?.canonical_ref]),
      [['docs/setup.md', 'docs/copy.md']],
    );
    // Siblings that do not link to each other: no canonical copy, no entry.
    const reasons: string[] = [];
    assert.deepEqual(
      classify({ 'docs/copy.md': [dup] }, texts, { onDeclined: (_p, _s, reason) => reasons.push(reason) }),
      [],
    );
    assert.deepEqual(reasons, ['no dedupe: neither copy is canonical by links or place']);
  });

  /** A README section the scanner found copied in docs/install.md (it calls the shallower README canonical). */
  const README_DUP: Signal = {
    name: 'duplicate_content',
    line: 5,
    detail: 'lines 5–7 repeat README.md lines 5–7',
    data: { canonical_ref: 'README.md#L5-L7', start_line: 5, end_line: 7 },
  };
  const readmeTexts = (block: string) => ({
    'README.md': `# Tool\n\n## Install\n\n${block}\n\n## Use\n\nRun it.\n`,
    'docs/install.md': `# Installing\n\n## Install\n\n${block}\n`,
  });

  it('keeps a README section and links it to the docs/ guide, never the other way round', () => {
    // The rules do not take the scanner's canonical copy for theirs.
    const proposals = classify({ 'docs/install.md': [README_DUP] }, readmeTexts(prose(3)));
    assert.deepEqual(
      proposals.map((p) => [p.path, p.exact_edit?.anchor, p.exact_edit?.canonical_ref]),
      [['README.md', { start_line: 5, end_line: 7 }, 'docs/install.md#install']],
    );
  });

  it('never replaces a package README (shown on npm or PyPI) with a link into docs/', () => {
    const texts = readmeTexts(prose(3));
    for (const [manifest, registry] of [
      ['package.json', 'npm'],
      ['pyproject.toml', 'PyPI'],
    ] as const) {
      const reasons: string[] = [];
      const proposals = classify({ 'docs/install.md': [README_DUP] }, texts, {
        exists: [manifest],
        onDeclined: (_p, _s, reason) => reasons.push(reason),
      });
      assert.deepEqual(proposals, []);
      assert.deepEqual(reasons, [
        `no dedupe: README.md is the package's README, shown on ${registry} where a link into the repository's docs does not lead`,
      ]);
    }
  });

  it('never replaces a versioned doc with a link into the unreleased docs', () => {
    const block = prose(8);
    const dup: Signal = {
      name: 'duplicate_content',
      line: 3,
      detail: 'dup',
      data: { canonical_ref: 'docs/api.md#L3-L10', start_line: 3, end_line: 10 },
    };
    const reasons: string[] = [];
    const proposals = classify(
      { 'website/versioned_docs/version-30.4/api.md': [dup] },
      {
        'docs/api.md': `# API\n\n${block}\n`,
        'website/versioned_docs/version-30.4/api.md': `# API\n\n${block}\n`,
      },
      {
        links: [['website/versioned_docs/version-30.4/api.md', 'docs/api.md']],
        onDeclined: (_p, _s, reason) => reasons.push(reason),
      },
    );
    assert.deepEqual(proposals, []);
    assert.deepEqual(reasons, [
      'no dedupe: the copies are in different versions of the docs (one is released, one is not)',
    ]);
  });

  it('never proposes deleting a published page on its name alone', () => {
    const old = (served?: string): Signal => ({
      name: 'stale_name_location',
      detail: 'its name says old',
      data: { reason: 'old', inbound_references: 0, ...(served !== undefined ? { served_by: served } : {}) },
    });
    const texts = { 'docs/old-setup.md': '# Setup\n\nText.\n', 'notes/old-notes.md': '# Notes\n' };
    const proposals = classify(
      { 'docs/old-setup.md': [old('mkdocs')], 'notes/old-notes.md': [old()] },
      texts,
    );
    assert.deepEqual(
      proposals.map((p) => [p.path, p.exact_edit?.kind]),
      [['notes/old-notes.md', 'delete-range']],
    );
  });

  for (const [name, texts, options, reason] of [
    [
      'an HTML comment',
      { 'a.md': `# A\n\n<!--\n${prose(8)}\n-->\n`, 'b.md': `# B\n\n<!--\n${prose(8)}\n-->\n` },
      { links: [['a.md', 'b.md']] },
      'no dedupe: it is an HTML comment',
    ],
    [
      'a sentence',
      { 'a.md': `# A\n\nIntro.\n\n${prose(2)}\n`, 'b.md': `# B\n\nOther.\n\n${prose(2)}\n` },
      { links: [['a.md', 'b.md']], range: [5, 6] },
      'no dedupe: it is neither a whole section nor 8 lines and 400 characters of prose',
    ],
    [
      'a generated copy',
      { 'a.md': `# A\n\n${prose(8)}\n`, 'b.md': `# B\n\n${prose(8)}\n` },
      { links: [['a.md', 'b.md']], generated: ['b.md'] },
      'no dedupe: a copy is generated',
    ],
    [
      'the same file reached twice',
      { 'a.md': `# A\n\n${prose(8)}\n`, 'b.md': `# B\n\n${prose(8)}\n` },
      { links: [['a.md', 'b.md']], same: true },
      'no dedupe: both copies are the same file',
    ],
  ] as const) {
    it(`never dedupes ${name}`, () => {
      const [start, end] = 'range' in options ? options.range : [3, 10];
      const dup: Signal = {
        name: 'duplicate_content',
        line: start,
        detail: 'dup',
        data: { canonical_ref: `b.md#L${start}-L${end}`, start_line: start, end_line: end },
      };
      const reasons: string[] = [];
      const art = artifact({ 'a.md': [dup] }, { shortlist: Object.keys(texts) });
      const proposals = classifyWithRules(
        art,
        DEFAULT_CONFIG,
        (path) => (texts as Record<string, string>)[path],
        () => false,
        {
          linksTo: (from, to) => options.links.some(([a, b]) => a === from && b === to),
          isGenerated: (path) =>
            ('generated' in options ? (options.generated as readonly string[]) : []).includes(path),
          // A symlink: both paths are one real file.
          realPath: (path) => ('same' in options ? 'real.md' : path),
          onDeclined: (_path, _signal, why) => reasons.push(why),
        },
      );
      assert.deepEqual(proposals, []);
      assert.deepEqual(reasons, [reason]);
    });
  }

  it('never dedupes template boilerplate: the same block in three files', () => {
    const block = prose(8);
    const dup = (path: string): Signal => ({
      name: 'duplicate_content',
      line: 3,
      detail: `lines 3–10 repeat ${path}`,
      data: { canonical_ref: 'a.md#L3-L10', start_line: 3, end_line: 10 },
    });
    const texts = { 'a.md': `# A\n\n${block}\n`, 'b.md': `# B\n\n${block}\n`, 'c.md': `# C\n\n${block}\n` };
    const reasons: string[] = [];
    const proposals = classify({ 'b.md': [dup('a.md')], 'c.md': [dup('a.md')] }, texts, {
      links: [
        ['b.md', 'a.md'],
        ['c.md', 'a.md'],
      ],
      onDeclined: (_p, _s, reason) => reasons.push(reason),
    });
    assert.deepEqual(proposals, []);
    assert.deepEqual(reasons, [
      'no dedupe: the block is in 3 files: template boilerplate, not a copy',
      'no dedupe: the block is in 3 files: template boilerplate, not a copy',
    ]);
  });

  it('proposes deleting an unreferenced doc in a stale location, and nothing when it is referenced or loaded', () => {
    const stale = (inbound: number): Signal => ({
      name: 'stale_name_location',
      detail: 'lives under plans/',
      data: { reason: 'location', folder: 'plans', inbound_references: inbound },
    });
    const proposals = classify(
      { 'plans/idea.md': [stale(0)], 'plans/used.md': [stale(1)], 'plans/CLAUDE.md': [stale(0)] },
      { 'plans/idea.md': body(5), 'plans/used.md': body(5), 'plans/CLAUDE.md': body(5) },
      { agentContext: ['plans/CLAUDE.md'] },
    );
    assert.equal(proposals.length, 1);
    assert.equal(proposals[0]!.path, 'plans/idea.md');
    assert.deepEqual(proposals[0]!.category, { class: 'stale', subtype: 'orphaned' });
    assert.deepEqual(proposals[0]!.exact_edit, {
      kind: 'delete-range',
      anchor: { start_line: 1, end_line: 5 },
    });
  });

  it('proposes a generative distill for context weight (whole file) and append-only growth (from the first appended line)', () => {
    const proposals = classify(
      {
        'CLAUDE.md': [
          {
            name: 'context_weight',
            detail: 'over budget',
            data: { tokens: 4000, budget: 2000, injection: 'always' },
          },
        ],
        'docs/notes.md': [
          {
            name: 'append_only_growth',
            detail: 'appended',
            data: { commits: 9, appended_ratio: 0.97, lines: 40, first_appended_line: 12 },
          },
        ],
      },
      { 'CLAUDE.md': body(30), 'docs/notes.md': body(40) },
    );
    assert.deepEqual(
      proposals.map((p) => [
        p.path,
        p.category.class,
        p.category.subtype,
        p.op_type,
        p.exact_edit,
        p.reducible_range,
      ]),
      [
        ['CLAUDE.md', 'bloat', 'distill', 'generative', undefined, { start_line: 1, end_line: 30 }],
        ['docs/notes.md', 'bloat', 'distill', 'generative', undefined, { start_line: 12, end_line: 40 }],
      ],
    );
  });

  it('proposes nothing for a version skew: a stated version may be historical', () => {
    const proposals = classify(
      {
        'a.md': [
          {
            name: 'version_skew',
            line: 1,
            detail: 'stated version disagrees',
            data: {
              subject: 'node',
              stated: '18',
              actual: '>=20',
              manifest: 'package.json',
              match: 'Node 18',
            },
          },
        ],
      },
      { 'a.md': 'Node 18 support was dropped in 2.0.\n' },
    );
    assert.deepEqual(proposals, []);
  });

  it('fixes only the link, not the same file name in prose, and every moved link on a line at once', () => {
    const broken = (target: string, kind = 'link'): Signal => ({
      name: 'broken_reference',
      line: 1,
      detail: 'broken',
      data: { target, kind, suggested_target: `ref/${target}`, suggested_by: 'rename-history' },
    });
    const proposals = classify(
      { 'a.md': [broken('api.md')], 'b.md': [broken('x.md'), broken('y.md', 'definition')] },
      { 'a.md': 'The old file api.md is now at [the api](api.md).\n', 'b.md': '[x](x.md) and [y]: y.md\n' },
    );
    assert.deepEqual(
      proposals.map((p) => [p.path, p.exact_edit?.match, p.exact_edit?.replacement, p.signals.length]),
      [
        ['a.md', '](api.md', '](ref/api.md', 1],
        ['b.md', '[x](x.md) and [y]: y.md', '[x](ref/x.md) and [y]: ref/y.md', 2],
      ],
    );
  });

  it('never dedupes an always-loaded agent-context file (a link is not an import)', () => {
    const dup = (start: number): Signal => ({
      name: 'duplicate_content',
      line: 3,
      detail: 'duplicate',
      data: { canonical_ref: `docs/rules.md#L${start}-L${start + 7}`, start_line: 3, end_line: 10 },
    });
    const proposals = classify(
      { 'AGENTS.md': [dup(3)], 'docs/other.md': [dup(14)] },
      {
        'AGENTS.md': `# Agents\n\n${prose(8)}\n`,
        'docs/other.md': `# Other\n\n${prose(8, 'gadget')}\n`,
        'docs/rules.md': `# Rules\n\n${prose(8)}\n\n## More\n\n${prose(8, 'gadget')}\n`,
      },
      {
        agentContext: ['AGENTS.md'],
        links: [
          ['AGENTS.md', 'docs/rules.md'],
          ['docs/other.md', 'docs/rules.md'],
        ],
      },
    );
    assert.deepEqual(
      proposals.map((p) => [p.path, p.exact_edit?.kind, p.exact_edit?.canonical_ref]),
      [['docs/other.md', 'dedupe', 'docs/rules.md#more']],
    );
  });

  it('proposes no automatic edit on an agent-context file but a link fix (a freeze is left out)', () => {
    const done: Signal = {
      name: 'frontmatter_marker',
      line: 2,
      detail: 'done',
      data: { marker: 'status', value: 'done' },
    };
    const skew: Signal = {
      name: 'version_skew',
      line: 4,
      detail: 'skew',
      data: { subject: 'node', stated: '18', actual: '20', manifest: 'package.json', match: 'Node 18' },
    };
    const link: Signal = {
      name: 'broken_reference',
      line: 5,
      detail: 'broken',
      data: { target: 'old.md', kind: 'link', suggested_target: 'new.md', suggested_by: 'rename-history' },
    };
    const text = '---\nstatus: done\n---\nUse Node 18.\nSee [x](old.md).\n';
    const proposals = classify(
      { 'AGENTS.md': [done, skew, link], 'docs/x.md': [done, skew] },
      { 'AGENTS.md': text, 'docs/x.md': text },
      { agentContext: ['AGENTS.md'] },
    );
    assert.deepEqual(
      proposals.map((p) => [p.path, p.category.subtype, p.exact_edit?.kind]),
      [
        ['AGENTS.md', 'dangling-reference', 'replace-text'],
        ['docs/x.md', 'completed-in-place', 'insert-frontmatter'],
      ],
    );
  });

  it('applies the documented precedence so no two proposals for a file conflict', () => {
    const broken = (line: number, target: string): Signal => ({
      name: 'broken_reference',
      line,
      detail: 'broken',
      data: { target, kind: 'link', suggested_target: `new/${target}` },
    });
    const text = '[a](a.md)\n[b](b.md)\nx\ny\nz\n';
    const proposals = classify(
      {
        // superseded wins over orphaned and everything in place
        'plans/one.md': [
          broken(1, 'a.md'),
          {
            name: 'stale_name_location',
            detail: 'plans',
            data: { reason: 'location', inbound_references: 0 },
          },
          {
            name: 'frontmatter_marker',
            detail: 'superseded',
            data: { marker: 'status', value: 'superseded' },
          },
        ],
        // a completed doc in a stale location is frozen, not deleted
        'plans/done.md': [
          {
            name: 'stale_name_location',
            detail: 'plans',
            data: { reason: 'location', inbound_references: 0 },
          },
          { name: 'frontmatter_marker', detail: 'done', data: { marker: 'status', value: 'done' } },
        ],
        // orphaned (whole-file delete) wins over in-place edits
        'plans/two.md': [
          broken(1, 'a.md'),
          { name: 'stale_name_location', detail: 'plans', data: { reason: 'draft', inbound_references: 0 } },
        ],
        // in-place edits: the dedupe takes lines 2–9, so the broken link on line 2 waits
        'three.md': [
          broken(2, 'b.md'),
          broken(1, 'a.md'),
          {
            name: 'duplicate_content',
            detail: 'dup',
            data: { canonical_ref: 'x.md#L2-L9', start_line: 2, end_line: 9 },
          },
          { name: 'frontmatter_marker', detail: 'done', data: { marker: 'status', value: 'done' } },
          {
            name: 'context_weight',
            detail: 'heavy',
            data: { tokens: 3000, budget: 2000, injection: 'always' },
          },
        ],
      },
      {
        'plans/one.md': text,
        'plans/two.md': text,
        'plans/done.md': text,
        'three.md': `[a](a.md)\n[b](b.md) ${prose(8).slice(3)}\n`,
        'x.md': `# X\n${prose(8)}\n`,
      },
      { links: [['three.md', 'x.md']] },
    );
    assert.deepEqual(
      proposals.map((p) => [p.path, p.category.subtype, p.exact_edit?.kind ?? 'generative']),
      [
        ['plans/done.md', 'completed-in-place', 'insert-frontmatter'],
        ['plans/one.md', 'superseded', 'move-to-archive'],
        ['plans/two.md', 'orphaned', 'delete-range'],
        ['three.md', 'completed-in-place', 'insert-frontmatter'],
        ['three.md', 'duplicated', 'dedupe'],
        ['three.md', 'dangling-reference', 'replace-text'],
      ],
    );
    assert.deepEqual(proposals[5]!.exact_edit?.anchor, { start_line: 1, end_line: 1 });
  });

  it('is deterministic, never conflicts, and only anchors inside the file (property)', () => {
    const signalArb: fc.Arbitrary<Signal> = fc.oneof(
      fc.record({
        name: fc.constant('broken_reference' as const),
        line: fc.integer({ min: 1, max: 12 }),
        detail: fc.constant('broken'),
        data: fc.record({
          target: fc.constantFrom('a.md', 'b.md', 'docs/c.md'),
          kind: fc.constant('link'),
          suggested_target: fc.constantFrom('x.md', 'y/z.md'),
        }),
      }),
      fc.record({
        name: fc.constant('duplicate_content' as const),
        detail: fc.constant('dup'),
        data: fc
          .tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 4 }))
          .map(([start, len]) => ({ canonical_ref: 'canon.md', start_line: start, end_line: start + len })),
      }),
      fc.record({
        name: fc.constant('frontmatter_marker' as const),
        detail: fc.constant('marker'),
        data: fc.record({
          marker: fc.constantFrom('status', 'superseded_by', 'tasks-complete'),
          value: fc.constantFrom('done', 'superseded', 'v2.md', 'wip'),
        }),
      }),
      fc.record({
        name: fc.constant('stale_name_location' as const),
        detail: fc.constant('stale'),
        data: fc.record({
          reason: fc.constantFrom('location', 'draft', 'older-version'),
          inbound_references: fc.integer({ min: 0, max: 2 }),
          newer_sibling: fc.constant('v2.md'),
        }),
      }),
      fc.record({
        name: fc.constantFrom('context_weight' as const, 'append_only_growth' as const),
        detail: fc.constant('bloat'),
        data: fc.record({ first_appended_line: fc.integer({ min: 1, max: 20 }), tokens: fc.constant(5000) }),
      }),
    );
    const text = '[a](a.md) [b](b.md)\n`docs/c.md`\nplain\n'.repeat(3);
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom('d/one.md', 'd/two.md', 'three.md'),
          fc.array(signalArb, { maxLength: 6 }),
        ),
        (signals) => {
          const texts = { 'd/one.md': text, 'd/two.md': text, 'three.md': text };
          const first = classify(signals, texts);
          const reversed = Object.fromEntries(Object.entries(signals).reverse());
          assert.deepEqual(classify(reversed, texts), first);
          assert.deepEqual(findProposalConflicts(first), []);
          parseProposals(structuredClone(first));
          for (const p of first) {
            const anchor = p.exact_edit?.anchor ?? p.reducible_range;
            if (anchor) assert.ok(anchor.end_line <= lineCount(text), JSON.stringify(p));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('skips files it cannot read and paths outside the shortlist', () => {
    const signal: Signal = {
      name: 'frontmatter_marker',
      detail: 'done',
      data: { marker: 'status', value: 'done' },
    };
    const art = artifact({ 'a.md': [signal], 'ghost.md': [signal] });
    art.shortlist = ['a.md', 'ghost.md'];
    const proposals = classifyWithRules(art, DEFAULT_CONFIG, (path) => {
      if (path === 'ghost.md') throw new Error('ENOENT');
      return '# a\n';
    });
    assert.deepEqual(
      proposals.map((p) => p.path),
      ['a.md'],
    );
    const notListed = artifact({ 'b.md': [signal] });
    notListed.shortlist = [];
    assert.deepEqual(
      classifyWithRules(notListed, DEFAULT_CONFIG, () => '# b\n'),
      [],
    );
  });
});
