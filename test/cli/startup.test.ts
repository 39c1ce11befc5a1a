import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reexecArgs, SEMI_SPACE_MIB } from '../../src/cli/startup.js';
import { runCli } from '../helpers/cli.js';
import { fixtureRepo } from '../hygiene/scan/helpers.js';

const FLAG = `--max-semi-space-size=${SEMI_SPACE_MIB}`;

describe('start-up: the young generation of a scanning command', () => {
  it('is set on Node 22 and later for the commands that scan, keeping the flags given', () => {
    for (const command of ['check', 'scan', 'sweep', 'context'])
      assert.deepEqual(reexecArgs(['hygiene', command, '--json'], [], {}, 24), [FLAG]);
    assert.deepEqual(reexecArgs(['hygiene', 'check'], ['--inspect'], {}, 22), [FLAG, '--inspect']);
  });

  it('is left alone on Node 20, for other commands, for help, and when the size is set already', () => {
    assert.equal(reexecArgs(['hygiene', 'check'], [], {}, 20), undefined);
    for (const argv of [['hygiene', 'status'], ['hygiene', 'remind'], ['tidy', 'plan'], ['hygiene'], []])
      assert.equal(reexecArgs(argv, [], {}, 24), undefined);
    assert.equal(reexecArgs(['hygiene', 'check', '--help'], [], {}, 24), undefined);
    assert.equal(reexecArgs(['hygiene', 'check'], ['--max-semi-space-size=32'], {}, 24), undefined);
    assert.equal(
      reexecArgs(['hygiene', 'scan'], [], { NODE_OPTIONS: '--max-semi-space-size=16' }, 24),
      undefined,
    );
  });

  it('a scan through the executable gives what it gives with the flag set by hand', async () => {
    const repo = fixtureRepo({ 'README.md': '# Project\n\nSee [the guide](docs/guide.md).\n' });
    const plain = await runCli(['hygiene', 'scan', '--json'], { cwd: repo.dir });
    const set = await runCli(['hygiene', 'scan', '--json'], {
      cwd: repo.dir,
      env: { NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} ${FLAG}` },
    });
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(plain.stdout, set.stdout);
    assert.match(plain.stdout, /guide\.md/);
  });
});
