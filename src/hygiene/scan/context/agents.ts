/**
 * What each coding agent loads from a repository, kept as data: one entry per agent, each
 * rule with the documentation it comes from. The engine (`loading.ts`) is generic; adding
 * an agent or correcting a rule is an edit here, nowhere else.
 *
 * The model describes a session started at the project root. Files outside the repository
 * (the user's home, managed policy files) are not modelled: they are not the project's to
 * tidy. Where the documentation was checked, the check is recorded beside the rule.
 */

/** Stable agent ids (used by `--agent` and in reports). */
export const AGENT_IDS = [
  'claude-code',
  'codex',
  'gemini-cli',
  'copilot',
  'cursor',
  'cline',
  'windsurf',
] as const;
export type AgentId = (typeof AGENT_IDS)[number];

/** How a file a rule matched reaches the model. */
export type Activation =
  | { load: 'startup' }
  | { load: 'on-demand'; when: string }
  /** A skill: its frontmatter `name` and `description` at start-up, the whole file when used. */
  | { load: 'skill'; when: string }
  /** The agent does not read this file at all (e.g. a rule type it ignores). */
  | { load: 'never'; why: string };

/** What an activation may look at: the path and the file's frontmatter keys as written. */
export interface RuleFile {
  /** Root-relative path the rule matched. */
  path: string;
  /** Folder of `path` ('' for the root). */
  dir: string;
  /** Raw frontmatter values by key (first line of each top-level key, unquoted). */
  frontmatter: ReadonlyMap<string, string>;
}

/** What decides whether a rule applies to a path beyond its glob: the other listed files. */
export interface RuleContext {
  path: string;
  isListed: (path: string) => boolean;
}

export interface FileRule {
  /** Root-relative picomatch glob (dot files match). */
  glob: string;
  activation: (file: RuleFile) => Activation;
  /** When set, the rule matches only the paths for which it is true (a plugin's skills). */
  applies?: (file: RuleContext) => boolean;
  /** The documentation page (and section) this rule comes from. */
  source: string;
}

export interface AgentModel {
  id: AgentId;
  name: string;
  /** First matching rule wins, so list specific rules before general ones. */
  files: readonly FileRule[];
  /** `@path` imports the agent expands, and how many hops deep. */
  imports?: { maxHops: number; source: string };
  /** Block-level HTML comments are removed before the text reaches the model. */
  stripsBlockHtmlComments: boolean;
  /**
   * A byte cap over a chain of files, one per folder from the root down to the working
   * folder, concatenated in that order; what is over the cap is dropped silently.
   */
  chain?: { names: readonly string[]; maxBytes: number; setting: string; source: string };
}

const STARTUP: Activation = { load: 'startup' };
const always = (): Activation => STARTUP;
const truthy = (value: string | undefined) => value !== undefined && /^true$/i.test(value.trim());
const present = (value: string | undefined) =>
  value !== undefined && value.trim() !== '' && value.trim() !== '[]';

const CLAUDE_MEMORY = 'Claude Code docs, “Manage Claude’s memory”';
const CODEX_AGENTS_MD =
  'Codex docs, “Custom instructions with AGENTS.md”, section “How Codex discovers guidance”';
const GEMINI_MD =
  'Gemini CLI docs, “Provide context with GEMINI.md files”, section “Understand the context hierarchy”';
const COPILOT = 'GitHub Docs, “Adding repository custom instructions for GitHub Copilot”';
const CURSOR =
  'Cursor docs, “Rules” (rule types Always, Auto Attached, Agent Requested, Manual; legacy .cursorrules)';
const CLINE = 'Cline docs, “Cline Rules” overview, section “How It Works” and “Supported Rule Files”';
const CLAUDE_SKILLS = 'Claude Code docs, “Agent Skills” (where skills live; how Claude uses them)';
const CODEX_SKILLS = 'Codex docs, “Agent Skills” (progressive disclosure; skill locations, REPO scope)';
const WINDSURF =
  'Windsurf docs, “Memories & Rules”, sections “Rules” and “Activation modes”; “AGENTS.md” page';

/** Claude Code: `paths:` frontmatter scopes a rule file to matching files (loaded when one is read). */
function claudeRule(file: RuleFile): Activation {
  const paths = file.frontmatter.get('paths');
  return present(paths) || file.frontmatter.has('paths')
    ? { load: 'on-demand', when: `reading files matching its paths${present(paths) ? ` (${paths})` : ''}` }
    : STARTUP;
}

function copilotInstructions(file: RuleFile): Activation {
  const applyTo = file.frontmatter.get('applyTo');
  return present(applyTo)
    ? { load: 'on-demand', when: `working on files matching applyTo ${applyTo}` }
    : { load: 'on-demand', when: 'attached by hand (no applyTo)' };
}

/** `a/b/.claude/skills/x` → `a/b` (the folder a nested skills folder belongs to). */
const ownerOf = (skillDir: string, marker: string) => skillDir.slice(0, skillDir.lastIndexOf(`/${marker}/`));
const parentOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');

/**
 * A skill's name and description are listed at start-up; the agent reads the whole
 * SKILL.md when it uses the skill (its description matches the task, or it is invoked).
 */
const skill = (): Activation => ({
  load: 'skill',
  when: 'the skill is used (its description matches the task, or it is invoked by name)',
});

/** Skills in a nested `FOLDER/skills/` (`pkg/.claude/skills/x/SKILL.md`), on demand for that subtree. */
function nestedSkills(folder: string, when: (owner: string) => string, source: string): FileRule {
  return {
    glob: `**/${folder}/skills/*/SKILL.md`,
    activation: (f) => ({
      load: 'on-demand',
      when: `${when(ownerOf(f.dir, folder))} (then listed by name and description; the body when used)`,
    }),
    source,
  };
}

/** A plugin's skills folder: `P/skills/NAME/SKILL.md` beside `P/.claude-plugin/plugin.json`. */
function pluginOf(file: { path: string }): string {
  return parentOf(parentOf(parentOf(file.path)));
}
const inPlugin = (file: RuleContext) => {
  const plugin = pluginOf(file);
  return file.isListed(`${plugin === '' ? '' : `${plugin}/`}.claude-plugin/plugin.json`);
};

/** Cursor's four rule types, decided by frontmatter in this order. */
function cursorRule(file: RuleFile): Activation {
  const fm = file.frontmatter;
  if (truthy(fm.get('alwaysApply'))) return STARTUP;
  if (present(fm.get('globs'))) return { load: 'on-demand', when: `files matching globs ${fm.get('globs')}` };
  if (present(fm.get('description')))
    return { load: 'on-demand', when: 'the agent judges its description relevant' };
  return { load: 'on-demand', when: 'mentioned by hand (@rule)' };
}

function clineRule(file: RuleFile): Activation {
  const paths = file.frontmatter.get('paths');
  return present(paths) || file.frontmatter.has('paths')
    ? { load: 'on-demand', when: `working on files matching its paths${present(paths) ? ` (${paths})` : ''}` }
    : STARTUP;
}

/** Windsurf's `trigger:` activation modes. */
function windsurfRule(file: RuleFile): Activation {
  const trigger = file.frontmatter.get('trigger')?.trim();
  switch (trigger) {
    case 'always_on':
      return STARTUP;
    case 'glob':
      return {
        load: 'on-demand',
        when: `files matching globs ${file.frontmatter.get('globs') ?? '(none set)'}`,
      };
    case 'model_decision':
      return { load: 'on-demand', when: 'the model judges its description relevant' };
    default:
      return { load: 'on-demand', when: 'mentioned by hand (@rule)' };
  }
}

/** The loading model of every supported agent, in report order. */
export const AGENTS: readonly AgentModel[] = [
  {
    id: 'claude-code',
    name: 'Claude Code',
    files: [
      // Verified: project memory is ./CLAUDE.md or ./.claude/CLAUDE.md; CLAUDE.local.md is the
      // personal project file; memory is read from the working folder up to the file system root.
      { glob: 'CLAUDE.md', activation: always, source: `${CLAUDE_MEMORY}, “How Claude looks up memories”` },
      { glob: '.claude/CLAUDE.md', activation: always, source: `${CLAUDE_MEMORY}, “Determine memory type”` },
      { glob: 'CLAUDE.local.md', activation: always, source: `${CLAUDE_MEMORY}, “Determine memory type”` },
      // Verified: .claude/rules/*.md load like CLAUDE.md; a `paths:` list scopes one to matching files.
      {
        glob: '.claude/rules/**/*.md',
        activation: claudeRule,
        source: `${CLAUDE_MEMORY}, “Modular rules with .claude/rules/”`,
      },
      // Verified: CLAUDE.md files in subtrees are "included only when Claude reads files in those subtrees".
      {
        glob: '**/CLAUDE.md',
        activation: (f) => ({ load: 'on-demand', when: `reading files under ${f.dir}/` }),
        source: `${CLAUDE_MEMORY}, “How Claude looks up memories”`,
      },
      {
        glob: '**/CLAUDE.local.md',
        activation: (f) => ({ load: 'on-demand', when: `reading files under ${f.dir}/` }),
        source: `${CLAUDE_MEMORY}, “How Claude looks up memories”`,
      },
      // Verified: project skills are .claude/skills/NAME/SKILL.md; "Claude loads skill names and
      // descriptions at startup" and the full SKILL.md when a skill is relevant or invoked (/name).
      { glob: '.claude/skills/*/SKILL.md', activation: skill, source: CLAUDE_SKILLS },
      // Verified: skills in nested .claude/skills folders are discovered when Claude works with
      // files in that subtree (monorepos).
      nestedSkills('.claude', (owner) => `working with files under ${owner}/`, CLAUDE_SKILLS),
      // Verified: a plugin's skills are P/skills/NAME/SKILL.md beside P/.claude-plugin/plugin.json;
      // they load only once the plugin is installed, which the repository alone does not show.
      {
        glob: '**/skills/*/SKILL.md',
        applies: inPlugin,
        activation: (f) => ({
          load: 'on-demand',
          when: `the plugin in ${pluginOf(f) === '' ? 'the root' : `${pluginOf(f)}/`} is installed (then listed by name and description; the body when used)`,
        }),
        source: 'Claude Code docs, “Plugins reference” (plugin skills/ folder)',
      },
    ],
    // Verified: "Imported files can recursively import additional files, with a maximum depth of
    // 5 hops"; imports are not evaluated inside Markdown code spans and code blocks.
    imports: { maxHops: 5, source: `${CLAUDE_MEMORY}, “CLAUDE.md imports”` },
    // Block-level HTML comments are stripped before injection (the memory page, “CLAUDE.md
    // imports”); only Claude Code does this, so only its counts drop them.
    stripsBlockHtmlComments: true,
  },
  {
    id: 'codex',
    name: 'Codex',
    files: [
      // Verified: from the project root down to the working folder, at most one file per folder:
      // AGENTS.override.md, else AGENTS.md (else configured fallbacks, not modelled).
      { glob: 'AGENTS.override.md', activation: always, source: CODEX_AGENTS_MD },
      { glob: 'AGENTS.md', activation: always, source: CODEX_AGENTS_MD },
      {
        glob: '**/AGENTS.override.md',
        activation: (f) => ({ load: 'on-demand', when: `a session started in ${f.dir}/` }),
        source: CODEX_AGENTS_MD,
      },
      {
        glob: '**/AGENTS.md',
        activation: (f) => ({ load: 'on-demand', when: `a session started in ${f.dir}/` }),
        source: CODEX_AGENTS_MD,
      },
      // Verified: repository skills are .agents/skills/NAME/SKILL.md, from the working folder up to
      // the repository root; Codex starts with each skill's name, description and path and reads
      // the full SKILL.md only when it uses the skill.
      { glob: '.agents/skills/*/SKILL.md', activation: skill, source: CODEX_SKILLS },
      nestedSkills('.agents', (owner) => `a session started in ${owner}/`, CODEX_SKILLS),
    ],
    stripsBlockHtmlComments: false,
    // Verified: "Codex skips empty files and stops adding files once the combined size reaches the
    // limit defined by project_doc_max_bytes (32 KiB by default)". Codex's project_doc.rs reads each
    // file up to the remaining budget and truncates it there with only a log warning; the blank
    // lines joining the files are not counted.
    chain: {
      names: ['AGENTS.override.md', 'AGENTS.md'],
      maxBytes: 32 * 1024,
      setting: 'project_doc_max_bytes',
      source: `${CODEX_AGENTS_MD}; codex-rs/core/src/project_doc.rs`,
    },
  },
  {
    id: 'gemini-cli',
    name: 'Gemini CLI',
    files: [
      // Verified: GEMINI.md in the workspace folders and their parents load with every prompt.
      { glob: 'GEMINI.md', activation: always, source: GEMINI_MD },
      // Verified: just-in-time files — GEMINI.md in a folder a tool accesses, and its ancestors.
      {
        glob: '**/GEMINI.md',
        activation: (f) => ({ load: 'on-demand', when: `a tool accesses ${f.dir}/ (just-in-time)` }),
        source: GEMINI_MD,
      },
    ],
    // Verified: `@file.md` imports, nested, with circular-import detection; the Memory Import
    // Processor's default maximum depth is 5.
    imports: { maxHops: 5, source: 'Gemini CLI docs, “Memory Import Processor”' },
    stripsBlockHtmlComments: false,
  },
  {
    id: 'copilot',
    name: 'GitHub Copilot',
    files: [
      // Verified: repository-wide instructions apply to every request in the repository.
      {
        glob: '.github/copilot-instructions.md',
        activation: always,
        source: `${COPILOT}, “repository-wide”`,
      },
      // Verified: NAME.instructions.md within or below .github/instructions apply to files matching applyTo.
      {
        glob: '.github/instructions/**/*.instructions.md',
        activation: copilotInstructions,
        source: `${COPILOT}, “path-specific”`,
      },
    ],
    stripsBlockHtmlComments: false,
  },
  {
    id: 'cursor',
    name: 'Cursor',
    files: [
      // Verified: .mdc rules with description/globs/alwaysApply frontmatter; alwaysApply: true = Always.
      { glob: '.cursor/rules/**/*.mdc', activation: cursorRule, source: CURSOR },
      {
        glob: '**/.cursor/rules/**/*.mdc',
        activation: cursorRule,
        source: `${CURSOR} (nested rules folders)`,
      },
      // Legacy single file in the root, still read and always applied.
      { glob: '.cursorrules', activation: always, source: CURSOR },
      {
        glob: '.cursor/rules/**/*.md',
        activation: () => ({ load: 'never', why: 'Cursor reads .mdc rule files only' }),
        source: CURSOR,
      },
    ],
    stripsBlockHtmlComments: false,
  },
  {
    id: 'cline',
    name: 'Cline',
    files: [
      // Verified: every .md in .clinerules/ is combined into one ruleset; YAML frontmatter with
      // paths makes a rule conditional; a single .clinerules file; and AGENTS.md, searched
      // recursively. (Cline also falls back to .cursor/rules and .windsurf/rules when no
      // .clinerules exists; that fallback is not modelled.)
      // Verified: workflows live in .clinerules/workflows/ and run only when invoked as
      // /name.md; hooks in .clinerules/hooks/ are scripts run on events, not rules.
      {
        glob: '.clinerules/workflows/**/*.md',
        activation: (f) => ({
          load: 'on-demand',
          when: `invoked as /${f.path.slice(f.path.lastIndexOf('/') + 1)}`,
        }),
        source: 'Cline docs, “Workflows”',
      },
      {
        glob: '.clinerules/hooks/**',
        activation: () => ({ load: 'never', why: 'Cline hooks are run on events, not loaded as rules' }),
        source: 'Cline docs, “Customization overview” (Hooks)',
      },
      { glob: '.clinerules/**/*.md', activation: clineRule, source: CLINE },
      { glob: '.clinerules', activation: always, source: CLINE },
      { glob: 'AGENTS.md', activation: always, source: CLINE },
      { glob: '**/AGENTS.md', activation: always, source: `${CLINE} (AGENTS.md is searched recursively)` },
    ],
    stripsBlockHtmlComments: false,
  },
  {
    id: 'windsurf',
    name: 'Windsurf',
    files: [
      // Legacy workspace rules file, always on.
      { glob: '.windsurfrules', activation: always, source: WINDSURF },
      // Verified: .windsurf/rules with activation modes always_on, glob, model_decision, manual.
      { glob: '.windsurf/rules/**/*.md', activation: windsurfRule, source: WINDSURF },
      // Verified: AGENTS.md in the root is always on; in a subfolder it applies as a glob for that folder.
      { glob: 'AGENTS.md', activation: always, source: WINDSURF },
      {
        glob: '**/AGENTS.md',
        activation: (f) => ({ load: 'on-demand', when: `working on files under ${f.dir}/` }),
        source: WINDSURF,
      },
    ],
    stripsBlockHtmlComments: false,
  },
];

export function agentModel(id: AgentId): AgentModel {
  return AGENTS.find((agent) => agent.id === id)!;
}

/**
 * Every glob some agent reads, for the scanner: rules for files no agent reads left out, and
 * rules whose match depends on other files (`applies`: a plugin's skills).
 */
export function agentContextGlobs(): string[] {
  const globs = AGENTS.flatMap((agent) =>
    agent.files
      .filter((rule) => rule.applies === undefined && rule.activation(PROBE).load !== 'never')
      .map((rule) => rule.glob),
  );
  return [...new Set(globs)];
}

const PROBE: RuleFile = { path: '', dir: '', frontmatter: new Map() };
