/**
 * `--refs-from FILE|-`: literal full ref names, one per line or NUL-separated. Nothing is
 * expanded — no globs, revsets or trimming; the names are checked exactly as `--ref`
 * values are. Empty entries (a final newline, a blank line) name nothing and are skipped.
 */
import { RefusalError } from '../core/errors.js';

/** The most bytes a list may have: the entry bound's worth of maximal names, and separators. */
export function refListByteLimit(maxEntries: number, maxTextBytes: number): number {
  return (maxEntries + 1) * (maxTextBytes + 1);
}

export function parseRefList(bytes: Buffer, source: string): string[] {
  const text = bytes.toString('utf8');
  if (Buffer.compare(Buffer.from(text, 'utf8'), bytes) !== 0)
    throw new RefusalError('invalid-ref', `--refs-from ${source} is not valid UTF-8`);
  const separator = text.includes('\0') ? '\0' : '\n';
  return text.split(separator).filter((name) => name !== '');
}
