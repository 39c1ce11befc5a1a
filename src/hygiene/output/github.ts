/**
 * GitHub Actions workflow commands (docs/ci.md): one `::error` or `::warning` line per
 * finding, escaped as the workflow-command rules say, so that no file name or message can
 * end a command early or start another (`%`, CR and LF in the message; those and `:` and
 * `,` in a property value).
 */
import { type Finding, findingLocation } from './findings.js';
import { findingLevel } from './level.js';

/** Escapes a command's message (what follows `::`). */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escapes a property value (`file=…`, `title=…`). */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function command(finding: Finding, isCounted?: (finding: Finding) => boolean): string {
  const props = [`file=${escapeProperty(finding.path)}`];
  if (finding.line !== undefined) props.push(`line=${finding.line}`);
  if (finding.column !== undefined) props.push(`col=${finding.column}`);
  props.push(`title=${escapeProperty(`stw ${finding.rule}`)}`);
  const entry =
    finding.entry === undefined ? '' : ` (entry ${finding.entry.id}, ${finding.entry.safety_tier})`;
  return `::${findingLevel(finding, isCounted)} ${props.join(',')}::${escapeData(`${findingLocation(finding)}: ${finding.message}${entry}`)}`;
}

/** The workflow commands for `findings`, one per line, with a trailing newline (none when empty). */
export function renderGithub(
  findings: readonly Finding[],
  isCounted?: (finding: Finding) => boolean,
): string {
  return findings.map((finding) => `${command(finding, isCounted)}\n`).join('');
}
