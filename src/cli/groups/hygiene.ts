import type { GroupSpec } from '../command.js';

export const hygieneGroup: GroupSpec = {
  name: 'hygiene',
  summary: 'Find stale and bloated docs and agent-context files; fix them in one reviewable commit',
  description:
    'Docs hygiene scans Markdown docs and agent-context files (CLAUDE.md, AGENTS.md, …),\n' +
    'classifies each candidate as stale or bloat, writes one report under .dochygiene/,\n' +
    'and applies approved fixes as exactly one git commit.',
  commands: [],
};
