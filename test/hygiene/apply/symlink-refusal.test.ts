import assert from 'node:assert/strict';
import { readFileSync, symlinkSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { applyReport } from '../../../src/hygiene/apply/applier.js';
import { makeRepo, type TestRepo, testEnv } from '../../helpers/git-repo.js';
import { makeEntry, makeReport } from '../../helpers/report.js';

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

describe('apply on a path whose real file is another path', () => {
  it('skips an entry on a symlink and on a path through a symlinked folder; the real files stay', async () => {
    const repo = makeRepo();
    repos.push(repo);
    const rules = '# Rules\n\nsee [old](old.md)\n';
    repo.commit('docs', { 'AGENTS.md': rules, 'docs/guide.md': rules });
    symlinkSync('AGENTS.md', repo.path('CLAUDE.md'));
    symlinkSync('docs', repo.path('guides'));
    repo.git(['add', 'CLAUDE.md', 'guides']);
    repo.commit('links');
    const fix = (id: string, path: string) =>
      makeEntry(repo.dir, {
        id,
        path,
        kind: 'replace-text',
        anchor: [3, 3],
        match: 'old.md',
        replacement: 'new.md',
        text: rules,
      });
    const report = makeReport(repo.dir, [fix('link', 'CLAUDE.md'), fix('folder', 'guides/guide.md')]);
    const result = await applyReport({ root: repo.dir, report, env: testEnv() });
    assert.deepEqual(
      result.files.map((file) => [file.path, file.status, file.reason, file.detail]),
      [
        [
          'CLAUDE.md',
          'skipped',
          'not-a-regular-file',
          'the path is a symlink: another path leads to the same file, and an edit goes on the real file only',
        ],
        [
          'guides/guide.md',
          'skipped',
          'unsafe-path',
          'the path is not safe to write: guides is a symbolic link',
        ],
      ],
    );
    assert.deepEqual(result.stage, []);
    assert.equal(readFileSync(repo.path('AGENTS.md'), 'utf8'), rules);
    assert.equal(readFileSync(repo.path('docs/guide.md'), 'utf8'), rules);
    assert.equal(repo.git(['status', '--porcelain']), '');
  });
});
