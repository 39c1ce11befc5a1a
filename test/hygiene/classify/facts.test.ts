import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { gatherClassifierFacts } from '../../../src/hygiene/classify/facts.js';
import { parseMarkdown } from '../../../src/hygiene/scan/markdown.js';
import type { ScanArtifact } from '../../../src/hygiene/types.js';
import { makeRepo, type TestRepo } from '../../helpers/git-repo.js';

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

describe('the classifier facts parse each doc once', () => {
  it("reuse the scan's parse of a doc only while its text is the text the scan parsed", async () => {
    const repo = makeRepo();
    repos.push(repo);
    const texts: Record<string, string> = {
      'a.md': '# A\n\nSee [b](b.md).\n',
      'b.md': '# B\n',
    };
    repo.commit('docs', texts);
    const artifact = { project_root: repo.dir, shortlist: ['a.md', 'b.md'] } as ScanArtifact;
    const scannedA = { text: texts['a.md']!, parsed: parseMarkdown(texts['a.md']!) };
    // The scan saw another text of b.md than the one on disk now.
    const scannedB = { text: '# B before\n', parsed: parseMarkdown('# B before\n') };
    const scanned = new Map([
      ['a.md', scannedA],
      ['b.md', scannedB],
    ]);
    const facts = await gatherClassifierFacts(artifact, (path) => texts[path], undefined, scanned);
    assert.equal(facts.parse('a.md', texts['a.md']!), scannedA.parsed);
    const b = facts.parse('b.md', texts['b.md']!);
    assert.notEqual(b, scannedB.parsed);
    assert.deepEqual(b, parseMarkdown(texts['b.md']!));
    // A parse made here is made once.
    assert.equal(facts.parse('b.md', texts['b.md']!), b);
    assert.equal(facts.linksTo('a.md', 'b.md'), true);
    assert.equal(facts.linksTo('b.md', 'a.md'), false);
  });
});
