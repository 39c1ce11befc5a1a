// Generates every copy of the scanner's signal list from the signal modules (one source):
// the signal-name enums of the config, proposals, report-1.1 and scan schemas, the list the CLI
// help of `stw hygiene scan` prints (dist/src/cli/groups/signal-list.json, with the classes
// hidden by default), and the table of docs/scanner-and-classifiers.md "Which signals are
// shown" (between its signal-table markers). The report-1.0
// schema is frozen with the signals it was made with and is left alone. Run by
// `npm run build` after tsc (it reads the compiled modules), like markdownlint's
// build-config-schema. `--check` writes nothing and exits 1 when a schema disagrees (the
// test test/hygiene/signal-lists.test.ts runs it).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = join(import.meta.dirname, '..');
/** Schemas whose signal-name enums are generated. */
export const GENERATED_SCHEMAS = [
  'config.schema.json',
  'proposals.schema.json',
  'report-1.1.schema.json',
  'scan.schema.json',
];
const HELP_LIST = join(ROOT, 'dist', 'src', 'cli', 'groups', 'signal-list.json');
/** The doc whose visibility table is generated, and the markers around the table. */
const TABLE_DOC = join(ROOT, 'docs', 'scanner-and-classifiers.md');
const TABLE = /(<!-- signal-table:start[^\n]*-->\n)[\s\S]*?(<!-- signal-table:end -->)/;
// A JSON enum array that holds a signal name: `"enum": [` … `]`, one string a line.
const ENUM =
  /("enum": \[\n)((?:[ ]*"[a-z_]+",?\n)*?[ ]*"broken_reference",?\n(?:[ ]*"[a-z_]+",?\n)*)([ ]*\])/g;

/** The signal modules in contract order (SIGNAL_NAMES), refusing a name without a module or vice versa. */
export async function signalList() {
  const { SIGNAL_MODULES } = await import(
    pathToFileURL(join(ROOT, 'dist/src/hygiene/scan/signals/index.js')).href
  );
  const { SIGNAL_NAMES } = await import(pathToFileURL(join(ROOT, 'dist/src/hygiene/types.js')).href);
  const byName = new Map(SIGNAL_MODULES.map((m) => [m.name, m]));
  const problems = [];
  if (byName.size !== SIGNAL_MODULES.length) problems.push('two signal modules share a name');
  for (const name of SIGNAL_NAMES)
    if (!byName.has(name)) problems.push(`${name}: in SIGNAL_NAMES, no module`);
  for (const name of byName.keys())
    if (!SIGNAL_NAMES.includes(name)) problems.push(`${name}: a module not in SIGNAL_NAMES`);
  if (problems.length > 0) throw new Error(`signal list: ${problems.join('; ')}`);
  return SIGNAL_NAMES.map((name) => ({
    name,
    scope: byName.get(name).scope,
    shown: byName.get(name).shownByDefault,
    ...(byName.get(name).heldBack !== undefined ? { part: true } : {}),
  }));
}

/** How a finding of the class is silenced (docs/scanner-and-classifiers.md, "Silencing a finding"). */
function silencedBy(name) {
  const inline = `\`<!-- stw-ignore-next-line ${name} -->\``;
  if (name === 'broken_reference') return `${inline}, \`links.ignore\`, markdown-link-check's comments`;
  return name === 'code_reference' ? `${inline}, \`links.ignore\`` : inline;
}

/** Whether a class is shown by default, and a shown class's held-back part. */
function visibility(s) {
  if (!s.shown) return '**hidden** (`--signals all`)';
  return s.part ? 'shown, but for a held-back part (`--signals all`)' : 'shown';
}

/** The docs' table of every class: its scope, whether it is shown by default, how to silence one. */
export function signalTable(list) {
  const rows = list.map((s) => `| \`${s.name}\` | ${s.scope} | ${visibility(s)} | ${silencedBy(s.name)} |`);
  return ['| signal | files | by default | silence one with |', '|---|---|---|---|', ...rows, ''].join('\n');
}

/** A doc's text with its generated table replaced (undefined when it has no markers). */
export function withSignalTable(text, list) {
  if (!TABLE.test(text)) return undefined;
  return text.replace(TABLE, (_all, open, close) => `${open}${signalTable(list)}${close}`);
}

/** A schema's text with every signal-name enum replaced by `names` (same indentation). */
export function withSignalEnums(text, names) {
  return text.replace(ENUM, (_all, open, items, close) => {
    const indent = /^[ ]*/.exec(items)[0];
    return `${open}${names.map((n) => `${indent}${JSON.stringify(n)}`).join(',\n')}\n${close}`;
  });
}

/** The schemas whose enums differ from `names`, with the enum count seen in each. */
export function disagreements(names, read = (file) => readFileSync(join(ROOT, 'schemas', file), 'utf8')) {
  const out = [];
  for (const file of GENERATED_SCHEMAS) {
    const text = read(file);
    const count = [...text.matchAll(ENUM)].length;
    if (count === 0 || withSignalEnums(text, names) !== text) out.push(`${file} (${count} signal enums)`);
  }
  return out;
}

async function main() {
  const list = await signalList();
  const names = list.map((s) => s.name);
  const doc = readFileSync(TABLE_DOC, 'utf8');
  const table = withSignalTable(doc, list);
  if (process.argv.includes('--check')) {
    const bad = disagreements(names);
    if (table !== doc) bad.push('docs/scanner-and-classifiers.md (the signal table)');
    if (bad.length > 0) {
      console.error(`signal list disagrees with the signal modules in: ${bad.join(', ')}; run npm run build`);
      process.exit(1);
    }
    return;
  }
  for (const file of GENERATED_SCHEMAS) {
    const path = join(ROOT, 'schemas', file);
    const text = readFileSync(path, 'utf8');
    const next = withSignalEnums(text, names);
    if (next !== text) writeFileSync(path, next);
  }
  if (table === undefined) throw new Error('docs/scanner-and-classifiers.md: no signal-table markers');
  if (table !== doc) writeFileSync(TABLE_DOC, table);
  const scoped = (scope) => list.filter((s) => s.scope === scope).map((s) => s.name);
  const hidden = list.filter((s) => !s.shown).map((s) => s.name);
  const held_back = list.filter((s) => s.shown && s.part).map((s) => s.name);
  writeFileSync(
    HELP_LIST,
    `${JSON.stringify({ docs: scoped('docs'), agent_context: scoped('agent-context'), hidden, held_back })}\n`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
