/**
 * `version_skew`: a present-tense statement of a version the manifests contradict. Made
 * precise (docs/scanner-and-classifiers.md): history is never skew, so nothing is read in a
 * changelog, release notes, a blog or news post, a dated doc or a migration guide (by path,
 * or under such a heading: "Changelog", "## v1.2.0", "Migrating from 2.x"), nor on a line
 * that tells of the past ("deprecated since Rust 1.84", "dropped support for Node 8",
 * "removed in", "no longer", "previously"). A runtime (Node, Python, Go, Rust) counts only in
 * a requirement: "requires Node 16", "install Python 3.8+", "Node 18 or later", a line under
 * a "Requirements" or "Prerequisites" heading. A released version's docs
 * (`versioned_docs/version-0.77/`, `v1/`) are that release's and are left alone.
 */
import { VersionMatcher } from '../manifests.js';
import { baseOf, variantOf } from '../paths.js';
import type { SignalModule } from './types.js';

/** A file or folder name that holds history: changelogs, release notes, posts, migration guides. */
const HISTORY_NAME =
  /^(?:change[-_ ]?log|changes|history|news|releases?|release[-_ ]?notes|whats[-_ ]new|upgrad(?:e|ing)|migrat(?:e|ion|ions|ing))(?:[-_.].*)?(?:\.[a-z]+)?$/i;
const HISTORY_FOLDERS: ReadonlySet<string> = new Set([
  'blog',
  '_posts',
  'posts',
  'news',
  'changelog',
  'changelogs',
  'changes',
  'releases',
  'release-notes',
  'migration',
  'migrations',
  'upgrading',
  'meeting-notes',
  'meeting-notes-archive',
  'minutes',
  'notes',
  'archive',
  'archived',
]);
/** A year in a file name: a dated post, an annual report, a year's meeting notes. */
const DATED = /(?:^|[^0-9])(?:19|20)\d{2}(?![0-9])/;
/** A heading over history: a changelog, release notes, a version's entry, a migration guide. */
const HISTORY_HEADING =
  /\b(?:change ?log|release notes?|what'?s new|history|migrat(?:e|ing|ion)|upgrad(?:e|ing) (?:from|to|guide))\b|^\[?v?\d+\.\d+(?:\.\d+)?\b/i;
/** A line about the past, not a requirement of today. */
const PAST =
  /\b(?:deprecat\w*|removed|remov(?:e|es|ing) support|drops?|dropp(?:ed|ing)|no longer|used to|previously|formerly|shipped|released|introduced|was|were|since|until|prior to|earlier|legacy|end[- ]of[- ]life|EOL|backport\w*)\b/i;
/** A present-tense requirement of a runtime. */
const REQUIREMENT =
  /\b(?:requires?|required|requirements?|needs?|install\w*|minimum|at least|or (?:later|newer|above|higher|greater)|supports?|supported|compatible|prerequisites?|runs? on|use)\b|>=|≥|\d\+/i;
const REQUIREMENT_HEADING =
  /\b(?:requirements?|prerequisites?|installation|install|getting started|setup|compatibility)\b/i;
const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$/;

/** Whether a doc is history by its path: a changelog, a post, a dated or migration doc. */
export function isHistoryPath(path: string): boolean {
  const segments = path.split('/');
  const name = baseOf(path);
  return (
    HISTORY_NAME.test(name) ||
    DATED.test(name) ||
    segments.slice(0, -1).some((s) => HISTORY_FOLDERS.has(s.toLowerCase())) ||
    segments.some((s) => /migrat|upgrad/i.test(s))
  );
}

/** A version of the project, its runtime or a direct dependency that disagrees with the manifest. */
export const versionSkew: SignalModule = {
  name: 'version_skew',
  scope: 'docs',
  description:
    'a present-tense version requirement that disagrees with package.json, pyproject.toml, Cargo.toml or go.mod (never a changelog, post, migration guide or a statement of the past)',
  shownByDefault: false,
  needs: ['manifests'],
  collect({ facts, manifests }, emit) {
    if (manifests.length === 0) return;
    const matcher = new VersionMatcher([...manifests]);
    for (const doc of facts.docs.values()) {
      // A released version's docs (`versioned_docs/version-0.77/`) state that release's needs.
      if (isHistoryPath(doc.path) || variantOf(doc.path).version !== '') continue;
      /** Headings above the current line, by level. */
      const headings: string[] = [];
      for (let i = doc.parsed.frontmatter.endLine; i < doc.lines.length; i++) {
        const line = doc.lines[i]!;
        const heading = doc.parsed.codeLines.has(i + 1) ? null : HEADING.exec(line);
        if (heading) {
          headings.length = heading[1]!.length - 1;
          headings[heading[1]!.length - 1] = heading[2]!;
          continue;
        }
        // The claims first: few lines state a version, and the tests of the past and of the
        // headings above cost more than finding none (≈ 1 s of a scan of tldr-pages/tldr).
        const claims = matcher.claims(line);
        if (claims.length === 0) continue;
        if (PAST.test(line) || headings.some((h) => h !== undefined && HISTORY_HEADING.test(h))) continue;
        const required =
          REQUIREMENT.test(line) || headings.some((h) => h !== undefined && REQUIREMENT_HEADING.test(h));
        for (const claim of claims) {
          if (claim.fact.kind === 'runtime' && !required) continue;
          emit(doc.path, {
            line: i + 1,
            detail: `states ${claim.subject} ${claim.stated}; ${claim.fact.manifest} has ${claim.fact.actual}`,
            data: {
              subject: claim.subject,
              stated: claim.stated,
              actual: claim.fact.actual,
              manifest: claim.fact.manifest,
              match: claim.match,
            },
          });
        }
      }
    }
  },
};
