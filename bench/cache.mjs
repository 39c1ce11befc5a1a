// Benchmark of the scan cache (docs/scanner-and-classifiers.md, "The cache"): the built
// `stw hygiene check` on DIR (default: the bench:scan corpus), run as a user runs it —
// without the cache (--no-cache), cold (the cache cleared first), warm with nothing changed,
// and warm after a one-file edit (one doc gets a line, put back byte for byte afterwards).
// The warm run with nothing changed is answered by check's result cache (the cold run stored
// it): the stored report pair is written again and nothing is scanned.
// BENCH_REPEAT rounds (default 3), interleaved; medians of wall time, CPU (user + sys) and
// peak RSS, from /usr/bin/time. The check writes its report pair as usual.
// Usage: npm run bench:cache [-- DIR]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist', 'src', 'cli', 'bin.js');
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const DOCS = Number(process.env.BENCH_DOCS ?? 10_000);
const COMMITS = Number(process.env.BENCH_COMMITS ?? 100_000);
const target = resolve(process.argv[2] ?? join(ROOT, 'bench', '.work', `repo-${DOCS}-${COMMITS}`));

if (!existsSync(target)) {
  console.error(`${target} does not exist (build the corpus with npm run bench:scan, or give a DIR)`);
  process.exit(2);
}
if (!existsSync('/usr/bin/time')) {
  console.error('bench:cache reads wall time, CPU and peak RSS from /usr/bin/time, which is missing');
  process.exit(2);
}

const docs = execFileSync('git', ['ls-files', '-z', '--', '*.md'], { cwd: target, encoding: 'utf8' })
  .split('\0')
  .filter((p) => p !== '');
const edited = join(target, docs[Math.floor(docs.length / 2)] ?? 'README.md');
const original = readFileSync(edited);

/** One `stw hygiene check` with `args`: wall s, CPU s, peak RSS MiB. */
function check(args) {
  const run = spawnSync(
    '/usr/bin/time',
    ['-f', '%e %U %S %M', process.execPath, CLI, 'hygiene', 'check', ...args],
    {
      cwd: target,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const last = run.stderr.trim().split('\n').pop() ?? '';
  const [wall, user, sys, kb] = last.split(' ').map(Number);
  if (!(wall >= 0) || run.status === 2)
    throw new Error(`check failed (${run.status}): ${run.stderr.slice(-2000)}`);
  return { wall, cpu: user + sys, rss: kb / 1024 };
}

function clear() {
  execFileSync(process.execPath, [CLI, 'hygiene', 'cache', 'clear'], { cwd: target });
}

const kinds = ['no cache', 'cold', 'warm, no change', 'warm, one-file edit'];
const results = Object.fromEntries(kinds.map((k) => [k, []]));
console.log(
  `${target}: ${docs.length} Markdown files; ${cpus().length} CPUs, load ${loadavg()[0].toFixed(1)} (times stretch under load)`,
);
try {
  for (let round = 0; round < REPEAT; round++) {
    results['no cache'].push(check(['--no-cache']));
    clear();
    results.cold.push(check([]));
    results['warm, no change'].push(check([]));
    writeFileSync(edited, Buffer.concat([original, Buffer.from('\nA line the cache benchmark added.\n')]));
    results['warm, one-file edit'].push(check([]));
    writeFileSync(edited, original);
  }
} finally {
  writeFileSync(edited, original);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const base = median(results['no cache'].map((r) => r.wall));
console.log(`medians of ${REPEAT} interleaved rounds (edited: ${edited.slice(target.length + 1)}):`);
for (const kind of kinds) {
  const wall = median(results[kind].map((r) => r.wall));
  const cpu = median(results[kind].map((r) => r.cpu));
  const rss = median(results[kind].map((r) => r.rss));
  console.log(
    `  ${kind.padEnd(20)} ${wall.toFixed(2)} s wall (${(wall / base).toFixed(2)}× no cache), ${cpu.toFixed(2)} s CPU, peak ${rss.toFixed(0)} MiB`,
  );
}
console.log(`load at the end: ${loadavg()[0].toFixed(1)}`);
