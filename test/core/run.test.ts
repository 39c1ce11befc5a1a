import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Deadline } from '../../src/core/deadline.js';
import { describeOutcome, run } from '../../src/core/run.js';

/** Alive means running: a zombie (killed, not yet reaped by a container's init) counts as gone. */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX]/s.test(stat);
  } catch {
    return false;
  }
}

describe('run', () => {
  it('returns exit code and complete output', async () => {
    const result = await run('sh', ['-c', 'printf "a\\0b"; printf err >&2; exit 3']);
    assert.equal(result.kind, 'exited');
    if (result.kind !== 'exited') return;
    assert.equal(result.code, 3);
    assert.equal(result.stdout.toString(), 'a\0b');
    assert.equal(result.stderr.toString(), 'err');
  });

  it('passes arguments verbatim, never through a shell', async () => {
    const result = await run('printf', ['%s|', '$(echo hi)', 'a b', '*']);
    assert.equal(result.kind, 'exited');
    if (result.kind === 'exited') assert.equal(result.stdout.toString(), '$(echo hi)|a b|*|');
  });

  it('kills a command past its deadline and reports it as timed out', async () => {
    const started = Date.now();
    const result = await run('sleep', ['30'], { deadline: Deadline.after(200) });
    assert.equal(result.kind, 'timed-out');
    assert.ok(Date.now() - started < 10_000);
  });

  it('does not start a command when the deadline has already passed', async () => {
    const result = await run('sh', ['-c', 'exit 0'], { deadline: Deadline.after(0) });
    assert.equal(result.kind, 'timed-out');
  });

  it('leaves no orphan: a timed-out child takes its grandchildren with it', async () => {
    // The shell starts a background sleep, prints its pid, then waits.
    const result = await run('sh', ['-c', 'sleep 30 & echo $!; wait'], { deadline: Deadline.after(300) });
    assert.equal(result.kind, 'timed-out');
    if (result.kind !== 'timed-out') return;
    const grandchild = Number.parseInt(result.stdout.toString().trim(), 10);
    assert.ok(grandchild > 0, 'grandchild pid was printed');
    // SIGKILL to the group is immediate, but reaping is asynchronous; poll briefly.
    for (let i = 0; i < 50 && isAlive(grandchild); i++) await new Promise((r) => setImmediate(r));
    let alive = isAlive(grandchild);
    for (let i = 0; i < 20 && alive; i++) {
      await new Promise((r) => setTimeout(r, 50));
      alive = isAlive(grandchild);
    }
    assert.equal(alive, false, 'background grandchild was killed');
  });

  it('flags output past the cap as truncated and keeps only the capped prefix', async () => {
    const result = await run('sh', ['-c', 'yes line | head -c 100000'], { maxBytes: 1000 });
    assert.equal(result.kind, 'truncated');
    if (result.kind !== 'truncated') return;
    assert.equal(result.stream, 'stdout');
    assert.equal(result.stdout.length, 1000);
    assert.match(describeOutcome(result, 'yes'), /treated as incomplete/);
  });

  it('output exactly at the cap is complete', async () => {
    const result = await run('sh', ['-c', 'head -c 1000 /dev/zero'], { maxBytes: 1000 });
    assert.equal(result.kind, 'exited');
  });

  it('reports a missing binary as not found', async () => {
    const result = await run('stw-no-such-binary-xyz', []);
    assert.equal(result.kind, 'not-found');
  });

  it('reports a missing working directory as a spawn failure, not a missing binary', async () => {
    const result = await run('sh', ['-c', 'true'], { cwd: '/nonexistent-stw-dir' });
    assert.equal(result.kind, 'spawn-failed');
  });

  it('closes stdin unless input is given', async () => {
    const closed = await run('cat', []);
    assert.equal(closed.kind, 'exited');
    if (closed.kind === 'exited') assert.equal(closed.stdout.toString(), '');
    const fed = await run('cat', [], { input: 'hello' });
    if (fed.kind === 'exited') assert.equal(fed.stdout.toString(), 'hello');
    else assert.fail(fed.kind);
  });

  it('streams stdout to a callback without buffering it', async () => {
    const chunks: Buffer[] = [];
    const result = await run('sh', ['-c', 'head -c 300000 /dev/zero'], {
      maxBytes: 1 << 20,
      onStdout: (chunk) => chunks.push(chunk),
    });
    assert.equal(result.kind, 'exited');
    if (result.kind === 'exited') assert.equal(result.stdout.length, 0);
    assert.equal(Buffer.concat(chunks).length, 300000);
  });

  it('cancellation kills the child and reports cancelled', async () => {
    const controller = new AbortController();
    const pending = run('sleep', ['30'], { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    assert.equal((await pending).kind, 'cancelled');
  });
});

describe('describeOutcome', () => {
  it('names the error line, not a hint in front of it', async () => {
    const result = await run('sh', [
      '-c',
      'echo "hint: something deprecated" >&2; echo "fatal: the real cause" >&2; exit 128',
    ]);
    assert.equal(describeOutcome(result, 'git x'), 'git x exited 128: fatal: the real cause');
    const plain = await run('sh', ['-c', 'echo "hint: h" >&2; echo "it broke" >&2; exit 1']);
    assert.equal(describeOutcome(plain, 'tool'), 'tool exited 1: it broke');
  });
});
