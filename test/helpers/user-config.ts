import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import { makeTempDir } from './git-repo.js';

const homes: string[] = [];
after(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/**
 * A user config (`$XDG_CONFIG_HOME/sourcesteward/config.yml`, docs/trust.md) holding `text`,
 * in a temp dir removed after the test file; returns the environment that points `stw` at it.
 */
export function userConfig(text: string): { XDG_CONFIG_HOME: string } {
  const home = makeTempDir('stw-test-config-home-');
  homes.push(home);
  mkdirSync(join(home, 'sourcesteward'));
  writeFileSync(join(home, 'sourcesteward', 'config.yml'), text);
  return { XDG_CONFIG_HOME: home };
}
