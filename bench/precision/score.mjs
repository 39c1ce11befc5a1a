// The precision bench's data side (issue 31 item 1): reading the label manifest, turning a
// scan artifact into findings, matching findings to labels and scoring per signal class.
// Pure functions: run.mjs does the git and the process work. Format: bench/precision/README.md.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
// The kinds of backticked code: a broken_reference of one (a label written before
// `code_reference` had its name) is counted in that class.
import { CODE_REF_KINDS as CODE_KINDS } from '../../dist/src/hygiene/scan/signals/code-references.js';
import { GENERATOR_IDS } from '../../dist/src/hygiene/scan/site/types.js';

const VERDICTS = new Set(['real', 'false', 'unsure']);
/** A repository's kind: plain GitHub docs, one of the site generators the scanner models, or agent-heavy. */
const KINDS = new Set(['github', ...GENERATOR_IDS, 'agent']);

/** A one-line error about a manifest file: the runner prints it and exits 2. */
export class ManifestError extends Error {}

/**
 * The signal class a finding is scored in: its signal name, except that a broken_reference
 * from a backticked path, command, flag or variable is `code_reference` and one the site
 * model could not settle is `broken_reference:unverifiable` (counted apart, never fixed).
 */
export function classOf(signal, data = {}) {
  if (signal !== 'broken_reference') return signal;
  if (CODE_KINDS.has(data.kind)) return 'code_reference';
  if (data.unverifiable !== undefined && data.unverifiable !== false) return 'broken_reference:unverifiable';
  return 'broken_reference';
}

/** A reference signal: its label's key is `data.target` (code_reference: split from broken_reference). */
const isReference = (signal) => signal === 'broken_reference' || signal === 'code_reference';

/** The identity a label and a finding share: (file, line, signal, key). */
export function identity({ file, line, signal, key }) {
  return JSON.stringify([file, line ?? null, signal, key ?? null]);
}

function fail(file, message) {
  throw new ManifestError(`${file}: ${message}`);
}

function checkLabel(file, label, index) {
  const where = `labels[${index}]`;
  if (typeof label !== 'object' || label === null) fail(file, `${where} is not an object`);
  if (typeof label.file !== 'string' || label.file === '') fail(file, `${where}.file must be a path`);
  if (label.line !== undefined && !(Number.isInteger(label.line) && label.line >= 1))
    fail(file, `${where}.line must be a positive integer or absent`);
  if (typeof label.signal !== 'string' || label.signal === '')
    fail(file, `${where}.signal must be a signal name`);
  if (label.key !== undefined && (typeof label.key !== 'string' || label.key === ''))
    fail(file, `${where}.key must be a non-empty string or absent`);
  if (!VERDICTS.has(label.verdict)) fail(file, `${where}.verdict must be real, false or unsure`);
  if (typeof label.reason !== 'string' || label.reason.trim() === '')
    fail(file, `${where}.reason must be one line`);
  if (label.class !== undefined && typeof label.class !== 'string')
    fail(file, `${where}.class must be a string`);
}

function checkRepoFile(file, doc) {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) fail(file, 'not a JSON object');
  if (typeof doc.repo !== 'string' || !/^[\w.-]+\/[\w.-]+$/.test(doc.repo))
    fail(file, 'repo must be "owner/name"');
  if (typeof doc.commit !== 'string' || !/^[0-9a-f]{40}$/.test(doc.commit))
    fail(file, 'commit must be 40 lower-case hex digits');
  if (!KINDS.has(doc.kind)) fail(file, `kind must be one of ${[...KINDS].join(', ')}`);
  if (
    doc.scope !== undefined &&
    !(Array.isArray(doc.scope) && doc.scope.every((s) => typeof s === 'string' && s))
  )
    fail(file, 'scope must be a list of --scope arguments');
  if (!Array.isArray(doc.labels)) fail(file, 'labels must be a list');
  for (const [i, label] of doc.labels.entries()) checkLabel(file, label, i);
}

function readJson(path, name) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    if (error instanceof SyntaxError) fail(name, 'is not valid JSON');
    throw error;
  }
}

/** Adds one file's labels to a repository's, refusing one identity labelled two ways. */
function mergeInto(repo, doc, name) {
  if (repo.commit !== doc.commit)
    fail(name, `commit ${doc.commit} differs from ${repo.files[0]}'s ${repo.commit}`);
  if (!repo.kinds.includes(doc.kind)) repo.kinds.push(doc.kind);
  for (const s of doc.scope ?? []) if (!repo.scope.includes(s)) repo.scope.push(s);
  for (const label of doc.labels) {
    const id = identity(label);
    const before = repo.labels.get(id);
    if (before && before.verdict !== label.verdict)
      fail(
        name,
        `${label.file}:${label.line ?? '-'} ${label.signal} is labelled ${before.verdict} elsewhere`,
      );
    if (!before) repo.labels.set(id, { ...label, source: name });
  }
  repo.files.push(name);
}

/**
 * Every `*.json` in `dir`, validated, merged per repository (files of one repository must
 * pin the same commit). Returns repositories sorted by name, each with a Map of labels.
 */
export function loadManifest(dir) {
  const names = readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort();
  const repos = new Map();
  for (const name of names) {
    const doc = readJson(join(dir, name), name);
    checkRepoFile(name, doc);
    let repo = repos.get(doc.repo);
    if (!repo) {
      repo = { repo: doc.repo, commit: doc.commit, kinds: [], scope: [], labels: new Map(), files: [] };
      repos.set(doc.repo, repo);
    }
    mergeInto(repo, doc, name);
  }
  return [...repos.values()].sort((a, b) => a.repo.localeCompare(b.repo));
}

/**
 * What a scan artifact (`stw hygiene scan --json`) shows: one finding per signal in
 * `signals`. A CLI that withholds findings (hidden classes, suppressed findings) lists them
 * under `withheld`, never in `signals`: they are counted apart, per signal name.
 */
export function findingsOf(scan) {
  const findings = [];
  for (const [file, signals] of Object.entries(scan.signals ?? {})) {
    for (const s of signals) {
      const data = s.data ?? {};
      const key = isReference(s.name) && typeof data.target === 'string' ? data.target : undefined;
      findings.push({
        file,
        line: s.line,
        signal: s.name,
        key,
        class: classOf(s.name, data),
        detail: s.detail,
      });
    }
  }
  return findings;
}

/** The withheld part of a scan artifact: hidden classes, and per signal name how many were hidden or suppressed. */
export function withheldOf(scan) {
  const w = scan.withheld ?? {};
  return {
    hiddenClasses: new Set(w.hidden_classes ?? []),
    hidden: w.hidden ?? {},
    suppressed: w.suppressed ?? {},
  };
}

/**
 * Whether a label no shown finding matches is of a class the CLI hid: a hidden class, or one
 * that held back part of its findings (code_reference without history's proof, a link in a
 * generated doc) and hid some here: such a label is counted hidden, not gone.
 */
function isHidden(withheld, label) {
  return withheld.hiddenClasses.has(label.signal) || (withheld.hidden[label.signal] ?? 0) > 0;
}

function emptyRow() {
  return {
    shown: 0,
    sampled: 0,
    real: 0,
    false: 0,
    unsure: 0,
    gone: 0,
    gone_real: 0,
    unlabelled: 0,
    hidden: 0,
    hidden_labels: 0,
    suppressed: 0,
  };
}

/** The class a gone label is counted in (no finding left to ask): its `class`, else by its signal. */
function goneClass(label) {
  return label.class ?? classOf(label.signal, { kind: label.kind });
}

/**
 * Scores one repository: each finding is matched to a label by identity (several findings
 * with one identity share its label). Per class: shown, sampled (labels still found), real,
 * false, unsure, gone (labels nothing matches now; gone_real of them real), unlabelled;
 * hidden and suppressed (withheld by the CLI, per signal name) and hidden_labels (labels
 * of a class the CLI now hides: not gone, just not shown).
 */
export function scoreRepo(labels, findings, withheld = withheldOf({})) {
  const rows = {};
  const row = (c) => {
    rows[c] ??= emptyRow();
    return rows[c];
  };
  const seen = new Set();
  for (const f of findings) {
    const r = row(f.class);
    r.shown += 1;
    const id = identity(f);
    const label = labels.get(id);
    if (!label) r.unlabelled += 1;
    else if (!seen.has(id)) {
      seen.add(id);
      r.sampled += 1;
      r[label.verdict] += 1;
    }
  }
  for (const [id, label] of labels) {
    if (seen.has(id)) continue;
    const r = row(goneClass(label));
    if (isHidden(withheld, label)) r.hidden_labels += 1;
    else {
      r.gone += 1;
      if (label.verdict === 'real') r.gone_real += 1;
    }
  }
  for (const [name, n] of Object.entries(withheld.hidden)) row(name).hidden += n;
  for (const [name, n] of Object.entries(withheld.suppressed)) row(name).suppressed += n;
  for (const r of Object.values(rows)) r.precision = precision(r);
  return rows;
}

/** The labels no shown finding matches any more (but for a class the CLI hides), for the record. */
export function goneLabels(labels, findings, withheld = withheldOf({})) {
  const found = new Set(findings.map(identity));
  return [...labels]
    .filter(([id, label]) => !found.has(id) && !isHidden(withheld, label))
    .map(([, { file, line, signal, key, verdict, reason }]) => ({
      file,
      line,
      signal,
      key,
      verdict,
      reason,
    }));
}

/** real / (real + false), or null when nothing sampled was judged either way. */
export function precision(r) {
  return r.real + r.false === 0 ? null : r.real / (r.real + r.false);
}

/**
 * Totals per class over the scored repositories, and the estimated share of real finds in
 * everything shown: per repository and class, its sampled precision × its count; a class a
 * repository shows but has no judged sample for borrows the class's pooled precision
 * (`extrapolated`); a class with no judged sample anywhere is `unmeasured`.
 */
export function summarize(results) {
  const classes = {};
  for (const { rows } of results) {
    for (const [c, r] of Object.entries(rows)) {
      classes[c] ??= { ...emptyRow(), estimated_real: 0, extrapolated: 0 };
      for (const k of Object.keys(emptyRow())) classes[c][k] += r[k];
    }
  }
  for (const c of Object.values(classes)) c.precision = precision(c);
  for (const { rows } of results) {
    for (const [c, r] of Object.entries(rows)) {
      const p = r.precision ?? classes[c].precision;
      if (r.precision === null && r.shown > 0 && p !== null) classes[c].extrapolated += r.shown;
      if (p !== null) classes[c].estimated_real += p * r.shown;
    }
  }
  const measured = Object.values(classes).filter((c) => c.precision !== null);
  const shownMeasured = measured.reduce((n, c) => n + c.shown, 0);
  const real = measured.reduce((n, c) => n + c.estimated_real, 0);
  const shown = Object.values(classes).reduce((n, c) => n + c.shown, 0);
  return {
    classes,
    overall: {
      shown,
      shown_measured: shownMeasured,
      unmeasured: shown - shownMeasured,
      estimated_real: real,
      real_ratio: shownMeasured === 0 ? null : real / shownMeasured,
    },
  };
}

/** A small seeded PRNG (mulberry32) so that a sample is the same on every machine. */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hash(text) {
  let h = 2166136261;
  for (const ch of text) h = Math.imul(h ^ ch.codePointAt(0), 16777619) >>> 0;
  return h;
}

/**
 * A fixed-seed sample of up to `perClass` distinct findings per class (every one if fewer),
 * drawn from the findings sorted by identity, so the same scan gives the same sample.
 */
export function sample(findings, { repo, seed = 31, perClass = 25 }) {
  const byClass = new Map();
  for (const f of findings) {
    const list = byClass.get(f.class) ?? new Map();
    list.set(identity(f), f);
    byClass.set(f.class, list);
  }
  const picked = [];
  for (const [c, list] of [...byClass].sort(([a], [b]) => a.localeCompare(b))) {
    const ids = [...list.keys()].sort();
    const next = random(seed ^ hash(`${repo}\0${c}`));
    for (let i = ids.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [ids[i], ids[j]] = [ids[j], ids[i]];
    }
    picked.push(...ids.slice(0, perClass).map((id) => list.get(id)));
  }
  return picked;
}
