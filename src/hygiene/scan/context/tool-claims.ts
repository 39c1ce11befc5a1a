/**
 * Claims about a project's tools that code can check, kept as data like the agent-loading
 * model (`agents.ts`): one row per tool, with how a context file names it and what in the
 * repository shows the tool is in use — its config files, a dependency in a manifest, files
 * of its kind, a section of a shared config file. `dropped_tool_claim` reports a file naming
 * a tool of which none of these is left while history shows one was removed. Adding a tool
 * is a new row here, nowhere else.
 *
 * Only what a file listing and git can prove is here: "we prefer small functions" is no
 * row, and neither is a tool whose name is an everyday word ("black", "make sure"). Those
 * claims are left to the model classifier.
 */

export interface ToolEvidence {
  /** Root-relative picomatch globs of files whose presence shows the tool in use. */
  files: readonly string[];
  /** npm package names: in use when a tracked `package.json` names one (any dependency field). */
  npm?: readonly string[];
  /** Text in a tracked file that shows the tool configured (`[tool.poetry` in `pyproject.toml`). */
  sections?: readonly { file: string; text: string }[];
}

export interface ToolClaim {
  id: string;
  name: string;
  /** How a context file names the tool (matched on whole lines, code included). */
  mention: RegExp;
  evidence: ToolEvidence;
}

const js = (base: string) => [`**/${base}.{js,cjs,mjs,ts,cts,mts,json}`];

/** The tools whose use code can check, in report order. */
export const TOOL_CLAIMS: readonly ToolClaim[] = [
  // Documentation site generators.
  { id: 'mkdocs', name: 'MkDocs', mention: /\bmkdocs\b/i, evidence: { files: ['**/mkdocs.{yml,yaml}'] } },
  {
    id: 'docusaurus',
    name: 'Docusaurus',
    mention: /\bdocusaurus\b/i,
    evidence: { files: js('docusaurus.config'), npm: ['@docusaurus/core'] },
  },
  {
    id: 'jekyll',
    name: 'Jekyll',
    mention: /\bjekyll\b/i,
    evidence: { files: ['**/_config.yml'], sections: [{ file: '**/Gemfile', text: 'jekyll' }] },
  },
  {
    id: 'gatsby',
    name: 'Gatsby',
    mention: /\bgatsby\b/i,
    evidence: { files: js('gatsby-config'), npm: ['gatsby'] },
  },
  // Test runners.
  { id: 'jest', name: 'Jest', mention: /\bjest\b/i, evidence: { files: js('jest.config'), npm: ['jest'] } },
  {
    id: 'vitest',
    name: 'Vitest',
    mention: /\bvitest\b/i,
    evidence: { files: [...js('vitest.config'), ...js('vitest.workspace')], npm: ['vitest'] },
  },
  {
    id: 'mocha',
    name: 'Mocha',
    mention: /\bmocha\b/i,
    evidence: { files: ['**/.mocharc*'], npm: ['mocha'] },
  },
  {
    id: 'cypress',
    name: 'Cypress',
    mention: /\bcypress\b/i,
    evidence: { files: [...js('cypress.config'), '**/cypress.json', '**/cypress/**'], npm: ['cypress'] },
  },
  // Linters and formatters.
  {
    id: 'eslint',
    name: 'ESLint',
    mention: /\beslint\b/i,
    evidence: { files: ['**/.eslintrc*', ...js('eslint.config')], npm: ['eslint'] },
  },
  {
    id: 'tslint',
    name: 'TSLint',
    mention: /\btslint\b/i,
    evidence: { files: ['**/tslint.json'], npm: ['tslint'] },
  },
  {
    id: 'prettier',
    name: 'Prettier',
    mention: /\bprettier\b/i,
    evidence: { files: ['**/.prettierrc*', ...js('prettier.config')], npm: ['prettier'] },
  },
  {
    id: 'biome',
    name: 'Biome',
    mention: /\bbiome\b/i,
    evidence: { files: ['**/biome.{json,jsonc}'], npm: ['@biomejs/biome'] },
  },
  {
    id: 'flake8',
    name: 'Flake8',
    mention: /\bflake8\b/i,
    evidence: { files: ['**/.flake8'], sections: [{ file: '**/{setup.cfg,tox.ini}', text: '[flake8]' }] },
  },
  {
    id: 'pylint',
    name: 'Pylint',
    mention: /\bpylint\b/i,
    evidence: {
      files: ['**/{.pylintrc,pylintrc}'],
      sections: [{ file: '**/pyproject.toml', text: '[tool.pylint' }],
    },
  },
  // Builds and bundlers.
  {
    id: 'webpack',
    name: 'webpack',
    mention: /\bwebpack\b/i,
    evidence: { files: js('webpack.config'), npm: ['webpack'] },
  },
  {
    id: 'rollup',
    name: 'Rollup',
    mention: /\brollup\b/i,
    evidence: { files: js('rollup.config'), npm: ['rollup'] },
  },
  {
    id: 'babel',
    name: 'Babel',
    mention: /\bbabel\b/i,
    evidence: { files: ['**/.babelrc*', ...js('babel.config')], npm: ['@babel/core'] },
  },
  { id: 'gulp', name: 'gulp', mention: /\bgulp\b/i, evidence: { files: ['**/gulpfile.*'], npm: ['gulp'] } },
  {
    id: 'grunt',
    name: 'Grunt',
    mention: /\bgrunt\b/i,
    evidence: { files: ['**/Gruntfile.*'], npm: ['grunt'] },
  },
  // Package managers and monorepo tools.
  { id: 'yarn', name: 'Yarn', mention: /\byarn\b/i, evidence: { files: ['**/yarn.lock', '**/.yarnrc*'] } },
  {
    id: 'pnpm',
    name: 'pnpm',
    mention: /\bpnpm\b/i,
    evidence: { files: ['**/pnpm-lock.yaml', '**/pnpm-workspace.yaml'] },
  },
  {
    id: 'lerna',
    name: 'Lerna',
    mention: /\blerna\b/i,
    evidence: { files: ['**/lerna.json'], npm: ['lerna'] },
  },
  {
    id: 'turborepo',
    name: 'Turborepo',
    mention: /\bturbo(?:repo)?\b/i,
    evidence: { files: ['**/turbo.json'], npm: ['turbo'] },
  },
  {
    id: 'poetry',
    name: 'Poetry',
    mention: /\bpoetry\b/i,
    evidence: { files: ['**/poetry.lock'], sections: [{ file: '**/pyproject.toml', text: '[tool.poetry' }] },
  },
  {
    id: 'pipenv',
    name: 'Pipenv',
    mention: /\bpipenv\b/i,
    evidence: { files: ['**/Pipfile', '**/Pipfile.lock'] },
  },
  {
    id: 'tox',
    name: 'tox',
    mention: /\btox\b/,
    evidence: { files: ['**/tox.ini'], sections: [{ file: '**/pyproject.toml', text: '[tool.tox' }] },
  },
  { id: 'nox', name: 'Nox', mention: /\bnox\b/, evidence: { files: ['**/noxfile.py'] } },
  // Continuous integration and containers.
  { id: 'travis', name: 'Travis CI', mention: /\btravis\b/i, evidence: { files: ['.travis.yml'] } },
  { id: 'circleci', name: 'CircleCI', mention: /\bcircle ?ci\b/i, evidence: { files: ['.circleci/**'] } },
  {
    id: 'docker-compose',
    name: 'Docker Compose',
    mention: /\bdocker[- ]compose\b/i,
    evidence: { files: ['**/{docker-,}compose{,.*}.{yml,yaml}'] },
  },
  // Kinds of files in use.
  {
    id: 'css-modules',
    name: 'CSS modules',
    mention: /\bCSS modules?\b|\.module\.s?css\b/i,
    evidence: { files: ['**/*.module.{css,scss,sass,less}'] },
  },
  {
    id: 'sass',
    name: 'Sass',
    mention: /\bsass\b|\bscss\b/i,
    evidence: { files: ['**/*.{scss,sass}'], npm: ['sass', 'node-sass'] },
  },
];
