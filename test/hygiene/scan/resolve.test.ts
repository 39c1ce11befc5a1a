import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DocRef } from '../../../src/hygiene/scan/markdown.js';
import { parseMarkdown } from '../../../src/hygiene/scan/markdown.js';
import { dirOf } from '../../../src/hygiene/scan/paths.js';
import {
  checkReference,
  type PathLookup,
  resolveReference,
  writeTargetLike,
} from '../../../src/hygiene/scan/resolve.js';

/** A tree of `files` and the folders above them, as a planned edit would describe it. */
function treeOf(files: string[]): PathLookup {
  const dirs = new Set<string>(['']);
  for (const f of files) for (let d = dirOf(f); d !== ''; d = dirOf(d)) dirs.add(d);
  const set = new Set(files);
  return { exists: (p) => p === '' || set.has(p) || dirs.has(p), isDir: (p) => dirs.has(p) };
}

const link = (target: string, kind: DocRef['kind'] = 'link'): DocRef => ({ target, kind, line: 1 });

describe('reference resolution', () => {
  const tree = treeOf(['docs/guide.md', 'docs/api/index.md', 'src/main.ts', 'README.md']);
  const anchors = new Map([
    ['docs/guide.md', parseMarkdown('# Guide\n\n## Set up\n').anchors],
    ['README.md', parseMarkdown('# Project\n').anchors],
  ]);
  const anchorsOf = (p: string) => anchors.get(p);

  it('resolves relative, root-absolute and same-file targets; leaves external ones unchecked', () => {
    assert.deepEqual(resolveReference(tree, 'docs/guide.md', link('api/index.md')), {
      path: 'docs/api/index.md',
      fragment: undefined,
      exists: true,
      base: 'doc',
    });
    assert.equal(resolveReference(tree, 'docs/guide.md', link('/README.md'))?.path, 'README.md');
    assert.equal(resolveReference(tree, 'docs/guide.md', link('#set-up'))?.path, 'docs/guide.md');
    assert.equal(resolveReference(tree, 'docs/guide.md', link('https://example.com/x.md')), undefined);
    assert.equal(resolveReference(tree, 'docs/guide.md', link('../../outside.md'))?.exists, undefined);
  });

  it('checks path and fragment, case-insensitively and without the user-content- prefix', () => {
    const status = (doc: string, target: string) => checkReference(tree, anchorsOf, doc, link(target)).status;
    assert.equal(status('README.md', 'docs/guide.md#Set-Up'), 'resolves');
    assert.equal(status('README.md', 'docs/guide.md#user-content-set-up'), 'resolves');
    assert.equal(status('README.md', 'docs/guide.md#install'), 'missing-fragment');
    assert.equal(status('README.md', 'docs/gone.md'), 'missing-path');
    assert.equal(status('README.md', 'src/main.ts#L10-L12'), 'resolves');
  });

  it('resolves a code path from the root, then from the doc folder', () => {
    const status = (doc: string, target: string) =>
      checkReference(tree, anchorsOf, doc, link(target, 'code-path')).status;
    assert.equal(status('docs/guide.md', 'api/index.md'), 'resolves');
    assert.equal(status('README.md', 'src/main.ts'), 'resolves');
    // Whether a missing one is reported is the signal's call (it may name another repository).
    assert.equal(status('README.md', 'hack/x.sh'), 'missing-path');
  });

  it('checks a fragment into a folder against the README GitHub renders there', () => {
    const withReadme: PathLookup = {
      ...tree,
      readmeOf: (dir) => (dir === 'docs' ? 'docs/guide.md' : undefined),
    };
    const status = (target: string) =>
      checkReference(withReadme, anchorsOf, 'README.md', link(target)).status;
    assert.equal(status('docs#set-up'), 'resolves');
    assert.equal(status('/docs/#nowhere'), 'missing-fragment');
    assert.equal(status('docs/api#anything'), 'resolves', 'a folder without a README is not checked');
  });

  it('writes a new path the way the original target was written', () => {
    const ref = link('./old.md#set-up');
    const resolved = resolveReference(tree, 'docs/guide.md', ref)!;
    assert.equal(
      writeTargetLike('docs/guide.md', ref, resolved, 'docs/api/index.md'),
      './api/index.md#set-up',
    );
    const rooted = link('/old.md');
    assert.equal(
      writeTargetLike('docs/guide.md', rooted, resolveReference(tree, 'docs/guide.md', rooted)!, 'README.md'),
      '/README.md',
    );
  });
});
