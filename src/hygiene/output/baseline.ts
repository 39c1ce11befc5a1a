/**
 * `--baseline FILE` (docs/ci.md): the fingerprints of a saved run — stw's `--format json`
 * output (`findings[].fingerprint`) or its SARIF (`partialFingerprints["stw/v1"]`) — so that
 * only findings not in it are reported and gated.
 */
import { readFile } from 'node:fs/promises';
import { UsageError, ValidationError } from '../../core/errors.js';
import { quote } from '../../core/quote.js';
import { FINGERPRINT_KEY } from './sarif.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function sarifFingerprints(runs: unknown[]): string[] {
  const out: string[] = [];
  for (const run of runs) {
    const results = isObject(run) && Array.isArray(run['results']) ? run['results'] : [];
    for (const result of results) {
      const prints = isObject(result) ? result['partialFingerprints'] : undefined;
      const print = isObject(prints) ? prints[FINGERPRINT_KEY] : undefined;
      if (typeof print === 'string') out.push(print);
    }
  }
  return out;
}

/** The fingerprints named in a baseline file's JSON value, or undefined when it is neither format. */
export function baselineFingerprints(value: unknown): Set<string> | undefined {
  if (!isObject(value)) return undefined;
  if (Array.isArray(value['runs'])) return new Set(sarifFingerprints(value['runs']));
  const findings = value['findings'];
  if (!Array.isArray(findings)) return undefined;
  const prints = findings.map((finding) => (isObject(finding) ? finding['fingerprint'] : undefined));
  return new Set(prints.filter((print): print is string => typeof print === 'string'));
}

/** Reads a baseline file; an unreadable or unrecognised one is refused with one line. */
export async function readBaseline(path: string): Promise<Set<string>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(`cannot read baseline file ${quote(path)} (${code})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ValidationError('invalid-baseline', `baseline file is not JSON: ${(error as Error).message}`);
  }
  const prints = baselineFingerprints(value);
  if (prints === undefined)
    throw new ValidationError(
      'invalid-baseline',
      `baseline file ${quote(path)} is neither stw's --format json output (findings) nor its SARIF (runs)`,
    );
  return prints;
}
