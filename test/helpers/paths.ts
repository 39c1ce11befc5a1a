import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Compiled tests live in dist/test/...; the repository root is found from there.
function findRoot(): string {
  const here = fileURLToPath(import.meta.url);
  const marker = `${join('dist', 'test')}`;
  const index = here.lastIndexOf(marker);
  return index === -1 ? join(here, '..', '..', '..') : here.slice(0, index);
}

/** The repository root (where package.json lives). */
export const REPO_ROOT = findRoot();
/** The built CLI entry point that end-to-end tests spawn. */
export const CLI_PATH = join(REPO_ROOT, 'dist', 'src', 'cli', 'bin.js');
/** Source fixtures (not compiled): test/fixtures/... */
export const FIXTURES = join(REPO_ROOT, 'test', 'fixtures');
