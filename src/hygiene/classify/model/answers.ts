/**
 * Turning a model's answer into proposals the report builder accepts — or into the exact
 * list of what is wrong with it. Each proposal is checked exactly as `--proposals` input
 * is (`parseProposals`, then the report builder's own file checks: shortlist, anchors and
 * ranges inside the file, `match` on its lines), plus two checks only a model answer
 * needs: it is about the file that was sent, and it cites only signals the scanner
 * reported there (the scanner's signal objects replace the citations verbatim).
 */
import { fixedClock } from '../../../core/clock.js';
import { ValidationError } from '../../../core/errors.js';
import { finalizeReport } from '../../report/finalize.js';
import { citedSignal, type Proposal, type ScanArtifact, type Signal } from '../../types.js';
import { findProposalConflicts, parseProposals } from '../proposals.js';
import { nullableKeys } from './wire-schema.js';

export interface CheckedAnswer {
  /** Proposals that passed every check, in answer order. */
  valid: Proposal[];
  /** Per rejected proposal (or the whole answer, `index` undefined): what is wrong. */
  rejected: { index?: number; violations: string[] }[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function withoutNulls(value: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out = { ...value };
  for (const key of keys) if (out[key] === null) delete out[key];
  return out;
}

/**
 * A wire proposal as a `Proposal`-shaped value: nulls for optional keys removed, cited
 * signals replaced by the scanner's. Anything else — unknown or guarded keys included — is
 * left in place for `parseProposals` to judge.
 */
function normalize(
  raw: unknown,
  at: string,
  signals: readonly Signal[],
): { value: unknown; violations: string[] } {
  if (!isRecord(raw)) return { value: raw, violations: [] };
  const value = withoutNulls(raw, nullableKeys('proposal'));
  if (isRecord(value['exact_edit']))
    value['exact_edit'] = withoutNulls(value['exact_edit'], nullableKeys('exactEdit'));
  const violations: string[] = [];
  if (Array.isArray(value['signals'])) {
    value['signals'] = value['signals'].map((cited, j) => {
      const signal = citedSignal(cited, signals);
      if (signal !== undefined) return signal;
      const name = isRecord(cited) ? JSON.stringify(cited['name']) : 'an unnamed signal';
      const line = isRecord(cited) && typeof cited['line'] === 'number' ? ` on line ${cited['line']}` : '';
      violations.push(`${at}.signals[${j}]: the scanner reported no ${name} signal${line} for this file`);
      return cited;
    });
  }
  return { value, violations };
}

function violationsOf(error: unknown, at: string): string[] {
  if (!(error instanceof ValidationError)) throw error;
  const list = error.violations.length > 0 ? error.violations : [error.message];
  return list.map((violation) => violation.replace(/^proposals\[0\]/, at));
}

/** Checks one answer text for the file at `path`; never throws on a bad answer. */
export async function checkAnswer(
  text: string | undefined,
  path: string,
  artifact: ScanArtifact,
  stop: 'complete' | 'truncated' | 'refused' = 'complete',
): Promise<CheckedAnswer> {
  if (stop === 'refused')
    return { valid: [], rejected: [{ violations: ['answer: the model declined to answer'] }] };
  if (stop === 'truncated')
    return {
      valid: [],
      rejected: [{ violations: ['answer: cut off at the output limit; answer more briefly'] }],
    };
  if (text === undefined || text.trim() === '')
    return { valid: [], rejected: [{ violations: ['answer: empty; answer with {"proposals": [...]}'] }] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { valid: [], rejected: [{ violations: [`answer: not JSON (${(error as Error).message})`] }] };
  }
  const list = isRecord(parsed) ? parsed['proposals'] : undefined;
  if (!Array.isArray(list))
    return { valid: [], rejected: [{ violations: ['answer: must be an object {"proposals": [...]}'] }] };

  const signals = artifact.signals[path] ?? [];
  const candidates: { index: number; proposal: Proposal }[] = [];
  const rejected: CheckedAnswer['rejected'] = [];
  for (const [index, raw] of list.entries()) {
    const at = `proposals[${index}]`;
    const { value, violations } = normalize(raw, at, signals);
    if (isRecord(value) && value['path'] !== path)
      violations.push(`${at}.path: must be ${JSON.stringify(path)}, the file that was sent`);
    if (violations.length === 0) {
      try {
        const [proposal] = parseProposals([value]);
        await finalizeReport({
          artifact,
          proposals: [proposal!],
          generatedAt: '1970-01-01T00:00:00Z',
          clock: fixedClock('1970-01-01T00:00:00Z'),
        });
        candidates.push({ index, proposal: proposal! });
        continue;
      } catch (error) {
        violations.push(...violationsOf(error, at));
      }
    }
    rejected.push({ index, violations });
  }
  // Proposals the applier could not combine in one file: the later one is rejected.
  const conflicts = findProposalConflicts(candidates.map((candidate) => candidate.proposal));
  const conflicting = new Set<number>();
  for (const conflict of conflicts) {
    const match = /^proposals\[(\d+)\]: conflicts with proposals\[(\d+)\](.*)$/.exec(conflict);
    if (match === null) continue;
    const later = candidates[Number(match[1])]!;
    const earlier = candidates[Number(match[2])]!;
    conflicting.add(later.index);
    rejected.push({
      index: later.index,
      violations: [`proposals[${later.index}]: conflicts with proposals[${earlier.index}]${match[3]}`],
    });
  }
  rejected.sort((a, b) => (a.index ?? -1) - (b.index ?? -1));
  return {
    valid: candidates.filter((candidate) => !conflicting.has(candidate.index)).map((c) => c.proposal),
    rejected,
  };
}
