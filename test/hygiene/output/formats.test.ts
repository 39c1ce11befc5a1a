import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { baselineFingerprints } from '../../../src/hygiene/output/baseline.js';
import { collectFindings, type Finding } from '../../../src/hygiene/output/findings.js';
import { evaluateGate, parseFailOn } from '../../../src/hygiene/output/gate.js';
import { escapeData, escapeProperty, renderGithub } from '../../../src/hygiene/output/github.js';
import { selectFindings } from '../../../src/hygiene/output/index.js';
import { pathUri, renderSarif } from '../../../src/hygiene/output/sarif.js';
import { SIGNAL_MODULES } from '../../../src/hygiene/scan/signals/index.js';
import type { Signal } from '../../../src/hygiene/types.js';
import { runCli } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/git-repo.js';
import { FIXTURES } from '../../helpers/paths.js';
import { fixtureRepo } from '../scan/helpers.js';

// The published SARIF 2.1.0 schema (JSON Schema draft-04), vendored from the npm registry
// with its licence: test/fixtures/sarif/README.md.
const require = createRequire(import.meta.url);
const Ajv4 = require('ajv-draft-04') as new (
  options: object,
) => {
  compile(schema: object): ((value: unknown) => boolean) & { errors?: unknown };
};
const sarifSchema = JSON.parse(readFileSync(join(FIXTURES, 'sarif', 'sarif-2.1.0-rtm.5.json'), 'utf8'));
const validateSarif = new Ajv4({ strict: false, allErrors: true, unicodeRegExp: false }).compile(sarifSchema);

const dir = makeTempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

const broken = (line: number, target: string): Signal => ({
  name: 'broken_reference',
  line,
  detail: `link target ${JSON.stringify(target)} does not resolve`,
  data: { target, kind: 'link' },
});

describe('findings', () => {
  it('locate each signal at line and column, and keep their fingerprints when lines shift', () => {
    writeFileSync(join(dir, 'a.md'), '# A\n\n  See [x](gone.md).\n');
    const before = collectFindings(dir, { 'a.md': [broken(3, 'gone.md')] });
    assert.equal(before[0]!.line, 3);
    assert.equal(before[0]!.column, '  See [x]('.length + 1);
    writeFileSync(join(dir, 'a.md'), '# A\n\nNew paragraph.\n\n  See [x](gone.md).\n');
    const after = collectFindings(dir, { 'a.md': [broken(5, 'gone.md')] });
    assert.equal(after[0]!.fingerprint, before[0]!.fingerprint, 'stable across a line shift');
    const twice = collectFindings(dir, { 'a.md': [broken(5, 'gone.md'), broken(5, 'gone.md')] });
    assert.notEqual(twice[0]!.fingerprint, twice[1]!.fingerprint, 'a repeat gets its own fingerprint');
    const other = collectFindings(dir, { 'a.md': [broken(5, 'other.md')] });
    assert.notEqual(other[0]!.fingerprint, before[0]!.fingerprint);
  });

  it('give each occurrence of a repeated target its own line and column (Textualize/textual, rust-lang/rust-by-example)', async () => {
    const repo = fixtureRepo({
      'po/messages.pot': 'msgid ""\n',
      'README.md': [
        '# Translating', // 1
        '', // 2
        'Write `po/xx.po`, then edit the `msgstr` entries of `po/xx.po`.', // 3
        '', // 4
        '<div>', // 5
        'top: [<a href="types/border.md">border</a>] [<a href="types/color.md">color</a>];', // 6
        'right: [<a href="types/border.md">border</a>];', // 7
        'left: [<a href="types/border.md">border</a>];', // 8
        '</div>', // 9
        '',
      ].join('\n'),
    });
    // --signals all: a backticked path no history proves was here is a held-back code_reference.
    const result = await runCli(['hygiene', 'scan', '--signals', 'all'], { cwd: repo.dir });
    assert.equal(result.code, 0, result.stderr);
    const rows = result.stdout
      .split('\n')
      .filter((line) => line.startsWith('  README.md:'))
      .map((line) => line.trim().split(/\s+/, 1)[0]);
    assert.deepEqual(rows, [
      'README.md:3:8',
      'README.md:3:54',
      'README.md:6:16',
      'README.md:6:55',
      'README.md:7:18',
      'README.md:8:17',
    ]);
  });

  it('the gate counts by level, and the baseline leaves out what it has', () => {
    const findings: Finding[] = [
      { rule: 'broken_reference', path: 'a.md', line: 1, message: 'm', fingerprint: 'f1' },
      {
        rule: 'broken_reference',
        path: 'b.md',
        line: 2,
        message: 'm',
        fingerprint: 'f2',
        entry: { id: 'e1', safety_tier: 'auto' },
      },
      {
        rule: 'context_weight',
        path: 'CLAUDE.md',
        message: 'm',
        fingerprint: 'f3',
        entry: { id: 'e2', safety_tier: 'confirm' },
      },
    ];
    assert.equal(evaluateGate(findings, {}), undefined, 'no flag, no gate');
    assert.deepEqual(evaluateGate(findings, { failOn: parseFailOn('signals', true) }), {
      fail_on: 'signals',
      counted: 3,
      max_findings: 0,
      failed: true,
    });
    assert.equal(evaluateGate(findings, { failOn: parseFailOn('entries', true) })!.counted, 2);
    assert.equal(evaluateGate(findings, { failOn: parseFailOn('auto', true) })!.counted, 1);
    assert.equal(
      evaluateGate(findings, { failOn: parseFailOn('context_weight,version_skew', true) })!.counted,
      1,
    );
    assert.equal(
      evaluateGate(findings, { maxFindings: 3 })!.failed,
      false,
      '--max-findings alone counts signals',
    );
    assert.throws(() => parseFailOn('brokn_reference', true), /unknown --fail-on value/);
    assert.throws(() => parseFailOn('auto', false), /needs a report/);
    const selected = selectFindings(
      findings,
      { baseline: new Set(['f1', 'f3']) },
      { failOn: { level: 'signals' } },
    );
    assert.deepEqual(
      selected.findings.map((f) => f.fingerprint),
      ['f2'],
    );
    assert.equal(selected.baselined, 2);
    assert.equal(selected.gate!.counted, 1);
  });
});

describe('SARIF', () => {
  it('validates against the published 2.1.0 schema: one rule per signal with help, regions, fingerprints', () => {
    writeFileSync(join(dir, 'we ird,%.md'), '# W\n\n[x](gone.md)\n');
    const findings = collectFindings(dir, {
      'we ird,%.md': [broken(3, 'gone.md')],
      'CLAUDE.md': [{ name: 'context_weight', detail: '≈ 3000 tokens over 2000' }],
    });
    const log = renderSarif(findings, {
      toolVersion: '0.1.0',
      isCounted: (f) => f.rule === 'broken_reference',
    });
    const ok = validateSarif(log);
    assert.ok(ok, JSON.stringify(validateSarif.errors, null, 2));
    assert.equal(validateSarif({ ...log, version: '2.0.0' }), false, 'the schema does reject');
    const run = (log as { runs: Record<string, unknown>[] }).runs[0]!;
    const rules = (run['tool'] as { driver: { rules: { id: string; help: { text: string } }[] } }).driver
      .rules;
    assert.deepEqual(
      rules.map((r) => r.id),
      SIGNAL_MODULES.map((m) => m.name),
    );
    assert.ok(rules.every((r) => r.help.text.length > 20));
    interface Result {
      ruleId: string;
      level: string;
      locations: { physicalLocation: { region?: unknown } }[];
      partialFingerprints: Record<string, string>;
    }
    const results = run['results'] as Result[];
    assert.equal(results.length, 2);
    const link = results.find((r) => r.ruleId === 'broken_reference')!;
    const file = results.find((r) => r.ruleId === 'context_weight')!;
    assert.equal(link.level, 'error');
    assert.equal(file.level, 'warning');
    assert.deepEqual(link.locations[0]!.physicalLocation, {
      artifactLocation: { uri: 'we%20ird%2C%25.md', uriBaseId: '%SRCROOT%' },
      region: { startLine: 3, startColumn: 5 },
    });
    assert.equal(file.locations[0]!.physicalLocation.region, undefined, 'a whole-file finding has no region');
    assert.equal(
      link.partialFingerprints['stw/v1'],
      findings.find((f) => f.rule === 'broken_reference')!.fingerprint,
    );
    assert.deepEqual([...baselineFingerprints(log)!].sort(), findings.map((f) => f.fingerprint).sort());
    assert.equal(pathUri('docs/a b/#c.md'), 'docs/a%20b/%23c.md');
  });
});

describe('GitHub workflow commands', () => {
  it('escape %, CR and LF in messages, and : and , too in properties', () => {
    assert.equal(escapeData('50% done\r\n::error::x'), '50%25 done%0D%0A::error::x');
    assert.equal(escapeProperty('a,b:c%\nd'), 'a%2Cb%3Ac%25%0Ad');
  });

  it('no hostile file name or message can end a command or start another', () => {
    const hostile: Finding[] = [
      {
        rule: 'broken_reference',
        path: 'docs/a,b:c%0A.md',
        line: 2,
        column: 1,
        message: 'target "x\n::error file=evil.md::pwned" does not resolve',
        fingerprint: 'f',
      },
      {
        rule: 'broken_reference',
        path: 'line\nbreak\r::warning::.md',
        message: '100% %0A',
        fingerprint: 'g',
      },
    ];
    const text = renderGithub(hostile, () => true);
    const lines = text.split('\n').filter((line) => line !== '');
    assert.equal(lines.length, 2, 'one line per finding');
    assert.equal(
      lines[0],
      '::error file=docs/a%2Cb%3Ac%250A.md,line=2,col=1,title=stw broken_reference::docs/a,b:c%250A.md:2:1: target "x%0A::error file=evil.md::pwned" does not resolve',
    );
    assert.equal(
      lines[1],
      '::error file=line%0Abreak%0D%3A%3Awarning%3A%3A.md,title=stw broken_reference::line%0Abreak%0D::warning::.md: 100%25 %250A',
    );
    assert.ok(lines.every((line) => !line.includes('\r')));
  });
});
