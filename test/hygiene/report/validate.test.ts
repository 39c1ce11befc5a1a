import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { schemaPath } from '../../../src/core/package.js';
import { countLines, validateReport } from '../../../src/hygiene/report/validate.js';
import {
  BLOAT_SUBTYPES,
  EDIT_KINDS,
  type Report,
  SIGNAL_NAMES,
  STALE_SUBTYPES,
} from '../../../src/hygiene/types.js';
import { makeTempDir } from '../../helpers/git-repo.js';
import { FIXTURES } from '../../helpers/paths.js';
import { EXPECTED_VIOLATIONS } from '../../helpers/report-fixtures.js';

const REPORTS = join(FIXTURES, 'reports');
const load = (name: string) => JSON.parse(readFileSync(join(REPORTS, name), 'utf8')) as Report;

/** The 1.0 golden raised to 1.1, with one agent's context and one unresolved signal. */
function report11(): Report {
  const report = load('valid-all-kinds.json');
  const path = report.shortlist[0]!;
  report.schema_version = '1.1';
  report.context = {
    agents: [
      {
        agent: 'claude-code',
        name: 'Claude Code',
        startup: {
          tokens: 120,
          bytes: 500,
          files: [
            { path, tokens: 100, bytes: 400, rule: 'CLAUDE.md' },
            { path: 'docs/style.md', tokens: 20, bytes: 100, rule: 'import', imported_by: path },
          ],
        },
        on_demand: [
          { path: 'pkg/CLAUDE.md', tokens: 7, when: 'reading files under pkg/', rule: '**/CLAUDE.md' },
        ],
        cut_off: [],
        tokens_saved_per_session: 60,
      },
    ],
  };
  report.unresolved_signals = { [path]: [{ name: 'broken_reference', line: 3, detail: 'x', data: {} }] };
  return report;
}

describe('report schema 1.1', () => {
  it('accepts 1.0 and 1.1; 1.1 only adds the per-agent context and the signals with no entry', () => {
    assert.deepEqual(validateReport(load('valid-all-kinds.json')), []);
    assert.deepEqual(validateReport(report11()), []);
    const old = load('valid-all-kinds.json');
    (old as unknown as Record<string, unknown>)['context'] = report11().context;
    assert.deepEqual(validateReport(old), ['context: unknown key']);
    const future = { ...report11(), schema_version: '2.0' };
    assert.deepEqual(validateReport(future), ['schema_version: must be one of "1.0", "1.1"']);
  });

  it('checks that per-agent totals add up, savings fit in them, and unresolved signals are shortlisted', () => {
    const report = report11();
    const agent = report.context!.agents[0]!;
    agent.startup.tokens = 130;
    agent.tokens_saved_per_session = 200;
    report.unresolved_signals = { 'nowhere.md': [{ name: 'broken_reference', detail: 'x' }] };
    assert.deepEqual(validateReport(report), [
      'context.agents[0].startup.tokens: expected 120 (Σ files[].tokens), found 130',
      'context.agents[0].tokens_saved_per_session: 200 is more than the 130 start-up tokens',
      'unresolved_signals["nowhere.md"]: "nowhere.md" is not in shortlist',
    ]);
  });

  it('ships both JSON Schema files in the package', () => {
    const pkg = JSON.parse(readFileSync(join(schemaPath('..'), 'package.json'), 'utf8')) as {
      files: string[];
    };
    assert.ok(pkg.files.includes('schemas'));
    for (const [file, version] of [
      ['report.schema.json', '1.0'],
      ['report-1.1.schema.json', '1.1'],
    ] as const) {
      const schema = JSON.parse(readFileSync(schemaPath(file), 'utf8')) as {
        properties: Record<string, unknown>;
      };
      assert.deepEqual(schema.properties['schema_version'], { const: version });
    }
  });
});

describe('validateReport', () => {
  it('accepts the golden report that covers every kind, a generative and a lifecycle entry', () => {
    const report = load('valid-all-kinds.json');
    assert.deepEqual(validateReport(report), []);
    const kinds = new Set(report.entries.map((entry) => entry.exact_edit?.kind ?? 'generative'));
    assert.deepEqual([...kinds].sort(), [...EDIT_KINDS, 'generative'].sort());
    assert.ok(
      report.entries.some(
        (entry) => entry.lifecycle !== undefined && entry.exact_edit?.kind === 'delete-path',
      ),
    );
  });

  it('each invalid golden fixture fails exactly its one rule', () => {
    const invalid = readdirSync(REPORTS).filter((name) => name.startsWith('invalid-'));
    assert.deepEqual(invalid.sort(), Object.keys(EXPECTED_VIOLATIONS).sort());
    for (const name of invalid)
      assert.deepEqual(validateReport(load(name)), [EXPECTED_VIOLATIONS[name]], name);
  });

  it('reports schema violations with their JSON paths, and still checks cross-field rules', () => {
    const report = load('valid-all-kinds.json') as unknown as Record<string, unknown> & Report;
    (report.entries[0] as unknown as Record<string, unknown>)['colour'] = 'red';
    (report.entries[1] as unknown as Record<string, unknown>)['confidence'] = 2;
    report.entries[0]!.safety_tier = 'auto';
    assert.deepEqual(validateReport(report).sort(), [
      'entries[0].colour: unknown key',
      'entries[0].safety_tier: expected "confirm" (derived), found "auto"',
      'entries[1].confidence: must be <= 1',
    ]);
    assert.deepEqual(validateReport([]), ['(root): must be object']);
    assert.deepEqual(validateReport({}), [
      'schema_version: is required',
      'tool_version: is required',
      'generated_at: is required',
      'scan: is required',
      'shortlist: is required',
      'entries: is required',
    ]);
  });

  it('a generative entry must not carry an exact edit; a non-anchored kind must not carry an anchor', () => {
    const report = load('valid-all-kinds.json');
    report.entries[7]!.exact_edit = { kind: 'insert-frontmatter', key: 'hygiene', value: 'frozen' };
    report.entries[3]!.exact_edit!.anchor = { start_line: 1, end_line: 2 };
    report.entries[1]!.exact_edit!.recursive = true;
    assert.deepEqual(validateReport(report).sort(), [
      'entries[1].exact_edit.recursive: is not allowed for kind "replace-text"',
      'entries[3].exact_edit.anchor: is not allowed for kind "move-to-archive"',
      'entries[7].exact_edit: must be absent when op_type is "generative"',
    ]);
  });

  it('delete-path reversibility is the lifecycle facts (tracked and clean); judged evidence derives confirm', () => {
    const report = load('valid-all-kinds.json');
    report.entries[5]!.is_reversible = false;
    report.entries[5]!.safety_tier = 'confirm';
    assert.deepEqual(validateReport(report), [
      'entries[5].is_reversible: expected true (lifecycle tracked and clean), found false',
    ]);
    report.entries[5]!.lifecycle!.dirty = true;
    assert.deepEqual(validateReport(report), []);
    report.entries[6]!.safety_tier = 'auto';
    assert.deepEqual(validateReport(report), [
      'entries[6].safety_tier: expected "confirm" (derived), found "auto"',
    ]);
  });

  it('checks anchors against the files under projectRoot when they can be read', () => {
    const root = makeTempDir();
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'docs', 'api.md'), `${'line\n'.repeat(45)}`);
    writeFileSync(join(root, 'README.md'), 'one\ntwo\nthree\nfour\nfive\nsix\nseven');
    const report = load('valid-all-kinds.json');
    assert.deepEqual(validateReport(report, { projectRoot: root }), [
      'entries[2].exact_edit.anchor.end_line: 52 is past the end of "docs/api.md" (45 lines)',
    ]);
    assert.deepEqual(validateReport(report, { lineCount: () => 1000 }), []);
  });

  it('counts lines the way anchors do', () => {
    assert.equal(countLines(''), 0);
    assert.equal(countLines('a'), 1);
    assert.equal(countLines('a\n'), 1);
    assert.equal(countLines('a\nb'), 2);
    assert.equal(countLines('a\n\n'), 2);
  });
});

describe('report.schema.json', () => {
  it('lists exactly the kinds, subtypes and signal names of the TypeScript contracts', () => {
    const schema = JSON.parse(readFileSync(schemaPath('report.schema.json'), 'utf8'));
    const defs = schema.definitions;
    assert.deepEqual(defs.exactEdit.properties.kind.enum, [...EDIT_KINDS]);
    assert.deepEqual(defs.entry.properties.category.properties.subtype.enum, [
      ...STALE_SUBTYPES,
      ...BLOAT_SUBTYPES,
    ]);
    // 1.0 is frozen with the signals it was made with; the agent-context signals came with 1.1.
    assert.deepEqual(
      defs.signal.properties.name.enum,
      SIGNAL_NAMES.slice(0, SIGNAL_NAMES.indexOf('near_duplicate')),
    );
    const v11 = JSON.parse(readFileSync(schemaPath('report-1.1.schema.json'), 'utf8')).definitions;
    assert.deepEqual(v11.signal.properties.name.enum, [...SIGNAL_NAMES]);
  });
});
