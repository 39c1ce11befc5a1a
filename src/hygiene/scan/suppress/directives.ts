/**
 * Inline suppression directives (docs/scanner-and-classifiers.md, "Silencing a finding"), read
 * from the HTML comments the Markdown parser found outside code (`ParsedDoc.directives`):
 *
 * - `<!-- stw-ignore-line [signal…] -->`: the findings on the comment's own line(s);
 * - `<!-- stw-ignore-next-line [signal…] -->`: the findings on the line after it;
 * - `<!-- stw-disable [signal…] -->` … `<!-- stw-enable [signal…] -->`: the findings on the
 *   lines between (to the end of the file when never enabled again); one at the top of the
 *   file (nothing but frontmatter, blank lines and comments before it) covers the file from
 *   its first line, frontmatter included, and the file's findings that have no line.
 *
 * No signal name: every class. markdown-link-check's comments (`markdown-link-check-disable`,
 * `-enable`, `-disable-next-line`, `-disable-line`), which users already write for a link
 * checker, are read as the same forms for link findings only (a `broken_reference` of a link,
 * image, definition, HTML attribute or fragment; not a backticked path). lychee has no inline
 * form (its exclusions are `exclude` regexes: `links.ignore` here).
 */
import { SIGNAL_NAMES, type Signal, type SignalName } from '../../types.js';
import type { ParsedDoc } from '../markdown.js';

export type DirectiveForm = 'ignore-line' | 'ignore-next-line' | 'disable' | 'enable';

export interface Directive {
  /** 1-based lines of the comment. */
  line: number;
  endLine: number;
  form: DirectiveForm;
  /** The comment's body as written (one line), for listings. */
  text: string;
  /** The classes it names; undefined: every class (for an alias, every link finding). */
  names?: SignalName[];
  /** A markdown-link-check comment: link findings only. */
  linksOnly: boolean;
  /** Words that name no signal (reported by --report-unused-suppressions). */
  unknown: string[];
  /** Why the comment is no directive at all (an unknown `stw-` form), when it is not. */
  malformed?: string;
}

const FORMS: Readonly<Record<string, { form: DirectiveForm; linksOnly: boolean }>> = {
  'stw-ignore-line': { form: 'ignore-line', linksOnly: false },
  'stw-ignore-next-line': { form: 'ignore-next-line', linksOnly: false },
  'stw-disable': { form: 'disable', linksOnly: false },
  'stw-enable': { form: 'enable', linksOnly: false },
  'markdown-link-check-disable-line': { form: 'ignore-line', linksOnly: true },
  'markdown-link-check-disable-next-line': { form: 'ignore-next-line', linksOnly: true },
  'markdown-link-check-disable': { form: 'disable', linksOnly: true },
  'markdown-link-check-enable': { form: 'enable', linksOnly: true },
};

const KNOWN: ReadonlySet<string> = new Set(SIGNAL_NAMES);

/** The stw forms, for the message about a `stw-` comment that is none of them. */
export const DIRECTIVE_FORMS = Object.keys(FORMS).filter((f) => f.startsWith('stw-'));

/** One comment body as a directive; undefined for a markdown-link-check comment of another kind. */
export function parseDirective(text: string, line: number, endLine: number): Directive | undefined {
  // A description after ` -- ` is the author's note (ESLint's convention), never a signal name.
  const body = text.replace(/\s+--\s[\s\S]*$/, '').trim();
  const [keyword = '', ...words] = body.split(/[\s,]+/).filter((w) => w !== '');
  const shown = body.replace(/\s+/g, ' ');
  const known = FORMS[keyword];
  if (known === undefined) {
    if (!keyword.startsWith('stw-')) return undefined;
    return {
      line,
      endLine,
      form: 'ignore-line',
      text: shown,
      linksOnly: false,
      unknown: [],
      malformed: `unknown directive ${JSON.stringify(keyword)} (use ${DIRECTIVE_FORMS.join(', ')})`,
    };
  }
  // markdown-link-check's comments take no names: anything after them is prose.
  const named = known.linksOnly ? [] : words;
  const names = named.filter((w): w is SignalName => KNOWN.has(w));
  return {
    line,
    endLine,
    form: known.form,
    text: shown,
    ...(named.length > 0 ? { names } : {}),
    linksOnly: known.linksOnly,
    unknown: named.filter((w) => !KNOWN.has(w)),
  };
}

/** A link finding, the only kind a markdown-link-check comment silences. */
export function isLinkFinding(signal: Signal): boolean {
  const kind = signal.data?.['kind'];
  return signal.name === 'broken_reference' && kind !== 'code-path' && kind !== 'import';
}

function covers(directive: Directive, signal: Signal): boolean {
  if (directive.malformed !== undefined) return false;
  if (directive.linksOnly) return isLinkFinding(signal);
  return directive.names === undefined || directive.names.includes(signal.name);
}

interface Region {
  directive: Directive;
  from: number;
  /** Inclusive; Infinity when never enabled again. */
  to: number;
  /** The disable comes before any content: it also covers the file's findings with no line. */
  top: boolean;
  /** Its place among the doc's regions: the first that silences a finding is credited. */
  order: number;
}

/**
 * The first region of `regions` (one key's, by `from`; they meet at most on the line where an
 * enable and the next disable share a line) that holds `line`, if any.
 */
function regionAt(regions: readonly Region[], line: number): Region | undefined {
  let low = 0;
  let high = regions.length - 1;
  let last = -1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (regions[mid]!.from <= line) {
      last = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  let found: Region | undefined;
  for (let i = last; i >= 0 && regions[i]!.to >= line; i--) found = regions[i];
  return found;
}

/** The directives of one doc, and which finding each silences. */
export class DocSuppressions {
  readonly directives: Directive[];
  private readonly regions: Region[] = [];
  /**
   * The regions by key, and the line directives by the line they silence: a finding is looked
   * up in a few steps, never against every directive (30,000 of them beside 60,000 findings
   * held a check for more than ten minutes).
   */
  private readonly regionsByKey = new Map<string, Region[]>();
  private readonly byLine = new Map<number, Directive[]>();
  /** How many findings each directive silenced. */
  readonly used = new Map<Directive, number>();

  constructor(parsed: Pick<ParsedDoc, 'directives' | 'frontmatter' | 'commentBlocks' | 'lines'>) {
    this.directives = parsed.directives
      .map((c) => parseDirective(c.text, c.line, c.endLine))
      .filter((d): d is Directive => d !== undefined);
    this.buildRegions(firstContentLine(parsed));
    for (const d of this.directives) {
      if (d.form === 'ignore-line') for (let line = d.line; line <= d.endLine; line++) this.atLine(line, d);
      else if (d.form === 'ignore-next-line') this.atLine(d.endLine + 1, d);
    }
  }

  private atLine(line: number, directive: Directive): void {
    const list = this.byLine.get(line);
    if (list === undefined) this.byLine.set(line, [directive]);
    else list.push(directive);
  }

  private buildRegions(firstContent: number): void {
    /** Open regions by key: a signal name, `*` (every class) or `links` (an alias). */
    const open = new Map<string, Region>();
    const close = (key: string, at: number) => {
      const region = open.get(key);
      if (region === undefined) return;
      region.to = at;
      open.delete(key);
    };
    for (const d of this.directives) {
      if (d.malformed !== undefined) continue;
      const keys = d.linksOnly ? ['links'] : (d.names ?? ['*']);
      if (d.form === 'disable') {
        for (const key of keys) {
          if (open.has(key)) continue;
          // At the top (nothing but frontmatter, blank lines and comments before it), a disable
          // covers the file from its first line: the frontmatter, and findings with no line.
          const top = d.line < firstContent;
          const from = top ? 1 : d.line;
          const region = {
            directive: d,
            from,
            to: Number.POSITIVE_INFINITY,
            top,
            order: this.regions.length,
          };
          open.set(key, region);
          this.regions.push(region);
          const byKey = this.regionsByKey.get(key);
          if (byKey === undefined) this.regionsByKey.set(key, [region]);
          else byKey.push(region);
        }
      } else if (d.form === 'enable') {
        // `stw-enable` ends every stw region; `stw-enable NAME` the one of that name.
        const ending = d.linksOnly ? ['links'] : (d.names ?? [...open.keys()].filter((k) => k !== 'links'));
        for (const key of ending) close(key, d.endLine);
      }
    }
  }

  /** The directive that silences `signal`, counting the use; undefined when none does. */
  silencing(signal: Signal): Directive | undefined {
    const found = this.find(signal);
    if (found !== undefined) this.used.set(found, (this.used.get(found) ?? 0) + 1);
    return found;
  }

  private find(signal: Signal): Directive | undefined {
    const line = signal.line;
    if (line === undefined) return this.regions.find((r) => r.top && covers(r.directive, signal))?.directive;
    const atLine = this.byLine.get(line)?.find((d) => covers(d, signal));
    if (atLine !== undefined) return atLine;
    let first: Region | undefined;
    for (const regions of this.regionsByKey.values()) {
      const region = regionAt(regions, line);
      if (
        region !== undefined &&
        covers(region.directive, signal) &&
        (first === undefined || region.order < first.order)
      )
        first = region;
    }
    return first?.directive;
  }
}

/**
 * The 1-based line of the file's first content: not frontmatter, not blank, not inside a block
 * HTML comment (a directive on or before it is "at the top").
 */
function firstContentLine(parsed: Pick<ParsedDoc, 'frontmatter' | 'commentBlocks' | 'lines'>): number {
  // Lines inside a block comment, marked once (a lookup per line would cost lines × comments).
  const inComment = new Uint8Array(parsed.lines.length);
  for (const [start, end] of parsed.commentBlocks)
    inComment.fill(1, start, Math.min(end, parsed.lines.length));
  for (let i = parsed.frontmatter.endLine; i < parsed.lines.length; i++) {
    if ((parsed.lines[i] ?? '').trim() === '' || inComment[i] === 1) continue;
    return i + 1;
  }
  return Number.POSITIVE_INFINITY;
}
