// What parsing on threads costs and saves, thread by thread (issue 34, item 4): the docs of
// DIR (git's listing of `*.md`, read once) are parsed with the scanner's own parser by this
// thread alone, then by this thread and 1..BENCH_THREADS threads (default: 3) sharing one
// queue of batches of 16, as `ParsePool` does. For each run it prints the wall time of the
// parse, and per thread its CPU time: starting the thread and loading the parser, parsing
// its share (how many docs), and the main thread's own share, so the per-thread overhead
// (start-up, each thread's own JIT warm-up) can be read off on any machine, however many
// cores it has. Per-thread CPU needs `process.threadCpuUsage` (Node 23.9+); on an older Node
// only the wall times and the whole process's CPU are printed. BENCH_REPEAT rounds
// (default 3), interleaved, medians. The scan itself decides by `defaultParseWorkers` and
// `THREADS_START_AFTER` (src/hygiene/scan/parse-pool.ts); `STW_PARSE_WORKERS=N` forces N.
// Usage: npm run bench:threads -- DIR
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

const ROOT = join(import.meta.dirname, '..');
const MARKDOWN = join(ROOT, 'dist', 'src', 'hygiene', 'scan', 'markdown.js');
const childMode = process.argv[2] === '--child';
const dir = childMode ? process.env.BENCH_DIR : process.argv[2];
if (!dir || !existsSync(dir) || !existsSync(MARKDOWN)) {
  console.error('usage: npm run bench:threads -- DIR   (after npm run build)');
  process.exit(2);
}
const THREADS = Math.max(1, Math.floor(Number(process.env.BENCH_THREADS ?? 3)) || 1);
const REPEAT = Math.max(1, Math.floor(Number(process.env.BENCH_REPEAT ?? 3)) || 1);
const BATCH = 16;
const hasThreadCpu = typeof process.threadCpuUsage === 'function';

const listing = spawnSync('git', ['ls-files', '-z', '--', '*.md'], {
  cwd: resolve(dir),
  encoding: 'utf8',
  maxBuffer: 1 << 28,
});
if (listing.status !== 0) {
  console.error(`git ls-files failed in ${dir}`);
  process.exit(2);
}
const texts = [];
for (const file of listing.stdout.split('\0').filter(Boolean)) {
  try {
    texts.push(readFileSync(join(resolve(dir), file), 'utf8'));
  } catch {
    // Listed but not in the work tree: not a doc to parse.
  }
}
const chars = texts.reduce((sum, text) => sum + text.length, 0);

/** CPU milliseconds of this thread (or of the process, where Node cannot tell threads apart). */
function cpuMs() {
  const usage = hasThreadCpu ? process.threadCpuUsage() : process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

const THREAD_SOURCE = `
import { parentPort, workerData } from 'node:worker_threads';
const cpu = () => { const u = process.threadCpuUsage ? process.threadCpuUsage() : process.cpuUsage(); return (u.user + u.system) / 1000; };
const { parseMarkdown } = await import(workerData.markdown);
const startMs = cpu();
let docs = 0;
parentPort.on('message', (message) => {
  // The thread's CPU since it loaded the parser, read once: summing each batch's would round
  // every short batch to the clock's tick.
  if (message === 'stats') return parentPort.postMessage({ stats: { startMs, parseMs: cpu() - startMs, docs } });
  const parsed = message.texts.map((text) => parseMarkdown(text));
  docs += parsed.length;
  parentPort.postMessage({ id: message.id, parsed });
});
parentPort.postMessage('ready');
`;

/** One parse of every text on this thread and `threads` more (each in a fresh Node process: cold JIT, as a scan). */
function runOnce(threads) {
  const child = spawnSync(process.execPath, [import.meta.filename, '--child', String(threads)], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    env: { ...process.env, BENCH_DIR: resolve(dir) },
  });
  if (child.status !== 0) throw new Error(`run with ${threads} threads failed: ${child.stderr}`);
  return JSON.parse(child.stdout);
}

async function child(threads) {
  const { parseMarkdown } = await import(MARKDOWN);
  const processStart = process.cpuUsage();
  const wallStart = performance.now();
  const workers = Array.from(
    { length: threads },
    () => new Worker(THREAD_SOURCE, { eval: true, workerData: { markdown: MARKDOWN } }),
  );
  let next = 0;
  const take = () => {
    if (next >= texts.length) return undefined;
    next += BATCH;
    return next - BATCH;
  };
  const share = (worker) =>
    new Promise((done) => {
      const post = () => {
        const start = take();
        if (start === undefined) return done();
        worker.postMessage({ id: start, texts: texts.slice(start, start + BATCH) });
      };
      worker.on('message', (message) => {
        if (message === 'ready' || message.parsed) post();
      });
    });
  const shares = workers.map(share);
  let mainDocs = 0;
  const mainStart = cpuMs();
  for (let start = take(); start !== undefined; start = take()) {
    for (let i = start; i < Math.min(start + BATCH, texts.length); i++) parseMarkdown(texts[i]);
    mainDocs += Math.min(BATCH, texts.length - start);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(shares);
  // This thread's CPU over the parse: its share, and taking in the threads' replies.
  const mainMs = cpuMs() - mainStart;
  const wallMs = performance.now() - wallStart;
  const stats = await Promise.all(
    workers.map(
      (worker) =>
        new Promise((resolve) => {
          worker.on('message', (message) => message.stats && resolve(message.stats));
          worker.postMessage('stats');
        }),
    ),
  );
  const used = process.cpuUsage(processStart);
  await Promise.all(workers.map((worker) => worker.terminate()));
  console.log(
    JSON.stringify({ wallMs, processMs: (used.user + used.system) / 1000, mainMs, mainDocs, threads: stats }),
  );
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const ms = (value) => `${Math.round(value)} ms`;

if (childMode) {
  await child(Number(process.argv[3]));
} else {
  console.log(
    `${texts.length} docs, ${(chars / 1024 / 1024).toFixed(1)} MiB of Markdown; ${availableParallelism()} cores, load ${loadavg()[0].toFixed(1)}; Node ${process.versions.node}${hasThreadCpu ? '' : ' (no process.threadCpuUsage: CPU is per process)'}`,
  );
  const counts = Array.from({ length: THREADS + 1 }, (_, i) => i);
  const runs = new Map(counts.map((n) => [n, []]));
  for (let round = 0; round < REPEAT; round++) for (const n of counts) runs.get(n).push(runOnce(n));
  for (const n of counts) {
    const list = runs.get(n);
    const pick = (f) => median(list.map(f));
    const line = [
      `${n} thread${n === 1 ? '' : 's'} + main:`,
      `wall ${ms(pick((r) => r.wallMs))},`,
      `CPU ${ms(pick((r) => r.processMs))} in all;`,
      `main parsed ${Math.round(pick((r) => r.mainDocs))} docs, ${ms(pick((r) => r.mainMs))} of its CPU (replies included)`,
    ];
    for (let t = 0; t < n; t++)
      line.push(
        `| thread ${t + 1}: start+load ${ms(pick((r) => r.threads[t].startMs))}, then ${Math.round(pick((r) => r.threads[t].docs))} docs in ${ms(pick((r) => r.threads[t].parseMs))}`,
      );
    console.log(line.join(' '));
  }
}
