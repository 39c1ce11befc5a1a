/**
 * Safe display of opaque text (paths, ref names, commit subjects, messages). Control
 * characters, escape sequences and bidirectional overrides are escaped so they can
 * never reach the terminal raw.
 */

// C0 controls, DEL, C1 controls, bidi embedding/override/isolate marks, line/paragraph separators.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_OR_QUOTING =
  /["\\\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NEEDS_QUOTES =
  /[\s"'\\]|[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function escapeChar(ch: string): string {
  switch (ch) {
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
    case '\u001b':
      return '\\e';
    default: {
      const code = ch.codePointAt(0) ?? 0;
      return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
    }
  }
}

/** The text with every unsafe character escaped; printable text is unchanged. */
export function escapeText(text: string): string {
  return text.replace(UNSAFE, escapeChar);
}

/**
 * Text ready for human output: unchanged when plainly printable, otherwise escaped and
 * wrapped in double quotes so the reader can see where it starts and ends.
 */
export function quote(text: string): string {
  if (text !== '' && !NEEDS_QUOTES.test(text)) return text;
  UNSAFE_OR_QUOTING.lastIndex = 0;
  return `"${text.replace(UNSAFE_OR_QUOTING, (ch) => (ch === '\\' || ch === '"' ? `\\${ch}` : escapeChar(ch)))}"`;
}

/** True when the text contains nothing that `escapeText` would change. */
export function isSafeText(text: string): boolean {
  UNSAFE.lastIndex = 0;
  return !UNSAFE.test(text);
}
