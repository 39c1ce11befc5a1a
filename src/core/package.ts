import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// This file compiles to dist/src/core/package.js; the package root is three levels up.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The installed package's root directory (holds package.json and schemas/). */
export function packageRoot(): string {
  return ROOT;
}

let version: string | undefined;

/** `version` from package.json, read once. */
export function toolVersion(): string {
  version ??= (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}

/** Absolute path of a JSON Schema shipped in `schemas/`. */
export function schemaPath(file: string): string {
  return join(ROOT, 'schemas', file);
}
