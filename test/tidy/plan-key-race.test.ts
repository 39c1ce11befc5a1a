import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { RefusalError } from '../../src/core/errors.js';
import { loadOrCreatePlanKey, loadPlanKey, PLAN_KEY_BYTES } from '../../src/tidy/plan-key.js';
import { makeTempDir } from '../helpers/git-repo.js';
import { REPO_ROOT } from '../helpers/paths.js';

const PLAN_KEY_MODULE = join(REPO_ROOT, 'dist', 'src', 'tidy', 'plan-key.js');

// A child that waits for "go" on stdin, then either creates-or-reads the key once
// ("create") or reads it until it exists ("read"), and prints the key's hex or the error.
const CHILD = `
const { loadOrCreatePlanKey, loadPlanKey } = await import(process.env.KEY_MODULE);
const [mode, path, state] = process.argv.slice(1);
process.stdin.once('data', async () => {
  try {
    let key;
    if (mode === 'create') key = await loadOrCreatePlanKey(path, state);
    else
      for (let attempt = 0; key === undefined; attempt++) {
        try {
          key = await loadPlanKey(path, state);
        } catch (error) {
          if (error.code !== 'plan-key-missing' || attempt > 200000) throw error;
        }
      }
    process.stdout.write('key ' + key.toString('hex'));
  } catch (error) {
    process.stdout.write('error ' + error.code + ' ' + error.message);
  }
  process.exit(0);
});
`;

function racer(mode: 'create' | 'read', path: string, state: string) {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, mode, path, state], {
    env: { ...process.env, KEY_MODULE: PLAN_KEY_MODULE },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const ready = new Promise<void>((resolve) => child.once('spawn', () => resolve()));
  const done = new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', () => resolve(out));
  });
  return { child, ready, done };
}

function freshKeyPath(): { path: string; state: string } {
  const home = makeTempDir('stw-key-home-');
  const state = makeTempDir('stw-state-');
  chmodSync(state, 0o700);
  return { path: join(home, 'sourcesteward', 'key'), state };
}

describe('plan key creation races', () => {
  it('every racing process, creating or reading, gets the same whole 32-byte key', async () => {
    for (let round = 0; round < 5; round++) {
      const { path, state } = freshKeyPath();
      const racers = [
        ...Array.from({ length: 4 }, () => racer('create', path, state)),
        ...Array.from({ length: 3 }, () => racer('read', path, state)),
      ];
      await Promise.all(racers.map((r) => r.ready));
      for (const r of racers) r.child.stdin.end('go');
      const outputs = await Promise.all(racers.map((r) => r.done));
      const onDisk = readFileSync(path);
      assert.equal(onDisk.length, PLAN_KEY_BYTES);
      for (const output of outputs) assert.equal(output, `key ${onDisk.toString('hex')}`);
      // Nothing but the key is left beside it: the temp files are gone.
      assert.deepEqual(readdirSync(join(path, '..')), ['key']);
    }
  });

  it('concurrent creations and reads in one process all get the key that was linked', async () => {
    for (let round = 0; round < 20; round++) {
      const { path, state } = freshKeyPath();
      const readUntilThere = async (): Promise<Buffer> => {
        for (let attempt = 0; ; attempt++) {
          try {
            return await loadPlanKey(path, state);
          } catch (error) {
            if ((error as RefusalError).code !== 'plan-key-missing' || attempt > 100000) throw error;
          }
        }
      };
      const keys = await Promise.all([
        ...Array.from({ length: 4 }, readUntilThere),
        ...Array.from({ length: 4 }, () => loadOrCreatePlanKey(path, state)),
      ]);
      const onDisk = readFileSync(path);
      assert.equal(onDisk.length, PLAN_KEY_BYTES);
      for (const key of keys) assert.deepEqual(key, onDisk);
    }
  });
});
