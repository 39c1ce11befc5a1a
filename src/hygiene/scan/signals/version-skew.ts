import { VersionMatcher } from '../manifests.js';
import type { SignalModule } from './types.js';

/** A version of the project, its runtime or a direct dependency that disagrees with the manifest. */
export const versionSkew: SignalModule = {
  name: 'version_skew',
  scope: 'docs',
  description: 'a stated version that disagrees with package.json, pyproject.toml, Cargo.toml or go.mod',
  shownByDefault: false,
  needs: ['manifests'],
  collect({ facts, manifests }, emit) {
    if (manifests.length === 0) return;
    const matcher = new VersionMatcher([...manifests]);
    for (const doc of facts.docs.values()) {
      const start = doc.parsed.frontmatter.endLine;
      for (let i = start; i < doc.lines.length; i++) {
        for (const claim of matcher.claims(doc.lines[i]!)) {
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
