import assert from 'node:assert/strict';
import { schemaValidator } from '../../src/core/schema.js';
import { scan } from '../../src/hygiene/scan/index.js';
import {
  DEFAULT_CONFIG,
  type HygieneConfig,
  type ScanArtifact,
  type Signal,
} from '../../src/hygiene/types.js';

/** Scans `root` with the default config (or `config`) and checks the artifact against its schema. */
export async function scanDir(
  root: string,
  options: { scopes?: string[]; config?: Partial<HygieneConfig> } = {},
): Promise<ScanArtifact> {
  const artifact = await scan({
    root,
    config: { ...DEFAULT_CONFIG, ...options.config },
    ...(options.scopes ? { scopes: options.scopes } : {}),
  });
  assert.deepEqual(schemaValidator('scan.schema.json')(artifact), []);
  return artifact;
}

/** The signals named `name` on `path`. */
export function signalsOf(artifact: ScanArtifact, path: string, name: Signal['name']): Signal[] {
  return (artifact.signals[path] ?? []).filter((s) => s.name === name);
}

/** `{line, data}` of each signal, for exact comparison. */
export function brief(signals: Signal[]): { line: number | undefined; data: unknown }[] {
  return signals.map((s) => ({ line: s.line, data: s.data }));
}
