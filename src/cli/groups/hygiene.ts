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
      name: 'scan',
      summary: 'List docs with deterministic staleness and bloat signals (no model)',
      help: [
        'Usage: stw hygiene scan [--scope GLOB|PATH]… [--json]',
        '',
        'Scans the Markdown docs and agent-context files (CLAUDE.md, AGENTS.md, GEMINI.md,',
        '.cursor/rules/*.mdc, .github/copilot-instructions.md and what they @import) of the',
        'project (the git toplevel, else the current directory) and prints, per file, the',
        'signals a classifier needs: broken_reference, version_skew, edit_recency_vs_churn,',
        'stale_name_location, archive_to_live_ratio, frontmatter_marker, append_only_growth,',
        'duplicate_content and context_weight. Git facts come from one history pass.',
        '',
        'Never scanned (listed under "excluded" with the reason): files git ignores,',
        '.dochygiene/, the configured excluded directories, .dochygiene-ignore patterns,',
        'append-only logs (CHANGELOG*, HISTORY*, NEWS*, RELEASES*, *.log.md, frontmatter',
        "'hygiene: append-only'), 'hygiene: frozen' docs, binary and non-UTF-8 files, and",
        'symlinks that lead out of the project.',
        '',
        'In a shallow clone or outside a repository the scan still runs; the history',
        'signals are listed as unavailable with the reason.',
        '',
        'Options:',
        '  --scope GLOB|PATH  only scan docs under PATH or matching GLOB (repeatable;',
        '                     relative to the current directory)',
        '  --json             print the scan artifact (schemas/scan.schema.json)',
        '  -h, --help         show this help',
        '',
        'Exit status: 0 scanned; 1 history could not be read (partial result) or a',
        'failure; 2 invalid usage.',
      ].join('\n'),
      load: () => import('../commands/hygiene-scan.js'),
    },
  ],
};
