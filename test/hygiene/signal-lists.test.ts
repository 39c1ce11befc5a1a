import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { SIGNAL_MODULES } from '../../src/hygiene/scan/signals/index.js';
import { SIGNAL_NAMES } from '../../src/hygiene/types.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/git-repo.js';
import { REPO_ROOT } from '../helpers/paths.js';

interface Generator {
  GENERATED_SCHEMAS: string[];
  withSignalEnums(text: string, names: readonly string[]): string;
  disagreements(names: readonly string[], read?: (file: string) => string): string[];
}
const SCRIPT = join(REPO_ROOT, 'scripts', 'generate-signal-lists.mjs');
const generator = (await import(pathToFileURL(SCRIPT).href)) as Generator;
const schemaText = (file: string) => readFileSync(join(REPO_ROOT, 'schemas', file), 'utf8');

describe('the signal list, generated from the signal modules', () => {
  it('every name has one module and every module one name', () => {
    assert.deepEqual([...SIGNAL_MODULES.map((m) => m.name)].sort(), [...SIGNAL_NAMES].sort());
  });

  it('the schemas agree with the modules (npm run build regenerates them; --check passes)', () => {
    const check = spawnSync(process.execPath, [SCRIPT, '--check'], { encoding: 'utf8' });
    assert.equal(check.status, 0, check.stderr);
    assert.deepEqual(generator.disagreements(SIGNAL_NAMES), []);
    for (const file of generator.GENERATED_SCHEMAS) assert.match(schemaText(file), /"tool_specific_wording"/);
  });

  it('a schema missing a signal, or with one extra, fails the check', () => {
    const names = [...SIGNAL_NAMES];
    const stale = (file: string) => generator.withSignalEnums(schemaText(file), names.slice(0, -1));
    assert.deepEqual(
      generator.disagreements(names, stale).map((d) => d.split(' ')[0]),
      generator.GENERATED_SCHEMAS,
    );
    const extra = (file: string) => generator.withSignalEnums(schemaText(file), [...names, 'new_signal']);
    assert.equal(generator.disagreements(names, extra).length, generator.GENERATED_SCHEMAS.length);
    const check = spawnSync(process.execPath, [SCRIPT, '--check'], { encoding: 'utf8' });
    assert.equal(check.status, 0);
  });

  it('stw hygiene scan --help lists every signal, agent-context ones after "also"', async () => {
    const help = await runCli(['hygiene', 'scan', '--help'], { cwd: makeTempDir() });
    assert.equal(help.code, 0);
    const text = help.stdout.replace(/\s+/g, ' ');
    const [docs, agent] = text.split('in agent-context files also');
    for (const module of SIGNAL_MODULES)
      assert.match(
        module.scope === 'docs' ? docs! : agent!.split('.')[0]!,
        new RegExp(`\\b${module.name}\\b`),
      );
  });

  it('docs/scanner-and-classifiers.md describes every signal', () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs', 'scanner-and-classifiers.md'), 'utf8');
    for (const name of SIGNAL_NAMES) assert.ok(doc.includes(`\`${name}\``), name);
  });
});
