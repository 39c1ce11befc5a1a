// The precision bench (issue 31 item 1): `npm run bench:precision -- DIR`. For every
// repository of the manifest (bench/precision/repos/*.json), finds its clone in DIR, checks
// out the pinned commit in a shared clone under bench/.work/precision/ (the user's clone is
// only read), runs the built `stw hygiene scan --json` there, matches the findings to the
// labels by (file, line, signal, key) and prints per signal class: shown by default,
// sampled, real, false, unsure, gone, precision; and the estimated share of real finds in
// everything shown. Never calls a model. See bench/precision/README.md.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

/** score.mjs, imported once the CLI is known to be built (it reads dist/ for the site generators). */
let score;

const ROOT = join(import.meta.dirname, '..', '..');
/** The built CLI the scans run (`--cli` another one, e.g. a branch's build in another worktree). */
let STW = join(ROOT, 'dist', 'src', 'cli', 'bin.js');
const HELP = `Usage: npm run bench:precision -- DIR [--json] [--all-signals] [--repo OWNER/NAME]…
                                      [--manifest DIR] [--work DIR] [--cli FILE]
       npm run bench:precision -- DIR --sample --repo OWNER/NAME [--seed N] [--per-class N]

Scores the scanner's signals against the labelled samples in bench/precision/repos/*.json
(one file per repository; files of one repository are merged and must pin one commit).
DIR holds clones of the manifest's repositories, found as DIR/OWNER__NAME, DIR/OWNER/NAME
or DIR/NAME (the first that is a git repository holding the pinned commit). A missing one
is listed with the git clone line that makes it, and the others are still scored.

Each pinned commit is checked out in bench/.work/precision/OWNER__NAME (--work), a clone that
shares the objects of yours (git clone --shared): your clone, its branches, index and
work tree are never written. The built CLI (npm run build) scans it with an empty user
config and STW_NOW pinned to the commit's date. What it withholds (classes hidden by default,
suppressed findings: the artifact's "withheld") is counted apart, never as shown.

Per signal class (the signal name; broken_reference from backticked code is
code_reference, one the site model cannot settle is broken_reference:unverifiable):
  shown       findings the scan shows by default
  sampled     labelled findings still found      real / false / unsure  their verdicts
  gone        labels no finding matches now (gone real: lost recall, listed by name)
  hidden      findings of classes hidden by default (hidden labels: labels among them)
  suppressed  findings silenced by a directive or links.ignore
  precision   real / (real + false) of the sample
and overall the estimated real finds (each repository's sampled precision per class x
its count) over everything shown in measured classes.

Options:
  --json            print the same facts as JSON
  --repo OWNER/NAME only this repository (repeatable)
  --manifest DIR    the label files (default bench/precision/repos)
  --work DIR        where the checkouts go (default bench/.work/precision)
  --cli FILE        the built CLI to run (default this checkout's dist/src/cli/bin.js): score
                    another branch's build without switching branches
  --all-signals     score every class, hidden ones too (passes --signals all to the scan;
                    for a CLI that has that switch)
  --sample          print label stubs for a fixed-seed sample of what the scan shows now
                    (up to --per-class per class, default 25; --seed, default 31),
                    leaving out findings already labelled; fill in verdict and reason
  -h, --help        show this help

Exit status: 0 scored (missing clones are listed); 1 a scan failed; 2 invalid usage or
an invalid label file.`;

function usage(message) {
  console.error(`bench:precision: ${message}`);
  console.error('usage: npm run bench:precision -- DIR [--json] (--help for more)');
  process.exit(2);
}

function parse() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        repo: { type: 'string', multiple: true },
        manifest: { type: 'string' },
        work: { type: 'string' },
        cli: { type: 'string' },
        sample: { type: 'boolean' },
        'all-signals': { type: 'boolean' },
        seed: { type: 'string' },
        'per-class': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    usage(error.message);
  }
}

function git(args, cwd) {
  return spawnSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 1 << 26 });
}

/** The user's clone of a repository in DIR that holds the pinned commit, or a reason there is none. */
function findClone(dir, { repo, commit }) {
  const [owner, name] = repo.split('/');
  const tried = [join(dir, `${owner}__${name}`), join(dir, owner, name), join(dir, name)];
  for (const path of tried) {
    if (!existsSync(path)) continue;
    if (git(['rev-parse', '--git-dir'], path).status !== 0) continue;
    if (git(['cat-file', '-e', `${commit}^{commit}`], path).status === 0) return { path };
    return { missing: `${path} lacks commit ${commit.slice(0, 12)}: git -C ${path} fetch origin` };
  }
  return { missing: `git clone https://github.com/${repo} ${join(dir, `${owner}__${name}`)}` };
}

/**
 * A checkout of the pinned commit that only reads the user's clone: a clone sharing its
 * objects (alternates), detached at the commit. Reused when already there at that commit.
 */
function checkout(clone, { repo, commit }, workRoot) {
  const work = join(workRoot, repo.replace('/', '__'));
  const head = existsSync(work) ? git(['rev-parse', 'HEAD'], work).stdout.trim() : '';
  const clean = head === commit && git(['status', '--porcelain'], work).stdout === '';
  if (clean) return work;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(work, '..'), { recursive: true });
  for (const args of [
    ['clone', '--quiet', '--shared', '--no-checkout', clone, work],
    ['-C', work, '-c', 'advice.detachedHead=false', 'checkout', '--quiet', '--detach', commit],
  ]) {
    const r = git(args, ROOT);
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.trim()}`);
  }
  return work;
}

/** The scan artifact of a checkout, as the built CLI prints it by default (plus --scope). */
function scan(work, { commit, scope }, allSignals) {
  const date = git(['show', '-s', '--format=%cI', commit], work).stdout.trim();
  const config = mkdtempSync(join(tmpdir(), 'stw-bench-config-'));
  try {
    const args = [STW, 'hygiene', 'scan', '--json', ...scope.flatMap((s) => ['--scope', s])];
    if (allSignals) args.push('--signals', 'all');
    const r = spawnSync(process.execPath, args, {
      cwd: work,
      encoding: 'utf8',
      maxBuffer: 1 << 30,
      timeout: Number(process.env.BENCH_TIMEOUT ?? 900) * 1000,
      env: { ...process.env, XDG_CONFIG_HOME: config, STW_NOW: date, NO_COLOR: '1' },
    });
    if (r.status !== 0 || r.stdout === '')
      throw new Error(`scan exited ${r.status ?? r.signal}: ${r.stderr.trim()}`);
    return JSON.parse(r.stdout);
  } finally {
    rmSync(config, { recursive: true, force: true });
  }
}

const pct = (p) => (p === null ? '-' : p.toFixed(2));
const COLUMNS = [
  'shown',
  'sampled',
  'real',
  'false',
  'unsure',
  'gone',
  'gone_real',
  'unlabelled',
  'hidden',
  'suppressed',
];

function table(classes) {
  const head = ['class', ...COLUMNS, 'precision'];
  const rows = Object.entries(classes)
    .sort(([, a], [, b]) => b.shown - a.shown)
    .map(([c, r]) => [c, ...COLUMNS.map((k) => String(r[k])), pct(r.precision)]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(head), ...rows.map(line)].join('\n');
}

function printHuman(summary, results, missing, failed) {
  console.log(table(summary.classes));
  const o = summary.overall;
  const ratio = o.real_ratio === null ? 'n/a' : o.real_ratio.toFixed(2);
  console.log(
    `\nreal finds / shown by default: ${ratio} (≈${o.estimated_real.toFixed(0)} of ${o.shown_measured} in measured classes;` +
      ` ${o.unmeasured} shown in classes with no judged sample)`,
  );
  const extrapolated = Object.entries(summary.classes).filter(([, c]) => c.extrapolated > 0);
  if (extrapolated.length > 0)
    console.log(
      `pooled precision used for repositories with no sample of: ${extrapolated.map(([c, r]) => `${c} (${r.extrapolated})`).join(', ')}`,
    );
  console.log(`\n${results.length} repositories scored:`);
  for (const r of results) {
    const shown = Object.values(r.rows).reduce((n, x) => n + x.shown, 0);
    console.log(
      `  ${r.repo}@${r.commit.slice(0, 12)} (${r.kinds.join(', ')}): ${shown} shown, ${r.labels} labels`,
    );
  }
  const lost = results.flatMap((r) =>
    r.gone.filter((g) => g.verdict === 'real').map((g) => ({ ...g, repo: r.repo })),
  );
  if (lost.length > 0) console.log(`\nlost recall: ${lost.length} labelled-real finding(s) no longer shown:`);
  for (const g of lost.slice(0, 20))
    console.log(
      `  ${g.repo} ${g.file}:${g.line ?? '-'} ${g.signal}${g.key ? ` ${g.key}` : ''} (${g.reason})`,
    );
  if (lost.length > 20) console.log(`  … ${lost.length - 20} more in --json (repositories[].gone)`);
  for (const m of missing) console.log(`missing ${m.repo}: ${m.missing}`);
  for (const f of failed) console.log(`failed ${f.repo}: ${f.error}`);
}

function printStubs(repo, findings, { seed, perClass }) {
  const fresh = findings.filter((f) => !repo.labels.has(score.identity(f)));
  const picked = score.sample(fresh, { repo: repo.repo, seed, perClass });
  const labels = picked.map(({ file, line, signal, key, class: c, detail }) => ({
    file,
    ...(line === undefined ? {} : { line }),
    signal,
    ...(key === undefined ? {} : { key }),
    verdict: '',
    reason: '',
    class: c,
    detail,
  }));
  const stub = { repo: repo.repo, commit: repo.commit, kind: repo.kinds[0], labels };
  console.log(JSON.stringify(stub, null, 2));
}

async function main() {
  const { values, positionals } = parse();
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (positionals.length !== 1) usage('give one DIR that holds the clones');
  const dir = resolve(positionals[0]);
  if (!existsSync(dir)) usage(`no such directory: ${dir}`);
  if (values.cli) STW = resolve(values.cli);
  if (!existsSync(STW)) usage(`the CLI is not built (${STW}): run npm run build`);
  score = await import('./score.mjs');
  const seed = Number(values.seed ?? 31);
  const perClass = Number(values['per-class'] ?? 25);
  if (!Number.isInteger(seed) || !Number.isInteger(perClass) || perClass < 1)
    usage('--seed and --per-class take whole numbers');
  let repos;
  try {
    repos = score.loadManifest(resolve(values.manifest ?? join(ROOT, 'bench', 'precision', 'repos')));
  } catch (error) {
    if (error instanceof score.ManifestError || error.code === 'ENOENT') usage(error.message);
    throw error;
  }
  const workRoot = resolve(values.work ?? join(ROOT, 'bench', '.work', 'precision'));
  const only = values.repo ?? [];
  for (const r of only) if (!repos.some((x) => x.repo === r)) usage(`${r} is not in the manifest`);
  if (only.length > 0) repos = repos.filter((r) => only.includes(r.repo));
  if (values.sample && only.length !== 1) usage('--sample takes exactly one --repo');

  const results = [];
  const missing = [];
  const failed = [];
  for (const repo of repos) {
    const clone = findClone(dir, repo);
    if (clone.missing) {
      missing.push({ repo: repo.repo, missing: clone.missing });
      continue;
    }
    if (!values.json && !values.sample)
      process.stderr.write(`scanning ${repo.repo}@${repo.commit.slice(0, 12)} …\n`);
    try {
      const artifact = scan(checkout(clone.path, repo, workRoot), repo, values['all-signals']);
      const findings = score.findingsOf(artifact);
      if (values.sample) printStubs(repo, findings, { seed, perClass });
      const { repo: name, commit, kinds, labels } = repo;
      const withheld = score.withheldOf(artifact);
      const rows = score.scoreRepo(labels, findings, withheld);
      const gone = score.goneLabels(labels, findings, withheld);
      results.push({ repo: name, commit, kinds, labels: labels.size, rows, gone });
    } catch (error) {
      failed.push({ repo: repo.repo, error: error.message });
    }
  }
  if (values.sample) {
    for (const m of [...missing, ...failed]) console.error(`${m.repo}: ${m.missing ?? m.error}`);
    return failed.length > 0 || missing.length > 0 ? 1 : 0;
  }
  const summary = score.summarize(results);
  if (values.json)
    console.log(JSON.stringify({ ...summary, repositories: results, missing, failed }, null, 2));
  else printHuman(summary, results, missing, failed);
  return failed.length > 0 ? 1 : 0;
}

process.exitCode = await main();
