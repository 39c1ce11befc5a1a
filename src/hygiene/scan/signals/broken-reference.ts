import { unsafePathReason } from '../files.js';
import { renameTarget } from '../history-facts.js';
import { baseOf } from '../paths.js';
import { checkResolved, writeTargetLike } from '../resolve.js';
import type { SignalModule } from './types.js';

/** A link, image, definition, HTML href/src, fragment, `@import` or code path that does not resolve. */
export const brokenReference: SignalModule = {
  name: 'broken_reference',
  description:
    'a reference whose path or fragment does not resolve, with a suggested target when one is known',
  needs: ['renames'],
  collect({ facts, history }, emit) {
    const { tree } = facts;
    for (const doc of facts.docs.values()) {
      for (const { ref, r } of facts.resolvedRefs.get(doc.path) ?? []) {
        const check = checkResolved(r, facts.anchorsOf);
        if (check.status === 'missing-path') {
          const resolved = check.resolved;
          const data: Record<string, unknown> = { target: ref.target, kind: ref.kind };
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
            detail: `fragment "#${check.resolved.fragment}" matches no heading in "${check.resolved.path}"`,
            data: { target: ref.target, kind: 'fragment' },
          });
        }
      }
    }
  },
};
