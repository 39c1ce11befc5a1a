import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';

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

/** One Ajv error as a violation: its JSON path, then what is wrong. */
export function describeSchemaError(error: ErrorObject): string {
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

/**
 * A validator for a JSON Schema shipped in `schemas/` (draft-07). Returns the list of
 * violations, each prefixed by its JSON path; empty means valid. The validators are compiled
 * from the schemas by Ajv at build time (`scripts/compile-schemas.mjs`, options `allErrors`,
 * `strict`, `allowUnionTypes`), so a run loads only the ones it uses and compiles none.
 */
export function schemaValidator(file: string): (value: unknown) => Violations {
  let validate = cache.get(file);
  if (validate === undefined) {
    const modulePath = `./validators/${file.replace(/\.json$/, '')}.cjs`;
    try {
      validate = createRequire(import.meta.url)(modulePath) as ValidateFunction;
    } catch (error) {
      throw new Error(`no compiled validator for ${file} (${(error as Error).message}); run npm run build`);
    }
    cache.set(file, validate);
  }
  const compiled = validate;
  return (value) => {
    if (compiled(value)) return [];
    const seen = new Set<string>();
    for (const error of compiled.errors ?? []) seen.add(describeSchemaError(error));
    return [...seen];
  };
}
