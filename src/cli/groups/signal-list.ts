import { readFileSync } from 'node:fs';

/**
 * The scanner's signal names for `stw hygiene scan --help`, generated at build time from the
 * signal modules (scripts/generate-signal-lists.mjs writes signal-list.json next to this
 * module), so the help cannot drift from what the scanner runs.
 */
interface SignalList {
  docs: string[];
  agent_context: string[];
  /** Classes hidden by default (a module's `shownByDefault`). */
  hidden: string[];
  /** Shown classes that hold back a weak part (a module's `heldBack`). */
  held_back?: string[];
}

function series(names: readonly string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** Greedy word wrap at `width` columns. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** "signals a classifier needs: …; in agent-context files also …." as help lines. */
export function signalHelpLines(width = 88): string[] {
  const list = JSON.parse(readFileSync(new URL('./signal-list.json', import.meta.url), 'utf8')) as SignalList;
  const hidden =
    list.hidden.length > 0
      ? ` Hidden by default (counted, not shown; --signals all shows them): ${series(list.hidden)}.`
      : '';
  const held =
    (list.held_back ?? []).length > 0
      ? ` Shown but for a weak part held back the same way: ${series(list.held_back!)}.`
      : '';
  return wrap(
    `signals a classifier needs: ${series(list.docs)}; in agent-context files also ${series(list.agent_context)}.${hidden}${held}`,
    width,
  );
}
