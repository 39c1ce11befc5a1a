import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fixedClock } from '../../../../src/core/clock.js';
import { runCheck } from '../../../../src/hygiene/check.js';
import { brief, fixtureRepo, scanDir, signalsOf } from '../helpers.js';

const TESTING = [
  '## Testing', // heading
  '',
  'Run the whole suite with the test script before you push any change, and add a regression',
  'test next to the module you touched whenever you fix a bug. Tests use real temporary',
  'repositories and never touch the network; keep them fast and free of sleeps so that the',
  'suite stays deterministic on every machine that runs it.',
];
/** The same section, reworded a little as it was carried over to another agent's file. */
const TESTING_REWORDED = [
  '## Tests',
  '',
  'Run the whole suite with the test script before you push a change, and add a regression',
  'test next to the module you touched whenever you fix a bug. Tests use real temporary',
  'repositories and never reach the network; keep them fast and free of sleeps so that the',
  'suite stays deterministic on each machine that runs it.',
];

const lines = (...parts: string[][]) => `${parts.flat().join('\n')}\n`;

describe('near_duplicate', () => {
  it("finds a reworded section of another agent's file and proposes the import, as confirm", async () => {
    const repo = fixtureRepo({
      'AGENTS.md': lines(['# Agents', ''], TESTING, ['', '## Style', '', 'Use tabs.']),
      // lines 1-2 heading, 3-8 the reworded copy
      'CLAUDE.md': lines(['# Claude', ''], TESTING_REWORDED, [
        '',
        '## Claude only',
        '',
        'Prefer small commits.',
      ]),
    });
    const artifact = await scanDir(repo.dir);
    const [signal] = signalsOf(artifact, 'CLAUDE.md', 'near_duplicate');
    assert.deepEqual(brief(signalsOf(artifact, 'CLAUDE.md', 'near_duplicate')), [
      {
        line: 3,
        data: {
          relation: 'agent-context',
          start_line: 3,
          end_line: 8,
          other_path: 'AGENTS.md',
          other_ref: 'AGENTS.md#L3-L8',
          similarity: signal!.data!['similarity'],
          exact: false,
          loaded_by: ['claude-code'],
          other_loaded_by: ['codex', 'cline', 'windsurf'],
        },
      },
    ]);
    // Reworded: most, not all, of its 3-word phrases are in AGENTS.md.
    assert.ok((signal!.data!['similarity'] as number) >= 0.5 && (signal!.data!['similarity'] as number) < 1);
    // AGENTS.md is the copy more agents read: nothing is reported on it.
    assert.deepEqual(signalsOf(artifact, 'AGENTS.md', 'near_duplicate'), []);

    // near_duplicate is hidden by default: these tests are about what the rules make of it once
    // a user opts in (--signals all only shows it; it proposes nothing).
    repo.write({ '.dochygiene.yml': 'signals:\n  near_duplicate: on\n' });
    const { report } = await runCheck({ cwd: repo.dir, clock: fixedClock('2026-03-01T12:00:00Z') });
    const entry = report.entries.find((e) => e.path === 'CLAUDE.md' && e.category.subtype === 'redundant');
    assert.ok(entry, JSON.stringify(report.entries.map((e) => [e.path, e.category.subtype])));
    assert.equal(entry.safety_tier, 'confirm');
    // A multi-line span cannot become an import by an exact edit: a generative entry over the
    // copy, whose op names the import to add.
    assert.equal(entry.op_type, 'generative');
    assert.deepEqual(entry.reducible_range, { start_line: 3, end_line: 8 });
    assert.match(
      entry.op,
      /^Reduce lines 3–8, which restate AGENTS\.md#L3-L8 \(\d+% the same wording\): make this file import it \(a line @AGENTS\.md\) and drop the copy\.$/,
    );
  });

  it('deletes a copy Claude Code already loads through an import (confirm)', async () => {
    const repo = fixtureRepo({
      'AGENTS.md': lines(['# Agents', ''], TESTING),
      'CLAUDE.md': lines(['# Claude', '', '@AGENTS.md', ''], TESTING_REWORDED),
    });
    // near_duplicate is hidden by default: these tests are about what the rules make of it once
    // a user opts in (--signals all only shows it; it proposes nothing).
    repo.write({ '.dochygiene.yml': 'signals:\n  near_duplicate: on\n' });
    const { report } = await runCheck({ cwd: repo.dir, clock: fixedClock('2026-03-01T12:00:00Z') });
    const entry = report.entries.find((e) => e.path === 'CLAUDE.md' && e.category.subtype === 'redundant');
    assert.deepEqual(
      [
        entry?.exact_edit?.kind,
        entry?.exact_edit?.anchor,
        entry?.safety_tier,
        entry?.signals[0]?.data?.['other_loaded_by'],
      ],
      [
        'delete-range',
        { start_line: 5, end_line: 10 },
        'confirm',
        ['claude-code', 'codex', 'cline', 'windsurf'],
      ],
    );
  });

  it('finds a context file restating the contributing guide, and a block repeated in one file', async () => {
    const repo = fixtureRepo({
      'CONTRIBUTING.md': lines(['# Contributing', ''], TESTING),
      'AGENTS.md': lines(
        ['# Agents', ''], // 1-2
        TESTING_REWORDED, // 3-8
        ['', '## Release', ''], // 9-11 (the heading on 10)
        [
          'Tag the release from main only after the changelog is updated, the version is bumped in',
          'the manifest and the continuous integration run on that exact commit is green, then push',
          'the tag and let the publishing workflow upload the package for you.',
        ], // 12-14
        ['', '## Release again', ''], // 15-17 (the heading on 16)
        [
          'Tag the release from main only after the changelog is updated, the version is bumped in',
          'the manifest and the continuous integration run on that exact commit is green, then push',
          'the tag and let the publishing workflow upload the package for you.',
        ], // 18-20
      ),
    });
    const artifact = await scanDir(repo.dir);
    const found = signalsOf(artifact, 'AGENTS.md', 'near_duplicate').map((s) => ({
      line: s.line,
      relation: s.data!['relation'],
      other_ref: s.data!['other_ref'],
      exact: s.data!['exact'],
    }));
    assert.deepEqual(found, [
      { line: 3, relation: 'restated-doc', other_ref: 'CONTRIBUTING.md#L3-L8', exact: false },
      { line: 16, relation: 'within-file', other_ref: 'AGENTS.md#L10-L14', exact: true },
    ]);
    // near_duplicate is hidden by default: these tests are about what the rules make of it once
    // a user opts in (--signals all only shows it; it proposes nothing).
    repo.write({ '.dochygiene.yml': 'signals:\n  near_duplicate: on\n' });
    const { report } = await runCheck({ cwd: repo.dir, clock: fixedClock('2026-03-01T12:00:00Z') });
    const redundant = report.entries.filter((e) => e.category.subtype === 'redundant');
    // The word-for-word repeat is deleted (confirm); the restated guide waits: a generative
    // entry cannot share its file with an exact edit, and the next check proposes it.
    assert.deepEqual(
      redundant.map((e) => [e.path, e.exact_edit?.kind, e.exact_edit?.anchor, e.safety_tier]),
      [['AGENTS.md', 'delete-range', { start_line: 16, end_line: 20 }, 'confirm']],
    );
  });

  it('never compares a file with itself through a symlink, nor short or unrelated sections', async () => {
    const repo = fixtureRepo({
      'AGENTS.md': lines(['# Agents', ''], TESTING, ['', '## Build', '', 'npm run build']),
      '.github/copilot-instructions.md': lines(
        ['# Copilot', '', '## Build', '', 'npm run build'],
        ['', '## Reviews', '', 'Review pull requests for naming, error handling, and missing docs; leave'],
        ['comments that a newcomer could act on without asking, and approve only what you ran yourself.'],
      ),
    });
    symlinkSync('AGENTS.md', repo.path('CLAUDE.md'));
    repo.git(['add', '-A']);
    repo.commit('link');
    const artifact = await scanDir(repo.dir);
    for (const path of ['AGENTS.md', 'CLAUDE.md', '.github/copilot-instructions.md'])
      assert.deepEqual(signalsOf(artifact, path, 'near_duplicate'), [], path);
  });
});
