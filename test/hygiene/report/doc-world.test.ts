import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import {
  inboundReferences,
  readDocWorld,
  referencesBroken,
  simulate,
  worldOf,
} from '../../../src/hygiene/references.js';
import { scanWithDocuments } from '../../../src/hygiene/scan/index.js';
import { DEFAULT_CONFIG } from '../../../src/hygiene/types.js';
import { makeRepo, type TestRepo } from '../../helpers/git-repo.js';

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

/** A project whose docs the scan reads in part: some are excluded, archived or out of scope. */
function project(): TestRepo {
  const repo = makeRepo();
  repos.push(repo);
  repo.commit('docs', {
    'README.md': '\uFEFF# Project\n\nSee [the guide](docs/guide.md#setup) and [old](archive/old.md).\n',
    'docs/guide.md': '# Guide\n\n## Setup\n\nRun it.\n',
    'docs/frozen.md': '---\nhygiene: frozen\n---\n# Frozen\n\n[gone](gone.md)\n',
    'archive/old.md': '# Old\n\n[up](../README.md)\n',
    'CHANGELOG.md': '# Changes\n',
    'src/main.ts': 'export {};\n',
  });
  repo.write({ 'notes/untracked.md': '# Draft\n' });
  return repo;
}

describe('the doc world check proves link fixes against', () => {
  for (const scopes of [undefined, ['docs']]) {
    it(`is the same world whether read afresh or taken from the scan (scope ${scopes ?? 'none'})`, async () => {
      const repo = project();
      const config = structuredClone(DEFAULT_CONFIG);
      const fresh = await readDocWorld(repo.dir, config);
      const { documents } = await scanWithDocuments({
        root: repo.dir,
        config,
        ...(scopes ? { scopes } : {}),
      });
      const reused = await readDocWorld(repo.dir, config, undefined, documents);
      assert.deepEqual([...reused.files].sort(), [...fresh.files].sort());
      assert.deepEqual(
        [...reused.docs].sort(([a], [b]) => (a < b ? -1 : 1)),
        [...fresh.docs].sort(([a], [b]) => (a < b ? -1 : 1)),
      );
      // Docs the scan read are not parsed again: their parse is the scan's own object.
      assert.ok(documents.docs.size > 0);
      for (const [path, doc] of documents.docs) {
        if (!reused.docs.has(path)) continue;
        assert.equal(reused.parsed?.get(path), doc.parsed, path);
      }
      // Docs the scan left out (frozen, archived, a log, out of scope) are read for the world.
      for (const path of ['docs/frozen.md', 'archive/old.md', 'CHANGELOG.md']) {
        assert.ok(reused.docs.has(path), path);
        assert.equal(documents.docs.has(path), false, path);
      }
      assert.equal(reused.docs.get('README.md'), fresh.docs.get('README.md'));
      assert.equal(reused.docs.has('notes/untracked.md'), true);
    });
  }

  it('asks the disk once per path, and a text edit keeps the world’s file set', async () => {
    const repo = project();
    const world = await readDocWorld(repo.dir, structuredClone(DEFAULT_CONFIG));
    assert.equal(world.onDisk('notes/later.md'), false);
    repo.write({ 'notes/later.md': '# Later\n' });
    // One world is one look at the tree: the answer does not change under it.
    assert.equal(world.onDisk('notes/later.md'), false);
    assert.equal(
      (await readDocWorld(repo.dir, structuredClone(DEFAULT_CONFIG))).onDisk('notes/later.md'),
      true,
    );

    const before = worldOf(world);
    const edit = {
      id: 'e',
      path: 'README.md',
      op_type: 'deterministic',
      exact_edit: {
        kind: 'replace-text',
        anchor: { start_line: 3, end_line: 3 },
        match: 'docs/guide.md#setup',
        replacement: 'docs/guide.md',
      },
    } as never;
    const edited = simulate(before, { edits: new Map([['README.md', [edit]]]), moves: new Map() });
    assert.equal(edited.after.files, before.files);
    assert.equal(edited.after.isDir('docs'), true);
    assert.equal(edited.after.doc('docs/guide.md'), before.doc('docs/guide.md'));
    assert.notEqual(edited.after.docs.get('README.md'), before.docs.get('README.md'));
    const moved = simulate(before, { edits: new Map(), moves: new Map([['docs/guide.md', 'guide.md']]) });
    assert.notEqual(moved.after.files, before.files);
    assert.equal(moved.after.exists('docs/guide.md'), false);
    assert.equal(moved.after.exists('guide.md'), true);
  });

  it('reads a translation’s link as its site does: a change to the page it falls back to is blamed', async () => {
    const repo = makeRepo();
    repos.push(repo);
    repo.commit('docs', {
      'mkdocs.yml': [
        'site_name: Demo',
        'plugins:',
        '  - i18n:',
        '      docs_structure: folder',
        '      languages:',
        '        - locale: en',
        '          default: true',
        '        - locale: ja',
        '',
      ].join('\n'),
      'docs/agents.md': '# Agents\n\nSee [lifecycle](ref/lifecycle.md).\n',
      'docs/ja/agents.md':
        '# エージェント\n\n[ライフサイクル](ref/lifecycle.md) と [消えた](ref/gone.md)。\n',
      'docs/ref/lifecycle.md': '# Lifecycle\n',
    });
    const before = worldOf(await readDocWorld(repo.dir, structuredClone(DEFAULT_CONFIG)));
    // The ja page reaches docs/ref/lifecycle.md through the fallback; ref/gone.md reaches nothing.
    assert.deepEqual(
      inboundReferences(before, 'docs/ref/lifecycle.md').map((r) => [r.doc, r.ref.target]),
      [
        ['docs/agents.md', 'ref/lifecycle.md'],
        ['docs/ja/agents.md', 'ref/lifecycle.md'],
      ],
    );
    const change = {
      edits: new Map(),
      moves: new Map([['docs/ref/lifecycle.md', 'docs/archive/lifecycle.md']]),
    };
    const broken = referencesBroken(before, simulate(before, change), change);
    assert.deepEqual(
      broken.map((b) => [b.doc, b.target, b.blame]),
      [
        ['docs/agents.md', 'ref/lifecycle.md', 'docs/ref/lifecycle.md'],
        ['docs/ja/agents.md', 'ref/lifecycle.md', 'docs/ref/lifecycle.md'],
      ],
    );
  });
});
