import type { GroupSpec } from '../command.js';

export const hygieneGroup: GroupSpec = {
  name: 'hygiene',
  summary: 'Find stale and bloated docs and agent-context files; fix them in one reviewable commit',
  description:
    'Docs hygiene scans Markdown docs and agent-context files (CLAUDE.md, AGENTS.md, …),\n' +
    'classifies each candidate as stale or bloat, writes one report under .dochygiene/,\n' +
    'and applies approved fixes as exactly one git commit.',
  commands: [
    {
      name: 'remind',
      summary: 'SessionStart hook: one JSON banner line when the last check is stale',
      isHook: true,
      help: [
        'Usage: stw hygiene remind',
        '',
        'The Claude Code SessionStart hook. In a git work tree, when the last docs hygiene',
        'check is missing or older than reminder.stale_after_days (.dochygiene.yml, default 7)',
        'and no reminder was shown today (local calendar day, TZ), prints exactly one line:',
        '  {"systemMessage": "… Run /hygiene check …"}',
        'and records last_reminded in .dochygiene/state.json. Otherwise prints nothing.',
        '',
        'It writes nothing else, runs no scan and calls no model. Missing or corrupt state,',
        'an unwritable .dochygiene/, a bad .dochygiene.yml, a malformed STW_NOW or no',
        'repository: nothing on stdout, at most one line on stderr.',
        '',
        'Exit status: always 0 (2 only for invalid usage, e.g. an unknown option).',
      ].join('\n'),
      load: () => import('../commands/hygiene-remind.js'),
    },
    {
      name: 'status',
      summary: 'Show the last check, clean and reminder times and whether a report exists',
      help: [
        'Usage: stw hygiene status [--json]',
        '',
        'Read-only. Shows last_check, last_clean and last_reminded from .dochygiene/state.json',
        '(project root = git toplevel, else the current directory), whether a report pair',
        'exists, and whether git ignores .dochygiene/ (if not, the line to add to .gitignore).',
        '',
        'Options:',
        '  --json   One JSON document: {status, now, project_root, state, report, state_dir_ignored}',
        '',
        'Exit status: 0 shown; 1 when state.json is corrupt or unreadable.',
      ].join('\n'),
      load: () => import('../commands/hygiene-status.js'),
    },
    {
      name: 'validate',
      summary: 'Check a report against schema 1.0 and its cross-field rules',
      help: [
        'Usage: stw hygiene validate FILE [--json]',
        '',
        'Validates a machine report (e.g. .dochygiene/report.json) against the shipped JSON',
        'Schema (schemas/report.schema.json) and the cross-field rules: op_type ⇔ exact_edit,',
        'anchor and fields required by kind, flags from KIND_TABLE, safety_tier equals the',
        'derived tier, entry paths in shortlist, unique ids, anchor ranges (against the files',
        'under scan.project_root when it exists), weighted_tokens = raw × frequency, subtype',
        'belongs to its class, totals. Prints every violation with its JSON path.',
        '',
        'Options:',
        '  --json   One JSON document: {status, file, valid, violations, lines_checked_against}',
        '',
        'Exit status: 0 valid; 1 invalid; 2 missing or unreadable file, not JSON, bad usage.',
      ].join('\n'),
      load: () => import('../commands/hygiene-validate.js'),
    },
  ],
};
