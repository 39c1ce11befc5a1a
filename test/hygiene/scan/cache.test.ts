import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cacheKeyPath, readOrCreateCacheKey } from '../../../src/hygiene/scan/cache/key.js';
import { CacheStore, cacheDirOf } from '../../../src/hygiene/scan/cache/store.js';
import { TokenCache } from '../../../src/hygiene/scan/cache/token-cache.js';
import { scan } from '../../../src/hygiene/scan/index.js';
import { countTokens, dropTokenCountStore, useTokenCountStore } from '../../../src/hygiene/tokens.js';
import { DEFAULT_CONFIG, type HygieneConfig } from '../../../src/hygiene/types.js';
import { makeRepo, makeTempDir, type TestRepo } from '../../helpers/git-repo.js';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const cleanups: (() => void)[] = [];
after(() => {
  for (const cleanup of cleanups) cleanup();
});

/** A repository of a few docs that link to each other, with a rename in its history. */
function fixture(): TestRepo {
  const repo = makeRepo();
  cleanups.push(() => repo.cleanup());
  repo.commit('docs', {
    'README.md': '# Project\n\nSee [the guide](docs/guide.md#install) and `src/main.ts`.\n',
    'docs/guide.md':
      '---\ntitle: Guide\nowner: [a, b]\n---\n# Guide\n\n## Install\n\nRun it. [api](api.md)\n',
    'docs/api.md': '# API\n\n[back](../README.md) [gone](old.md)\n\n```sh\nnot/a/link.md\n```\n',
    'AGENTS.md': '# Agents\n\nRead @docs/guide.md first.\n',
    'src/main.ts': 'export {};\n',
  });
  repo.move('move', 'docs/api.md', 'docs/reference.md');
  repo.commit('fix link', { 'docs/guide.md': '# Guide\n\n## Install\n\nRun it. [api](reference.md)\n' });
  return repo;
}

interface Scanned {
  json: string;
  reused: number;
  parsed: number;
  history: string;
}

async function scanOnce(
  root: string,
  options: { cache?: boolean; env?: NodeJS.ProcessEnv; config?: Partial<HygieneConfig> } = {},
): Promise<Scanned> {
  const messages: string[] = [];
  const artifact = await scan({
    root,
    config: { ...DEFAULT_CONFIG, ...options.config },
    nowMs: NOW,
    env: { ...process.env, ...options.env },
    ...(options.cache === false ? { cache: false } : {}),
    onProgress: (message) => messages.push(message),
  });
  const line = messages.find((m) => m.startsWith('cache: ')) ?? '';
  const counts = /^cache: (\d+) docs reused, (\d+) parsed; history (.+)$/.exec(line);
  return {
    json: JSON.stringify(artifact),
    reused: Number(counts?.[1] ?? -1),
    parsed: Number(counts?.[2] ?? -1),
    history: counts?.[3] ?? 'none',
  };
}

/** A cached scan, checked against a scan without the cache. */
async function scanChecked(root: string, options: Parameters<typeof scanOnce>[1] = {}): Promise<Scanned> {
  const cached = await scanOnce(root, options);
  const plain = await scanOnce(root, { ...options, cache: false });
  assert.equal(plain.history, 'none', 'a scan without the cache says nothing of it');
  assert.equal(cached.json, plain.json, 'the artifact is the same with and without the cache');
  return cached;
}

function entries(repo: TestRepo): string[] {
  const dir = cacheDirOf(repo.path('.git'));
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

describe('scan cache', () => {
  it('parses and reads history once, then reuses both; a one-file edit parses that file only', async () => {
    const repo = fixture();
    const cold = await scanChecked(repo.dir);
    assert.deepEqual([cold.reused, cold.parsed, cold.history], [0, 4, 'full']);
    assert.ok(entries(repo).length >= 4, 'parse facts, history and their pointers are stored');
    const warm = await scanChecked(repo.dir);
    assert.deepEqual([warm.reused, warm.parsed, warm.history], [4, 0, 'hit']);
    repo.write({ 'docs/reference.md': '# API\n\n[back](../README.md) [gone](missing.md#x)\n' });
    const edited = await scanChecked(repo.dir);
    assert.deepEqual([edited.reused, edited.parsed, edited.history], [3, 1, 'hit']);
    assert.notEqual(edited.json, warm.json);
  });

  it('lives under the git dir, never in the work tree; none outside a repository', async () => {
    const repo = fixture();
    await scanOnce(repo.dir);
    assert.equal(repo.git(['status', '--porcelain', '--ignored']), '');
    const dir = makeTempDir('stw-cache-norepo-');
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'README.md'), '# Hi\n');
    const outside = await scanOnce(dir);
    assert.equal(outside.history, 'none');
    assert.deepEqual(readdirSync(dir), ['README.md']);
  });

  it("writes only into the repository's own common dir: a shipped commondir naming another is not used", async () => {
    const victim = fixture();
    const hostile = fixture();
    // git reads `commondir` in any git dir; a repository's .git can name another one's.
    writeFileSync(hostile.path('.git', 'commondir'), `${victim.path('.git')}\n`);
    await scanOnce(hostile.dir);
    assert.deepEqual(entries(victim), [], "nothing is written into the other repository's .git");
    assert.equal(existsSync(cacheDirOf(hostile.path('.git'))), false);
    const worktree = makeTempDir('stw-cache-wt-');
    cleanups.push(() => rmSync(worktree, { recursive: true, force: true }));
    victim.git(['worktree', 'add', '-q', join(worktree, 'wt'), 'HEAD']);
    await scanOnce(join(worktree, 'wt'));
    assert.ok(entries(victim).length > 0, "a linked work tree's cache is its repository's");
  });

  it('misses on a configuration change, a threshold-bearing key and a tool version change', async () => {
    const repo = fixture();
    await scanChecked(repo.dir);
    const budget = await scanChecked(repo.dir, {
      config: { context: { ...DEFAULT_CONFIG.context, budget_tokens: 7 } },
    });
    assert.deepEqual([budget.reused, budget.parsed, budget.history], [0, 4, 'full']);
    const again = await scanChecked(repo.dir, {
      config: { context: { ...DEFAULT_CONFIG.context, budget_tokens: 7 } },
    });
    assert.deepEqual([again.reused, again.history], [4, 'hit']);
    const version = { STW_TEST_HOOKS: '1', STW_TEST_CACHE_VERSION: '99.0.0' };
    const bumped = await scanChecked(repo.dir, { env: version });
    assert.deepEqual([bumped.reused, bumped.parsed, bumped.history], [0, 4, 'full']);
    // The version is read only under the test hooks: without them it is the package's.
    const unhooked = await scanChecked(repo.dir, { env: { STW_TEST_CACHE_VERSION: '99.0.0' } });
    assert.deepEqual([unhooked.reused, unhooked.history], [4, 'hit']);
  });

  it('reads only the new commits after HEAD moves on, and all of history after a rewrite', async () => {
    const repo = fixture();
    await scanChecked(repo.dir);
    repo.commit('more', { 'docs/new.md': '# New\n\n[guide](guide.md)\n' });
    repo.move('rename again', 'docs/reference.md', 'docs/ref.md');
    const moved = await scanChecked(repo.dir);
    assert.deepEqual([moved.parsed, moved.history], [1, 'incremental']);
    assert.deepEqual((await scanChecked(repo.dir)).history, 'hit');
    // A rewrite: PREV is no longer an ancestor of HEAD.
    repo.git(['reset', '-q', '--hard', 'HEAD~2']);
    repo.commit('other', { 'docs/other.md': '# Other\n' });
    const rewritten = await scanChecked(repo.dir);
    assert.equal(rewritten.history, 'full');
    // Back on the old commit: its entry is still there.
    repo.git(['reset', '-q', '--hard', 'HEAD~1']);
    assert.equal((await scanChecked(repo.dir)).history, 'hit');
  });

  it('reads all of history when a merge brings in commits older than PREV', async () => {
    const repo = fixture();
    const base = repo.head();
    repo.branch('side', base);
    repo.commit('main moves', { 'docs/main.md': '# Main\n' });
    repo.checkout('side');
    repo.commit('side work', { 'docs/side.md': '# Side\n' }, { date: '2025-12-31T00:00:00Z' });
    repo.checkout('main');
    await scanChecked(repo.dir);
    repo.git(['merge', '-q', '--no-ff', '-m', 'merge side', 'side'], {
      env: { GIT_AUTHOR_DATE: '2026-02-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-02-01T00:00:00Z' },
    });
    const merged = await scanChecked(repo.dir);
    assert.equal(merged.history, 'full');
  });

  describe('a cache it cannot trust is ignored and rebuilt', () => {
    const corruptions: [string, (repo: TestRepo, name: string, store: CacheStore) => void][] = [
      ['truncated', (repo, name) => cut(repo, name, (bytes) => bytes.subarray(0, bytes.length >> 1))],
      ['garbage', (repo, name) => cut(repo, name, (bytes) => randomBytes(bytes.length))],
      ['empty', (repo, name) => cut(repo, name, () => Buffer.alloc(0))],
      [
        'valid JSON of the wrong shape, signed',
        (_repo, name, store) => {
          const value = store.read(name) as Record<string, unknown>;
          store.write(name, reshape(value));
        },
      ],
      [
        'signed by another key (another user or machine)',
        (repo, name, store) => {
          const value = store.read(name);
          const foreign = CacheStore.open(cacheDirOf(repo.path('.git')), randomBytes(32), store.maxBytes)!;
          foreign.write(name, value);
        },
      ],
    ];
    for (const [label, corrupt] of corruptions) {
      it(label, async () => {
        const repo = fixture();
        await scanChecked(repo.dir);
        const store = openStore(repo);
        for (const name of entries(repo)) corrupt(repo, name, store);
        const after = await scanChecked(repo.dir);
        assert.deepEqual([after.reused, after.parsed, after.history], [0, 4, 'full']);
        const rebuilt = await scanChecked(repo.dir);
        assert.deepEqual([rebuilt.reused, rebuilt.history], [4, 'hit']);
      });
    }

    it('an entry stored under another key', async () => {
      const repo = fixture();
      await scanChecked(repo.dir);
      const names = entries(repo);
      const bytes = names.map((name) => readFileSync(join(cacheDirOf(repo.path('.git')), name)));
      // Every entry gets another's bytes (its HMAC covers its own name).
      names.forEach((name, i) => {
        writeFileSync(join(cacheDirOf(repo.path('.git')), name), bytes[(i + 1) % bytes.length]!);
      });
      const after = await scanChecked(repo.dir);
      assert.deepEqual([after.reused, after.history], [0, 'full']);
    });

    it('a symlinked or unwritable cache folder: the scan runs without it', async () => {
      const repo = fixture();
      const elsewhere = makeTempDir('stw-cache-elsewhere-');
      cleanups.push(() => rmSync(elsewhere, { recursive: true, force: true }));
      symlinkSync(elsewhere, repo.path('.git', 'sourcesteward-cache'));
      const linked = await scanChecked(repo.dir);
      assert.equal(linked.history, 'none');
      assert.deepEqual(readdirSync(elsewhere), [], 'nothing is written through the link');
      rmSync(repo.path('.git', 'sourcesteward-cache'));
      writeFileSync(repo.path('.git', 'sourcesteward-cache'), 'not a folder');
      assert.equal((await scanChecked(repo.dir)).history, 'none');
    });
  });

  it('keeps to its bound, dropping the least recently used entries first', () => {
    const dir = makeTempDir('stw-cache-store-');
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const store = CacheStore.open(join(dir, 'sourcesteward-cache'), randomBytes(32), 40 * 1024)!;
    const names = ['a', 'b', 'c', 'd'].map((c) => c.repeat(64));
    names.forEach((name, i) => {
      // Random text barely compresses: each entry is ~24 KiB on disk.
      assert.equal(store.write(name, { filler: randomBytes(18 * 1024).toString('base64') }), true);
      utimesSync(join(store.dir, name), 1000 + i, 1000 + i);
    });
    assert.notEqual(store.read(names[0]!), undefined, 'reading the oldest makes it the most recent');
    store.evict();
    const kept = readdirSync(store.dir).sort();
    assert.deepEqual(kept, [names[0], names[3]].sort(), 'b and c were the least recently used');
    assert.equal(
      store.write('e'.repeat(64), { filler: randomBytes(80 * 1024).toString('base64') }),
      false,
      'an entry over the bound is not written',
    );
  });

  it('two concurrent runs share the cache and agree', async () => {
    const repo = fixture();
    const [one, two] = await Promise.all([scanOnce(repo.dir), scanOnce(repo.dir)]);
    const plain = await scanOnce(repo.dir, { cache: false });
    assert.equal(one.json, plain.json);
    assert.equal(two.json, plain.json);
    assert.ok(
      entries(repo).every((name) => /^[0-9a-f]{64}$/.test(name)),
      'no temp file is left',
    );
    const next = await scanChecked(repo.dir);
    assert.deepEqual([next.reused, next.history], [4, 'hit']);
  });

  it('token counts are kept by text: a known text is not counted again, a bad entry is ignored', () => {
    const dir = makeTempDir('stw-cache-tokens-');
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const store = CacheStore.open(join(dir, 'cache'), randomBytes(32), 1024 * 1024)!;
    const text = 'A text whose count the cache already holds.';
    const digest = createHash('sha1').update(text).digest('hex');
    const real = countTokens(`${text} `);
    const seeded = new TokenCache(store, 'v1');
    seeded.set(digest, 4242);
    seeded.save();
    const reading = new TokenCache(store, 'v1');
    useTokenCountStore(reading);
    try {
      assert.equal(countTokens(text), 4242, 'the stored count stands for the tokenizer');
      assert.equal(countTokens(`${text} `), real, 'a text not stored is counted');
    } finally {
      dropTokenCountStore(reading);
    }
    assert.equal(new TokenCache(store, 'v2').get(digest), undefined, 'another version misses');
    store.write(readdirSync(store.dir).find((n) => /^[0-9a-f]{64}$/.test(n))!, { counts: { [digest]: -5 } });
    assert.equal(new TokenCache(store, 'v1').get(digest), undefined, 'a count of the wrong shape is ignored');
  });

  it('the per-user key lives outside the repository, 0600, made once', () => {
    const home = makeTempDir('stw-cache-home-');
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const path = cacheKeyPath({ XDG_CACHE_HOME: home });
    assert.equal(path, join(home, 'sourcesteward', 'cache-key'));
    const key = readOrCreateCacheKey(path);
    assert.equal(key?.length, 32);
    assert.deepEqual(readOrCreateCacheKey(path), key);
    writeFileSync(path, 'short', { mode: 0o600 });
    assert.equal(readOrCreateCacheKey(path), undefined, 'a key of the wrong size is not used');
  });
});

function openStore(repo: TestRepo): CacheStore {
  const key = readOrCreateCacheKey(cacheKeyPath(process.env))!;
  return CacheStore.open(cacheDirOf(repo.path('.git')), key, 256 * 1024 * 1024)!;
}

function cut(repo: TestRepo, name: string, change: (bytes: Buffer) => Buffer): void {
  const path = join(cacheDirOf(repo.path('.git')), name);
  writeFileSync(path, change(readFileSync(path)));
}

/** The same entry with every field of the wrong type: strings for arrays, arrays for objects. */
function reshape(value: Record<string, unknown>): Record<string, unknown> {
  if (value['docs'] !== undefined) {
    const docs: Record<string, unknown> = {};
    for (const oid of Object.keys(value['docs'] as object)) docs[oid] = { r: 'not a list', a: [1, 2] };
    return { ...value, docs };
  }
  if (value['counts'] !== undefined)
    return { counts: { ['f'.repeat(40)]: -1, nothex: 3, ['e'.repeat(40)]: 'x' } };
  if (value['log'] !== undefined) return { ...value, log: { ...(value['log'] as object), starts: [5, 1] } };
  return { ...value, head: 42, bundle: ['x'] };
}
