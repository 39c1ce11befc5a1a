// Draws the precision sample of one repository (issue 31 item 1, issue 30's samples): up to N
// signals per class from what `stw hygiene scan --json` shows by default at the checked-out
// commit, chosen with a fixed seed, printed as label stubs in the format of
// bench/precision/README.md (verdict and reason left empty, the signal's detail beside them to
// read). A broken_reference the site model could not settle (`data.unverifiable`) is counted
// apart, never shown as a finding, so it is not drawn.
// Usage: node bench/precision/sample.mjs DIR [--kind K] [--signal NAME] [--n 25] [--seed 30]
//        [--scan FILE]   (FILE: a saved `stw hygiene scan --json` of DIR, instead of running it)
// The same DIR, commit, seed and scan give the same sample: signals are ordered by
// (file, line, signal, key) before the draw, and the draw is a seeded shuffle (mulberry32).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { random } from './score.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const STW = join(ROOT, 'dist', 'src', 'cli', 'bin.js');
const USAGE =
  'usage: node bench/precision/sample.mjs DIR [--kind K] [--signal NAME] [--n 25] [--seed 30] [--scan FILE]';

function parseArgs(argv) {
  const options = { n: 25, seed: 30, signal: 'broken_reference', kind: undefined, scan: undefined };
  let dir;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) fail(`${arg} needs a value`);
      return v;
    };
    if (arg === '--n') options.n = Number(value());
    else if (arg === '--seed') options.seed = Number(value());
    else if (arg === '--signal') options.signal = value();
    else if (arg === '--kind') options.kind = value();
    else if (arg === '--scan') options.scan = value();
    else if (arg === '-h' || arg === '--help') {
      console.log(USAGE);
      process.exit(0);
    } else if (dir === undefined && !arg.startsWith('-')) dir = arg;
    else fail(`unknown argument ${arg}`);
  }
  if (dir === undefined || !existsSync(dir)) fail(USAGE);
  if (!Number.isInteger(options.n) || options.n < 1) fail('--n must be a positive integer');
  if (!Number.isInteger(options.seed)) fail('--seed must be an integer');
  return { dir: resolve(dir), ...options };
}

function fail(message) {
  console.error(message);
  process.exit(2);
}

function scanOf(options) {
  if (options.scan !== undefined) return JSON.parse(readFileSync(options.scan, 'utf8'));
  const run = spawnSync(process.execPath, [STW, 'hygiene', 'scan', '--json'], {
    cwd: options.dir,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (run.status !== 0 && run.status !== 3) fail(`stw hygiene scan failed: ${run.stderr.trim()}`);
  return JSON.parse(run.stdout);
}

/** The repository's `owner/name` from its origin URL, else its folder name. */
function repoName(dir) {
  const url = spawnSync('git', ['-C', dir, 'remote', 'get-url', 'origin'], {
    encoding: 'utf8',
  }).stdout.trim();
  const m =
    /github\.com[/:]([^/]+)\/([^/]+?)(?:\.git)?$/.exec(url) ?? /([^/+]+)\+([^/]+)\/repo\/?$/.exec(url);
  return m === null ? dir.split('/').pop() : `${m[1]}/${m[2]}`;
}

const options = parseArgs(process.argv.slice(2));
const scan = scanOf(options);
const shown = [];
for (const [file, signals] of Object.entries(scan.signals ?? {}))
  for (const s of signals) {
    if (s.name !== options.signal || s.data?.['unverifiable'] !== undefined) continue;
    const key = s.name === 'broken_reference' || s.name === 'code_reference' ? s.data?.['target'] : undefined;
    shown.push({ file, line: s.line, signal: s.name, key, detail: s.detail, data: s.data });
  }
const order = (a, b) =>
  a.file < b.file
    ? -1
    : a.file > b.file
      ? 1
      : (a.line ?? 0) - (b.line ?? 0) || String(a.key).localeCompare(String(b.key));
shown.sort(order);
// Fisher–Yates with the seed; the first N, printed in file order.
const next = random(options.seed);
const drawn = [...shown];
for (let i = drawn.length - 1; i > 0; i--) {
  const j = Math.floor(next() * (i + 1));
  [drawn[i], drawn[j]] = [drawn[j], drawn[i]];
}
const sample = drawn.slice(0, options.n).sort(order);
const commit = spawnSync('git', ['-C', options.dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
const stub = {
  repo: repoName(options.dir),
  commit,
  ...(options.kind !== undefined ? { kind: options.kind } : {}),
  shown: shown.length,
  seed: options.seed,
  labels: sample.map((s) => ({
    file: s.file,
    ...(s.line !== undefined ? { line: s.line } : {}),
    signal: s.signal,
    ...(s.key !== undefined ? { key: s.key } : {}),
    verdict: '',
    reason: '',
    detail: s.detail,
    ...(s.data?.['broken_on'] !== undefined ? { broken_on: s.data['broken_on'] } : {}),
    ...(s.data?.['site'] !== undefined ? { site: s.data['site'] } : {}),
  })),
};
console.log(JSON.stringify(stub, null, 2));
