// Benchmark: what the Claude Code plugin costs each session. (1) `stw hygiene remind`, the
// SessionStart hook, against `node -e 0` (target: at most 1.5×, README "Claude Code
// plugin"); (2) the plugin's always-on token cost as `claude plugin details` projects it,
// with the pinned Claude Code of `npm run test:plugin`. Not a test.
// Usage: npm run bench:remind [-- RUNS]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const runs = Number(process.argv[2] ?? 40);
const root = join(import.meta.dirname, '..');
const cli = join(root, 'dist', 'src', 'cli', 'bin.js');
const claudeModule = join(root, 'dist', 'test', 'plugin', 'claude-code.js');
if (!existsSync(cli) || !existsSync(claudeModule)) {
  console.error('build first: npm run build');
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), 'stw-bench-remind-'));
const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', TZ: 'UTC' };
spawnSync('git', ['init', '-q', dir], { env });
mkdirSync(join(dir, '.dochygiene'));
const statePath = join(dir, '.dochygiene', 'state.json');
const configPath = join(dir, '.dochygiene.yml');
const NOW = '2026-06-01T12:00:00Z';
const state = (lastCheck, lastReminded) => () =>
  writeFileSync(
    statePath,
    JSON.stringify({ last_check: lastCheck, last_clean: null, last_reminded: lastReminded }),
  );
const config = (text) => () =>
  text === null ? rmSync(configPath, { force: true }) : writeFileSync(configPath, text);
const both =
  (...steps) =>
  () => {
    for (const step of steps) step();
  };

const remind = [cli, 'hygiene', 'remind'];
const cases = [
  [
    'quiet: reminded today (the usual session start)',
    both(config(null), state('2026-05-01T00:00:00Z', '2026-06-01T08:00:00Z')),
  ],
  ['banner + stamp (once a day at most)', both(config(null), state('2026-05-01T00:00:00Z', null))],
  [
    'quiet, .dochygiene.yml without stale_after_days',
    both(config('context:\n  budget_tokens: 900\n'), state('2026-05-29T00:00:00Z', null)),
  ],
  [
    'quiet, .dochygiene.yml sets stale_after_days (yaml)',
    both(config('reminder:\n  stale_after_days: 7\n'), state('2026-05-29T00:00:00Z', null)),
  ],
];

function once(argv, prepare) {
  prepare?.();
  const start = performance.now();
  const result = spawnSync(process.execPath, argv, { cwd: dir, env: { ...env, STW_NOW: NOW } });
  const ms = performance.now() - start;
  if (result.status !== 0) throw new Error(`${argv.join(' ')} exited ${result.status}: ${result.stderr}`);
  return ms;
}

// Interleaved: each round times the baseline and every case once, so a machine that gets
// busier or quieter during the run moves them all alike.
const samples = { baseline: [], ...Object.fromEntries(cases.map(([label]) => [label, []])) };
for (let i = 0; i < runs; i += 1) {
  samples.baseline.push(once(['-e', '0']));
  for (const [label, prepare] of cases) samples[label].push(once(remind, prepare));
}
rmSync(dir, { recursive: true, force: true });
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const baseline = median(samples.baseline);
const row = (label, ms) =>
  `${label.padEnd(56)} ${ms.toFixed(1).padStart(7)} ms   ×${(ms / baseline).toFixed(2)}`;
console.log(`stw hygiene remind vs node -e 0: median of ${runs} interleaved runs (node ${process.version})`);
console.log(row('node -e 0', baseline));
for (const [label] of cases) console.log(row(`stw hygiene remind — ${label}`, median(samples[label])));

// The always-on token cost, from the pinned Claude Code in a scratch HOME (no network).
const { CLAUDE_CODE_VERSION, claudeCodeDir, runClaude } = await import(claudeModule);
const claude = join(claudeCodeDir(), 'node_modules', '.bin', 'claude');
if (!existsSync(claude)) {
  console.log(
    `\nplugin token cost: Claude Code ${CLAUDE_CODE_VERSION} is not installed; run npm run test:plugin once`,
  );
} else {
  const home = mkdtempSync(join(tmpdir(), 'stw-bench-claude-'));
  const run = (...args) => runClaude(claude, home, args, { cwd: root, path: '/usr/bin:/bin' });
  await run('plugin', 'marketplace', 'add', root);
  await run('plugin', 'install', 'stw@sourcesteward');
  const details = await run('plugin', 'details', 'stw@sourcesteward');
  rmSync(home, { recursive: true, force: true });
  const alwaysOn = /Always-on:\s+(\S+ tok)/.exec(details.stdout)?.[1] ?? '(not reported)';
  console.log(`\nclaude plugin details stw@sourcesteward (Claude Code ${CLAUDE_CODE_VERSION}):`);
  console.log(`always-on token cost per session: ${alwaysOn}`);
  const table = details.stdout.slice(details.stdout.indexOf('Per-component'));
  console.log(table.trimEnd());
}
