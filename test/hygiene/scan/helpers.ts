import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after } from 'node:test';
import { schemaValidator } from '../../../src/core/schema.js';
import { scan } from '../../../src/hygiene/scan/index.js';
import {
  DEFAULT_CONFIG,
  type HygieneConfig,
  type ScanArtifact,
  type Signal,
} from '../../../src/hygiene/types.js';
import { makeRepo, makeTempDir, type TestRepo } from '../../helpers/git-repo.js';

/**
 * Scans `root` with the default config (or `config`) and checks the artifact against its
 * schema. Every class is shown (`--signals all`): these tests are about what each signal
 * module computes; `defaultVisibility` scans as a user does, with the hidden classes withheld.
 */
export async function scanDir(
  root: string,
  options: {
    scopes?: string[];
    config?: Partial<HygieneConfig>;
    parseWorkers?: number;
    defaultVisibility?: boolean;
  } = {},
): Promise<ScanArtifact> {
  const artifact = await scan({
    root,
    config: { ...DEFAULT_CONFIG, ...options.config },
    showAllSignals: options.defaultVisibility !== true,
    ...(options.scopes ? { scopes: options.scopes } : {}),
    ...(options.parseWorkers !== undefined ? { parseWorkers: options.parseWorkers } : {}),
  });
  assert.deepEqual(schemaValidator('scan.schema.json')(artifact), []);
  return artifact;
}

/** The signals named `name` on `path`. */
export function signalsOf(artifact: ScanArtifact, path: string, name: Signal['name']): Signal[] {
  return (artifact.signals[path] ?? []).filter((s) => s.name === name);
}

/** The unresolved references on `path`: `broken_reference` (links) and `code_reference` (backticked code), by line. */
export function referencesOf(artifact: ScanArtifact, path: string): Signal[] {
  return (artifact.signals[path] ?? []).filter(
    (s) => s.name === 'broken_reference' || s.name === 'code_reference',
  );
}

/** Each broken_reference on `path`: target, where it is broken (or why it is unverifiable), and the site. */
export function siteViews(artifact: ScanArtifact, path: string): [string, string, string | undefined][] {
  return signalsOf(artifact, path, 'broken_reference').map((s) => [
    String(s.data?.['target']),
    Array.isArray(s.data?.['broken_on'])
      ? (s.data['broken_on'] as string[]).join('+')
      : `unverifiable: ${String(s.data?.['unverifiable'])}`,
    s.data?.['site'] as string | undefined,
  ]);
}

/** Every signal named `name`, with its path, in the artifact's path order. */
export function everySignal(
  artifact: ScanArtifact,
  name: Signal['name'],
): { path: string; line: number | undefined; data: unknown }[] {
  return Object.entries(artifact.signals).flatMap(([path, list]) =>
    list.filter((s) => s.name === name).map((s) => ({ path, line: s.line, data: s.data })),
  );
}

/** `{line, data}` of each signal, for exact comparison. */
export function brief(signals: Signal[]): { line: number | undefined; data: unknown }[] {
  return signals.map((s) => ({ line: s.line, data: s.data }));
}

const cleanups: (() => void)[] = [];
after(() => {
  for (const cleanup of cleanups) cleanup();
});

/** Removes `repo` when the test file ends. */
export function removeLater(repo: TestRepo): TestRepo {
  cleanups.push(() => repo.cleanup());
  return repo;
}

/** A fresh repository whose one commit holds `files`; removed when the test file ends. */
export function fixtureRepo(files: Record<string, string | Buffer>): TestRepo {
  const repo = removeLater(makeRepo({ initialCommit: false }));
  repo.commit('fixture', files);
  return repo;
}

/** A scratch directory removed when the test file ends. */
export function scratchDir(prefix?: string): string {
  const dir = makeTempDir(prefix);
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
