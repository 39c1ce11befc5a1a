// Benchmark against peers on a real tree: `stw hygiene scan`, `stw hygiene check` (rules
// classifier), remark-validate-links (remark-cli, repository:false) and markdown-link-check
// (external links ignored: it would fetch them). Prints wall time, peak RSS and ratios to stw.
// The peers are installed with npm into bench/.work/peers/ (gitignored), never as dependencies.
// `check` writes DIR/.dochygiene/ as a user's run would.
// Usage: npm run bench:peers -- DIR
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const ROOT = join(import.meta.dirname, '..');
const PEERS = join(ROOT, 'bench', '.work', 'peers');
const STW = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const dir = process.argv[2];
if (!dir || !existsSync(dir)) {
  console.error('usage: npm run bench:peers -- DIR');
  process.exit(2);
}
const target = resolve(dir);

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

/** The bin script of an installed peer, run with this node (no npx wrapper in the timing). */
function peerBin(pkg, name) {
  const manifest = JSON.parse(readFileSync(join(PEERS, 'node_modules', pkg, 'package.json'), 'utf8'));
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin[name];
  return join(PEERS, 'node_modules', pkg, bin);
}

/** Runs a command; wall time and peak RSS (VmHWM, polled from /proc on Linux; else n/a). */
function measure(label, command, args, options = {}) {
  return new Promise((done) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd: target, stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let peakKb = 0;
    const status = `/proc/${child.pid}/status`;
    const poll = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+)/.exec(readFileSync(status, 'utf8'));
        if (m) peakKb = Math.max(peakKb, Number(m[1]));
      } catch {}
    }, 20);
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      out += c;
    });
    child.on('close', (code) => {
      clearInterval(poll);
      done({ label, ms: performance.now() - started, peakKb, code, out });
    });
  });
}

async function main() {
  spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  installPeers();
  const docs = spawnSync('git', ['ls-files', '*.md'], { cwd: target, encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean);
  const commits = spawnSync('git', ['rev-list', '--count', 'HEAD'], {
    cwd: target,
    encoding: 'utf8',
  }).stdout.trim();
  const mlcConfig = join(PEERS, 'mlc-offline.json');
  writeFileSync(
    mlcConfig,
    JSON.stringify({ ignorePatterns: [{ pattern: '^[a-z][a-z0-9+.-]*:' }, { pattern: '^//' }] }),
  );
  const runs = [
    await measure('stw hygiene scan', process.execPath, [STW, 'hygiene', 'scan', '--json']),
    await measure('stw hygiene check', process.execPath, [STW, 'hygiene', 'check', '--json']),
    await measure('remark-validate-links (repository:false)', process.execPath, [
      peerBin('remark-cli', 'remark'),
      '.',
      '--quiet',
      '--no-stdout',
      '--frail=false',
      '--use',
      'remark-validate-links=repository:false',
    ]),
    await measure('markdown-link-check (offline)', process.execPath, [
      peerBin('markdown-link-check', 'markdown-link-check'),
      '--quiet',
      '--config',
      mlcConfig,
      ...docs,
    ]),
  ];
  const check = runs[1];
  console.log('');
  console.log(`tree: ${target} — ${docs.length} Markdown files, ${commits} commits`);
  console.log(
    `machine: ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(1)} (wall times stretch under load)`,
  );
  for (const r of runs) {
    const rss = r.peakKb > 0 ? `${(r.peakKb / 1024).toFixed(0)} MiB` : 'n/a';
    const ratio = r === check ? '' : `  (${(r.ms / check.ms).toFixed(2)}× stw check)`;
    console.log(
      `${r.label.padEnd(42)} ${(r.ms / 1000).toFixed(2).padStart(7)} s  peak RSS ${rss.padStart(8)}  exit ${r.code}${ratio}`,
    );
  }
}

await main();
