import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, RefusalError } from '../../../src/core/errors.js';
import { findRepoRoot, resolveProjectRoot } from '../../../src/hygiene/project.js';
import { GITIGNORE_LINE, StateStore } from '../../../src/hygiene/state/store.js';
import { makeRepo, makeTempDir } from '../../helpers/git-repo.js';

const listDir = (dir: string) => readdirSync(dir).sort();
const pair = (store: StateStore) => [
  readFileSync(store.reportJsonPath, 'utf8'),
  readFileSync(store.reportMdPath, 'utf8'),
];

describe('resolveProjectRoot', () => {
  it('is the git toplevel from a subdirectory, else the cwd (realpath)', async () => {
    const repo = makeRepo();
    try {
      mkdirSync(join(repo.dir, 'docs', 'deep'), { recursive: true });
      assert.equal(await resolveProjectRoot(join(repo.dir, 'docs', 'deep')), repo.dir);
      const plain = makeTempDir();
      const link = join(makeTempDir(), 'via-link');
      symlinkSync(plain, link);
      assert.equal(await resolveProjectRoot(link), plain);
      assert.equal(await findRepoRoot(plain), undefined);
    } finally {
      repo.cleanup();
    }
  });
});

describe('StateStore state', () => {
  it('missing state is all null; stamp writes one field atomically and keeps the others', async () => {
    const root = makeTempDir();
    const store = new StateStore(root);
    assert.deepEqual(await store.read(), { last_check: null, last_clean: null, last_reminded: null });
    assert.deepEqual(listDir(root), [], 'reading creates nothing');
    await store.stamp('last_check', '2026-11-01T10:00:00Z');
    await store.stamp('last_reminded', '2026-11-02T08:00:00Z');
    assert.deepEqual(await store.read(), {
      last_check: '2026-11-01T10:00:00Z',
      last_clean: null,
      last_reminded: '2026-11-02T08:00:00Z',
    });
    assert.deepEqual(listDir(root), ['.dochygiene']);
    assert.deepEqual(listDir(store.dir), ['.gitignore', 'state.json'], 'no temp file is left behind');
    await assert.rejects(store.stamp('last_check', 'yesterday'), TypeError);
  });

  it('corrupt state is a ConfigError with code state-corrupt', async () => {
    const root = makeTempDir();
    const store = new StateStore(root);
    mkdirSync(store.dir);
    for (const text of [
      '{"last_check": "2026-11-01T10:00',
      '[]',
      '{"last_check": 5}',
      '{"last_clean": "last week"}',
    ]) {
      writeFileSync(store.statePath, text);
      await assert.rejects(
        store.read(),
        (error) => error instanceof ConfigError && error.code === 'state-corrupt',
      );
      await assert.rejects(store.stamp('last_reminded', '2026-11-01T10:00:00Z'), { code: 'state-corrupt' });
      assert.equal(readFileSync(store.statePath, 'utf8'), text, 'a failed stamp leaves the file as it was');
    }
  });

  it('a .dochygiene that is a regular file reads as no state and refuses writes', async () => {
    // Tests run as root, where chmod does not stop writes; a file where the directory should
    // be makes every write inside it fail for real (ENOTDIR/EEXIST).
    const root = makeTempDir();
    writeFileSync(join(root, '.dochygiene'), 'not a directory\n');
    const store = new StateStore(root);
    assert.deepEqual(await store.read(), { last_check: null, last_clean: null, last_reminded: null });
    assert.equal(await store.hasReport(), false);
    await assert.rejects(store.stamp('last_check', '2026-11-01T10:00:00Z'));
    await assert.rejects(store.writeReport('{}', '# r\n'), { code: 'state-dir-unsafe' });
    assert.equal(readFileSync(join(root, '.dochygiene'), 'utf8'), 'not a directory\n');
  });

  it('a .dochygiene symlink is never read or written through: writes refuse, reads see no state', async () => {
    const root = makeTempDir();
    const outside = makeTempDir();
    const files = {
      'state.json': '{"last_check": "2026-11-01T10:00:00Z"}\n',
      'report.json': '{"n": 1}\n',
      'report.md': "the user's own notes\n",
    };
    for (const [name, text] of Object.entries(files)) writeFileSync(join(outside, name), text);
    symlinkSync(outside, join(root, '.dochygiene'));
    const store = new StateStore(root);
    assert.deepEqual(await store.read(), { last_check: null, last_clean: null, last_reminded: null });
    assert.equal(await store.hasReport(), false);
    const unsafe = { code: 'state-dir-unsafe' };
    await assert.rejects(
      store.assertSafe(),
      (error) => error instanceof RefusalError && error.code === unsafe.code,
    );
    await assert.rejects(store.readReport(), unsafe);
    await assert.rejects(store.stamp('last_reminded', '2026-11-02T08:00:00Z'), unsafe);
    await assert.rejects(store.writeReport('{"n": 2}\n', '# two\n'), unsafe);
    await assert.rejects(store.recover(), unsafe);
    assert.deepEqual(listDir(outside), Object.keys(files).sort(), 'nothing created outside');
    for (const [name, text] of Object.entries(files))
      assert.equal(readFileSync(join(outside, name), 'utf8'), text);
    // A dangling symlink is refused too: writing would create files wherever it points.
    const dangling = makeTempDir();
    symlinkSync(join(outside, 'missing'), join(dangling, '.dochygiene'));
    await assert.rejects(new StateStore(dangling).stamp('last_check', '2026-11-01T10:00:00Z'), unsafe);
    assert.equal(existsSync(join(outside, 'missing')), false);
  });
});

describe('StateStore report rollover', () => {
  it('keeps exactly one pair after each write', async () => {
    const root = makeTempDir();
    const store = new StateStore(root);
    assert.equal(await store.hasReport(), false);
    await store.writeReport('{"n":1}\n', '# one\n');
    await store.writeReport('{"n":2}\n', '# two\n');
    assert.deepEqual(listDir(store.dir), ['.gitignore', 'report.json', 'report.md']);
    assert.deepEqual(pair(store), ['{"n":2}\n', '# two\n']);
    assert.equal(await store.hasReport(), true);
    assert.deepEqual(await store.readReport(), { n: 2 });
    assert.deepEqual(listDir(root), ['.dochygiene'], 'writes stay inside .dochygiene/');
  });

  for (const point of ['afterStage', 'afterMdRename'] as const) {
    it(`a failure half-way (${point}) keeps the previous pair and no scratch files`, async () => {
      const root = makeTempDir();
      const store = new StateStore(root);
      await store.writeReport('{"n":1}\n', '# one\n');
      await assert.rejects(
        store.writeReport('{"n":2}\n', '# two\n', {
          [point]: () => {
            throw new Error('disk full');
          },
        }),
        /disk full/,
      );
      assert.deepEqual(pair(store), ['{"n":1}\n', '# one\n']);
      assert.deepEqual(listDir(store.dir), ['.gitignore', 'report.json', 'report.md']);
    });
  }

  it('a failure half-way through the first write leaves no report at all', async () => {
    const store = new StateStore(makeTempDir());
    await assert.rejects(
      store.writeReport('{"n":1}\n', '# one\n', {
        afterMdRename: () => {
          throw new Error('boom');
        },
      }),
    );
    assert.deepEqual(listDir(store.dir), ['.gitignore']);
    assert.equal(await store.hasReport(), false);
  });

  it('a crash between the renames: readers see the old json; recovery restores the old md', async () => {
    const store = new StateStore(makeTempDir());
    await store.writeReport('{"n":1}\n', '# one\n');
    await assert.rejects(
      store.writeReport('{"n":2}\n', '# two\n', {
        simulateCrash: true,
        afterMdRename: () => {
          throw new Error('power lost');
        },
      }),
    );
    // What a crash leaves on disk: the new md in place, the json not yet committed.
    assert.deepEqual(await store.readReport(), { n: 1 });
    assert.equal(readFileSync(store.reportMdPath, 'utf8'), '# two\n');
    await store.recover();
    assert.deepEqual(pair(store), ['{"n":1}\n', '# one\n']);
    assert.deepEqual(listDir(store.dir), ['.gitignore', 'report.json', 'report.md']);
  });

  it('a crash before the renames: nothing visible changed; the next write recovers and rolls over', async () => {
    const store = new StateStore(makeTempDir());
    await store.writeReport('{"n":1}\n', '# one\n');
    await assert.rejects(
      store.writeReport('{"n":2}\n', '# two\n', {
        simulateCrash: true,
        afterStage: () => {
          throw new Error('power lost');
        },
      }),
    );
    assert.deepEqual(pair(store), ['{"n":1}\n', '# one\n'], 'nothing visible changed before the renames');
    // The next write recovers first, then rolls over normally.
    await store.writeReport('{"n":3}\n', '# three\n');
    assert.deepEqual(pair(store), ['{"n":3}\n', '# three\n']);
    assert.deepEqual(listDir(store.dir), ['.gitignore', 'report.json', 'report.md']);
  });

  it('a crash after the commit point (backups left behind): recovery keeps the new pair', async () => {
    const store = new StateStore(makeTempDir());
    await store.writeReport('{"n":2}\n', '# two\n');
    // The state a crash right after the json rename leaves: the new pair plus the backups.
    writeFileSync(join(store.dir, '.report.json.prev'), '{"n":1}\n');
    writeFileSync(join(store.dir, '.report.md.prev'), '# one\n');
    await store.recover();
    assert.deepEqual(pair(store), ['{"n":2}\n', '# two\n']);
    assert.deepEqual(listDir(store.dir), ['.gitignore', 'report.json', 'report.md']);
  });
});

describe('StateStore.isIgnoredByGit', () => {
  it('true when ignored, false when not, undefined outside a repository', async () => {
    const repo = makeRepo();
    try {
      const store = new StateStore(repo.dir);
      assert.equal(await store.isIgnoredByGit(), false);
      writeFileSync(join(repo.dir, '.gitignore'), `${GITIGNORE_LINE}\n`);
      assert.equal(await store.isIgnoredByGit(), true);
      assert.equal(await new StateStore(makeTempDir()).isIgnoredByGit(), undefined);
    } finally {
      repo.cleanup();
    }
  });
});
