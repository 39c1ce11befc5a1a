import assert from 'node:assert/strict';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { schemaPath } from '../../../src/core/package.js';
import { validateReport } from '../../../src/hygiene/report/validate.js';
import { unsafePathReason } from '../../../src/hygiene/scan/files.js';
import type { Report } from '../../../src/hygiene/types.js';
import { runCli } from '../../helpers/cli.js';
import { fixtureRepo, scanDir, scratchDir } from './helpers.js';

const BROKEN = '# Doc\n\n[gone](gone.md)\n';

describe('exclusions', () => {
  it('leaves out docs with `hygiene: frozen` frontmatter', async () => {
    const repo = fixtureRepo({
      'docs/adr-1.md': `---\nhygiene: frozen\n---\n${BROKEN}`,
      'docs/live.md': '# Live\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(artifact.shortlist, ['docs/live.md']);
    assert.deepEqual(artifact.excluded, [
      { path: 'docs/adr-1.md', reason: 'frozen', detail: 'frontmatter hygiene: frozen' },
    ]);
    assert.deepEqual(artifact.signals, {});
  });

  it('honours .dochygiene-ignore with gitignore semantics', async () => {
    const repo = fixtureRepo({
      '.dochygiene-ignore': '# generated\ngenerated/\n*.gen.md\n!keep.gen.md\n',
      'generated/api.md': BROKEN,
      'docs/x.gen.md': BROKEN,
      'docs/keep.gen.md': '# Keep\n',
      'README.md': '# Readme\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(artifact.shortlist, ['README.md', 'docs/keep.gen.md']);
    assert.deepEqual(artifact.excluded, [
      { path: 'docs/x.gen.md', reason: 'dochygiene-ignore' },
      { path: 'generated/api.md', reason: 'dochygiene-ignore' },
    ]);
  });

  it('leaves out append-only logs by name, by folder and by frontmatter', async () => {
    const repo = fixtureRepo({
      'CHANGELOG.md': BROKEN,
      'docs/HISTORY.md': BROKEN,
      'docs/deploy.log.md': BROKEN,
      'docs/en/docs/release-notes.md': BROKEN,
      'RELEASE_NOTES.md': BROKEN,
      'docs/journal.md': `---\nhygiene: append-only\n---\n${BROKEN}`,
      'changelogs/0.1.x.md': BROKEN,
      'packages/changelog/README.md': '# A changelog generator\n',
      'docs/Release-Notes/v2.md': BROKEN,
      'docs/newsletter.md': '# Not a log\n',
      'docs/changelog-policy/how.md': '# How we write release notes\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(artifact.shortlist, [
      'docs/changelog-policy/how.md',
      'docs/newsletter.md',
      'packages/changelog/README.md',
    ]);
    assert.deepEqual(artifact.excluded, [
      { path: 'CHANGELOG.md', reason: 'append-only-log', detail: 'named like a log' },
      { path: 'RELEASE_NOTES.md', reason: 'append-only-log', detail: 'named like a log' },
      { path: 'changelogs/0.1.x.md', reason: 'append-only-log', detail: 'in a folder of release notes' },
      { path: 'docs/HISTORY.md', reason: 'append-only-log', detail: 'named like a log' },
      { path: 'docs/Release-Notes/v2.md', reason: 'append-only-log', detail: 'in a folder of release notes' },
      { path: 'docs/deploy.log.md', reason: 'append-only-log', detail: 'named like a log' },
      { path: 'docs/en/docs/release-notes.md', reason: 'append-only-log', detail: 'named like a log' },
      { path: 'docs/journal.md', reason: 'append-only-log', detail: 'frontmatter hygiene: append-only' },
    ]);
  });

  it('leaves out its own .dochygiene/ folder', async () => {
    const repo = fixtureRepo({ 'README.md': '# Readme\n' });
    repo.write({ '.dochygiene/report.md': BROKEN, '.dochygiene/notes.md': BROKEN });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(artifact.shortlist, ['README.md']);
    assert.deepEqual(artifact.excluded, [
      { path: '.dochygiene', reason: 'tool-state', detail: 'the tool’s own state; 2 matching files' },
    ]);
  });

  it('leaves out the configured excluded directories', async () => {
    const repo = fixtureRepo({
      'vendor/lib/README.md': BROKEN,
      'docs/archive/old.md': BROKEN,
      'generated/out.md': BROKEN,
      'docs/index.md': '# Index\n',
    });
    const artifact = await scanDir(repo.dir, {
      config: { scan: { globs: ['**/*.md'], excluded_dirs: ['vendor', 'archive', 'generated'] } },
    });
    assert.deepEqual(artifact.shortlist, ['docs/index.md']);
    assert.deepEqual(artifact.excluded, [
      {
        path: 'docs/archive',
        reason: 'excluded-dir',
        detail: 'scan.excluded_dirs entry "archive"; 1 matching file',
      },
      {
        path: 'generated',
        reason: 'excluded-dir',
        detail: 'scan.excluded_dirs entry "generated"; 1 matching file',
      },
      {
        path: 'vendor',
        reason: 'excluded-dir',
        detail: 'scan.excluded_dirs entry "vendor"; 1 matching file',
      },
    ]);
  });

  it('respects git ignore rules and lists ignored docs', async () => {
    const repo = fixtureRepo({ '.gitignore': 'notes/\nscratch.md\n', 'README.md': '# Readme\n' });
    repo.write({ 'scratch.md': BROKEN, 'notes/a.md': BROKEN, 'untracked.md': '# New\n' });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(artifact.shortlist, ['README.md', 'untracked.md']);
    assert.deepEqual(artifact.excluded, [{ path: 'scratch.md', reason: 'git-ignored' }]);
  });

  it('skips binary and non-UTF-8 files with a reason and never crashes on them', async () => {
    const repo = fixtureRepo({
      'docs/binary.md': Buffer.from([0x23, 0x20, 0x00, 0x01, 0x02, 0xff]),
      'docs/latin1.md': Buffer.from('# Caf\xe9\n', 'latin1'),
      'docs/ok.md': '# Fine — UTF-8 ✓\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(artifact.shortlist, ['docs/ok.md']);
    assert.deepEqual(artifact.excluded, [
      { path: 'docs/binary.md', reason: 'binary' },
      { path: 'docs/latin1.md', reason: 'not-utf8' },
    ]);
  });

  it('never follows a symlink out of the root', async () => {
    const outside = scratchDir('stw-outside-');
    writeFileSync(join(outside, 'secret.md'), BROKEN);
    const repo = fixtureRepo({ 'README.md': '# Readme\n', 'docs/real.md': '# Real\n' });
    symlinkSync(join(outside, 'secret.md'), join(repo.dir, 'escape.md'));
    symlinkSync('real.md', join(repo.dir, 'docs', 'alias.md'));
    const artifact = await scanDir(repo.dir);
    // A link inside the root is its real file's alias (symlinks.test.ts); one out of it is never read.
    assert.deepEqual(artifact.shortlist, ['README.md', 'docs/real.md']);
    assert.deepEqual(artifact.aliases, { 'docs/real.md': ['docs/alias.md'] });
    assert.equal(artifact.excluded.length, 1);
    assert.equal(artifact.excluded[0]!.path, 'escape.md');
    assert.equal(artifact.excluded[0]!.reason, 'symlink-outside-root');
  });
});

describe('unsafe names', () => {
  /** Names a report path can carry (space, Unicode, shell and Markdown specials, a tab) and cannot. */
  const SAFE = [
    'docs/with space.md',
    'docs/ünïcødé ✓.md',
    'docs/star*.md',
    'docs/pipe|.md',
    'docs/back`tick`.md',
    'docs/tab\there.md',
    'docs/...md',
  ];
  const UNSAFE = [
    'docs/new\nline.md',
    'docs/carriage\rreturn.md',
    'docs/line\u2028sep.md',
    'docs/para\u2029sep.md',
  ];

  it('rejects exactly the names the report schema rejects', () => {
    const schema = JSON.parse(readFileSync(schemaPath('report.schema.json'), 'utf8')) as {
      definitions: { relativePath: object };
    };
    const valid = new Ajv({ strict: true }).compile(schema.definitions.relativePath);
    for (const path of [...SAFE, ...UNSAFE, 'a/../b.md', '/abs.md', '..', 'a/..', '']) {
      assert.equal(unsafePathReason(path) === undefined, valid(path), JSON.stringify(path));
    }
  });

  it('leaves out a doc whose name has a line break, with the reason, and still scans odd but safe names', async () => {
    const files: Record<string, string> = { 'README.md': '# Readme\n' };
    for (const path of [...SAFE, ...UNSAFE]) files[path] = BROKEN;
    const repo = fixtureRepo(files);
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(artifact.shortlist, ['README.md', ...SAFE].sort());
    assert.deepEqual(
      artifact.excluded.map((e) => [e.path, e.reason, e.detail]),
      [
        [
          'docs/carriage\rreturn.md',
          'unsafe-name',
          'its name contains a line break (U+000D), which a report path cannot carry',
        ],
        [
          'docs/line\u2028sep.md',
          'unsafe-name',
          'its name contains a line break (U+2028), which a report path cannot carry',
        ],
        [
          'docs/new\nline.md',
          'unsafe-name',
          'its name contains a line break (U+000A), which a report path cannot carry',
        ],
        [
          'docs/para\u2029sep.md',
          'unsafe-name',
          'its name contains a line break (U+2029), which a report path cannot carry',
        ],
      ],
    );
    // The safe ones were read: each carries its broken link.
    for (const path of SAFE) assert.equal(artifact.signals[path]?.[0]?.name, 'broken_reference', path);
  });

  it('never suggests an unsafe name as the new home of a moved doc', async () => {
    const repo = fixtureRepo({
      'README.md': '# Readme\n\nSee [notes](notes.md).\n',
      'notes.md': '# Notes\n',
    });
    repo.move('rename', 'notes.md', 'docs/notes\n.md');
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(
      artifact.signals['README.md']?.map((s) => s.data),
      [{ target: 'notes.md', kind: 'link', broken_on: ['github'] }],
    );
  });

  it('stw hygiene check writes a valid report in a repository holding such a name', async () => {
    const repo = fixtureRepo({
      'README.md': '# Readme\n\nSee the [guide](docs/guide.md).\n',
      'docs/guide.md': '# Guide\n\nSee [setup](setup.md).\n',
      'docs/setup.md': '# Setup\n',
      'docs/new\nline.md': '# nl\n',
    });
    repo.move('move setup', 'docs/setup.md', 'docs/start/setup.md');
    const result = await runCli(['hygiene', 'check'], {
      cwd: repo.dir,
      env: { STW_NOW: '2026-03-01T12:00:00Z' },
    });
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(readFileSync(join(repo.dir, '.dochygiene', 'report.json'), 'utf8')) as Report;
    assert.deepEqual(validateReport(report, { projectRoot: repo.dir }), []);
    assert.deepEqual(report.shortlist, ['README.md', 'docs/guide.md', 'docs/start/setup.md']);
    assert.deepEqual(
      report.entries.map((e) => e.path),
      ['docs/guide.md'],
    );
  });
});
