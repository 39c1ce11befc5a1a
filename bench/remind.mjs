// Benchmark: `stw hygiene remind` start-up against `node -e 0` (SPEC §4: "within a small
// factor"). Not a test. Usage: npm run build && npm run bench:remind [-- RUNS]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const runs = Number(process.argv[2] ?? 30);
const cli = join(import.meta.dirname, '..', 'dist', 'src', 'cli', 'main.js');
if (!existsSync(cli)) {
  console.error('build first: npm run build');
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), 'stw-bench-remind-'));
const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', TZ: 'UTC' };
spawnSync('git', ['init', '-q', dir], { env });
const stateDir = join(dir, '.dochygiene');
mkdirSync(stateDir);
const statePath = join(stateDir, 'state.json');
const stale = { last_check: '2026-01-01T00:00:00Z', last_clean: null, last_reminded: null };

function time(argv, before) {
  const samples = [];
  for (let i = 0; i < runs; i += 1) {
    before?.();
    const start = performance.now();
    const result = spawnSync(process.execPath, argv, {
      cwd: dir,
      env: { ...env, STW_NOW: '2026-06-01T12:00:00Z' },
    });
    samples.push(performance.now() - start);
    if (result.status !== 0) throw new Error(`${argv.join(' ')} exited ${result.status}: ${result.stderr}`);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

const writeState = (state) => writeFileSync(statePath, JSON.stringify(state));
const baseline = time(['-e', '0']);
// The CLI shell alone (main.ts and its light imports), to separate its share from remind's.
const shell = time([cli, '--version']);
// Quiet path (the usual session start): already reminded today, nothing printed.
const quiet = time([cli, 'hygiene', 'remind'], () =>
  writeState({ ...stale, last_reminded: '2026-06-01T08:00:00Z' }),
);
// Banner path: stale, prints the line and stamps last_reminded (atomic write + fsync).
const banner = time([cli, 'hygiene', 'remind'], () => writeState(stale));
// With a .dochygiene.yml present, yaml is loaded to read reminder.stale_after_days.
writeFileSync(join(dir, '.dochygiene.yml'), 'reminder:\n  stale_after_days: 7\n');
const withConfig = time([cli, 'hygiene', 'remind'], () =>
  writeState({ ...stale, last_reminded: '2026-06-01T08:00:00Z' }),
);
rmSync(dir, { recursive: true, force: true });

const row = (label, ms) =>
  `${label.padEnd(50)} ${ms.toFixed(1).padStart(7)} ms   ×${(ms / baseline).toFixed(2)}`;
console.log(`median of ${runs} runs each (node ${process.version})`);
console.log(row('node -e 0', baseline));
console.log(row('stw --version (CLI shell only)', shell));
console.log(row('stw hygiene remind (quiet: reminded today)', quiet));
console.log(row('stw hygiene remind (banner + stamp)', banner));
console.log(row('stw hygiene remind (quiet, with .dochygiene.yml)', withConfig));
