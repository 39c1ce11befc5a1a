import { ARCHIVE_SEGMENTS, dirOf, isArchivePath } from '../paths.js';
import type { Doc } from '../walk.js';
import type { SignalModule } from './types.js';

/** A live doc whose folder holds more archived than live docs, or whose links point mostly into archives. */
export const archiveToLiveRatio: SignalModule = {
  name: 'archive_to_live_ratio',
  scope: 'docs',
  description: 'its folder holds more archived than live docs, or it links mostly into archives',
  shownByDefault: true,
  needs: [],
  collect({ facts }, emit) {
    const archivedIn = new Map<string, number>();
    for (const path of facts.allDocs) {
      const segments = path.split('/');
      const at = segments.slice(0, -1).findIndex((s) => ARCHIVE_SEGMENTS.has(s.toLowerCase()));
      if (at === -1) continue;
      const folder = segments.slice(0, at).join('/');
      archivedIn.set(folder, (archivedIn.get(folder) ?? 0) + 1);
    }
    const liveIn = new Map<string, number>();
    for (const doc of facts.docs.values()) {
      const folder = dirOf(doc.path);
      if (isArchivedMarked(doc)) archivedIn.set(folder, (archivedIn.get(folder) ?? 0) + 1);
      else liveIn.set(folder, (liveIn.get(folder) ?? 0) + 1);
    }
    for (const doc of facts.docs.values()) {
      if (isArchivedMarked(doc) || isArchivePath(doc.path)) continue;
      const folder = dirOf(doc.path);
      const archived = archivedIn.get(folder) ?? 0;
      const live = liveIn.get(folder) ?? 0;
      let linksTotal = 0;
      let linksToArchive = 0;
      for (const { ref, r } of facts.resolvedRefs.get(doc.path) ?? []) {
        if (!r?.exists || ref.kind === 'code-path' || ref.kind === 'import' || r.path === doc.path) continue;
        linksTotal++;
        if (isArchivePath(r.path)) linksToArchive++;
      }
      const folderHeavy = archived > live;
      const linksHeavy = linksTotal >= 2 && linksToArchive * 2 > linksTotal;
      if (!folderHeavy && !linksHeavy) continue;
      emit(doc.path, {
        detail: folderHeavy
          ? `its folder holds ${archived} archived and ${live} live docs`
          : `${linksToArchive} of its ${linksTotal} links point into archives`,
        data: {
          archived,
          live,
          ...(linksTotal > 0 ? { links_to_archive: linksToArchive, links_total: linksTotal } : {}),
        },
      });
    }
  },
};

function isArchivedMarked(doc: Doc): boolean {
  const fm = doc.parsed.frontmatter.data;
  return fm?.['archived'] === true || String(fm?.['status'] ?? '').toLowerCase() === 'archived';
}
