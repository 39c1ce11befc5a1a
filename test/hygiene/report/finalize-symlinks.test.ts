import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { fixedClock } from '../../../src/core/clock.js';
import { ValidationError } from '../../../src/core/errors.js';
import { finalizeReport } from '../../../src/hygiene/report/finalize.js';
import { scan } from '../../../src/hygiene/scan/index.js';
import { DEFAULT_CONFIG, type Proposal, type ScanArtifact } from '../../../src/hygiene/types.js';
import { makeRepo, type TestRepo } from '../../helpers/git-repo.js';

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

/** AGENTS.md with a broken link, CLAUDE.md → AGENTS.md, and guides/ → docs/. */
function linkedRepo(): TestRepo {
  const repo = makeRepo({ initialCommit: false });
  repos.push(repo);
  repo.commit('docs', {
    'AGENTS.md': '# Rules\n\n[old](old.md)\n',
    'docs/guide.md': '# Guide\n\n[old](old.md)\n',
  });
  symlinkSync('AGENTS.md', repo.path('CLAUDE.md'));
  symlinkSync('docs', repo.path('guides'));
  repo.git(['add', 'CLAUDE.md', 'guides']);
  repo.commit('links');
  return repo;
}

const linkFix = (path: string): Proposal => ({
  path,
  category: { class: 'stale', subtype: 'dangling-reference' },
  signals: [
    {
      name: 'broken_reference',
      line: 3,
      detail: 'old.md does not exist',
      data: { target: 'old.md', kind: 'link' },
    },
  ],
  op: 'Fix the link.',
  op_type: 'deterministic',
  exact_edit: {
    kind: 'replace-text',
    anchor: { start_line: 3, end_line: 3 },
    match: 'old.md',
    replacement: 'new.md',
  },
  confidence: 0.9,
});

const finalize = (artifact: ScanArtifact, proposals: Proposal[]) =>
  finalizeReport({
    artifact,
    proposals,
    generatedAt: '2026-01-01T00:00:00Z',
    clock: fixedClock('2026-01-01T00:00:00Z'),
  });

describe('no edit on a path whose real file is another path', () => {
  it('refuses a proposal on an alias the scan listed, naming the real file', async () => {
    const repo = linkedRepo();
    const artifact = await scan({ root: repo.dir, config: DEFAULT_CONFIG });
    assert.deepEqual(artifact.aliases, { 'AGENTS.md': ['CLAUDE.md'], 'docs/guide.md': ['guides/guide.md'] });
    for (const [alias, real] of [
      ['CLAUDE.md', 'AGENTS.md'],
      ['guides/guide.md', 'docs/guide.md'],
    ] as const) {
      await assert.rejects(finalize(artifact, [linkFix(alias)]), (error: unknown) => {
        assert.ok(error instanceof ValidationError);
        assert.equal(error.code, 'invalid-proposals');
        assert.match(
          error.message,
          new RegExp(
            `"${alias}" leads to the real file "${real}" through a symlink; an edit is proposed on the real file only`,
          ),
        );
        return true;
      });
    }
    // On the real files the same proposals are entries.
    const report = await finalize(artifact, [linkFix('AGENTS.md'), linkFix('docs/guide.md')]);
    assert.deepEqual(
      report.entries.map((entry) => entry.path),
      ['AGENTS.md', 'docs/guide.md'],
    );
  });

  it('refuses it too when the artifact does not know the link (made before it, or edited)', async () => {
    const repo = linkedRepo();
    const artifact = await scan({ root: repo.dir, config: DEFAULT_CONFIG });
    const stale: ScanArtifact = { ...artifact, shortlist: [...artifact.shortlist, 'CLAUDE.md'].sort() };
    delete stale.aliases;
    await assert.rejects(
      finalize(stale, [linkFix('CLAUDE.md')]),
      /"CLAUDE\.md" leads to the real file "AGENTS\.md"/,
    );
  });
});
