/** The words of every backend's restore command, quoted for a POSIX shell. */

const PLAIN_WORD = /^[A-Za-z0-9_./:@%+=,-]+$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * One word for a POSIX shell, written in printable ASCII so that it survives being shown
 * on a terminal and pasted back: plain words as they are, other printable text in single
 * quotes, and anything else (bidi marks, C1 controls, any non-ASCII byte) as
 * `"$(printf '…')"` with each such byte an octal escape — POSIX printf turns it back into
 * the exact bytes. (Ref names never contain NUL, newline or other C0 controls, which
 * command substitution could not carry.)
 */
export function shellQuote(word: string): string {
  if (PLAIN_WORD.test(word)) return word;
  if (PRINTABLE_ASCII.test(word)) return `'${word.replace(/'/g, `'\\''`)}'`;
  let format = '';
  for (const byte of Buffer.from(word, 'utf8')) {
    if (byte === 0x27) format += `'\\''`;
    else if (byte === 0x25) format += '%%';
    else if (byte === 0x5c) format += '\\\\';
    else if (byte >= 0x20 && byte <= 0x7e) format += String.fromCharCode(byte);
    else format += `\\${byte.toString(8).padStart(3, '0')}`;
  }
  return `"$(printf '${format}')"`;
}
