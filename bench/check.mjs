// Benchmark for `stw hygiene check` with the rules classifier (SPEC §4): on the synthetic
// corpus `bench:scan` builds (~10,000 docs, 100,000 commits), times the scan alone, then a
// whole check (scan → classify → finalize → validate → write the pair → stamp), and prints
// the ratio. Usage: npm run bench:check   (BENCH_DOCS / BENCH_COMMITS pick the corpus;
// it is built by `npm run bench:scan` first when missing).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const ROOT = join(import.meta.dirname, '..');
const DOCS = Number(process.env.BENCH_DOCS ?? 10_000);
const COMMITS = Number(process.env.BENCH_COMMITS ?? 100_000);
const REPO = join(ROOT, 'bench', '.work', `repo-${DOCS}-${COMMITS}`);

if (!existsSync(REPO)) {
  console.log(`corpus ${REPO} is missing; building it with bench/scan.mjs …`);
  const built = spawnSync(process.execPath, [join(ROOT, 'bench', 'scan.mjs')], {
    stdio: 'inherit',
    env: process.env,
  });
  if (built.status !== 0 || !existsSync(REPO)) process.exit(1);
}

const { scan } = await import(join(ROOT, 'dist', 'src', 'hygiene', 'scan', 'index.js'));
const { runCheck } = await import(join(ROOT, 'dist', 'src', 'hygiene', 'check.js'));
const { loadConfig } = await import(join(ROOT, 'dist', 'src', 'hygiene', 'config.js'));
const { systemClock } = await import(join(ROOT, 'dist', 'src', 'core', 'clock.js'));

rmSync(join(REPO, '.dochygiene'), { recursive: true, force: true });
console.log(
  `machine: ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(1)} (wall times stretch under load)`,
);

const config = await loadConfig(REPO);
let t = performance.now();
// Without the cache, both: the scan would otherwise make the check's scan a warm one (bench:cache).
const artifact = await scan({ root: REPO, config, cache: false });
const scanSeconds = (performance.now() - t) / 1000;
console.log(`scan alone: ${scanSeconds.toFixed(2)} s (${artifact.files_scanned} docs)`);

t = performance.now();
const result = await runCheck({ cwd: REPO, clock: systemClock, cache: false });
const checkSeconds = (performance.now() - t) / 1000;
const bytes = readFileSync(result.reportJsonPath).length;
console.log(
  `check (rules): ${checkSeconds.toFixed(2)} s wall, peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`,
);
console.log(
  `  entries ${result.summary.candidates} (auto ${result.summary.auto}, confirm ${result.summary.confirm}), cleared ${result.summary.cleared}; report.json ${(bytes / 1024 / 1024).toFixed(1)} MiB`,
);
const kinds = {};
for (const e of result.report.entries) {
  const k = `${e.category.subtype}/${e.exact_edit?.kind ?? 'generative'}`;
  kinds[k] = (kinds[k] ?? 0) + 1;
}
console.log(`  ${JSON.stringify(kinds)}`);
console.log(
  `check / scan: ${(checkSeconds / scanSeconds).toFixed(2)}× (classify + finalize + validate + write on top of the scan: ${(checkSeconds - scanSeconds).toFixed(2)} s)`,
);
