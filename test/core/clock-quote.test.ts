import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clockFromEnv, fixedClock, formatInstant, isRfc3339, systemClock } from '../../src/core/clock.js';
import { exitCodeFor, RefusalError, UsageError, ValidationError } from '../../src/core/errors.js';
import { gitText, splitNul } from '../../src/core/git.js';
import { escapeText, isSafeText, quote } from '../../src/core/quote.js';
import { makeRepo } from '../helpers/git-repo.js';

describe('clock', () => {
  it('STW_NOW pins the clock', () => {
    const clock = clockFromEnv({ STW_NOW: '2026-03-04T05:06:07Z' });
    assert.equal(formatInstant(clock.now()), '2026-03-04T05:06:07Z');
  });

  it('falls back to the system clock', () => {
    assert.equal(clockFromEnv({}), systemClock);
  });

  it('rejects a malformed STW_NOW as a usage error', () => {
    assert.throws(() => clockFromEnv({ STW_NOW: 'yesterday' }), UsageError);
    assert.ok(!isRfc3339('2026-03-04'));
    assert.ok(isRfc3339('2026-03-04T05:06:07.5+02:00'));
  });

  it('a fixed clock returns copies', () => {
    const clock = fixedClock('2026-01-01T00:00:00Z');
    clock.now().setFullYear(1999);
    assert.equal(clock.now().getUTCFullYear(), 2026);
  });
});

describe('errors', () => {
  it('maps error classes to exit codes in one place', () => {
    assert.equal(exitCodeFor(undefined), 0);
    assert.equal(exitCodeFor(new UsageError('x')), 2);
    assert.equal(exitCodeFor(new RefusalError('stale', 'x')), 1);
    assert.equal(exitCodeFor(new ValidationError('invalid', 'x')), 1);
    assert.equal(exitCodeFor(new Error('bug')), 1);
  });
});

describe('quote', () => {
  it('leaves plain text alone and quotes the rest', () => {
    assert.equal(quote('docs/plan.md'), 'docs/plan.md');
    assert.equal(quote('my file.md'), '"my file.md"');
    assert.equal(quote(''), '""');
    assert.equal(quote('a"b\\c'), '"a\\"b\\\\c"');
  });

  it('escapes control characters, escape sequences and bidi overrides', () => {
    assert.equal(quote('\u001b[31mred'), '"\\e[31mred"');
    assert.equal(escapeText('a\nb\u0007\u009b\u202e'), 'a\\nb\\x07\\x9b\\u{202e}');
    assert.ok(!isSafeText('x\u001by'));
    assert.ok(isSafeText('héllo wörld'));
  });

  it('shows an escape sequence in a real file path and commit subject quoted, not raw', async () => {
    const repo = makeRepo();
    const evilName = 'docs/\u001b]0;pwned\u0007evil.md';
    repo.commit('add \u001b[2Jevil subject', { [evilName]: 'x\n' });
    const files = splitNul(await gitText(['ls-files', '-z'], { cwd: repo.dir }));
    const subject = (await gitText(['log', '-1', '--format=%s'], { cwd: repo.dir })).trimEnd();
    const shown = [...files.map(quote), quote(subject)].join('\n');
    assert.ok(!shown.includes('\u001b'), 'no raw ESC reaches the output');
    assert.ok(!shown.includes('\u0007'), 'no raw BEL reaches the output');
    assert.ok(shown.includes('"docs/\\e]0;pwned\\x07evil.md"'));
    assert.ok(shown.includes('"add \\e[2Jevil subject"'));
    repo.cleanup();
  });
});
