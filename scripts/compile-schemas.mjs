// Compiles every JSON Schema in schemas/ into a standalone validator at build time
// (dist/src/core/validators/NAME.cjs), so that no run compiles a schema: compiling the report
// and proposals schemas at run time cost more than validating a whole report. Same Ajv
// options as src/core/schema.ts documents; schemas that others refer to by file name
// (agent-context.schema.json) are registered first. Run by `npm run build` after tsc.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';

const ROOT = join(import.meta.dirname, '..');
const SCHEMAS = join(ROOT, 'schemas');
const OUT = join(ROOT, 'dist', 'src', 'core', 'validators');
const SHARED = ['agent-context.schema.json'];

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const read = (file) => JSON.parse(readFileSync(join(SCHEMAS, file), 'utf8'));
for (const file of readdirSync(SCHEMAS)
  .filter((f) => f.endsWith('.schema.json'))
  .sort()) {
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, code: { source: true } });
  for (const shared of SHARED) ajv.addSchema(read(shared));
  const schema = read(file);
  const validate = ajv.getSchema(schema.$id) ?? ajv.compile(schema);
  writeFileSync(join(OUT, file.replace(/\.json$/, '.cjs')), standaloneCode(ajv, validate));
}
