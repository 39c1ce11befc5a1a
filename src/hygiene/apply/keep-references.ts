/**
 * The reference invariant of `clean`, `sweep` and `apply` (docs/hygiene): a cleanup never turns
 * a resolving reference into a broken one. Before anything is written, the approved edits are
 * applied in memory and every reference of every doc (archive folders included) is resolved
 * again against the tree as it would be. A move takes the inbound relative links to the moved
 * file with it: they are rewritten in the same commit. A file whose edits would still break a
 * reference is left alone (`would-break-reference`, naming the reference), and the rest goes
 * ahead.
 */
import type { Deadline } from '../../core/deadline.js';
import { linkFix } from '../classify/rules.js';
import { loadConfig } from '../config.js';
import {
  type BrokenByChange,
  type DocWorld,
  inboundReferences,
  isUnder,
  type PlannedChange,
  type ResolvedWorld,
  readDocWorld,
  referencesBroken,
  simulate,
  withTexts,
  worldOf,
} from '../references.js';
import type { DocRef } from '../scan/markdown.js';
import { resolveReference, writeTargetLike } from '../scan/resolve.js';
import type { Entry, Report } from '../types.js';
import type { CleanPlan, PlannedEntry } from './clean.js';
import { applyRewriteToText, type PreparedRewrite } from './generative.js';
import { sha256Hex } from './text-edits.js';
import { type NotWritable, whyNotEdited, writableLookup } from './writable.js';

/** An inbound link rewritten because the file it points at moves. */
export interface LinkRewrite {
  /** The entry id of the rewrite (a replace-text applied with the move). */
  id: string;
  /** The move it follows. */
  for_entry: string;
  path: string;
  line: number;
  from: string;
  to: string;
}

export interface KeptReferences {
  /** The report with the rewrite entries added (hand this to the applier). */
  report: Report;
  /** Ids to apply: the approved ones that keep every reference, and the rewrites. */
  apply: string[];
  /** Approved ids left alone, with the reference each would have broken. */
  would_break: Map<string, string>;
  rewrites: LinkRewrite[];
}

const GUARDED_KINDS = new Set([
  'delete-range',
  'replace-text',
  'dedupe',
  'insert-frontmatter',
  'move-to-archive',
  'delete-path',
]);

/** Why a doc may not be edited by the cleanup (untracked, hidden from status), or undefined. */
export type WritableLookup = (path: string) => NotWritable | undefined;

/**
 * The replace-text entries that carry a move's inbound links to the new place, one per line;
 * or, when an inbound link is in a doc the cleanup may not edit, why the move would break it.
 */
function rewritesFor(
  world: ResolvedWorld,
  move: Entry,
  movingOrEdited: ReadonlySet<string>,
  writable: WritableLookup,
): { entries: Entry[]; rewrites: LinkRewrite[]; blocked?: string } {
  const dest = move.exact_edit!.dest_path!;
  const byLine = new Map<string, { doc: string; line: number; refs: DocRef[] }>();
  for (const { doc, ref } of inboundReferences(world, move.path)) {
    if (movingOrEdited.has(doc) || ref.kind === 'code-path') continue;
    const notHere = writable(doc);
    if (notHere !== undefined)
      return {
        entries: [],
        rewrites: [],
        blocked: `would break the reference to ${ref.target} on line ${ref.line} of ${doc}, ${whyNotEdited(notHere)}`,
      };
    const key = `${doc}\0${ref.line}`;
    const group = byLine.get(key) ?? { doc, line: ref.line, refs: [] };
    group.refs.push(ref);
    byLine.set(key, group);
  }
  const entries: Entry[] = [];
  const rewrites: LinkRewrite[] = [];
  for (const { doc, line, refs } of byLine.values()) {
    const text = world.docs.get(doc)!;
    const lines = text.split('\n');
    const original = (lines[line - 1] ?? '').replace(/\r$/, '');
    let fixed = original;
    const pairs: [string, string][] = [];
    for (const ref of refs) {
      const resolved = resolveReference(world, doc, ref)!;
      const to = writeTargetLike(doc, ref, resolved, dest);
      const fix = linkFix(fixed, {
        name: 'broken_reference',
        detail: '',
        data: { target: ref.target, suggested_target: to, kind: ref.kind },
      });
      if (fix === undefined) continue;
      fixed = fixed.split(fix.match).join(fix.replacement);
      pairs.push([ref.target, to]);
    }
    if (fixed === original) continue;
    const id = `${move.id}-L${rewrites.length + 1}`;
    entries.push({
      id,
      path: doc,
      category: { class: 'stale', subtype: 'dangling-reference' },
      signals: [],
      op: `Point line ${line} at ${dest}, where ${move.path} moves.`,
      op_type: 'deterministic',
      exact_edit: {
        kind: 'replace-text',
        anchor: { start_line: line, end_line: line },
        match: original,
        replacement: fixed,
        expected_sha256: sha256Hex(Buffer.from(text, 'utf8')),
      },
      is_destructive: false,
      is_reversible: true,
      safety_tier: 'auto',
      token_estimate: { raw_tokens: 0, injection_frequency: 0, weighted_tokens: 0 },
      confidence: 1,
      generated_at: move.generated_at,
    });
    for (const [from, to] of pairs) rewrites.push({ id, for_entry: move.id, path: doc, line, from, to });
  }
  return { entries, rewrites };
}

/**
 * Decides which approved entries keep every reference resolving, and adds the link rewrites
 * their moves need. Pure given the world: nothing is written.
 */
export function keepReferencesResolving(
  docWorld: DocWorld,
  report: Report,
  approved: readonly string[],
  writable: WritableLookup = () => undefined,
): KeptReferences {
  const world = worldOf(docWorld);
  const byId = new Map(report.entries.map((e) => [e.id, e]));
  let active = approved
    .map((id) => byId.get(id)!)
    .filter(
      (e) => e !== undefined && e.op_type === 'deterministic' && GUARDED_KINDS.has(e.exact_edit?.kind ?? ''),
    );
  const wouldBreak = new Map<string, string>();
  for (let round = 0; round < 50; round++) {
    const moves = active.filter((e) => e.exact_edit!.kind === 'move-to-archive');
    const touched = new Set(active.map((e) => e.path));
    const rewriteEntries: Entry[] = [];
    const rewrites: LinkRewrite[] = [];
    const blocked = new Map<string, string>();
    for (const move of moves) {
      const made = rewritesFor(world, move, new Set(moves.map((m) => m.path)), writable);
      if (made.blocked !== undefined) blocked.set(move.id, made.blocked);
      rewriteEntries.push(...made.entries);
      rewrites.push(...made.rewrites);
    }
    if (blocked.size > 0) {
      // A link the cleanup may not rewrite: the move stays, and the rest is judged again without it.
      for (const [id, detail] of blocked) wouldBreak.set(id, detail);
      active = active.filter((e) => !blocked.has(e.id));
      continue;
    }
    const edits = new Map<string, Entry[]>();
    const deletes = active.filter((e) => e.exact_edit!.kind === 'delete-path');
    const textEdits = active.filter((e) => !['move-to-archive', 'delete-path'].includes(e.exact_edit!.kind));
    for (const e of [...textEdits, ...rewriteEntries]) edits.set(e.path, [...(edits.get(e.path) ?? []), e]);
    const change: PlannedChange = {
      edits,
      moves: new Map(
        moves.filter((m) => !touchedByOthers(m, active)).map((m) => [m.path, m.exact_edit!.dest_path!]),
      ),
      deletes: new Set(deletes.map((e) => e.path)),
    };
    const sim = simulate(world, change);
    // A file the applier will skip (its edits conflict) changes nothing; its own skip reason stands.
    for (const path of sim.unappliable.keys()) edits.delete(path);
    const settled = sim.unappliable.size > 0 ? simulate(world, change) : sim;
    const broken = referencesBroken(world, settled, change);
    if (broken.length === 0) {
      const rewriteIds = rewriteEntries.filter((e) => !sim.unappliable.has(e.path)).map((e) => e.id);
      const keep = new Set(approved.filter((id) => !wouldBreak.has(id)));
      return {
        report: { ...report, entries: [...report.entries, ...rewriteEntries] },
        apply: [...approved.filter((id) => keep.has(id)), ...rewriteIds],
        would_break: wouldBreak,
        rewrites: rewrites.filter((r) => rewriteIds.includes(r.id)),
      };
    }
    const rewriteOwner = new Map(rewriteEntries.map((e) => [e.path, e]));
    for (const b of broken) {
      // A broken rewritten link is the move's fault; anything else, the blamed file's entries.
      let blamed = active.filter((e) => e.path === b.blame);
      if (blamed.length === 0 && rewriteOwner.has(b.blame)) {
        const moveId = rewrites.find((r) => r.path === b.blame && r.line === b.line)?.for_entry;
        blamed = active.filter((e) => e.id === moveId);
      }
      // A reference into a deleted unit (a folder, say) is that deletion's fault.
      if (blamed.length === 0) blamed = deletes.filter((e) => isUnder(b.blame, e.path));
      if (blamed.length === 0) blamed = active.filter((e) => e.path === b.doc);
      for (const e of blamed) if (!wouldBreak.has(e.id)) wouldBreak.set(e.id, brokenDetail(b));
    }
    const before = active.length;
    active = active.filter((e) => !wouldBreak.has(e.id));
    void touched;
    if (active.length === before) {
      // Nothing left to blame: leave every remaining entry alone rather than guess.
      for (const e of active) wouldBreak.set(e.id, 'would break a reference');
      active = [];
    }
  }
  for (const e of active) wouldBreak.set(e.id, 'would break a reference');
  return {
    report,
    apply: approved.filter((id) => !wouldBreak.has(id)),
    would_break: wouldBreak,
    rewrites: [],
  };
}

/**
 * Which docs a move's link rewrites may edit, read from the index now (only when an approved
 * entry is a move: nothing else rewrites another doc).
 */
export async function writableFor(
  root: string,
  report: Report,
  approved: readonly string[],
  deadline: Deadline,
): Promise<WritableLookup> {
  const ids = new Set(approved);
  const moves = report.entries.some((e) => ids.has(e.id) && e.exact_edit?.kind === 'move-to-archive');
  return moves ? writableLookup(root, deadline) : () => undefined;
}

/** What an entry left alone would have broken, in the words of its `would-break-reference` detail. */
function brokenDetail(b: BrokenByChange): string {
  return b.symlink
    ? `would leave the symlink ${b.doc} dangling (it leads to ${b.target})`
    : `would break the reference to ${b.target} on line ${b.line} of ${b.doc}`;
}

/** A move whose file also has other approved entries is skipped by the applier: it does not move. */
function touchedByOthers(move: Entry, active: readonly Entry[]): boolean {
  return active.some((e) => e.path === move.path && e.id !== move.id);
}

/**
 * The invariant for generative rewrites, whose text is known only once distilled: a rewrite
 * that would break a reference that resolves now — a heading another doc links to, a link of
 * its own — becomes a skip (`would-break-reference`, naming it). Each is judged on its own
 * against the docs as they are; a rewrite that no longer fits its file is left for the
 * applier to refuse.
 */
export function keepRewritesResolving(
  docWorld: DocWorld,
  report: Report,
  rewrites: ReadonlyMap<string, PreparedRewrite>,
): Map<string, PreparedRewrite> {
  const world = worldOf(docWorld);
  const byId = new Map(report.entries.map((e) => [e.id, e]));
  const out = new Map(rewrites);
  for (const [id, rewrite] of rewrites) {
    const entry = byId.get(id);
    const text = entry === undefined ? undefined : world.docs.get(entry.path);
    if (!rewrite.ok || entry === undefined || text === undefined) continue;
    const rewritten = applyRewriteToText(text, rewrite);
    if ('skip' in rewritten) continue;
    const change: PlannedChange = { edits: new Map([[entry.path, [entry]]]), moves: new Map() };
    const broken = referencesBroken(world, withTexts(world, new Map([[entry.path, rewritten.text]])), change);
    const first = broken[0];
    if (first !== undefined)
      out.set(id, { ok: false, id, reason: 'would-break-reference', detail: brokenDetail(first) });
  }
  return out;
}

/** A clean plan with the reference invariant applied: what to hand the applier, and the rewrites. */
export interface GuardedPlan {
  plan: CleanPlan;
  report: Report;
  apply: string[];
  rewrites: LinkRewrite[];
  /** The docs the invariant was judged on (kept to judge the generative rewrites once distilled). */
  world?: DocWorld;
}

/**
 * Runs the invariant over a clean plan, reading the docs as they are now: approved entries
 * that would break a reference become `skipped` (`would-break-reference`), and the moves'
 * link rewrites join the entries to apply.
 */
export async function guardCleanPlan(plan: CleanPlan, deadline: Deadline): Promise<GuardedPlan> {
  const config = await loadConfig(plan.root, process.env, plan.configFile);
  const world = await readDocWorld(plan.root, config, deadline);
  const writable = await writableFor(plan.root, plan.report, plan.apply, deadline);
  const kept = keepReferencesResolving(world, plan.report, plan.apply, writable);
  const entries = plan.entries.map((entry): PlannedEntry => {
    const detail = kept.would_break.get(entry.id);
    return detail === undefined
      ? entry
      : { ...entry, decision: 'skipped', reason: 'would-break-reference', detail };
  });
  return {
    plan: { ...plan, entries, apply: entries.filter((e) => e.decision === 'approved').map((e) => e.id) },
    report: kept.report,
    apply: kept.apply,
    rewrites: kept.rewrites,
    world,
  };
}
