/**
 * The JSON Schemas a model's answer is constrained to, derived from the shipped
 * `schemas/proposals.schema.json` so that the two can never drift apart. Structured output
 * (Anthropic `output_config.format`, OpenAI strict `json_schema`) accepts only a subset of
 * JSON Schema: an object at the root, `additionalProperties: false` and every key required
 * on every object (an optional key becomes nullable), and no numeric or length limits. The
 * limits are checked afterwards by `parseProposals`, exactly as for `--proposals` input.
 *
 * A model cites the scanner's signals by name and line; the code puts the scanner's own
 * signal objects (detail and data) in their place, so evidence is never model-written.
 */
import { readFileSync } from 'node:fs';
import { schemaPath } from '../../../core/package.js';

type Schema = Record<string, unknown>;

const DROPPED_KEYWORDS = new Set([
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  '$schema',
  '$id',
  'title',
  'description',
]);

/** Keys of a proposals-schema object the model does not write. */
const OMITTED: Readonly<Record<string, readonly string[]>> = {
  // The scanner's detail and data are restored by code from the cited name and line.
  signal: ['detail', 'data'],
};

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function nullable(schema: Schema): Schema {
  if (typeof schema['type'] === 'string' && schema['type'] !== 'object' && schema['enum'] === undefined)
    return { ...schema, type: [schema['type'], 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/** Definition name → the keys made nullable there (optional in the proposals schema). */
const NULLABLE = new Map<string, string[]>();

function strictify(schema: Schema, definitions: Record<string, Schema>, name?: string): Schema {
  if (typeof schema['$ref'] === 'string') {
    const ref = schema['$ref'].replace('#/definitions/', '');
    return strictify(definitions[ref]!, definitions, ref);
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED_KEYWORDS.has(key) || key === 'properties' || key === 'required') continue;
    if (key === 'items' && isSchema(value)) out[key] = strictify(value, definitions);
    else out[key] = value;
  }
  // Strict modes want a type on every schema: an enum of strings is a string.
  if (
    out['type'] === undefined &&
    Array.isArray(out['enum']) &&
    out['enum'].every((v) => typeof v === 'string')
  )
    out['type'] = 'string';
  if (schema['type'] === 'object' && isSchema(schema['properties'])) {
    const required = new Set((schema['required'] as string[] | undefined) ?? []);
    const omitted = new Set(name !== undefined ? (OMITTED[name] ?? []) : []);
    const properties: Record<string, Schema> = {};
    for (const [key, value] of Object.entries(schema['properties'])) {
      if (omitted.has(key) || !isSchema(value)) continue;
      const strict = strictify(value, definitions);
      properties[key] = required.has(key) ? strict : nullable(strict);
      if (!required.has(key) && name !== undefined) NULLABLE.set(name, [...(NULLABLE.get(name) ?? []), key]);
    }
    out['properties'] = properties;
    out['required'] = Object.keys(properties);
    out['additionalProperties'] = false;
  }
  return out;
}

/**
 * Keys the answer schema makes nullable, by proposals-schema definition (`proposal`,
 * `exactEdit`, `signal`): optional there, so a null in an answer means "absent".
 */
export function nullableKeys(definition: 'proposal' | 'exactEdit' | 'signal'): readonly string[] {
  proposalsAnswerSchema();
  return NULLABLE.get(definition) ?? [];
}

let cached: Schema | undefined;

/** `{proposals: Proposal[]}` in the structured-output subset, from `schemas/proposals.schema.json`. */
export function proposalsAnswerSchema(): Schema {
  if (cached !== undefined) return cached;
  const file = JSON.parse(readFileSync(schemaPath('proposals.schema.json'), 'utf8')) as Schema;
  const definitions = file['definitions'] as Record<string, Schema>;
  const proposal = strictify(definitions['proposal']!, definitions, 'proposal');
  cached = {
    type: 'object',
    additionalProperties: false,
    required: ['proposals'],
    properties: { proposals: { type: 'array', items: proposal } },
  };
  return cached;
}

/** `{text}`: the distilled replacement of one span. */
export function distillAnswerSchema(): Schema {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['text'],
    properties: { text: { type: 'string' } },
  };
}
