import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { formatJsonPath, schemaValidator } from '../../core/schema.js';
import {
  BLOAT_SUBTYPES,
  deriveSafetyTier,
  EDIT_KINDS,
  type EditKind,
  entryEvidence,
  GENERATIVE_FLAGS,
  KIND_TABLE,
  type OpType,
  REPORT_SCHEMA_VERSIONS,
  type ReportSchemaVersion,
  STALE_SUBTYPES,
} from '../types.js';

export const REPORT_SCHEMA_FILE = 'report.schema.json';
/** The JSON Schema file of each accepted schema version (1.0 is frozen; 1.1 only adds fields). */
export const REPORT_SCHEMA_FILES: Readonly<Record<ReportSchemaVersion, string>> = {
  '1.0': REPORT_SCHEMA_FILE,
  '1.1': 'report-1.1.schema.json',
};

export interface ValidateReportOptions {
  /**
   * Where entry paths live, to check anchors against the files' line counts. Files that
   * cannot be read are skipped (the report may describe a tree that has since changed).
   */
  projectRoot?: string;
  /** Overrides how a path's line count is found; undefined = unknown (skip). */
  lineCount?: (path: string) => number | undefined;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const show = (value: unknown) => JSON.stringify(value);

// Every kind-specific field of every kind: a field not listed for an entry's kind is extra.
const ALL_KIND_FIELDS = [...new Set(EDIT_KINDS.flatMap((kind) => KIND_TABLE[kind].fields))];

/** Lines in a text the way anchors count them: a final newline ends a line, it does not start one. */
export function countLines(text: string): number {
  if (text === '') return 0;
  const breaks = text.split('\n').length - 1;
  return text.endsWith('\n') ? breaks : breaks + 1;
}

function fileLineCounter(root: string): (path: string) => number | undefined {
  const cache = new Map<string, number | undefined>();
  return (path) => {
    if (!cache.has(path)) {
      let count: number | undefined;
      try {
        count = countLines(readFileSync(join(root, path), 'utf8'));
      } catch {
        count = undefined;
      }
      cache.set(path, count);
    }
    return cache.get(path);
  };
}

/**
 * Validates a report against its schema (1.0 or 1.1) and the cross-field rules of docs/report-schema.md. Returns
 * every violation as `"<json path>: <message>"`; empty means valid. Cross-field rules are
 * checked on whatever parts are well-typed, so one bad field does not hide the others.
 */
export function validateReport(value: unknown, options: ValidateReportOptions = {}): string[] {
  const version = isObject(value) ? value['schema_version'] : undefined;
  if (version !== undefined && !(REPORT_SCHEMA_VERSIONS as readonly unknown[]).includes(version)) {
    return [
      `schema_version: must be one of ${REPORT_SCHEMA_VERSIONS.map(show).join(', ')}`,
      // The rest is checked against the newest schema, which a future report most resembles.
      ...schemaValidator(REPORT_SCHEMA_FILES['1.1'])(value).filter((v) => !v.startsWith('schema_version')),
    ];
  }
  const file =
    REPORT_SCHEMA_FILES[(version as ReportSchemaVersion | undefined) ?? '1.0'] ?? REPORT_SCHEMA_FILE;
  const violations = [...schemaValidator(file)(value)];
  if (!isObject(value)) return violations;
  const lineCount =
    options.lineCount ??
    (options.projectRoot !== undefined ? fileLineCounter(options.projectRoot) : undefined);
  const shortlist = new Set(Array.isArray(value['shortlist']) ? value['shortlist'] : []);
  const entries = Array.isArray(value['entries']) ? value['entries'] : [];
  const firstIndexOfId = new Map<string, number>();
  let weightedSum = 0;
  entries.forEach((entry, index) => {
    if (!isObject(entry)) return;
    const check: EntryCheck = {
      entry,
      path: entry['path'],
      at: (...segments) => formatJsonPath(['entries', index, ...segments]),
      add: (path, message) => violations.push(`${path}: ${message}`),
      lineCount,
    };
    if (typeof entry['id'] === 'string') {
      const first = firstIndexOfId.get(entry['id']);
      if (first !== undefined)
        check.add(check.at('id'), `duplicate of entries[${first}].id ${show(entry['id'])}`);
      else firstIndexOfId.set(entry['id'], index);
    }
    checkEntryShape(check, shortlist);
    checkFlagsAndTier(check, checkEditKind(check));
    weightedSum += checkTokenEstimate(check);
  });

  const totals = value['totals'];
  if (isObject(totals) && typeof totals['tokens_saved_per_session'] === 'number') {
    const found = totals['tokens_saved_per_session'];
    if (Math.abs(found - Math.round(weightedSum)) > 1e-9)
      violations.push(
        `totals.tokens_saved_per_session: expected ${Math.round(weightedSum)} (Σ entries[].token_estimate.weighted_tokens), found ${found}`,
      );
  }
  violations.push(...contextViolations(value, shortlist));
  return violations;
}

/** One report entry under check: where its fields are, and where violations go. */
interface EntryCheck {
  entry: Json;
  path: unknown;
  at: (...segments: (string | number)[]) => string;
  add: (path: string, message: string) => void;
  lineCount: ((path: string) => number | undefined) | undefined;
}

/** A line range: start before end, and end within the file when its length is known. */
function checkLineRange(check: EntryCheck, range: unknown, segments: string[]): void {
  if (!isObject(range) || !Number.isInteger(range['start_line']) || !Number.isInteger(range['end_line']))
    return;
  const start = range['start_line'] as number;
  const end = range['end_line'] as number;
  if (start > end) check.add(check.at(...segments), `start_line ${start} is after end_line ${end}`);
  const { path, lineCount } = check;
  const lines =
    typeof path === 'string' && lineCount !== undefined && !isAbsolute(path) ? lineCount(path) : undefined;
  if (lines !== undefined && end > lines)
    check.add(check.at(...segments, 'end_line'), `${end} is past the end of ${show(path)} (${lines} lines)`);
}

/** Shortlist membership, the category's subtype, and what op_type requires or forbids. */
function checkEntryShape(
  { entry, path, at, add, lineCount }: EntryCheck,
  shortlist: ReadonlySet<unknown>,
): void {
  // A lifecycle deletion names a matched file or folder, not a scanned doc.
  const isLifecycleDelete = isObject(entry['exact_edit']) && entry['exact_edit']['kind'] === 'delete-path';
  if (typeof path === 'string' && !shortlist.has(path) && !isLifecycleDelete)
    add(at('path'), `${show(path)} is not in shortlist`);

  const category = entry['category'];
  if (isObject(category) && typeof category['subtype'] === 'string') {
    const allowed: readonly string[] =
      category['class'] === 'stale' ? STALE_SUBTYPES : category['class'] === 'bloat' ? BLOAT_SUBTYPES : [];
    if (typeof category['class'] === 'string' && allowed.length > 0 && !allowed.includes(category['subtype']))
      add(at('category', 'subtype'), `${show(category['subtype'])} is not a ${category['class']} subtype`);
  }

  const opType = entry['op_type'];
  const edit = entry['exact_edit'];
  if (opType === 'deterministic' && edit === undefined)
    add(at('exact_edit'), 'is required when op_type is "deterministic"');
  if (opType === 'generative' && edit !== undefined)
    add(at('exact_edit'), 'must be absent when op_type is "generative"');

  if (entry['file_sha256'] !== undefined && opType !== 'generative')
    add(
      at('file_sha256'),
      'only a generative entry carries a file hash (exact edits carry exact_edit.expected_sha256)',
    );
  const range = entry['reducible_range'];
  if (range !== undefined && opType !== 'generative')
    add(at('reducible_range'), 'only a generative entry has a reducible range');
  checkLineRange({ entry, path, at, add, lineCount }, range, ['reducible_range']);
}

type ExpectedFlags = { isDestructive: boolean; isReversible: boolean | 'runtime'; source: string };

/**
 * The exact edit's fields for its kind (KIND_TABLE) and its anchor; returns the flags the
 * entry must carry: the kind's (deterministic) or GENERATIVE_FLAGS.
 */
function checkEditKind(check: EntryCheck): ExpectedFlags | undefined {
  const { entry, at, add } = check;
  const opType = entry['op_type'];
  const edit = entry['exact_edit'];
  let expectedFlags: ExpectedFlags | undefined;
  if (opType === 'generative') expectedFlags = { ...GENERATIVE_FLAGS, source: 'generative op' };
  if (!isObject(edit) || !(EDIT_KINDS as readonly unknown[]).includes(edit['kind'])) return expectedFlags;
  const kind = edit['kind'] as EditKind;
  const info = KIND_TABLE[kind];
  if (opType === 'deterministic') expectedFlags = { ...info, source: `KIND_TABLE ${show(kind)}` };
  for (const field of ['anchor', 'expected_sha256']) {
    if (info.hasAnchor && edit[field] === undefined)
      add(at('exact_edit', field), `is required for kind ${show(kind)}`);
    if (!info.hasAnchor && edit[field] !== undefined)
      add(at('exact_edit', field), `is not allowed for kind ${show(kind)}`);
  }
  for (const field of ALL_KIND_FIELDS) {
    const required = info.fields.includes(field);
    if (required && edit[field] === undefined)
      add(at('exact_edit', field), `is required for kind ${show(kind)}`);
    if (!required && edit[field] !== undefined)
      add(at('exact_edit', field), `is not allowed for kind ${show(kind)}`);
  }
  checkLineRange(check, edit['anchor'], ['exact_edit', 'anchor']);
  return expectedFlags;
}

/** is_destructive / is_reversible against the kind (or the lifecycle facts), and the derived safety_tier. */
function checkFlagsAndTier({ entry, at, add }: EntryCheck, expectedFlags: ExpectedFlags | undefined): void {
  const opType = entry['op_type'];
  const edit = entry['exact_edit'];
  const destructive = entry['is_destructive'];
  const reversible = entry['is_reversible'];
  // A lifecycle deletion's reversibility is the scan's fact: history holds it only when
  // every file was tracked and clean (docs/lifecycle.md).
  if (isObject(edit) && edit['kind'] === 'delete-path') {
    const block = entry['lifecycle'];
    if (!isObject(block)) add(at('lifecycle'), 'is required for kind "delete-path"');
    else if (
      typeof reversible === 'boolean' &&
      typeof block['tracked'] === 'boolean' &&
      typeof block['dirty'] === 'boolean' &&
      reversible !== (block['tracked'] && !block['dirty'])
    )
      add(
        at('is_reversible'),
        `expected ${block['tracked'] && !block['dirty']} (lifecycle tracked and clean), found ${reversible}`,
      );
  }
  if (expectedFlags !== undefined) {
    if (typeof destructive === 'boolean' && destructive !== expectedFlags.isDestructive)
      add(
        at('is_destructive'),
        `expected ${expectedFlags.isDestructive} (${expectedFlags.source}), found ${destructive}`,
      );
    if (
      typeof reversible === 'boolean' &&
      expectedFlags.isReversible !== 'runtime' &&
      reversible !== expectedFlags.isReversible
    )
      add(
        at('is_reversible'),
        `expected ${expectedFlags.isReversible} (${expectedFlags.source}), found ${reversible}`,
      );
  }

  if (
    (opType === 'deterministic' || opType === 'generative') &&
    typeof destructive === 'boolean' &&
    typeof reversible === 'boolean' &&
    typeof entry['safety_tier'] === 'string'
  ) {
    const lifecycle = isObject(entry['lifecycle']) ? entry['lifecycle'] : undefined;
    const evidence = entryEvidence({
      lifecycle: lifecycle as never,
      exact_edit: (isObject(edit) ? edit : undefined) as never,
      signals: (Array.isArray(entry['signals']) ? entry['signals'] : []) as never,
      ...(isObject(entry['category']) ? { category: entry['category'] as never } : {}),
    });
    const derived = deriveSafetyTier(opType as OpType, destructive, reversible, evidence);
    if (entry['safety_tier'] !== derived)
      add(at('safety_tier'), `expected ${show(derived)} (derived), found ${show(entry['safety_tier'])}`);
  }
}

/** weighted_tokens = raw_tokens × injection_frequency; returns the weighted tokens (0 when absent). */
function checkTokenEstimate({ entry, at, add }: EntryCheck): number {
  const estimate = entry['token_estimate'];
  if (!isObject(estimate)) return 0;
  const raw = estimate['raw_tokens'];
  const frequency = estimate['injection_frequency'];
  const weighted = estimate['weighted_tokens'];
  if (typeof raw !== 'number' || typeof frequency !== 'number' || typeof weighted !== 'number') return 0;
  const expected = raw * frequency;
  if (Math.abs(weighted - expected) > 1e-9)
    add(
      at('token_estimate', 'weighted_tokens'),
      `expected ${expected} (raw_tokens × injection_frequency), found ${weighted}`,
    );
  return weighted;
}

/** 1.1: the per-agent totals add up, and unresolved signals are on shortlisted files. */
function contextViolations(value: Json, shortlist: ReadonlySet<unknown>): string[] {
  const out: string[] = [];
  const context = value['context'];
  const agents = isObject(context) && Array.isArray(context['agents']) ? context['agents'] : [];
  agents.forEach((agent, i) => {
    if (!isObject(agent) || !isObject(agent['startup'])) return;
    const files = Array.isArray(agent['startup']['files']) ? agent['startup']['files'] : [];
    for (const key of ['tokens', 'bytes'] as const) {
      const found = agent['startup'][key];
      const sum = files.reduce(
        (s: number, f) => s + (isObject(f) && typeof f[key] === 'number' ? f[key] : 0),
        0,
      );
      if (typeof found === 'number' && found !== sum)
        out.push(
          `${formatJsonPath(['context', 'agents', i, 'startup', key])}: expected ${sum} (Σ files[].${key}), found ${found}`,
        );
    }
    const saved = agent['tokens_saved_per_session'];
    const tokens = agent['startup']['tokens'];
    if (typeof saved === 'number' && typeof tokens === 'number' && saved > tokens)
      out.push(
        `${formatJsonPath(['context', 'agents', i, 'tokens_saved_per_session'])}: ${saved} is more than the ${tokens} start-up tokens`,
      );
  });
  const unresolved = value['unresolved_signals'];
  if (isObject(unresolved))
    for (const path of Object.keys(unresolved))
      if (!shortlist.has(path))
        out.push(`${formatJsonPath(['unresolved_signals', path])}: ${show(path)} is not in shortlist`);
  return out;
}
