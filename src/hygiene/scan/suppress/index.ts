/**
 * What the user is shown (docs/scanner-and-classifiers.md, "Which signals are shown" and
 * "Silencing a finding"). Every signal module runs; then each finding is
 * - suppressed, by an inline directive in its doc (directives.ts) or a `links.ignore` entry
 *   (link-ignore.ts): counted per class, listed with what silenced it;
 * - else hidden, when its class is (a module's `shownByDefault`, over which `signals:` in the
 *   config and `--signals all` have the last word), or when its module holds it back (a shown
 *   class's weak part, `heldBack`; shown by the same switches): counted per class;
 * - else shown: in the artifact's `signals`, the only ones a classifier, a model or a
 *   proposals file may make an entry of.
 */
import type { HygieneConfig, Signal, SignalName, UnusedSuppression, Withheld } from '../../types.js';
import { REFERENCE_SIGNALS } from '../../types.js';
import type { ParsedDoc } from '../markdown.js';
import { cmp } from '../paths.js';
import { SIGNAL_MODULES, type SignalModule } from '../signals/index.js';
import { type Directive, DocSuppressions } from './directives.js';
import { LinkIgnore } from './link-ignore.js';

export { linkIgnoreProblem } from './link-ignore.js';

/** The switch that shows every hidden class. */
export const SHOW_HIDDEN = '--signals all';

export interface WithholdInput {
  /** Every finding the modules emitted, by path. */
  signals: Map<string, Signal[]>;
  /** The scanned docs (their directives). */
  docs: ReadonlyMap<string, { parsed: ParsedDoc }>;
  config: Pick<HygieneConfig, 'signals' | 'links'>;
  /** The config file's name in listings (`.dochygiene.yml`, or the `--config` path). */
  configSource: string;
  /** `--signals all`: no class is hidden. */
  showAll: boolean;
  /** Classes shown in this run even when hidden (named by `--fail-on`: asked for by name). */
  show?: readonly SignalName[];
  /** List the directives and config entries that silenced nothing. */
  reportUnused: boolean;
}

/**
 * The classes hidden in this run: by default, or `signals: {NAME: off}`; none with `--signals
 * all`, and never one in `show` (named by `--fail-on`).
 */
export function hiddenClasses(
  config: Pick<HygieneConfig, 'signals'>,
  showAll: boolean,
  show: readonly SignalName[] = [],
): Set<SignalName> {
  if (showAll) return new Set();
  const hidden = new Set<SignalName>();
  for (const module of SIGNAL_MODULES) {
    if (show.includes(module.name)) continue;
    const switched = config.signals[module.name];
    if (switched === 'off' || (switched === undefined && !module.shownByDefault)) hidden.add(module.name);
  }
  return hidden;
}

/** Per shown class, the module's `heldBack` (none with `--signals all`, `signals: {NAME: on}` or `--fail-on NAME`). */
function heldBackBy(
  input: Pick<WithholdInput, 'showAll' | 'show'> & { config: Pick<HygieneConfig, 'signals'> },
): Map<SignalName, NonNullable<SignalModule['heldBack']>> {
  const out = new Map<SignalName, NonNullable<SignalModule['heldBack']>>();
  if (input.showAll) return out;
  for (const module of SIGNAL_MODULES)
    if (
      module.heldBack !== undefined &&
      input.config.signals[module.name] !== 'on' &&
      !(input.show ?? []).includes(module.name)
    )
      out.set(module.name, module.heldBack);
  return out;
}

/**
 * Whether a finding is withheld at default visibility under this config (its class hidden, or
 * its module holding it back): true of one shown only because of `--signals all` or
 * `--fail-on NAME`. Those switches show and count; they never make a finding proposed for.
 */
export function withheldByDefault(
  config: Pick<HygieneConfig, 'signals'>,
): (path: string, signal: Signal) => boolean {
  const hidden = hiddenClasses(config, false);
  const held = heldBackBy({ config, showAll: false });
  return (path, signal) => hidden.has(signal.name) || held.get(signal.name)?.(path, signal) === true;
}

const bump = (counts: Partial<Record<SignalName, number>>, name: SignalName) => {
  counts[name] = (counts[name] ?? 0) + 1;
};

/** The shown findings by path, and what was withheld. */
export function withhold(input: WithholdInput): { shown: Map<string, Signal[]>; withheld: Withheld } {
  const hidden = hiddenClasses(input.config, input.showAll, input.show);
  const held = heldBackBy(input);
  const ignore = new LinkIgnore(input.config.links.ignore);
  const ignoreUsed = new Set<number>();
  const perDoc = new Map<string, DocSuppressions>();
  for (const [path, doc] of input.docs)
    if (doc.parsed.directives.length > 0) perDoc.set(path, new DocSuppressions(doc.parsed));
  const classCount = new Map<SignalName, number>();

  const withheld: Withheld = {
    hidden_classes: [...hidden],
    hidden: {},
    suppressed: {},
    suppressed_signals: [],
    show_hidden_with: SHOW_HIDDEN,
  };
  const shown = new Map<string, Signal[]>();
  for (const [path, signals] of input.signals) {
    const kept: Signal[] = [];
    for (const signal of signals) {
      classCount.set(signal.name, (classCount.get(signal.name) ?? 0) + 1);
      const by = silencedBy(path, signal, perDoc.get(path), ignore, ignoreUsed);
      if (by !== undefined) {
        bump(withheld.suppressed, signal.name);
        withheld.suppressed_signals.push({
          path,
          name: signal.name,
          ...(signal.line !== undefined ? { line: signal.line } : {}),
          by,
        });
      } else if (hidden.has(signal.name) || held.get(signal.name)?.(path, signal) === true)
        bump(withheld.hidden, signal.name);
      else kept.push(signal);
    }
    if (kept.length > 0) shown.set(path, kept);
  }
  withheld.suppressed_signals.sort(
    (a, b) => cmp(a.path, b.path) || (a.line ?? 0) - (b.line ?? 0) || cmp(a.name, b.name),
  );
  if (input.reportUnused)
    withheld.unused_suppressions = [
      ...unusedDirectives(perDoc),
      ...unusedConfig(input, classCount, ignoreUsed),
    ];
  return { shown, withheld };
}

function silencedBy(
  path: string,
  signal: Signal,
  doc: DocSuppressions | undefined,
  ignore: LinkIgnore,
  ignoreUsed: Set<number>,
): string | undefined {
  const directive = doc?.silencing(signal);
  if (directive !== undefined) return `${path}:${directive.line} ${directive.text}`;
  const target = signal.data?.['target'];
  if (!REFERENCE_SIGNALS.has(signal.name) || typeof target !== 'string') return undefined;
  const index = ignore.match(target);
  if (index === undefined) return undefined;
  ignoreUsed.add(index);
  return `links.ignore[${index}] ${ignore.entries[index]}`;
}

function directiveUnusedReason(d: Directive, used: number): string | undefined {
  if (d.malformed !== undefined) return d.malformed;
  if (d.unknown.length > 0)
    return `${d.unknown.map((w) => JSON.stringify(w)).join(', ')} ${d.unknown.length === 1 ? 'is' : 'are'} no signal name`;
  if (d.form === 'enable' || used > 0) return undefined;
  return 'silenced nothing';
}

function unusedDirectives(perDoc: Map<string, DocSuppressions>): UnusedSuppression[] {
  const out: UnusedSuppression[] = [];
  for (const path of [...perDoc.keys()].sort(cmp)) {
    const doc = perDoc.get(path)!;
    for (const d of doc.directives) {
      const reason = directiveUnusedReason(d, doc.used.get(d) ?? 0);
      if (reason !== undefined) out.push({ path, line: d.line, suppression: d.text, reason });
    }
  }
  return out;
}

function unusedConfig(
  input: WithholdInput,
  classCount: ReadonlyMap<SignalName, number>,
  ignoreUsed: ReadonlySet<number>,
): UnusedSuppression[] {
  const out: UnusedSuppression[] = [];
  const path = input.configSource;
  const modules = new Map(SIGNAL_MODULES.map((m) => [m.name, m]));
  for (const [name, switched] of Object.entries(input.config.signals) as [SignalName, string][]) {
    const suppression = `signals.${name}: ${switched}`;
    const module = modules.get(name);
    // `on` shows a hidden class, or the held-back part of a shown one.
    if (switched === 'on' && module?.shownByDefault === true && module.heldBack === undefined)
      out.push({ path, suppression, reason: `${name} is shown by default` });
    else if (switched === 'off' && module?.shownByDefault === false)
      out.push({ path, suppression, reason: `${name} is hidden by default` });
    else if (switched === 'off' && !input.showAll && (classCount.get(name) ?? 0) === 0)
      out.push({ path, suppression, reason: 'hid nothing: the scan found no such signal' });
  }
  input.config.links.ignore.forEach((entry, index) => {
    if (!ignoreUsed.has(index))
      out.push({
        path,
        suppression: `links.ignore[${index}] ${entry}`,
        reason: 'silenced nothing',
      });
  });
  return out;
}
