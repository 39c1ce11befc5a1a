import type { ScanFacts } from '../facts.js';
import { unsafePathReason } from '../files.js';
import type { HistoryFacts } from '../history-facts.js';
import { renameTarget } from '../history-facts.js';
import type { DocRef } from '../markdown.js';
import { baseOf, dirOf } from '../paths.js';
import { checkResolved, codePathCandidates, fragmentTarget, writeTargetLike } from '../resolve.js';
import { collectCodeReferences } from './code-references.js';
import type { SignalModule } from './types.js';

/** Why an unresolved backticked path is taken for one of this repository's. */
type CodePathEvidence = 'agent-context' | 'parent-folder' | 'history';

/**
 * A backticked path often names a file of another repository, a placeholder or a URL path. In
 * agent context every unresolved one is reported (it misleads agents); elsewhere only when its
 * folder exists here or history shows the path existed here.
 */
function codePathEvidence(
  facts: ScanFacts,
  history: HistoryFacts,
  docPath: string,
  ref: DocRef,
): CodePathEvidence | undefined {
  if (facts.agentContext.has(docPath)) return 'agent-context';
  const candidates = codePathCandidates(docPath, ref.target);
  if (candidates.some((p) => dirOf(p) !== '' && facts.tree.isDir(dirOf(p)))) return 'parent-folder';
  if (candidates.some((p) => history.existed.has(p) || history.renames.has(p))) return 'history';
  return undefined;
}

/**
 * A link, image, definition, HTML href/src, fragment, `@import` or code path that does not
 * resolve; in agent context also code references the tree contradicts (code-references.ts).
 */
export const brokenReference: SignalModule = {
  name: 'broken_reference',
  description:
    'a reference whose path or fragment does not resolve, with a suggested target when one is known',
  needs: ['renames'],
  async collect({ facts, history }, emit) {
    const { tree } = facts;
    for (const doc of facts.docs.values()) {
      for (const { ref, r } of facts.resolvedRefs.get(doc.path) ?? []) {
        const check = checkResolved(r, facts.anchorsOf, tree);
        if (check.status === 'missing-path') {
          const resolved = check.resolved;
          const evidence =
            ref.kind === 'code-path' ? codePathEvidence(facts, history, doc.path, ref) : undefined;
          if (ref.kind === 'code-path' && evidence === undefined) continue;
          const data: Record<string, unknown> = { target: ref.target, kind: ref.kind };
          if (evidence !== undefined) data['evidence'] = evidence;
          const renamed = renameTarget(history.renames, resolved.path, (p) => tree.isFile(p));
          const sameName = tree.byName.get(baseOf(resolved.path))?.filter((p) => p !== resolved.path) ?? [];
          // A suggestion becomes a link in the doc and a path in the report: never an unsafe name.
          const found = renamed ?? (sameName.length === 1 ? sameName[0] : undefined);
          const suggestion = found !== undefined && unsafePathReason(found) === undefined ? found : undefined;
          if (suggestion !== undefined) {
            data['suggested_target'] = writeTargetLike(doc.path, ref, resolved, suggestion);
            data['suggested_path'] = suggestion;
            data['suggested_by'] = renamed !== undefined ? 'rename-history' : 'unique-name';
          }
          emit(doc.path, {
            line: ref.line,
            detail: `${ref.kind} target "${ref.target}" does not resolve${
              suggestion !== undefined ? `; moved to "${suggestion}"?` : ''
            }`,
            data,
          });
        } else if (check.status === 'missing-fragment') {
          emit(doc.path, {
            line: ref.line,
            detail: `fragment "#${check.resolved.fragment}" matches no heading in "${fragmentTarget(check.resolved, tree)}"`,
            data: { target: ref.target, kind: 'fragment' },
          });
        }
      }
    }
    await collectCodeReferences({ facts, history }, emit);
  },
};
