/**
 * SARIF 2.1.0 (docs/ci.md): one rule per signal, with its help text; one result per
 * finding, with `physicalLocation` (line and column when the finding has them) and a
 * `partialFingerprints` entry stable across runs, which code scanning uses to match alerts.
 */
import { SIGNAL_MODULES } from '../scan/signals/index.js';
import type { Finding } from './findings.js';
import { findingLevel } from './level.js';

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';
export const PROJECT_URL = 'https://github.com/sourcesteward/sourcesteward';
/** The key of `partialFingerprints`; `--baseline` reads it back. */
export const FINGERPRINT_KEY = 'stw/v1';

const HELP_URI = `${PROJECT_URL}/blob/main/docs/scanner-and-classifiers.md`;

/** A root-relative path as a URI reference: each segment percent-encoded. */
export function pathUri(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

export interface SarifOptions {
  toolVersion: string;
  /** Counted by the gate: `error`; the rest `warning` (no gate: all `warning`). */
  isCounted?: (finding: Finding) => boolean;
}

function rules() {
  return SIGNAL_MODULES.map((module) => ({
    id: module.name,
    name: module.name,
    shortDescription: { text: module.description },
    fullDescription: { text: module.description },
    help: {
      text: `${module.name}: ${module.description}. See docs/scanner-and-classifiers.md.`,
    },
    helpUri: HELP_URI,
    defaultConfiguration: { level: 'warning' },
  }));
}

function result(finding: Finding, ruleIndex: number, options: SarifOptions) {
  const region =
    finding.line === undefined
      ? undefined
      : { startLine: finding.line, ...(finding.column !== undefined ? { startColumn: finding.column } : {}) };
  return {
    ruleId: finding.rule,
    ruleIndex,
    level: findingLevel(finding, options.isCounted),
    message: { text: finding.message },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: pathUri(finding.path), uriBaseId: '%SRCROOT%' },
          ...(region !== undefined ? { region } : {}),
        },
      },
    ],
    partialFingerprints: { [FINGERPRINT_KEY]: finding.fingerprint },
    ...(finding.entry !== undefined
      ? { properties: { entry_id: finding.entry.id, safety_tier: finding.entry.safety_tier } }
      : {}),
  };
}

/** The SARIF log of `findings`, as a serialisable object. */
export function renderSarif(findings: readonly Finding[], options: SarifOptions): object {
  const list = rules();
  const index = new Map(list.map((rule, i) => [rule.id, i]));
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'SourceSteward',
            informationUri: PROJECT_URL,
            version: options.toolVersion,
            rules: list,
          },
        },
        originalUriBaseIds: { '%SRCROOT%': { description: { text: 'the project root' } } },
        results: findings.map((finding) => result(finding, index.get(finding.rule) ?? 0, options)),
      },
    ],
  };
}
