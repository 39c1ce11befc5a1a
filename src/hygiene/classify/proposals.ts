/**
 * Classifier proposals (docs/scanner-and-classifiers.md): parsing, validation and the compatibility rules the
 * patch applier enforces per file. A proposal is judgment only; the guarded fields are
 * computed by the report builder and are rejected here with the proposal's index.
 */
import picomatch from 'picomatch';
import { ValidationError } from '../../core/errors.js';
import { schemaValidator } from '../../core/schema.js';
import { ARCHIVE_SEGMENTS, baseOf, dirOf } from '../scan/paths.js';
import {
  AGENT_CONTEXT_GLOBS,
  type Anchor,
  BLOAT_SUBTYPES,
  type Category,
  KIND_TABLE,
  type Proposal,
  STALE_SUBTYPES,
} from '../types.js';

/** Fields only the report builder may author (docs/report-schema.md, "Guarded fields"). */
/** A heading's slug as a canonical_ref fragment: letters, digits, - and _ in any script. */
export const HEADING_FRAGMENT = /^[\p{L}\p{N}_-]+$/u;
const GUARDED_TOP = [
  'expected_sha256',
  'safety_tier',
  'is_destructive',
  'is_reversible',
  'raw_tokens',
  'token_estimate',
  'id',
  'generated_at',
] as const;
const GUARDED_EDIT = ['expected_sha256', 'is_destructive', 'is_reversible', 'safety_tier'] as const;

const ALL_SUBTYPES: readonly string[] = [...STALE_SUBTYPES, ...BLOAT_SUBTYPES];

/** A category filter: a whole class or one subtype. */
export type CategoryFilter = { class: 'stale' | 'bloat' } | { subtype: string };

/** Parses `--category`: `stale`, `bloat` or a subtype of either; anything else is undefined. */
export function parseCategoryFilter(text: string): CategoryFilter | undefined {
  if (text === 'stale' || text === 'bloat') return { class: text };
  if (ALL_SUBTYPES.includes(text)) return { subtype: text };
  return undefined;
}

export function matchesCategoryFilter(category: Category, filter: CategoryFilter | undefined): boolean {
  if (filter === undefined) return true;
  return 'class' in filter ? category.class === filter.class : category.subtype === filter.subtype;
}

/** All valid `--category` values, for usage messages. */
export const CATEGORY_FILTER_VALUES: readonly string[] = ['stale', 'bloat', ...ALL_SUBTYPES];

/**
 * A root-relative, `/`-separated path that stays inside the project: not absolute, no
 * `..` or `.` segments, no backslashes, no empty segments, no control characters, and no
 * `.git` segment in any case (the repository's own store, which git never tracks a path in:
 * an `archive.dir: .git` would otherwise aim a move at it).
 */
export function isSafeRelativePath(path: string): boolean {
  if (path === '' || path.startsWith('/') || path.includes('\\') || /[\u0000-\u001f]/.test(path))
    return false;
  return path
    .split('/')
    .every(
      (segment) => segment !== '' && segment !== '.' && segment !== '..' && segment.toLowerCase() !== '.git',
    );
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function crossFieldViolations(p: Proposal, at: string): string[] {
  const out: string[] = [];
  const stale: readonly string[] = STALE_SUBTYPES;
  const bloat: readonly string[] = BLOAT_SUBTYPES;
  const allowed = p.category.class === 'stale' ? stale : bloat;
  if (!allowed.includes(p.category.subtype)) {
    out.push(`${at}.category.subtype: '${p.category.subtype}' is not a ${p.category.class} subtype`);
  }
  if (!isSafeRelativePath(p.path)) out.push(`${at}.path: must be a project-relative path inside the project`);
  if (p.op_type === 'deterministic' && p.exact_edit === undefined) {
    out.push(`${at}.exact_edit: is required when op_type is deterministic`);
  }
  if (p.op_type === 'generative' && p.exact_edit !== undefined) {
    out.push(`${at}.exact_edit: must be absent when op_type is generative`);
  }
  if (p.op_type === 'deterministic' && p.reducible_range !== undefined) {
    out.push(`${at}.reducible_range: only generative proposals carry a reducible range`);
  }
  checkRange(p.reducible_range, `${at}.reducible_range`, out);
  const edit = p.exact_edit;
  if (edit === undefined) return out;
  const info = KIND_TABLE[edit.kind];
  if (info.hasAnchor && edit.anchor === undefined)
    out.push(`${at}.exact_edit.anchor: is required for ${edit.kind}`);
  if (!info.hasAnchor && edit.anchor !== undefined) {
    out.push(`${at}.exact_edit.anchor: ${edit.kind} takes no anchor`);
  }
  checkRange(edit.anchor, `${at}.exact_edit.anchor`, out);
  for (const field of info.fields) {
    if ((edit as Record<string, unknown>)[field] === undefined) {
      out.push(`${at}.exact_edit.${field}: is required for ${edit.kind}`);
    }
  }
  for (const field of [
    'match',
    'replacement',
    'canonical_ref',
    'dest_path',
    'key',
    'value',
    'recursive',
  ] as const) {
    if (edit[field] !== undefined && !info.fields.includes(field)) {
      out.push(`${at}.exact_edit.${field}: is not a field of ${edit.kind}`);
    }
  }
  if (edit.kind === 'replace-text' && edit.match !== undefined && edit.match === edit.replacement) {
    out.push(`${at}.exact_edit.replacement: equals match (the edit would change nothing)`);
  }
  if (edit.kind === 'replace-text' && (edit.match?.includes('\n') || edit.replacement?.includes('\n'))) {
    out.push(`${at}.exact_edit.match: match and replacement must be single-line`);
  }
  if (edit.dest_path !== undefined) {
    if (!isSafeRelativePath(edit.dest_path)) {
      out.push(`${at}.exact_edit.dest_path: must be a project-relative path inside the project`);
    } else if (edit.dest_path === p.path) out.push(`${at}.exact_edit.dest_path: equals path`);
  }
  if (edit.canonical_ref !== undefined) {
    const [target = '', fragment] = edit.canonical_ref.split('#', 2);
    if (
      !isSafeRelativePath(target) ||
      (fragment !== undefined && !/^L\d+(-L\d+)?$/.test(fragment) && !HEADING_FRAGMENT.test(fragment))
    ) {
      out.push(
        `${at}.exact_edit.canonical_ref: must be a project-relative path, optionally with #Lstart-Lend or #heading-slug`,
      );
    }
  }
  if (edit.key !== undefined && !/^[A-Za-z_][\w-]*$/.test(edit.key)) {
    out.push(`${at}.exact_edit.key: must be a plain YAML key`);
  }
  if (edit.value !== undefined && /[\r\n]/.test(edit.value)) {
    out.push(`${at}.exact_edit.value: must be a single line`);
  }
  return out;
}

/** Folders whose files configure a tool, a CI or an agent: nothing in them is moved, or moved in. */
const TOOL_FOLDERS: ReadonlySet<string> = new Set([
  '.github',
  '.gitlab',
  '.circleci',
  '.husky',
  '.devcontainer',
  '.vscode',
  '.claude',
  '.cursor',
  '.clinerules',
  '.windsurf',
  '.dochygiene',
]);
const TOOL_FILES: ReadonlySet<string> = new Set([
  '.dochygiene.yml',
  '.gitlab-ci.yml',
  '.gitattributes',
  '.gitignore',
]);
const isAgentContextPath = picomatch([...AGENT_CONTEXT_GLOBS], { dot: true });

/** An agent-context file, this tool's config, or a file under a tool's or CI's folder. */
export function configuresToolOrAgent(path: string): boolean {
  return (
    isAgentContextPath(path) ||
    TOOL_FILES.has(baseOf(path)) ||
    dirOf(path)
      .split('/')
      .some((segment) => TOOL_FOLDERS.has(segment))
  );
}

/** Is `dest` inside an archive folder: a folder segment in ARCHIVE_SEGMENTS, or under `archiveDir`? */
function isArchiveDestination(dest: string, archiveDir: string | null): boolean {
  if (
    dirOf(dest)
      .split('/')
      .some((segment) => ARCHIVE_SEGMENTS.has(segment.toLowerCase()))
  )
    return true;
  const dir = archiveDir?.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
  return dir !== undefined && dir !== '' && dest.startsWith(`${dir}/`);
}

/**
 * Where a `move-to-archive` may go, whoever proposed it (rules, a model, a `--proposals`
 * file; docs/trust.md, "Moves"): into an archive folder (`archiveDir` is `archive.dir`),
 * under the same file name, and never a file that configures a tool or an agent, from or to.
 */
export function moveViolations(p: Proposal, at: string, archiveDir: string | null): string[] {
  const edit = p.exact_edit;
  if (edit?.kind !== 'move-to-archive' || edit.dest_path === undefined) return [];
  const out: string[] = [];
  const dest = edit.dest_path;
  if (configuresToolOrAgent(p.path))
    out.push(`${at}.path: ${JSON.stringify(p.path)} configures a tool or an agent; it is never moved`);
  if (configuresToolOrAgent(dest))
    out.push(`${at}.exact_edit.dest_path: ${JSON.stringify(dest)} would configure a tool or an agent`);
  if (baseOf(dest) !== baseOf(p.path))
    out.push(
      `${at}.exact_edit.dest_path: a move to the archive keeps the file name ${JSON.stringify(baseOf(p.path))}`,
    );
  if (!isArchiveDestination(dest, archiveDir))
    out.push(
      `${at}.exact_edit.dest_path: must be inside an archive folder (${[...ARCHIVE_SEGMENTS].join(', ')}${archiveDir ? ` or ${archiveDir}` : ''})`,
    );
  return out;
}

function checkRange(range: Anchor | undefined, at: string, out: string[]): void {
  if (range !== undefined && range.start_line > range.end_line)
    out.push(`${at}: start_line is after end_line`);
}

/** Half-open-free overlap test for 1-based inclusive ranges. */
function overlaps(a: Anchor, b: Anchor): boolean {
  return a.start_line <= b.end_line && b.start_line <= a.end_line;
}

/**
 * Pairs of proposals the patch applier could not apply together in one file (docs/hygiene-clean.md):
 * `move-to-archive` with anything else, generative with anything else, overlapping
 * anchors, or the same frontmatter key twice. Each violation names the later index.
 */
export function findProposalConflicts(proposals: readonly Proposal[]): string[] {
  const out: string[] = [];
  const byPath = new Map<string, number[]>();
  proposals.forEach((p, i) => {
    const list = byPath.get(p.path) ?? [];
    list.push(i);
    byPath.set(p.path, list);
  });
  for (const indexes of byPath.values()) {
    for (let j = 1; j < indexes.length; j++) {
      const later = proposals[indexes[j]!]!;
      for (let k = 0; k < j; k++) {
        const earlier = proposals[indexes[k]!]!;
        const reason = conflictReason(earlier, later);
        if (reason !== undefined) {
          out.push(
            `proposals[${indexes[j]}]: conflicts with proposals[${indexes[k]}] in the same file (${reason})`,
          );
          break;
        }
      }
    }
  }
  return out;
}

function conflictReason(a: Proposal, b: Proposal): string | undefined {
  if (a.exact_edit?.kind === 'move-to-archive' || b.exact_edit?.kind === 'move-to-archive') {
    return 'move-to-archive cannot share a file with another edit';
  }
  if (a.op_type === 'generative' || b.op_type === 'generative') {
    return 'a generative rewrite cannot share a file with another edit';
  }
  const anchorA = a.exact_edit?.anchor;
  const anchorB = b.exact_edit?.anchor;
  if (anchorA !== undefined && anchorB !== undefined && overlaps(anchorA, anchorB))
    return 'overlapping anchors';
  if (
    a.exact_edit?.kind === 'insert-frontmatter' &&
    b.exact_edit?.kind === 'insert-frontmatter' &&
    a.exact_edit.key === b.exact_edit.key
  ) {
    return `frontmatter key '${a.exact_edit.key}' set twice`;
  }
  return undefined;
}

const validateShape = schemaValidator('proposals.schema.json');

/**
 * Parses a proposals document (a JSON array). Throws `ValidationError` naming
 * `proposals[i]` and the reason for every malformed proposal — guarded fields, schema
 * violations, class/subtype and op_type/exact_edit mismatches, fields the kind does not
 * take, and proposals the applier could not combine in one file.
 */
export function parseProposals(value: unknown): Proposal[] {
  if (!Array.isArray(value)) {
    throw new ValidationError(
      'invalid-proposals',
      'invalid proposals: proposals: the document must be a JSON array',
      ['proposals: the document must be a JSON array'],
    );
  }
  const violations: string[] = [];
  value.forEach((item, i) => {
    const at = `proposals[${i}]`;
    if (!isObject(item)) {
      violations.push(`${at}: must be an object`);
      return;
    }
    const guarded: string[] = [];
    for (const field of GUARDED_TOP) if (field in item) guarded.push(`${at}.${field}`);
    const edit = item['exact_edit'];
    if (isObject(edit))
      for (const field of GUARDED_EDIT) if (field in edit) guarded.push(`${at}.exact_edit.${field}`);
    for (const path of guarded) {
      violations.push(
        `${path}: guarded field; the report builder computes it and a classifier must not author it`,
      );
    }
    if (guarded.length > 0) return;
    const shape = validateShape([item]).map((v) => `proposals${v.replace(/^\[0\]/, `[${i}]`)}`);
    if (shape.length > 0) {
      violations.push(...shape);
      return;
    }
    violations.push(...crossFieldViolations(item as unknown as Proposal, at));
  });
  if (violations.length === 0) violations.push(...findProposalConflicts(value as Proposal[]));
  if (violations.length > 0) {
    const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : '';
    throw new ValidationError('invalid-proposals', `invalid proposals: ${violations[0]}${more}`, violations);
  }
  return value as Proposal[];
}
