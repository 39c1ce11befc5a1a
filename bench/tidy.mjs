// Benchmark: `stw tidy plan` and `stw tidy apply` on generated repositories with 1,000
// and 5,000 local branches, beside their floors on the same repository:
// - plan: `git for-each-ref --merged` plus `node -e 0` (process start);
// - apply: one `git update-ref --stdin` transaction deleting the same branches.
// 5,000 branches exceed the 1,024-entry bound: plan timing uses the library with raised
// bounds (the CLI refuses, as it must), and apply deletes 1,000 selected by name. The plan
// is timed without and with squash evidence (--equivalence-checks 0 / the default),
// interleaved with its floor and with the plan's own git calls made from a bare script
// (what the plan would cost if its JavaScript were free), as wall and CPU time (CPU does
// not grow when other work shares the cores; the load average is printed beside), on the
// fast-import repository and again once it has a commit-graph, as `git gc` leaves real
// repositories.
// Usage: npm run bench:tidy   (STW_BENCH_TIDY_SIZES=1000 for one size)
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const root = join(import.meta.dirname, '..');
const cli = join(root, 'dist', 'src', 'cli', 'main.js');
const { planTidy } = await import(join(root, 'dist', 'src', 'index.js'));
const { DEFAULT_PLAN_BOUNDS } = await import(join(root, 'dist', 'src', 'tidy', 'types.js'));
const APPLY_RUNS = 3;
// The plan key goes to a scratch state home, never the user's.
const stateHome = realpathSync(mkdtempSync(join(tmpdir(), 'stw-bench-statehome-')));
process.env.XDG_STATE_HOME = stateHome;

const HISTORY = 2000; // commits on main
const RUNS = 7;
const PLAN_ROUNDS = 15;

const gitEnv = {
  PATH: process.env.PATH,
  HOME: tmpdir(),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  LC_ALL: 'C',
  XDG_STATE_HOME: stateHome,
};

/**
 * One fast-import stream: a linear main of HISTORY commits; half the branches sit on
 * main's history (integrated), half carry one commit of their own (not integrated).
 */
function generate(branches) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'stw-bench-tidy-')));
  execFileSync('git', ['init', '-q', '-b', 'main', dir], { env: gitEnv });
  const lines = [];
  const who = 'Bench <bench@example.com>';
  for (let i = 1; i <= HISTORY; i++) {
    const body = `c${i}\n`;
    lines.push('commit refs/heads/main', `mark :${i}`, `committer ${who} ${1_700_000_000 + i} +0000`);
    lines.push(`data ${Buffer.byteLength(body)}`, body.trimEnd());
    if (i > 1) lines.push(`from :${i - 1}`);
    const file = `file ${i}\n`;
    lines.push(`M 100644 inline f${i % 50}.txt`, `data ${Buffer.byteLength(file)}`, file.trimEnd(), '');
  }
  let mark = HISTORY;
  for (let b = 0; b < branches; b++) {
    const name = `refs/heads/t/${String(b).padStart(5, '0')}`;
    const at = 1 + ((b * 7919) % HISTORY);
    if (b % 2 === 0) {
      lines.push(`reset ${name}`, `from :${at}`, '');
    } else {
      mark += 1;
      const body = `work ${b}\n`;
      lines.push(`commit ${name}`, `mark :${mark}`, `committer ${who} ${1_800_000_000 + b} +0000`);
      lines.push(`data ${Buffer.byteLength(body)}`, body.trimEnd(), `from :${at}`);
      const file = `branch ${b}\n`;
      lines.push(`M 100644 inline b.txt`, `data ${Buffer.byteLength(file)}`, file.trimEnd(), '');
    }
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: dir, env: gitEnv, input: `${lines.join('\n')}\n` });
  execFileSync('git', ['checkout', '-q', 'main'], { cwd: dir, env: gitEnv });
  execFileSync('git', ['pack-refs', '--all'], { cwd: dir, env: gitEnv });
  return dir;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function time(fn) {
  const samples = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    fn();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

async function timeAsync(fn) {
  const samples = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

const fmt = (ms) => `${ms.toFixed(1)} ms`;
const ratio = (a, b) => `${(a / b).toFixed(2)}×`;
const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/**
 * CPU time (user + system) of a command and every process it starts, from bash's `times`
 * (its children's line): unlike wall time it does not grow when other work shares the cores.
 */
function cpuMs(commands, env, cwd) {
  const sh = (arg) => `'${arg.replaceAll("'", "'\\''")}'`;
  const script = commands.map((argv) => `${argv.map(sh).join(' ')} >/dev/null`).join('; ');
  const out = execFileSync('bash', ['-c', `${script}; times`], {
    env,
    cwd,
    stdio: ['ignore', 'pipe', 'ignore'],
    maxBuffer: 256 * 1024 * 1024,
  })
    .toString()
    .trim()
    .split('\n');
  const seconds = (text) => {
    const m = /^(\d+)m([\d.]+)s$/.exec(text);
    return m ? Number(m[1]) * 60 + Number(m[2]) : Number.NaN;
  };
  const [user, sys] = (out[out.length - 1] ?? '').split(' ');
  return (seconds(user) + seconds(sys)) * 1000;
}

/**
 * The plan floor and both plans, interleaved round by round so that a change of load hits
 * all three alike; medians of PLAN_ROUNDS rounds, wall and CPU time.
 */
/**
 * The git processes `stw tidy plan` runs on this repository (src/tidy/backends/git/observe.ts), in its
 * four rounds, from a bare node script with none of stw's code: what the plan would cost if
 * every line of its own JavaScript (module loading, decisions, output) were free.
 */
const PLAN_CALLS_SCRIPT = `
const { spawn } = require('node:child_process');
const [base, bound] = process.argv.slice(1);
const git = (args) => new Promise((done, fail) => {
  const child = spawn('git', ['--no-pager', '--no-replace-objects', ...args], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  child.stdout.resume(); child.stderr.resume();
  child.on('error', fail);
  child.on('close', (code) => (code === 0 ? done() : fail(new Error(args.join(' ') + ' exited ' + code))));
});
const tips = (fields) => git(['for-each-ref', '--count=' + bound, '--format=' + fields, 'refs/heads/']);
(async () => {
  await Promise.all([git(['version']), git(['rev-parse', '--path-format=absolute', '--is-bare-repository',
    '--is-shallow-repository', '--git-dir', '--git-common-dir', '--show-object-format', '--show-toplevel'])]);
  await Promise.all([git(['worktree', 'list', '--porcelain', '-z']),
    tips('%(objectname)%00%(objecttype)%00%(symref)%00%(refname:lstrip=2)')]);
  await git(['for-each-ref', '--merged=' + base, '--format=%(refname:lstrip=2)', '--', 'refs/heads/']);
  await tips('%(objectname)%00%(symref)%00%(refname:lstrip=2)');
})().catch((error) => { console.error(error.message); process.exit(1); });
`;

function comparePlans(dir, branches, forEachRef) {
  const planArgv = (extra) => [cli, 'tidy', 'plan', dir, '--base', 'refs/heads/main', '--json', ...extra];
  const statusOf = (stdout) => {
    const plan = JSON.parse(stdout.toString());
    const checked = plan.targets.filter(
      (t) =>
        t.evidence.equivalence !== undefined &&
        !/^(beyond the bound|equivalence checks are off)/.test(t.evidence.equivalence.detail),
    ).length;
    return `status ${plan.status}${plan.refusal ? ` (${plan.refusal.code})` : ''}, ${plan.targets.length} targets, ${checked} equivalence checks`;
  };
  const base = forEachRef.find((arg) => arg.startsWith('--merged=')).slice('--merged='.length);
  const callsArgv = [
    process.execPath,
    '-e',
    PLAN_CALLS_SCRIPT,
    base,
    String(DEFAULT_PLAN_BOUNDS.maxEntries + 1),
  ];
  const kinds = {
    floor: { wall: [], cpu: [], status: 'for-each-ref --merged, then node -e 0' },
    calls: { wall: [], cpu: [], status: '' },
    plain: { wall: [], cpu: [], status: '', extra: ['--equivalence-checks', '0'] },
    evidence: { wall: [], cpu: [], status: '', extra: [] },
  };
  const runKind = (name) => {
    const kind = kinds[name];
    const start = performance.now();
    if (name === 'calls') {
      execFileSync(callsArgv[0], callsArgv.slice(1), { cwd: dir, env: gitEnv, stdio: 'ignore' });
      kind.wall.push(performance.now() - start);
      kind.cpu.push(cpuMs([callsArgv], gitEnv, dir));
      return;
    }
    if (name === 'floor') {
      execFileSync(forEachRef[0], forEachRef.slice(1), {
        cwd: dir,
        env: gitEnv,
        maxBuffer: 64 * 1024 * 1024,
      });
      // The same environment as the plan's: an inherited NODE_EXTRA_CA_CERTS alone can add
      // tens of milliseconds to node's start, and a floor must not include what the plan skips.
      execFileSync(process.execPath, ['-e', '0'], { env: gitEnv });
      kind.wall.push(performance.now() - start);
      kind.cpu.push(cpuMs([forEachRef, [process.execPath, '-e', '0']], gitEnv, dir));
      return;
    }
    const result = spawnSync(process.execPath, planArgv(kind.extra), {
      env: gitEnv,
      maxBuffer: 256 * 1024 * 1024,
    });
    kind.wall.push(performance.now() - start);
    if (result.status !== 0 && branches <= DEFAULT_PLAN_BOUNDS.maxEntries)
      throw new Error(`stw tidy plan exited ${result.status}: ${result.stderr}`);
    kind.status =
      result.status === 0 ? statusOf(result.stdout) : `exit ${result.status}, ${statusOf(result.stdout)}`;
    kind.cpu.push(cpuMs([[process.execPath, ...planArgv(kind.extra)]], gitEnv, dir));
  };
  const loadBefore = loadavg();
  for (let round = 0; round < PLAN_ROUNDS; round++) {
    const order = ['floor', 'calls', 'plain', 'evidence'];
    // Rotate the order each round: no kind always runs first (or right after another).
    for (let i = 0; i < order.length; i++) runKind(order[(round + i) % order.length]);
  }
  const wall = (name) => median(kinds[name].wall);
  const cpu = (name) => median(kinds[name].cpu);
  console.log(
    `  plan floor (for-each-ref --merged + node -e 0): ${fmt(wall('floor'))} wall, ${fmt(cpu('floor'))} CPU`,
  );
  for (const [name, label] of [
    ['calls', "the plan's 6 git calls in its 4 rounds alone (node, no stw code)"],
    ['plain', 'stw tidy plan --equivalence-checks 0'],
    ['evidence', 'stw tidy plan (default: 16 equivalence checks)'],
  ])
    console.log(
      `  ${label}: ${fmt(wall(name))} wall = ${ratio(wall(name), wall('floor'))} of the floor; ${fmt(cpu(name))} CPU = ${ratio(cpu(name), cpu('floor'))}${kinds[name].status === '' ? '' : `  [${kinds[name].status}]`}`,
    );
  console.log(
    `  (${PLAN_ROUNDS} interleaved rounds, medians; load average ${loadBefore} before, ${loadavg()} after)`,
  );
}

console.log(`load average at start: ${loadavg()} (${os.cpus().length} cores)`);
const nodeStart = time(() => execFileSync(process.execPath, ['-e', '0'], { env: gitEnv }));
console.log(`node -e 0 (process start, for scale): ${fmt(nodeStart)}`);

// STW_BENCH_TIDY_SIZES=1000 times one size only (e.g. while iterating).
const SIZES = (process.env.STW_BENCH_TIDY_SIZES ?? '1000,5000').split(',').map(Number);
for (const branches of SIZES) {
  const dir = generate(branches);
  try {
    const base = execFileSync('git', ['rev-parse', 'refs/heads/main'], { cwd: dir, env: gitEnv })
      .toString()
      .trim();
    const forEachRef = ['git', 'for-each-ref', `--merged=${base}`, '--format=%(refname)', 'refs/heads/'];
    const native = time(() =>
      execFileSync(forEachRef[0], forEachRef.slice(1), {
        cwd: dir,
        env: gitEnv,
        maxBuffer: 64 * 1024 * 1024,
      }),
    );
    console.log(`\n${branches} branches, ${HISTORY} commits on main (${dir})`);
    console.log(`  git for-each-ref --merged alone:         ${fmt(native)}`);

    comparePlans(dir, branches, forEachRef);

    const bounds =
      branches > DEFAULT_PLAN_BOUNDS.maxEntries
        ? {
            ...DEFAULT_PLAN_BOUNDS,
            maxEntries: branches + 16,
            maxOutputBytes: 1024 * 1024,
            maxRecordBytes: 64 * 1024 * 1024,
          }
        : { ...DEFAULT_PLAN_BOUNDS };
    let libStatus = '';
    const libMs = await timeAsync(async () => {
      const result = await planTidy({ path: dir, base: 'refs/heads/main', bounds, equivalenceChecks: 0 });
      const deletes = result.plan.targets.filter((t) => t.decision === 'delete').length;
      libStatus = `status ${result.plan.status}, ${result.plan.targets.length} targets, ${deletes} delete, ${result.gitCalls} git calls`;
    });
    const label =
      branches > DEFAULT_PLAN_BOUNDS.maxEntries
        ? 'planTidy (library, bounds raised, no evidence):'
        : 'planTidy (library, no evidence):';
    console.log(`  ${label.padEnd(40)} ${fmt(libMs)}  ratio ${ratio(libMs, native)}  [${libStatus}]`);
    await benchApply(dir, branches);
    if (branches <= DEFAULT_PLAN_BOUNDS.maxEntries) {
      // Real repositories usually carry a commit-graph (\`git gc\` writes one by default):
      // history walks read it instead of parsing each commit.
      execFileSync('git', ['commit-graph', 'write', '--reachable'], { cwd: dir, env: gitEnv });
      console.log('  after git commit-graph write --reachable (as git gc leaves a repository):');
      comparePlans(dir, branches, forEachRef);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
rmSync(stateHome, { recursive: true, force: true });

/** The integrated branches (the ones a plan deletes), as `name oid` pairs. */
function integrated(dir) {
  return execFileSync(
    'git',
    ['for-each-ref', '--merged=refs/heads/main', '--format=%(refname) %(objectname)', 'refs/heads/t/'],
    {
      cwd: dir,
      env: gitEnv,
      maxBuffer: 64 * 1024 * 1024,
    },
  )
    .toString()
    .trim()
    .split('\n')
    .map((line) => line.split(' '));
}

/** Puts the deleted branches back and drops every pin, so the next run starts equal. */
function restore(dir, pairs) {
  const pins = execFileSync('git', ['for-each-ref', '--format=%(refname)', 'refs/stw-recovery/'], {
    cwd: dir,
    env: gitEnv,
    maxBuffer: 64 * 1024 * 1024,
  })
    .toString()
    .split('\n')
    .filter(Boolean);
  const input = [
    ...pairs.map(([ref, oid]) => `update ${ref} ${oid}`),
    ...pins.map((pin) => `delete ${pin}`),
  ].join('\n');
  execFileSync('git', ['update-ref', '--stdin'], { cwd: dir, env: gitEnv, input: `${input}\n` });
  execFileSync('git', ['pack-refs', '--all'], { cwd: dir, env: gitEnv });
}

async function benchApply(dir, branches) {
  // Past the entry bound a plan selects a subset, as a user would: 1,000 integrated
  // branches by name (the --refs-from route).
  const all = integrated(dir);
  const pairs = branches > DEFAULT_PLAN_BOUNDS.maxEntries ? all.slice(0, 1000) : all;
  const refs = branches > DEFAULT_PLAN_BOUNDS.maxEntries ? pairs.map(([ref]) => ref) : undefined;
  const floorSamples = [];
  for (let i = 0; i < APPLY_RUNS; i++) {
    const input = `${pairs.map(([ref, oid]) => `delete ${ref} ${oid}`).join('\n')}\n`;
    const start = performance.now();
    execFileSync('git', ['update-ref', '--stdin'], { cwd: dir, env: gitEnv, input });
    floorSamples.push(performance.now() - start);
    restore(dir, pairs);
  }
  const floor = median(floorSamples);
  const applySamples = [];
  let status = '';
  for (let i = 0; i < APPLY_RUNS; i++) {
    const stateDir = realpathSync(mkdtempSync(join(tmpdir(), 'stw-bench-state-')));
    chmodSync(stateDir, 0o700);
    try {
      const { plan } = await planTidy({ path: dir, base: 'refs/heads/main', stateDir, refs });
      const start = performance.now();
      const result = spawnSync(
        process.execPath,
        [cli, 'tidy', 'apply', '--plan', plan.plan_id, '--state-dir', stateDir, '--authorize', '--json'],
        { env: gitEnv, maxBuffer: 256 * 1024 * 1024 },
      );
      const ms = performance.now() - start;
      const json = JSON.parse(result.stdout.toString());
      status = `CLI${refs ? ', 1,000 selected by name' : ''}, exit ${result.status}, status ${json.status}, ${json.actions.filter((a) => a.outcome === 'deleted' && a.verified).length} deleted+verified`;
      applySamples.push(ms);
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
      restore(dir, pairs);
    }
  }
  const applyMs = median(applySamples);
  const n = pairs.length;
  console.log(
    `  update-ref --stdin, one transaction of ${n} deletions (apply floor): ${fmt(floor)}  = ${(floor / n).toFixed(3)} ms/deletion`,
  );
  console.log(
    `  stw tidy apply of ${n} deletions (journaled, pinned, verified): ${fmt(applyMs)}  = ${(applyMs / n).toFixed(3)} ms/deletion  ratio ${ratio(applyMs, floor)}  [${status}]`,
  );
}
