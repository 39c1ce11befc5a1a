/**
 * Generative entries at clean time (docs/hygiene-clean.md): for each
 * approved entry, read the file live, take the replacement of its `reducible_range` from
 * `--generated FILE` (written by the Claude Code skill) or from the model, check it
 * mechanically, and hand the applier one whole-span replacement guarded by the hash of the
 * span it replaces. Both sources go through the same checks and the same guard:
 *
 * - the text is non-empty and shorter (in tokens) than the span, and within the target
 *   size (`targetTokens`);
 * - it has no link, path or `@import` the span did not have (a rewrite may not invent or
 *   break a reference), and none, copied or not, that leads out of the project (`~`,
 *   absolute, above the root, or through a symlink out: an agent file would load it);
 * - at write time the span still hashes to what the distiller read, else the entry is
 *   skipped `content-changed-since-distill`.
 *
 * A failing answer is skipped `distill-rejected` with the reason. Nothing here commits.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { jsonSyntaxDetail, UsageError, ValidationError } from '../../core/errors.js';
import { schemaValidator } from '../../core/schema.js';
import { modelDistiller } from '../classify/model/distill.js';
import { type ModelRunner, type RetryPolicy, type RunUsage, runnerFor } from '../classify/model/runner.js';
import { effectiveClassifier, type ModelSettings, resolveModelSettings } from '../classify/model/settings.js';
import { isSafeRelativePath } from '../classify/proposals.js';
import { loadConfig } from '../config.js';
import { leavesProject, referencesIn } from '../leaves-project.js';
import { spanText, splitLines } from '../line-span.js';
import { resolveProjectRoot } from '../project.js';
import { type DocRef, importTokens, parseMarkdown } from '../scan/markdown.js';
import { checkReference, type PathLookup } from '../scan/resolve.js';
import { countTokens } from '../tokens.js';
import type { Anchor, Entry } from '../types.js';

/** One entry of a `--generated` file (`schemas/generated.schema.json`). */
export interface GeneratedText {
  /** The replacement of the entry's whole `reducible_range`. */
  text: string;
  /** sha256 (hex) of the span text the distiller read (see `spanSha256`). */
  source_sha256: string;
}

export type RewriteSkipReason =
  | 'content-changed-since-check'
  | 'content-changed-since-distill'
  | 'distill-rejected'
  | 'no-model'
  | 'not-distilled'
  /** The new text would break a reference that resolves now (`detail` names it). */
  | 'would-break-reference';

export type PreparedRewrite =
  | {
      ok: true;
      id: string;
      range: Anchor;
      /** The span's hash when the distiller read it: checked again just before writing. */
      source_sha256: string;
      text: string;
      source: 'generated' | 'model';
    }
  | { ok: false; id: string; reason: RewriteSkipReason; detail: string };

/** What a model distiller gives for one span: the text, or why there is none. */
export type DistillAnswer = { text: string } | { rejected: string };

export interface Distiller {
  distill(input: { path: string; span: string; range: Anchor; targetTokens: number }): Promise<DistillAnswer>;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The span of a generative entry: lines `start_line..end_line` of the file (the whole file
 * when the report has no range), joined with `\n`, without the last line's line break —
 * exactly what `sed -n 'S,Ep' FILE` prints minus its final newline.
 */
export function entrySpan(
  entry: Pick<Entry, 'reducible_range'>,
  fileText: string,
): { range: Anchor; text: string } | undefined {
  const lines = splitLines(fileText);
  const range = entry.reducible_range ?? { start_line: 1, end_line: lines.length };
  if (range.start_line < 1 || range.end_line > lines.length || range.start_line > range.end_line)
    return undefined;
  return { range, text: spanText(lines, range.start_line, range.end_line) };
}

/** The hash a `--generated` file carries for a span: sha256 of its UTF-8 bytes, hex. */
export function spanSha256(span: string): string {
  return sha256(span);
}

/**
 * The size a rewrite must reach, in tokens: for a file agents load every session, the
 * budget (`context.budget_tokens`) minus what the rest of the file costs — but never less
 * than half the span, since the rest may be over budget on its own; for any other doc,
 * half the span. Always less than the span.
 */
export function targetTokens(entry: Entry, fileText: string, range: Anchor, budget: number): number {
  const lines = splitLines(fileText);
  const span = countTokens(spanText(lines, range.start_line, range.end_line));
  const half = Math.max(1, Math.ceil(span / 2));
  if (entry.token_estimate.injection_frequency <= 0) return Math.min(half, Math.max(1, span - 1));
  const rest = [...lines.slice(0, range.start_line - 1), ...lines.slice(range.end_line)].join('\n');
  const room = budget - countTokens(rest);
  return Math.max(1, Math.min(span - 1, Math.max(room, half)));
}

/** The project on disk, as the scanner's resolver reads a tree (paths that escape it do not exist). */
function diskTree(root: string): PathLookup {
  const stat = (path: string) => {
    if (path !== '' && !isSafeRelativePath(path)) return undefined;
    try {
      return statSync(join(root, path));
    } catch {
      return undefined;
    }
  };
  return { exists: (path) => stat(path) !== undefined, isDir: (path) => stat(path)?.isDirectory() === true };
}

/**
 * Why a reference written in `docPath` does not resolve, or undefined when it does (or is not
 * one the scanner checks: external, or a code path outside this repository's folders). The
 * scanner's own resolver decides; `#fragment`s of `docPath` are read from `selfText`.
 */
export function unresolvedReason(
  root: string,
  docPath: string,
  ref: DocRef,
  selfText: string,
): string | undefined {
  const anchors = new Map<string, ReadonlySet<string> | undefined>();
  const anchorsOf = (path: string) => {
    if (!anchors.has(path)) {
      let text: string | undefined = path === docPath ? selfText : undefined;
      if (text === undefined && isSafeRelativePath(path)) {
        try {
          text = readFileSync(join(root, path), 'utf8');
        } catch {
          text = undefined;
        }
      }
      anchors.set(path, text === undefined ? undefined : parseMarkdown(text).anchors);
    }
    return anchors.get(path);
  };
  const check = checkReference(diskTree(root), anchorsOf, docPath, ref);
  if (check.status === 'missing-path')
    return `${ref.kind} target ${JSON.stringify(ref.target)} does not exist`;
  if (check.status === 'missing-fragment')
    return `${ref.kind} target ${JSON.stringify(ref.target)}: no heading #${check.resolved.fragment ?? ''}`;
  return undefined;
}

/**
 * The mechanical check of a rewrite before anything is written: undefined when it may be
 * written, else the reason it is rejected (`distill-rejected`).
 */
export function rewriteProblem(input: {
  root: string;
  path: string;
  fileText: string;
  range: Anchor;
  span: string;
  text: string;
  target: number;
}): string | undefined {
  const text = input.text.replace(/\r?\n$/, '');
  if (text.trim() === '')
    return 'the text is empty: replacing the span with nothing is a deletion, not a distill';
  const before = countTokens(input.span);
  const after = countTokens(text);
  if (after >= before)
    return `the text (≈${after} tokens) is not shorter than the span it replaces (≈${before} tokens)`;
  if (after > input.target)
    return `the text (≈${after} tokens) is over the target size (≈${input.target} tokens)`;
  const lines = splitLines(input.fileText);
  const rewritten = [
    ...lines.slice(0, input.range.start_line - 1),
    text,
    ...lines.slice(input.range.end_line),
  ].join('\n');
  // Nothing out of the project, ever, copied from the span or not: an agent file would load it.
  for (const token of importTokens(text)) {
    const out = leavesProject(input.root, input.path, token, 'import');
    if (out !== undefined)
      return `@${token} leads out of the project (${out}); a rewrite may never reference it`;
  }
  const carried = new Set(referencesIn(input.span).map((ref) => `${ref.kind}\0${ref.target}`));
  for (const ref of referencesIn(text)) {
    const out = leavesProject(input.root, input.path, ref.target, ref.kind);
    if (out !== undefined)
      return `${ref.kind} target ${JSON.stringify(ref.target)} leads out of the project (${out}); a rewrite may never reference it`;
    if (carried.has(`${ref.kind}\0${ref.target}`)) continue;
    const reason =
      unresolvedReason(input.root, input.path, ref, rewritten) ??
      `${ref.kind} target ${JSON.stringify(ref.target)} is not in the text it replaces`;
    return `${reason} (a rewrite may not invent or break a reference)`;
  }
  return undefined;
}

/**
 * The file with the rewrite in place of its span, or why not: the span must still hash to
 * `source_sha256`. Line breaks follow the span's (CRLF stays CRLF); a final newline (or its
 * absence) is kept.
 */
export function applyRewriteToText(
  fileText: string,
  rewrite: Extract<PreparedRewrite, { ok: true }>,
): { text: string } | { skip: 'content-changed-since-distill'; detail: string } {
  const span = entrySpan({ reducible_range: rewrite.range }, fileText);
  if (span === undefined || spanSha256(span.text) !== rewrite.source_sha256)
    return { skip: 'content-changed-since-distill', detail: 'the span changed after it was distilled' };
  const lines = splitLines(fileText);
  const crlf = (lines[rewrite.range.start_line - 1] ?? '').endsWith('\r');
  const replacement = rewrite.text
    .replace(/\r?\n$/, '')
    .split(/\r?\n/)
    .map((line) => (crlf ? `${line}\r` : line));
  const out = [
    ...lines.slice(0, rewrite.range.start_line - 1),
    ...replacement,
    ...lines.slice(rewrite.range.end_line),
  ];
  return { text: out.join('\n') + (fileText.endsWith('\n') ? '\n' : '') };
}

const validateGenerated = schemaValidator('generated.schema.json');

/** Reads and validates a `--generated` file: `{"<entry id>": {"text", "source_sha256"}}`. */
export async function readGeneratedFile(path: string): Promise<Map<string, GeneratedText>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(`cannot read --generated file ${JSON.stringify(path)} (${code})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ValidationError(
      'invalid-generated',
      `--generated file is not JSON: ${jsonSyntaxDetail(error)}`,
    );
  }
  const violations = validateGenerated(value);
  if (violations.length > 0)
    throw new ValidationError('invalid-generated', `invalid --generated file: ${violations[0]}`, violations);
  return new Map(Object.entries(value as Record<string, GeneratedText>));
}

export interface PrepareRewritesOptions {
  root: string;
  /** The approved generative entries. */
  entries: readonly Entry[];
  generated?: ReadonlyMap<string, GeneratedText>;
  /** Asked for the entries `generated` does not name; none: they are skipped `no-model`. */
  distiller?: Distiller;
  budgetTokens: number;
  /** A dry run checks `generated` texts but never calls the distiller (`not-distilled`). */
  dryRun?: boolean;
}

async function prepareOne(options: PrepareRewritesOptions, entry: Entry): Promise<PreparedRewrite> {
  const { id } = entry;
  const reject = (reason: RewriteSkipReason, detail: string): PreparedRewrite => ({
    ok: false,
    id,
    reason,
    detail,
  });
  let bytes: Buffer;
  try {
    // Live: the report holds no copy of the text, and the file may have changed since.
    bytes = await readFile(join(options.root, entry.path));
  } catch (error) {
    return reject(
      'distill-rejected',
      `cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  if (
    entry.file_sha256 !== undefined &&
    createHash('sha256').update(bytes).digest('hex') !== entry.file_sha256
  )
    return reject('content-changed-since-check', 'the file changed after the report was made');
  const fileText = bytes.toString('utf8');
  const span = entrySpan(entry, fileText);
  if (span === undefined)
    return reject('content-changed-since-check', 'the reducible range is no longer inside the file');
  const target = targetTokens(entry, fileText, span.range, options.budgetTokens);
  const given = options.generated?.get(id);
  let text: string;
  let source: 'generated' | 'model';
  const sourceSha256 = spanSha256(span.text);
  if (given !== undefined) {
    if (given.source_sha256 !== sourceSha256)
      return reject(
        'content-changed-since-distill',
        'the span is not the text the --generated file was distilled from',
      );
    text = given.text;
    source = 'generated';
  } else if (options.distiller !== undefined && options.dryRun === true) {
    return reject('not-distilled', 'a dry run does not call the model');
  } else if (options.distiller !== undefined) {
    const answer = await options.distiller.distill({
      path: entry.path,
      span: span.text,
      range: span.range,
      targetTokens: target,
    });
    if ('rejected' in answer) return reject('distill-rejected', answer.rejected);
    text = answer.text;
    source = 'model';
  } else return reject('no-model', 'no model is configured and the --generated file has no text for it');
  const problem = rewriteProblem({
    root: options.root,
    path: entry.path,
    fileText,
    range: span.range,
    span: span.text,
    text,
    target,
  });
  if (problem !== undefined) return reject('distill-rejected', problem);
  return { ok: true, id, range: span.range, source_sha256: sourceSha256, text, source };
}

/** Prepares (and checks) the rewrite of every approved generative entry; requests run concurrently. */
export async function prepareRewrites(
  options: PrepareRewritesOptions,
): Promise<Map<string, PreparedRewrite>> {
  const prepared = await Promise.all(options.entries.map((entry) => prepareOne(options, entry)));
  return new Map(prepared.map((rewrite) => [rewrite.id, rewrite]));
}

export interface GenerativeSourcesOptions {
  cwd: string;
  /** `--config FILE`: the repository config read instead of `.dochygiene.yml` (docs/trust.md: trusted as the repository's). */
  configFile?: string;

  /** `--generated FILE`. */
  generatedFile?: string;
  /** `--classifier` / `--model`, over `.dochygiene.yml`. */
  classifier?: string;
  model?: string;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  retry?: RetryPolicy;
  /** Told, before any request, what will be sent where. */
  onNotice?: (message: string) => void;
}

export interface GenerativeSources {
  /** For `planClean`: which generative entries can get text. */
  plan: { texts: ReadonlySet<string>; model: boolean };
  /**
   * Refuses (a missing key, before any change or request) when the plan has a generative
   * entry that only the model can write and the model cannot be reached.
   */
  checkPlan(plan: { entries: readonly { id: string; kind: string; decision: string }[] }): void;
  /** For `clean`: prepares and checks the rewrites (`--generated` first, then the model). */
  prepare(entries: Entry[], dryRun: boolean): Promise<Map<string, PreparedRewrite>>;
  /** The model's requests, tokens and retries, once it was asked; else undefined. */
  usage(): (RunUsage & { provider: string; model: string; endpoint: string }) | undefined;
}

/**
 * Where generative entries' text comes from in one `clean`/`sweep`: the `--generated` file
 * (read and validated now, before any work) takes precedence for the entries it names; the
 * configured model distils the rest.
 */
export async function openGenerativeSources(options: GenerativeSourcesOptions): Promise<GenerativeSources> {
  const generated =
    options.generatedFile !== undefined ? await readGeneratedFile(options.generatedFile) : undefined;
  const root = await resolveProjectRoot(options.cwd);
  const config = await loadConfig(root, options.env, options.configFile);
  const overrides = {
    ...(options.classifier !== undefined ? { classifier: options.classifier } : {}),
    ...(options.model !== undefined ? { model: options.model } : {}),
  };
  const wantsModel = effectiveClassifier(config.classifier, overrides) !== 'rules';
  let settings: ModelSettings | undefined;
  let runner: ModelRunner | undefined;
  const texts = new Set(generated?.keys() ?? []);
  const needsModel = (entries: readonly { id: string }[]) =>
    wantsModel && entries.some((e) => !texts.has(e.id));
  const ensureSettings = () => {
    settings ??= resolveModelSettings(config.classifier, overrides, options.env);
    return settings;
  };
  return {
    plan: { texts, model: wantsModel },
    checkPlan(plan) {
      const offered = plan.entries.filter(
        (e) => e.kind === 'generative' && (e.decision === 'approved' || e.decision === 'needs-approval'),
      );
      if (needsModel(offered)) ensureSettings();
    },
    async prepare(entries, dryRun) {
      let distiller: Distiller | undefined;
      const forModel = entries.filter((entry) => !texts.has(entry.id));
      if (wantsModel && forModel.length > 0) {
        const resolved = ensureSettings()!;
        if (!dryRun) {
          const spans = forModel.length === 1 ? '1 span' : `${forModel.length} spans`;
          options.onNotice?.(
            `sending ${spans} to distil (${forModel.map((e) => JSON.stringify(e.path)).join(', ')}) to ${resolved.provider.name} (model ${resolved.model}) at ${resolved.endpoint}`,
          );
          runner = runnerFor(resolved, {
            ...(options.signal ? { signal: options.signal } : {}),
            ...(options.retry ? { retry: options.retry } : {}),
          });
        }
        distiller =
          runner !== undefined
            ? modelDistiller(runner, resolved.model)
            : { distill: async () => ({ rejected: 'not asked' }) };
      }
      return prepareRewrites({
        root,
        entries,
        ...(generated !== undefined ? { generated } : {}),
        ...(distiller !== undefined ? { distiller } : {}),
        budgetTokens: config.context.budget_tokens,
        dryRun,
      });
    },
    usage() {
      if (runner === undefined || settings === undefined) return undefined;
      return {
        provider: settings.provider.name,
        model: settings.model,
        endpoint: settings.endpoint,
        ...runner.usage,
      };
    },
  };
}
