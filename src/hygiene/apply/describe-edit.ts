import type { Entry } from '../types.js';

/**
 * What an entry's edit really does, in words derived from `exact_edit` alone. Listings
 * show this, never only the report's free-text `op`: a report is input, and its words
 * could say "fix a link" over an edit that rewrites something else. `fileLines`, the
 * file's line count when it was read, tells a delete-range of every line (which deletes
 * the file) from one of some lines.
 */
export function describeEdit(entry: Entry, fileLines?: number): string {
  const edit = entry.exact_edit;
  if (entry.op_type === 'generative' || edit === undefined)
    return `rewrite the whole file with model-written text (${entry.category.subtype})`;
  const lines =
    edit.anchor === undefined
      ? ''
      : edit.anchor.start_line === edit.anchor.end_line
        ? `line ${edit.anchor.start_line}`
        : `lines ${edit.anchor.start_line}–${edit.anchor.end_line}`;
  const q = (text: string | undefined) => JSON.stringify(text ?? '');
  switch (edit.kind) {
    case 'delete-range': {
      if (fileLines === undefined) return `delete ${lines} (the file itself if that is every line)`;
      // Past the end is no "every line": the applier skips such an anchor (anchor-out-of-range).
      const every = edit.anchor?.start_line === 1 && edit.anchor.end_line === fileLines;
      return every ? `delete the file (${lines}: every line)` : `delete ${lines} of ${fileLines}`;
    }
    case 'replace-text':
      return `replace ${q(edit.match)} with ${q(edit.replacement)} on ${lines}`;
    case 'dedupe':
      return `replace ${lines} with a link to ${q(edit.canonical_ref)}`;
    case 'move-to-archive':
      return `move the file to ${q(edit.dest_path)} (git mv)`;
    case 'insert-frontmatter':
      return `set frontmatter ${edit.key ?? ''}: ${edit.value ?? ''}`;
    case 'delete-path':
      return `delete ${edit.recursive ? 'the folder' : 'the file'}`;
    default:
      return `${String(edit.kind)} ${lines}`.trim();
  }
}
