/**
 * The run lock's stale-lock takeover (issue 36, item 12). Two real processes race for one
 * lock left by a dead run; a test hook holds one of them in the window between reading
 * the dead holder and taking the lock over, deterministically, while the other takes it.
 */
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { RunLock } from '../../../src/hygiene/state/run-lock.js';
import { scratchDir } from '../scan/helpers.js';

const NOW = '2026-12-01T00:00:00Z';
const RUN_LOCK_JS = fileURLToPath(new URL('../../../src/hygiene/state/run-lock.js', import.meta.url));

/** A pid that ran and has exited: a dead run's. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  assert.equal(child.status, 0);
  return child.pid!;
}

/** A git dir holding the lock of a run that died (and its journal). */
function staleLock(): string {
  const gitDir = scratchDir('stw-lock-');
  mkdirSync(join(gitDir, 'sourcesteward'), { recursive: true });
  const dead = { pid: deadPid(), host: hostname(), command: 'clean', started: '2026-11-30T00:00:00Z' };
  writeFileSync(join(gitDir, 'sourcesteward', 'hygiene.lock'), `${JSON.stringify(dead)}\n`);
  writeFileSync(
    join(gitDir, 'sourcesteward', 'hygiene-run.jsonl'),
    `${JSON.stringify({ type: 'start', command: 'clean', pid: dead.pid, at: dead.started, head: 'x', branch: 'main' })}\n`,
  );
  return gitDir;
}

/**
 * A process that acquires the lock and reports each step on stdout; with `pause`, it stops
 * in the takeover window until told to go on. It holds the lock until told to release it.
 */
class Contender {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly lines: string[] = [];
  private waiting: ((line: string) => void) | undefined;

  constructor(gitDir: string, pause: boolean) {
    const script = `
      import { createInterface } from 'node:readline';
      import { RunLock } from ${JSON.stringify(RUN_LOCK_JS)};
      const input = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
      const next = async () => (await input.next()).value;
      const hooks = ${pause} ? { beforeTakeover: async () => { console.log('in-window'); await next(); } } : {};
      try {
        const { lock, interrupted } = await RunLock.acquire(${JSON.stringify(gitDir)}, 'clean', ${JSON.stringify(NOW)}, hooks);
        console.log(interrupted ? 'acquired, took over ' + interrupted.events.length + ' events' : 'acquired');
        await next();
        await lock.release();
        console.log('released');
      } catch (error) {
        console.log('refused ' + error.code);
      }
      process.exit(0);
    `;
    this.child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'pipe' });
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      if (this.waiting) {
        const resolve = this.waiting;
        this.waiting = undefined;
        resolve(line);
      } else this.lines.push(line);
    });
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => process.stderr.write(chunk));
  }

  /** The next line it prints. */
  said(): Promise<string> {
    const queued = this.lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  goOn(): void {
    this.child.stdin.write('go\n');
  }

  exited(): Promise<number | null> {
    if (this.child.exitCode !== null) return Promise.resolve(this.child.exitCode);
    return new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }
}

describe('run lock: taking over a dead run’s lock is atomic', () => {
  it('a run held between reading the dead holder and taking over loses to the run that took it meanwhile', async () => {
    const gitDir = staleLock();
    const slow = new Contender(gitDir, true);
    assert.equal(await slow.said(), 'in-window');
    // While the slow run sits in the window, another takes the dead run's lock over and holds it.
    const fast = new Contender(gitDir, false);
    assert.equal(await fast.said(), 'acquired, took over 1 events');
    slow.goOn();
    // The slow run must not move the live lock aside: it is refused, naming the holder.
    assert.equal(await slow.said(), 'refused locked');
    assert.equal(await slow.exited(), 0);
    const held = JSON.parse(readFileSync(join(gitDir, 'sourcesteward', 'hygiene.lock'), 'utf8')) as {
      pid: number;
    };
    assert.notEqual(held.pid, process.pid);
    fast.goOn();
    assert.equal(await fast.said(), 'released');
    assert.equal(await fast.exited(), 0);
    assert.equal(existsSync(join(gitDir, 'sourcesteward', 'hygiene.lock')), false);
    assert.deepEqual(
      readdirSync(join(gitDir, 'sourcesteward')).filter((name) => name.startsWith('hygiene.lock')),
      [],
      'no marker or draft is left behind',
    );
  });

  it('two runs both in the window: exactly one takes the lock over', async () => {
    const gitDir = staleLock();
    const first = new Contender(gitDir, true);
    const second = new Contender(gitDir, true);
    assert.equal(await first.said(), 'in-window');
    assert.equal(await second.said(), 'in-window');
    first.goOn();
    const firstSaid = await first.said();
    second.goOn();
    const secondSaid = await second.said();
    assert.deepEqual([firstSaid, secondSaid].sort(), ['acquired, took over 1 events', 'refused locked']);
    first.goOn();
    second.goOn();
    await Promise.all([first.exited(), second.exited()]);
  });

  it('a takeover marker left by a run that died mid-takeover does not block the next run', async () => {
    const gitDir = staleLock();
    const lockFile = join(gitDir, 'sourcesteward', 'hygiene.lock');
    const stale = readFileSync(lockFile, 'utf8');
    const { createHash } = await import('node:crypto');
    const marker = `${lockFile}.takeover-${createHash('sha256').update(stale).digest('hex').slice(0, 16)}`;
    writeFileSync(
      marker,
      `${JSON.stringify({ pid: deadPid(), host: hostname(), command: 'sweep', started: NOW, token: 'dead' })}\n`,
    );
    const { lock, interrupted } = await RunLock.acquire(gitDir, 'clean', NOW);
    assert.equal(interrupted?.events.length, 1);
    assert.equal(existsSync(marker), false);
    await lock.release();
  });

  it('a live holder is never taken over', async () => {
    const gitDir = scratchDir('stw-lock-');
    const holder = new Contender(gitDir, false);
    assert.equal(await holder.said(), 'acquired');
    await assert.rejects(RunLock.acquire(gitDir, 'clean', NOW), /another stw clean \(pid \d+, since /);
    holder.goOn();
    assert.equal(await holder.said(), 'released');
  });
});
