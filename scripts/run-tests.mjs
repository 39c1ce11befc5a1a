// Runs the compiled test files with Node's built-in test runner.
// Usage: node scripts/run-tests.mjs [substring filter …]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const testRoot = join(root, 'dist', 'test');
const filters = process.argv.slice(2);

function collect(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...collect(full));
    else if (entry.name.endsWith('.test.js')) files.push(full);
  }
  return files;
}

const files = collect(testRoot)
  .filter((file) => filters.length === 0 || filters.some((f) => relative(root, file).includes(f)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// Tests never touch the developer's own state: the tidy plan key (and anything else kept
// under XDG_STATE_HOME) goes to a private temp dir that lives as long as the run; the user
// config (XDG_CONFIG_HOME) is an empty one, so the developer's own never applies.
const stateHome = mkdtempSync(join(tmpdir(), 'stw-test-state-home-'));
const configHome = mkdtempSync(join(tmpdir(), 'stw-test-config-home-'));
// The scan cache's key (XDG_CACHE_HOME) likewise.
const cacheHome = mkdtempSync(join(tmpdir(), 'stw-test-cache-home-'));
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...files], {
  stdio: 'inherit',
  cwd: root,
  env: { ...process.env, XDG_STATE_HOME: stateHome, XDG_CONFIG_HOME: configHome, XDG_CACHE_HOME: cacheHome },
});
rmSync(stateHome, { recursive: true, force: true });
rmSync(configHome, { recursive: true, force: true });
rmSync(cacheHome, { recursive: true, force: true });
process.exit(result.status ?? 1);
