import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { describeSchemaError, formatJsonPath, schemaValidator } from '../../src/core/schema.js';

const SCHEMAS = join(import.meta.dirname, '..', '..', '..', 'schemas');

describe('formatJsonPath', () => {
  it('prints JSON paths the way violations name them', () => {
    assert.equal(formatJsonPath(['entries', 3, 'safety_tier']), 'entries[3].safety_tier');
    assert.equal(formatJsonPath(['signals', 'docs/a b.md', 0]), 'signals["docs/a b.md"][0]');
    assert.equal(formatJsonPath([]), '(root)');
  });
});

describe('the validators compiled at build time', () => {
  const read = (file: string) => JSON.parse(readFileSync(join(SCHEMAS, file), 'utf8')) as { $id: string };
  // Documents that break each schema in several places at once (allErrors), and an empty one.
  const samples: unknown[] = [
    {},
    [],
    'text',
    { schema_version: 1, entries: [{ path: 7 }], unknown_key: true },
    { version: 2, branches: [{}], tasks: 'x', signals: { 'a.md': [{ name: 3 }] } },
    // issue 31: config signals:/links.ignore, the scan's withheld, the report's signal_counts.
    {
      signals: { nope: 'on', version_skew: 'maybe' },
      links: { ignore: [3, ''], extra: 1 },
      withheld: { hidden: { nope: 0 }, suppressed_signals: [{ path: '' }] },
      signal_counts: { shown: -1, by_signal: { broken_reference: { shown: 'x' }, nope: {} } },
    },
  ];
  for (const file of readdirSync(SCHEMAS).filter((f) => f.endsWith('.schema.json'))) {
    it(`${file}: judge as Ajv does when it compiles the schema now`, () => {
      const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
      ajv.addSchema(read('agent-context.schema.json'));
      const schema = read(file);
      const runtime = ajv.getSchema(schema.$id) ?? ajv.compile(schema);
      const compiled = schemaValidator(file);
      for (const sample of samples) {
        const expected = runtime(sample)
          ? []
          : [...new Set((runtime.errors ?? []).map((error) => describeSchemaError(error)))];
        assert.deepEqual(compiled(sample), expected, `${file}: ${JSON.stringify(sample)}`);
      }
    });
  }
});
