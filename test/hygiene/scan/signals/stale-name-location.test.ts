import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brief, fixtureRepo, scanDir, signalsOf } from '../helpers.js';

describe('stale_name_location', () => {
  it('reports plan folders, dates, drafts, old names and older versions, with inbound references', async () => {
    const repo = fixtureRepo({
      'README.md': '# Readme\n\nSee [the roadmap](docs/plans/roadmap.md).\n',
      'docs/plans/roadmap.md': '# Roadmap\n',
      'docs/notes-2024-03-15.md': '# Notes\n',
      'docs/api-draft.md': '# API draft\n',
      'docs/old-setup.md': '# Old setup\n',
      'docs/design-v1.md': '# Design 1\n',
      'docs/design-v2.md': '# Design 2\n',
    });
    const artifact = await scanDir(repo.dir);
    const reasons = (path: string) => brief(signalsOf(artifact, path, 'stale_name_location'));
    assert.deepEqual(reasons('docs/plans/roadmap.md'), [
      { line: undefined, data: { reason: 'location', folder: 'docs/plans', inbound_references: 1 } },
    ]);
    assert.deepEqual(reasons('docs/notes-2024-03-15.md'), [
      { line: undefined, data: { reason: 'date-in-name', inbound_references: 0 } },
    ]);
    assert.deepEqual(reasons('docs/api-draft.md'), [
      { line: undefined, data: { reason: 'draft', inbound_references: 0 } },
    ]);
    assert.deepEqual(reasons('docs/old-setup.md'), [
      { line: undefined, data: { reason: 'old', inbound_references: 0 } },
    ]);
    assert.deepEqual(reasons('docs/design-v1.md'), [
      {
        line: undefined,
        data: { reason: 'older-version', newer_sibling: 'docs/design-v2.md', inbound_references: 0 },
      },
    ]);
    assert.deepEqual(reasons('docs/design-v2.md'), []);
    assert.deepEqual(reasons('README.md'), []);
  });

  it('takes a date in a blog post’s or news item’s name for its publication, not its expiry', async () => {
    const repo = fixtureRepo({
      'website/blog/2017-04-13-1.0.0.md': '# Prettier 1.0\n',
      '_posts/2024-03-15-launch.md': '# Launch\n',
      'news/2023-01-02-update.md': '# Update\n',
      'website/blog/drafts/2025-01-01-next.md': '# Next\n',
      'docs/notes-2024-03-15.md': '# Notes\n',
    });
    const artifact = await scanDir(repo.dir);
    const reasons = (path: string) =>
      signalsOf(artifact, path, 'stale_name_location').map((s) => s.data?.['reason']);
    assert.deepEqual(reasons('website/blog/2017-04-13-1.0.0.md'), []);
    assert.deepEqual(reasons('_posts/2024-03-15-launch.md'), []);
    assert.deepEqual(reasons('news/2023-01-02-update.md'), []);
    // A drafts folder is still a temporary place, inside a blog or not.
    assert.deepEqual(reasons('website/blog/drafts/2025-01-01-next.md'), ['location']);
    assert.deepEqual(reasons('docs/notes-2024-03-15.md'), ['date-in-name']);
  });

  it('reads old and draft as a word at the edge of the name, not inside a longer slug nor as a symbol (Draft.md)', async () => {
    const repo = fixtureRepo({
      'docs/update-old-x-ignores.md': '# Update old ignores\n',
      'docs/drafting-a-draft-policy.md': '# Policy\n',
      'docs/setup-old.md': '# Setup\n',
      'content/methods/page/Draft.md': '# Draft\n\nReports whether the page is a draft.\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(signalsOf(artifact, 'docs/update-old-x-ignores.md', 'stale_name_location'), []);
    assert.deepEqual(signalsOf(artifact, 'docs/drafting-a-draft-policy.md', 'stale_name_location'), []);
    assert.deepEqual(signalsOf(artifact, 'content/methods/page/Draft.md', 'stale_name_location'), []);
    assert.deepEqual(brief(signalsOf(artifact, 'docs/setup-old.md', 'stale_name_location')), [
      { line: undefined, data: { reason: 'old', inbound_references: 0 } },
    ]);
  });

  it('says when a site publishes the page, so that no name alone deletes it', async () => {
    const repo = fixtureRepo({
      'mkdocs.yml': 'site_name: Site\n',
      'docs/index.md': '# Home\n',
      'docs/old-setup.md': '# Setup\n',
      'notes/old-notes.md': '# Notes\n',
    });
    const artifact = await scanDir(repo.dir);
    const published = signalsOf(artifact, 'docs/old-setup.md', 'stale_name_location');
    assert.deepEqual(brief(published), [
      { line: undefined, data: { reason: 'old', inbound_references: 0, served_by: 'mkdocs' } },
    ]);
    assert.match(published[0]!.detail, /the mkdocs site publishes it/);
    assert.deepEqual(brief(signalsOf(artifact, 'notes/old-notes.md', 'stale_name_location')), [
      { line: undefined, data: { reason: 'old', inbound_references: 0 } },
    ]);
  });
});
