/**
 * Line arithmetic shared by the classifier and the report builder. Lines are split on
 * `\n` only (a `\r` stays with its line, so CRLF files count the same); a final newline
 * ends the last line rather than starting an empty one.
 */

/** The file's lines, without their terminating `\n`. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  return lines;
}

/** Number of lines, as a 1-based anchor's `end_line` can reach. */
export function lineCount(text: string): number {
  return splitLines(text).length;
}

/** The text of lines `start..end` (1-based, inclusive), joined with `\n`. */
export function spanText(lines: readonly string[], start: number, end: number): string {
  return lines.slice(start - 1, end).join('\n');
}
