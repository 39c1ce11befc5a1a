import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { schemaPath } from './package.js';

/** A JSON path in the form the tool prints: `entries[3].safety_tier`, `scan.files_scanned`. */
export function formatJsonPath(segments: readonly (string | number)[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number' || /^\d+$/.test(segment)) out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out === '' ? '(root)' : out;
}

function pointerToSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function describe(error: ErrorObject): string {
  const segments = pointerToSegments(error.instancePath);
  switch (error.keyword) {
    case 'required':
      segments.push(String((error.params as { missingProperty: string }).missingProperty));
      return `${formatJsonPath(segments)}: is required`;
    case 'additionalProperties':
      segments.push(String((error.params as { additionalProperty: string }).additionalProperty));
      return `${formatJsonPath(segments)}: unknown key`;
    case 'enum':
      return `${formatJsonPath(segments)}: must be one of ${(
        error.params as { allowedValues: unknown[] }
      ).allowedValues
        .map((v) => JSON.stringify(v))
        .join(', ')}`;
    case 'const':
      return `${formatJsonPath(segments)}: must be ${JSON.stringify((error.params as { allowedValue: unknown }).allowedValue)}`;
    default:
      return `${formatJsonPath(segments)}: ${error.message ?? error.keyword}`;
  }
}

export type Violations = string[];

const cache = new Map<string, ValidateFunction>();
/** Schemas referenced from others (`"$ref": "agent-context.schema.json"`), registered once. */
const SHARED_SCHEMAS = ['agent-context.schema.json'];
let ajv: Ajv | undefined;

/**
 * A validator for a JSON Schema shipped in `schemas/` (draft-07). Returns the list of
 * violations, each prefixed by its JSON path; empty means valid. Compiled once per file.
 */
export function schemaValidator(file: string): (value: unknown) => Violations {
  let validate = cache.get(file);
  if (validate === undefined) {
    if (ajv === undefined) {
      ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
      // Shared parts other schemas refer to by file name.
      for (const shared of SHARED_SCHEMAS)
        ajv.addSchema(JSON.parse(readFileSync(schemaPath(shared), 'utf8')) as object);
    }
    const schema = JSON.parse(readFileSync(schemaPath(file), 'utf8')) as object;
    const id = (schema as { $id?: string }).$id;
    validate = (id !== undefined ? ajv.getSchema(id) : undefined) ?? ajv.compile(schema);
    cache.set(file, validate);
  }
  const compiled = validate;
  return (value) => {
    if (compiled(value)) return [];
    const seen = new Set<string>();
    for (const error of compiled.errors ?? []) seen.add(describe(error));
    return [...seen];
  };
}
