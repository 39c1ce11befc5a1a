import type { GroupSpec } from './command.js';

function table(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(0, ...rows.map(([name]) => name.length));
  return rows.map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`).join('\n');
}

export function rootHelp(groups: readonly GroupSpec[], version: string): string {
  const listed = groups.filter((group) => group.commands.length > 0);
  return [
    `stw ${version} — SourceSteward: evidence-based repository hygiene`,
    '',
    'Usage: stw <group> <command> [options]',
    '',
    'Groups:',
    table(listed.map((group) => [group.name, group.summary])),
    '',
    'Options:',
    table([
      ['-h, --help', 'Show help (also: stw <group> --help, stw <group> <command> --help)'],
      ['-V, --version', 'Print the version'],
    ]),
    '',
    'Environment:',
    table([
      ['STW_NOW', 'RFC 3339 instant that pins the clock for every command'],
      ['NO_COLOR', 'Disable colour in human output'],
    ]),
    '',
    'Exit codes: 0 success (including nothing to do), 1 refusal or failure, 2 invalid usage.',
  ].join('\n');
}

export function groupHelp(group: GroupSpec): string {
  const lines = [`Usage: stw ${group.name} <command> [options]`, '', group.description, ''];
  if (group.commands.length === 0) lines.push('No commands in this group ship in this release.');
  else {
    lines.push('Commands:');
    lines.push(table(group.commands.map((command) => [command.name, command.summary])));
    lines.push('', `Run 'stw ${group.name} <command> --help' for a command's options.`);
  }
  return lines.join('\n');
}
