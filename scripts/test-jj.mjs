// `npm run test:jj`: installs the pinned jj (scripts/install-jj.sh, a no-op once it is
// cached), then runs the real-jj tests (dist/test/jj/*.jj-test.js) with that binary first
// on PATH and named by STW_JJ. These files are not named *.test.js, so `npm test`, which
// needs no Rust, never collects them.
// Usage: node scripts/test-jj.mjs [substring filter …]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const install = spawnSync('bash', [join(root, 'scripts', 'install-jj.sh')], {
  stdio: ['ignore', 'pipe', 'inherit'],
  encoding: 'utf8',
});
if (install.status !== 0) {
  console.error('test:jj: scripts/install-jj.sh failed');
  process.exit(install.status ?? 1);
}
const jj = install.stdout.trim();
const testRoot = join(root, 'dist', 'test', 'jj');
const filters = process.argv.slice(2);
const files = readdirSync(testRoot)
  .filter((name) => name.endsWith('.jj-test.js'))
  .map((name) => join(testRoot, name))
  .filter((file) => filters.length === 0 || filters.some((f) => relative(root, file).includes(f)))
  .sort();
if (files.length === 0) {
  console.error('no jj test files matched');
  process.exit(1);
}
// As in scripts/run-tests.mjs: the tidy plan key goes to a private temp dir for the run.
const stateHome = mkdtempSync(join(tmpdir(), 'stw-jj-test-state-home-'));
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...files], {
  stdio: 'inherit',
  cwd: root,
  env: {
    ...process.env,
    STW_JJ: jj,
    PATH: `${dirname(jj)}:${process.env.PATH ?? ''}`,
    XDG_STATE_HOME: stateHome,
  },
});
rmSync(stateHome, { recursive: true, force: true });
process.exit(result.status ?? 1);
