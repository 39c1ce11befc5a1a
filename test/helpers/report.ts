import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Category,
  deriveSafetyTier,
  type EditKind,
  type Entry,
  type ExactEdit,
  entryEvidence,
  GENERATIVE_FLAGS,
  KIND_TABLE,
  type Report,
  type Signal,
} from '../../src/hygiene/types.js';

/** Report fixtures with real sha256s, so the applier's guard is exercised as it is in use. */

export const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

export interface EntrySpec {
  id: string;
  path: string;
  kind: EditKind | 'generative';
  anchor?: [number, number];
  match?: string;
  replacement?: string;
  canonical_ref?: string;
  dest_path?: string;
  key?: string;
  value?: string;
  /** Text the sha256 is computed from; default: the file's bytes under `root`. */
  text?: string | Buffer;
  category?: Category;
  /** Default: the signal that makes the kind's evidence deterministic (see `entryEvidence`). */
  signals?: Signal[];
}

/** A link fix rests on a broken reference history explains; a move and a freeze on a frontmatter marker. */
function defaultSignals(kind: EditKind | 'generative', replacement = 'new'): Signal[] {
  if (kind === 'replace-text')
    return [
      {
        name: 'broken_reference',
        line: 1,
        detail: 'link target does not resolve; moved?',
        data: { suggested_target: replacement, suggested_by: 'rename-history', written_before_move: true },
      },
    ];
  if (kind === 'move-to-archive')
    return [
      {
        name: 'frontmatter_marker',
        detail: 'superseded_by: next.md',
        data: { marker: 'superseded_by', value: 'next.md' },
      },
    ];
  if (kind === 'insert-frontmatter')
    return [{ name: 'frontmatter_marker', detail: 'frontmatter status: done', data: { marker: 'status' } }];
  return [];
}

const CATEGORY: Record<EditKind | 'generative', Category> = {
  'delete-range': { class: 'stale', subtype: 'orphaned' },
  'replace-text': { class: 'stale', subtype: 'dangling-reference' },
  dedupe: { class: 'stale', subtype: 'duplicated' },
  'move-to-archive': { class: 'stale', subtype: 'superseded' },
  'insert-frontmatter': { class: 'stale', subtype: 'completed-in-place' },
  'delete-path': { class: 'stale', subtype: 'expired' },
  generative: { class: 'bloat', subtype: 'distill' },
};

/** One report entry whose guarded fields are derived exactly as the report builder derives them. */
export function makeEntry(root: string | undefined, spec: EntrySpec): Entry {
  const base = {
    id: spec.id,
    path: spec.path,
    category: spec.category ?? CATEGORY[spec.kind],
    signals: spec.signals ?? defaultSignals(spec.kind, spec.replacement),
    op: `${spec.kind} ${spec.path}`,
    token_estimate: { raw_tokens: 10, injection_frequency: 0, weighted_tokens: 0 },
    confidence: 0.9,
    generated_at: '2026-01-01T00:00:00Z',
  };
  if (spec.kind === 'generative') {
    return {
      ...base,
      op_type: 'generative',
      is_destructive: GENERATIVE_FLAGS.isDestructive,
      is_reversible: GENERATIVE_FLAGS.isReversible,
      safety_tier: deriveSafetyTier('generative', false, true, 'deterministic'),
    };
  }
  const info = KIND_TABLE[spec.kind];
  const edit: ExactEdit = { kind: spec.kind };
  if (info.hasAnchor) {
    const [start, end] = spec.anchor ?? [1, 1];
    edit.anchor = { start_line: start, end_line: end };
    const bytes = spec.text ?? readFileSync(join(root ?? '.', spec.path));
    edit.expected_sha256 = sha256(bytes);
  }
  for (const field of ['match', 'replacement', 'canonical_ref', 'dest_path', 'key', 'value'] as const) {
    if (spec[field] !== undefined) edit[field] = spec[field];
  }
  const isReversible = info.isReversible === true;
  const entry: Entry = {
    ...base,
    op_type: 'deterministic',
    exact_edit: edit,
    is_destructive: info.isDestructive,
    is_reversible: isReversible,
    safety_tier: 'auto',
  };
  entry.safety_tier = deriveSafetyTier(
    'deterministic',
    info.isDestructive,
    isReversible,
    entryEvidence(entry),
  );
  return entry;
}

/** A schema 1.0 report around `entries`; `shortlist` holds every entry path. */
export function makeReport(root: string, entries: Entry[], extra: Partial<Report['scan']> = {}): Report {
  return {
    schema_version: '1.0',
    tool_version: '0.1.0',
    generated_at: '2026-01-01T00:00:00Z',
    scan: {
      project_root: root,
      scope_globs: [],
      excluded_dirs: [],
      files_scanned: new Set(entries.map((entry) => entry.path)).size,
      category_filter: null,
      ...extra,
    },
    shortlist: [...new Set(entries.map((entry) => entry.path))].sort(),
    entries,
  };
}

/** Writes `report` as the project's `.dochygiene/report.json` (what `check` leaves behind). */
export function writeProjectReport(root: string, report: Report): void {
  mkdirSync(join(root, '.dochygiene'), { recursive: true });
  writeFileSync(join(root, '.dochygiene', 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
}

/** A plan with an obsolete last line and a guide with a stale mention: the usual two-entry project. */
export const PLAN_AND_GUIDE: Record<string, string> = {
  'docs/plan.md': 'Plan\nkeep\nobsolete\n',
  'docs/guide.md': 'Guide\nsee old.md\n',
};

/**
 * The entries for `PLAN_AND_GUIDE` as committed under `root`: `del`, a confirm-tier
 * delete-range of plan.md's last line, and `fix`, an auto replace-text in guide.md.
 */
export function planAndGuideEntries(root: string): Entry[] {
  return [
    makeEntry(root, { id: 'del', path: 'docs/plan.md', kind: 'delete-range', anchor: [3, 3] }),
    makeEntry(root, {
      id: 'fix',
      path: 'docs/guide.md',
      kind: 'replace-text',
      anchor: [2, 2],
      match: 'old',
      replacement: 'new',
    }),
  ];
}

/** Every file under `dir` except `.git/`, as path → bytes (symlinks as their target), for byte-exact comparisons. */
export function snapshotTree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (path === '.git') continue;
      if (entry.isSymbolicLink()) files.set(path, `symlink:${readlinkSync(join(dir, path))}`);
      else if (entry.isDirectory()) {
        files.set(`${path}/`, 'dir');
        walk(path);
      } else files.set(path, readFileSync(join(dir, path)).toString('base64'));
    }
  };
  walk('');
  return files;
}
