// Benchmark for `stw hygiene scan` (SPEC §4): a synthetic repository with ~10,000 docs and
// 100,000 commits, planted broken links (moved files, missing files, bad fragments).
// Prints wall time, peak RSS and recall; runs remark-validate-links and markdown-link-check
// on the same tree when they are installed (they are not dependencies).
// Also runs the CLI's `scan` and a whole `check` as a user runs them (the executable, bin.js),
// with their wall time and peak RSS, on this Node and on each Node in BENCH_NODES (a comma-
// separated list of node binaries, e.g. Node 22 and 24): the memory target is a check under
// 200 MiB at 40,000 docs on every supported Node major (issue 34).
// Usage: npm run bench:scan   (BENCH_SIZE=40k: 40,000 docs and 25,000 commits, about the size
// of tldr-pages/tldr; BENCH_DOCS / BENCH_COMMITS set any size; BENCH_FRESH=1 rebuilds;
// BENCH_DIST=DIR measures another build's dist/, e.g. a copy of main's).
// BENCH_SHAPE=sparse plants a tenth as many broken links (the default, dense shape breaks
// 0.69 links per doc, 27,600 at 40k; a real corpus breaks far fewer: tldr-pages/tldr 10 in
// 38,000 docs), so that the memory measured is the scan's rather than the report's.
// BENCH_REPO=DIR measures only the CLI's scan and check (peak RSS, CPU) on an existing
// clone (e.g. tldr-pages/tldr), on this Node and each in BENCH_NODES.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const ROOT = join(import.meta.dirname, '..');
const WORK = join(ROOT, 'bench', '.work');
/** Named sizes: the default, and 40k (the memory and speed targets of issue 34, tldr-sized). */
const SIZES = { default: [10_000, 100_000], '40k': [40_000, 25_000] };
const SIZE = SIZES[process.env.BENCH_SIZE ?? 'default'];
if (SIZE === undefined) {
  console.error(`BENCH_SIZE must be one of ${Object.keys(SIZES).join(', ')}`);
  process.exit(2);
}
const DOCS = Number(process.env.BENCH_DOCS ?? SIZE[0]);
const COMMITS = Number(process.env.BENCH_COMMITS ?? SIZE[1]);
const DIST = process.env.BENCH_DIST ? resolve(process.env.BENCH_DIST) : join(ROOT, 'dist');
const AREAS = 100;
const CODE_FILES = 2_000;
const SHAPES = { dense: 1, sparse: 10 };
const SHAPE = process.env.BENCH_SHAPE ?? 'dense';
if (SHAPES[SHAPE] === undefined) {
  console.error(`BENCH_SHAPE must be one of ${Object.keys(SHAPES).join(', ')}`);
  process.exit(2);
}
const RARER = SHAPES[SHAPE];
const MOVED_EVERY = 20 * RARER; // every 20th doc is moved late in history (→ 500 renames)
const MISSING_EVERY = 10 * RARER; // every 10th doc links to a file that never existed
const FRAGMENT_EVERY = 25 * RARER; // every 25th doc links to a heading that does not exist
const SUFFIX = SHAPE === 'dense' ? '' : `-${SHAPE}`;
const REPO = process.env.BENCH_REPO
  ? resolve(process.env.BENCH_REPO)
  : join(WORK, `repo-${DOCS}-${COMMITS}${SUFFIX}`);
const PLANTED = join(REPO, '..', `planted-${DOCS}-${COMMITS}${SUFFIX}.json`);

const gitEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

const docPath = (i) => `docs/area${i % AREAS}/topic-${i}.md`;
const movedPath = (i) => `docs/area${i % AREAS}/moved/topic-${i}.md`;
const isMoved = (i) => i % MOVED_EVERY === 7;
const codePath = (k) => `src/mod${k % 50}/file-${k}.ts`;
const rel = (from, to) => {
  const a = from.split('/').slice(0, -1);
  const b = to.split('/');
  let common = 0;
  while (common < a.length && common < b.length - 1 && a[common] === b[common]) common++;
  return [...a.slice(common).map(() => '..'), ...b.slice(common)].join('/') || '.';
};

/** The text of doc i and the broken links planted in it ({path, line, target}). */
function docText(i) {
  const path = docPath(i);
  const planted = [];
  const lines = [
    `# Topic ${i}`,
    '',
    `Topic ${i} explains one part of the synthetic system in some detail.`,
    '',
  ];
  const valid = (j) => {
    let k = j % DOCS;
    if (isMoved(k)) k = (k + 1) % DOCS;
    return rel(path, docPath(k));
  };
  lines.push('## Overview', '');
  lines.push(
    `See [the neighbour](${valid(i + 1)}), [a related topic](${valid(i * 7 + 3)}#overview) and [the index](${valid(0)}).`,
  );
  lines.push('');
  lines.push(`The implementation is in \`${codePath(i % CODE_FILES)}\` and its tests sit beside it.`);
  lines.push('');
  lines.push('```markdown', '[not a link, it is code](nowhere-in-code.md)', '```', '');
  lines.push('## Details', '');
  for (let p = 0; p < 6; p++) {
    lines.push(
      `Paragraph ${p} of topic ${i}: the component validates its input, records what it did, and hands the ` +
        `result to [the next stage](${valid(i + p + 2)}). Nothing here is special; it is filler of a realistic size.`,
    );
    lines.push('');
  }
  if (i % MOVED_EVERY === 3) {
    // Two links to a doc that is moved later: broken now, with a rename in history.
    const target = i + 4; // i%20 === 3 → target%20 === 7 → moved
    for (const label of ['moved doc', 'moved doc again']) {
      const written = rel(path, docPath(target));
      planted.push({
        path,
        line: lines.length + 1,
        target: written,
        kind: 'moved',
        suggested: movedPath(target),
      });
      lines.push(`Read the [${label}](${written}) for background.`, '');
    }
  }
  if (i % MISSING_EVERY === 0) {
    const written = `missing-${i}.md`;
    planted.push({ path, line: lines.length + 1, target: written, kind: 'missing' });
    lines.push(`This [was never written](${written}).`, '');
  }
  if (i % FRAGMENT_EVERY === 1) {
    const written = `${valid(i + 5)}#no-such-heading`;
    planted.push({ path, line: lines.length + 1, target: written, kind: 'fragment' });
    lines.push(`Jump to [a heading that is not there](${written}).`, '');
  }
  lines.push('## History', '');
  return { text: `${lines.join('\n')}\n`, planted };
}

async function generate() {
  rmSync(REPO, { recursive: true, force: true });
  mkdirSync(REPO, { recursive: true });
  spawnSync('git', ['init', '-q', '-b', 'main', REPO], { env: gitEnv, stdio: 'inherit' });
  const child = spawn('git', ['fast-import', '--quiet', '--done'], {
    cwd: REPO,
    env: gitEnv,
    stdio: ['pipe', 'inherit', 'inherit'],
  });
  const exited = new Promise((resolve) => child.on('close', resolve));
  let buffer = [];
  let size = 0;
  const write = async (text) => {
    buffer.push(text);
    size += text.length;
    if (size > 1 << 20) {
      const chunk = buffer.join('');
      buffer = [];
      size = 0;
      if (!child.stdin.write(chunk)) await new Promise((resolve) => child.stdin.once('drain', resolve));
    }
  };
  const data = (text) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  let time = 1_600_000_000;
  let commits = 0;
  const commit = async (message, ops) => {
    time += 60;
    commits++;
    await write(
      `commit refs/heads/main\ncommitter Bench <bench@example.com> ${time} +0000\n${data(message)}${ops}\n`,
    );
  };
  const planted = [];
  const docLines = new Map();
  // Phase A: code, then the docs in batches of 100.
  let ops = '';
  for (let k = 0; k < CODE_FILES; k++)
    ops += `M 100644 inline ${codePath(k)}\n${data(`export const v${k} = 0;\n`)}`;
  ops += `M 100644 inline README.md\n${data('# Synthetic project\n\nSee [the docs](docs/area0/topic-0.md).\n')}`;
  await commit('code', ops);
  for (let start = 0; start < DOCS; start += 100) {
    ops = '';
    for (let i = start; i < Math.min(DOCS, start + 100); i++) {
      const doc = docText(i);
      planted.push(...doc.planted);
      docLines.set(i, doc.text);
      ops += `M 100644 inline ${docPath(i)}\n${data(doc.text)}`;
    }
    await commit(`docs ${start}`, ops);
  }
  // Phase B: churn — code edits, and every 50th commit appends a line to a doc.
  const moves = [];
  for (let i = 0; i < DOCS; i++) if (isMoved(i)) moves.push(i);
  const churn = COMMITS - commits - moves.length;
  for (let n = 0; n < churn; n++) {
    const k = (n * 7919) % CODE_FILES;
    ops = `M 100644 inline ${codePath(k)}\n${data(`export const v${k} = ${n};\n`)}`;
    if (n % 50 === 0) {
      const i = (n / 50) % DOCS;
      const text = `${docLines.get(i)}- change ${n} noted.\n`;
      docLines.set(i, text);
      ops += `M 100644 inline ${docPath(i)}\n${data(text)}`;
    }
    await commit(`change ${n}`, ops);
  }
  // Phase C: the moves, one commit each, late in history.
  for (const i of moves) await commit(`move topic ${i}`, `R ${docPath(i)} ${movedPath(i)}\n`);
  await write('done\n');
  child.stdin.end(buffer.join(''));
  const code = await exited;
  if (code !== 0) throw new Error(`git fast-import exited ${code}`);
  spawnSync('git', ['checkout', '-q', '-f', 'main'], { cwd: REPO, env: gitEnv, stdio: 'inherit' });
  writeFileSync(PLANTED, JSON.stringify(planted));
  return commits;
}

function hasBin(name, args = ['--version']) {
  const result = spawnSync('npx', ['--no-install', name, ...args], { cwd: ROOT, encoding: 'utf8' });
  return result.status === 0;
}

function resolves(name) {
  try {
    createRequire(join(ROOT, 'package.json')).resolve(name);
    return true;
  } catch {
    return false;
  }
}

function recall(planted, found) {
  const hits = planted.filter(
    (p) => found.has(`${p.path}:${p.line}`) || found.has(`${p.path}:${p.target}`),
  ).length;
  return { hits, of: planted.length, ratio: planted.length === 0 ? 1 : hits / planted.length };
}

const pct = (r) => `${(r.ratio * 100).toFixed(1)}% (${r.hits}/${r.of})`;

/** The CLI's scan and whole check, as a user runs them, on this Node and each in BENCH_NODES. */
async function cliRunsOnEachNode() {
  const nodes = [process.execPath, ...(process.env.BENCH_NODES ?? '').split(',').filter(Boolean)];
  const cliRuns = [];
  for (const node of nodes) {
    const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
    for (const command of ['scan', 'check']) {
      rmSync(join(REPO, '.dochygiene'), { recursive: true, force: true });
      const run = await runCli(node, command);
      if (run.code !== 0)
        throw new Error(`stw hygiene ${command} on ${version} exited ${run.code}: ${run.err}`);
      cliRuns.push({ version, command, ...run });
    }
  }
  return cliRuns;
}

function printCliRuns(cliRuns) {
  const hz = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
  for (const r of cliRuns)
    console.log(
      `stw hygiene ${r.command} --json (CLI, node ${r.version}): ${(r.ms / 1000).toFixed(2)} s wall, ` +
        `${r.cpuTicks === undefined ? '' : `${(r.cpuTicks / hz).toFixed(2)} s CPU (node), `}` +
        `peak RSS ${(r.peakKb / 1024).toFixed(0)} MiB${r.command === 'check' ? ` (target < 200 MiB: ${r.peakKb < 200 * 1024 ? 'met' : 'not met'})` : ''}`,
    );
}

async function main() {
  mkdirSync(WORK, { recursive: true });
  if (!existsSync(join(DIST, 'src', 'hygiene', 'scan', 'index.js'))) {
    console.error('build first: npm run build');
    process.exit(1);
  }
  if (process.env.BENCH_REPO) {
    const cliRuns = await cliRunsOnEachNode();
    console.log(
      `${REPO}; machine: ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(1)} (wall times stretch under load)`,
    );
    printCliRuns(cliRuns);
    return;
  }
  if (process.env.BENCH_FRESH === '1' || !existsSync(PLANTED)) {
    const t0 = performance.now();
    console.log(`generating ${DOCS} docs / ${COMMITS} commits in ${REPO} …`);
    const commits = await generate();
    console.log(`generated ${commits} commits in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  const planted = JSON.parse(readFileSync(PLANTED, 'utf8'));
  const count = spawnSync('git', ['rev-list', '--count', 'HEAD'], {
    cwd: REPO,
    env: gitEnv,
    encoding: 'utf8',
  });
  console.log(
    `corpus (${SHAPE}): ${DOCS} docs, ${count.stdout.trim()} commits, ${planted.length} planted broken links`,
  );

  // The scanner, through its library entry in a fresh process (peak RSS of that process).
  const artifactFile = join(WORK, 'artifact.json');
  const script = `
    import { writeFileSync } from 'node:fs';
    import { performance } from 'node:perf_hooks';
    import { scan } from ${JSON.stringify(join(DIST, 'src', 'hygiene', 'scan', 'index.js'))};
    import { DEFAULT_CONFIG } from ${JSON.stringify(join(DIST, 'src', 'hygiene', 'types.js'))};
    const t0 = performance.now();
    const artifact = await scan({ root: ${JSON.stringify(REPO)}, config: DEFAULT_CONFIG, cache: false });
    const ms = performance.now() - t0;
    writeFileSync(${JSON.stringify(artifactFile)}, JSON.stringify(artifact));
    // CPU seconds of this process and of the git children it waited for (Linux /proc).
    let cpuTicks = null;
    try {
      const f = (await import('node:fs')).readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
      cpuTicks = { self: Number(f[11]) + Number(f[12]), children: Number(f[13]) + Number(f[14]) };
    } catch {}
    console.log(JSON.stringify({ ms, maxRssKb: process.resourceUsage().maxRSS, cpuTicks }));`;
  const lib = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  if (lib.status !== 0) throw new Error(`scan failed:\n${lib.stderr}`);
  const { ms, maxRssKb, cpuTicks } = JSON.parse(lib.stdout.trim().split('\n').pop());
  const hz = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
  const artifact = JSON.parse(readFileSync(artifactFile, 'utf8'));
  const found = new Set();
  let suggested = 0;
  const movedByKey = new Map(
    planted.filter((p) => p.kind === 'moved').map((p) => [`${p.path}:${p.line}`, p]),
  );
  for (const [path, signals] of Object.entries(artifact.signals)) {
    for (const s of signals) {
      if (s.name !== 'broken_reference') continue;
      found.add(`${path}:${s.line}`);
      const moved = movedByKey.get(`${path}:${s.line}`);
      if (moved && s.data.suggested_path === moved.suggested) suggested++;
    }
  }
  const stwRecall = recall(planted, found);
  // Precision check: a reported link whose target exists on disk would be a false positive.
  let falsePositives = 0;
  let otherTrue = 0;
  const plantedKeys = new Set(planted.map((p) => `${p.path}:${p.line}`));
  for (const [path, signals] of Object.entries(artifact.signals)) {
    for (const s of signals) {
      if (s.name !== 'broken_reference' || plantedKeys.has(`${path}:${s.line}`)) continue;
      const target = s.data.target.split('#')[0];
      const base = s.data.kind === 'code-path' ? '' : path.split('/').slice(0, -1).join('/');
      if (s.data.kind !== 'fragment' && existsSync(join(REPO, base, target))) falsePositives++;
      else otherTrue++;
    }
  }
  const counts = {};
  for (const signals of Object.values(artifact.signals))
    for (const s of signals) counts[s.name] = (counts[s.name] ?? 0) + 1;

  // The CLI end to end, as a user runs it: scan, then a whole check, on each Node asked for.
  const cliRuns = await cliRunsOnEachNode();
  const cliMs = cliRuns[0].ms;

  console.log('');
  console.log(
    `machine: ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(1)} (wall times stretch under load)`,
  );
  console.log(
    `stw hygiene scan (library): ${(ms / 1000).toFixed(2)} s wall, peak RSS ${(maxRssKb / 1024).toFixed(0)} MiB (node)`,
  );
  if (cpuTicks)
    console.log(
      `  CPU: ${(cpuTicks.self / hz).toFixed(2)} s node + ${(cpuTicks.children / hz).toFixed(2)} s git ` +
        '(the git history pass runs alongside the Markdown pass)',
    );
  printCliRuns(cliRuns);
  const floor = measureFloor(artifact.shortlist);
  const floorMs = Math.max(floor.parseMs, floor.historyMs);
  console.log(
    `  floor: parse every doc ${(floor.parseMs / 1000).toFixed(2)} s, cheapest history pass ${(floor.historyMs / 1000).toFixed(2)} s; ` +
      `scan (library) = ${(ms / floorMs).toFixed(2)}× the floor (target ≤ 1.5×)`,
  );
  console.log(`  files scanned ${artifact.files_scanned}; signals ${JSON.stringify(counts)}`);
  console.log(`  recall on planted broken links: ${pct(stwRecall)}`);
  console.log(
    `  other broken references reported: ${otherTrue} (the moved docs' own relative links, which the moves broke); ` +
      `false positives (target exists): ${falsePositives}`,
  );
  const movedCount = planted.filter((p) => p.kind === 'moved').length;
  console.log(
    `  moved-file links with the right suggested_path (rename history): ${suggested}/${movedCount}`,
  );

  // remark-validate-links (via remark-cli), when installed.
  if (resolves('remark-validate-links') && hasBin('remark')) {
    const t = performance.now();
    const r = spawnSync(
      'npx',
      ['--no-install', 'remark', '--quiet', '--no-stdout', '--use', 'remark-validate-links', 'docs'],
      {
        cwd: REPO,
        encoding: 'utf8',
        maxBuffer: 1 << 30,
      },
    );
    const rMs = performance.now() - t;
    const hits = new Set();
    let file = '';
    for (const line of `${r.stdout}\n${r.stderr}`.split('\n')) {
      if (/^\S/.test(line)) file = line.trim();
      const m = /^\s+(\d+):\d+/.exec(line);
      if (m && file) hits.add(`${file}:${m[1]}`);
    }
    console.log(
      `remark-validate-links: ${(rMs / 1000).toFixed(2)} s (×${(rMs / cliMs).toFixed(1)} stw); recall ${pct(recall(planted, hits))}`,
    );
  } else console.log('remark-validate-links: not installed');

  // markdown-link-check, when installed (one process per batch of files).
  if (hasBin('markdown-link-check')) {
    const files = artifact.shortlist.filter((p) => p.startsWith('docs/'));
    const hits = new Set();
    const t = performance.now();
    for (let i = 0; i < files.length; i += 200) {
      const batch = files.slice(i, i + 200);
      const r = spawnSync('npx', ['--no-install', 'markdown-link-check', '--quiet', ...batch], {
        cwd: REPO,
        encoding: 'utf8',
        maxBuffer: 1 << 30,
      });
      let file = '';
      for (const line of `${r.stdout}\n${r.stderr}`.split('\n')) {
        const f = /FILE:\s*(\S+)/.exec(line);
        if (f) file = f[1].replace(/^\.\//, '');
        const bad = /\[✖\]\s+(\S+)/.exec(line);
        if (bad && file) hits.add(`${file}:${bad[1]}`);
      }
    }
    const mMs = performance.now() - t;
    console.log(
      `markdown-link-check: ${(mMs / 1000).toFixed(2)} s (×${(mMs / cliMs).toFixed(1)} stw); recall ${pct(recall(planted, hits))}`,
    );
  } else console.log('markdown-link-check: not installed');
}

/**
 * Runs `stw hygiene COMMAND --json` with `node` in the corpus: wall time, peak RSS (VmHWM,
 * polled from /proc on Linux; the same process after the executable re-executes itself) and
 * the process's CPU time in clock ticks (user + system, its git children not counted; the
 * last poll, within 20 ms of its end).
 */
function runCli(node, command) {
  return new Promise((done) => {
    const started = performance.now();
    const child = spawn(node, [join(DIST, 'src', 'cli', 'bin.js'), 'hygiene', command, '--json'], {
      cwd: REPO,
      // Cold every time: a build with the scan cache leaves it alone (an older build ignores this).
      env: { ...process.env, STW_NO_CACHE: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let peakKb = 0;
    let cpuTicks;
    const poll = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peakKb = Math.max(peakKb, Number(m[1]));
        const f = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
        cpuTicks = Number(f[11]) + Number(f[12]);
      } catch {}
    }, 20);
    let err = '';
    child.stderr.on('data', (c) => {
      err = (err + c).slice(-4096);
    });
    child.on('close', (code) => {
      clearInterval(poll);
      done({ ms: performance.now() - started, peakKb, cpuTicks, code, err });
    });
  });
}

/**
 * The floor (what a whole scan cannot beat): reading and parsing every scanned doc with the
 * scanner's parser, in one process, or the cheapest history pass (`git log --raw --no-renames`,
 * which reads no blob), whichever is longer.
 */
function measureFloor(shortlist) {
  const script = `
    import { readFileSync } from 'node:fs';
    import { performance } from 'node:perf_hooks';
    import { parseMarkdown } from ${JSON.stringify(join(DIST, 'src', 'hygiene', 'scan', 'markdown.js'))};
    const paths = JSON.parse(readFileSync(0, 'utf8'));
    const t0 = performance.now();
    for (const p of paths) parseMarkdown(readFileSync(${JSON.stringify(REPO)} + '/' + p, 'utf8'));
    console.log(performance.now() - t0);`;
  const parse = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    input: JSON.stringify(shortlist),
    encoding: 'utf8',
  });
  if (parse.status !== 0) throw new Error(`floor parse failed:\n${parse.stderr}`);
  const t = performance.now();
  const log = spawnSync(
    'git',
    ['log', '-z', '--raw', '--no-abbrev', '--no-renames', '--format=%x01%ct', 'HEAD', '--'],
    {
      cwd: REPO,
      env: gitEnv,
      maxBuffer: 1 << 30,
    },
  );
  if (log.status !== 0) throw new Error('floor history pass failed');
  return { parseMs: Number(parse.stdout.trim()), historyMs: performance.now() - t };
}

await main();
