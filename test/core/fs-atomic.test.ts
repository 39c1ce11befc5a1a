import assert from 'node:assert/strict';
import { appendFileSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Journal, readJournal, writeFileAtomic, writeFileExclusive } from '../../src/core/fs-atomic.js';
import { makeTempDir } from '../helpers/git-repo.js';

describe('writeFileAtomic', () => {
  it('gives the file exactly the mode asked for, whatever the umask', async () => {
    const dir = makeTempDir();
    const path = join(dir, 'shared.md');
    const previous = process.umask(0o022);
    try {
      await writeFileAtomic(path, 'x', { mode: 0o666 });
      assert.equal(statSync(path).mode & 0o777, 0o666);
      await writeFileAtomic(path, 'y', { mode: 0o640 });
      assert.equal(statSync(path).mode & 0o777, 0o640);
    } finally {
      process.umask(previous);
    }
  });

  it('replaces the content and leaves no temp file', async () => {
    const dir = makeTempDir();
    const path = join(dir, 'state.json');
    await writeFileAtomic(path, 'one');
    await writeFileAtomic(path, 'two');
    assert.equal(readFileSync(path, 'utf8'), 'two');
    assert.deepEqual(readdirSync(dir), ['state.json']);
  });

  it('keeps the previous content when the write fails half-way', async () => {
    const dir = makeTempDir();
    const path = join(dir, 'state.json');
    writeFileSync(path, 'previous');
    await assert.rejects(
      writeFileAtomic(path, 'next', {
        beforeRename: () => {
          throw new Error('injected crash');
        },
      }),
      /injected crash/,
    );
    assert.equal(readFileSync(path, 'utf8'), 'previous');
    assert.deepEqual(readdirSync(dir), ['state.json']);
  });
});

describe('writeFileExclusive', () => {
  it('creates once and refuses to overwrite', async () => {
    const dir = makeTempDir();
    const path = join(dir, 'plan.json');
    await writeFileExclusive(path, '{}');
    await assert.rejects(writeFileExclusive(path, '{"x":1}'), { code: 'EEXIST' });
    assert.equal(readFileSync(path, 'utf8'), '{}');
  });
});

describe('Journal', () => {
  it('appends one JSON line per record and reads them back', async () => {
    const dir = makeTempDir();
    const path = join(dir, 'journal.jsonl');
    const journal = await Journal.open(path);
    journal.append({ step: 'intent', n: 1 });
    journal.append({ step: 'outcome', n: 1 });
    journal.close();
    const reopened = await Journal.open(path);
    reopened.append({ step: 'intent', n: 2 });
    reopened.close();
    const contents = await readJournal<{ step: string; n: number }>(path);
    assert.deepEqual(
      contents.records.map((r) => `${r.step}:${r.n}`),
      ['intent:1', 'outcome:1', 'intent:2'],
    );
    assert.equal(contents.tornTail, undefined);
  });

  it('reports a torn final record instead of trusting it', async () => {
    const dir = makeTempDir();
    const path = join(dir, 'journal.jsonl');
    const journal = await Journal.open(path);
    journal.append({ step: 'intent' });
    journal.close();
    appendFileSync(path, '{"step":"outc');
    const contents = await readJournal(path);
    assert.equal(contents.records.length, 1);
    assert.equal(contents.tornTail, '{"step":"outc');
  });

  it('treats a missing journal as empty', async () => {
    const contents = await readJournal(join(makeTempDir(), 'none.jsonl'));
    assert.deepEqual(contents, { records: [], tornTail: undefined });
  });
});
