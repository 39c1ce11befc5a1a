/**
 * `links.ignore` (docs/scanner-and-classifiers.md, "Silencing a finding"): targets whose
 * broken-reference findings are suppressed. An entry is a glob matched against the whole
 * target as written (`https://example.com/**`, `../legacy/*.md`, `hack/*.sh`), or, written
 * between slashes, a regular expression searched anywhere in it as lychee's `exclude` is
 * (`/^https?:\/\/(www\.)?example\.com/`, `/\.pdf$/i`). The target is tried as written and
 * without its `#fragment` or `?query`.
 *
 * Both come from the repository's config, so both are hostile input: a glob runs on the
 * linear-time automaton of scan/lifecycle-glob.ts, a regular expression on RE2JS (RE2's
 * linear-time engine: no backreferences or lookaround, which RE2 refuses at compile time).
 * A backtracking engine could be held for hours by a pattern like `(a+)+$` against a long
 * target, with the event loop blocked and no deadline able to stop it.
 */
import { RE2JS } from 're2js';
import { globProblem, ruleMatcher } from '../lifecycle-glob.js';

/** Longest entry accepted (as for a lifecycle `match`). */
const MAX_ENTRY_LENGTH = 512;
/** `/body/` or `/body/i`. */
const REGEX_ENTRY = /^\/([\s\S]+)\/(i?)$/;
/**
 * Syntax only a regular expression has (an anchor, an escaped `.` or class, an alternation):
 * an entry written as a glob with it was meant as a regex, as lychee writes them.
 */
const REGEX_ONLY = /^\^|[^\\]\$$|\\[.dDwWsSbB]|\|/;

function compileRegex(body: string, flags: string): RE2JS {
  return RE2JS.compile(body, flags === 'i' ? RE2JS.CASE_INSENSITIVE : 0);
}

/** Why `entry` cannot be a `links.ignore` entry, or undefined when it can. */
export function linkIgnoreProblem(entry: string): string | undefined {
  if (entry.length > MAX_ENTRY_LENGTH)
    return `the entry is ${entry.length} characters long; at most ${MAX_ENTRY_LENGTH} are accepted`;
  const regex = REGEX_ENTRY.exec(entry);
  if (regex !== null) {
    try {
      compileRegex(regex[1]!, regex[2]!);
      return undefined;
    } catch (error) {
      const why = (error as Error).message.split('\n')[0];
      return `not a regular expression RE2 accepts (no backreferences or lookaround): ${why}`;
    }
  }
  if (REGEX_ONLY.test(entry))
    return `looks like a regular expression (lychee's exclude syntax); write it between slashes: /${entry}/`;
  return globProblem(entry);
}

/** The forms of a target an entry is tried on: as written, then without `#…` and `?…`. */
function forms(target: string): string[] {
  const bare = target.replace(/#.*$/s, '');
  const noQuery = bare.replace(/\?.*$/s, '');
  return [...new Set([target, bare, noQuery])].filter((t) => t !== '');
}

/** One matcher per entry (each must pass `linkIgnoreProblem`). */
export class LinkIgnore {
  private readonly matchers: ((text: string) => boolean)[];

  constructor(readonly entries: readonly string[]) {
    this.matchers = entries.map((entry) => {
      const regex = REGEX_ENTRY.exec(entry);
      if (regex === null) return ruleMatcher(entry);
      const re = compileRegex(regex[1]!, regex[2]!);
      return (text: string) => re.matcher(text).find();
    });
  }

  /** The index of the first entry matching `target`, or undefined. */
  match(target: string): number | undefined {
    const tried = forms(target);
    const index = this.matchers.findIndex((matches) => tried.some((t) => matches(t)));
    return index === -1 ? undefined : index;
  }
}
