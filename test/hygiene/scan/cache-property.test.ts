import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fixedClock } from '../../../src/core/clock.js';
import { runCheck } from '../../../src/hygiene/check.js';
import { makeRepo, type TestRepo } from '../../helpers/git-repo.js';
import { fc } from '../../helpers/property.js';

const clock = fixedClock('2026-06-01T00:00:00Z');
const NAMES = ['README.md', 'docs/a.md', 'docs/b.md', 'docs/sub/c.md', 'AGENTS.md', 'notes/d.md'] as const;
const TARGETS = [
  'a.md',
  'b.md#two',
  'sub/c.md',
  '../README.md#top',
  'missing.md',
  'docs/a.md',
  '../notes/d.md',
];

/** A doc's text: a heading or two, some links (some broken), maybe a code path, a status, a block. */
const docText = fc
  .record({
    headings: fc.subarray(['Top', 'One', 'Two'], { minLength: 1 }),
    links: fc.array(fc.constantFrom(...TARGETS), { maxLength: 4 }),
    codePath: fc.boolean(),
    status: fc.constantFrom(undefined, 'done', 'draft'),
    block: fc.boolean(),
  })
  .map(({ headings, links, codePath, status, block }) =>
    [
      ...(status ? ['---', `status: ${status}`, '---'] : []),
      ...headings.map((h) => `## ${h}\n`),
      ...links.map((target, i) => `See [link ${i}](${target}).`),
      ...(codePath ? ['Run `src/tool/main.ts` first.'] : []),
      ...(block
        ? [
            '',
            'This paragraph is long enough to count as a block that another doc may repeat word for word, '.repeat(
              3,
            ),
          ]
        : []),
      '',
    ].join('\n'),
  );

type Step =
  | { kind: 'edit'; name: (typeof NAMES)[number]; text: string }
  | { kind: 'delete'; name: (typeof NAMES)[number] }
  | { kind: 'commit' }
  | { kind: 'rename'; name: (typeof NAMES)[number] }
  | { kind: 'rewrite' }
  | { kind: 'config'; budget: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('edit' as const), name: fc.constantFrom(...NAMES), text: docText }),
  fc.record({ kind: fc.constant('delete' as const), name: fc.constantFrom(...NAMES) }),
  fc.constant({ kind: 'commit' as const }),
  fc.record({ kind: fc.constant('rename' as const), name: fc.constantFrom(...NAMES) }),
  fc.constant({ kind: 'rewrite' as const }),
  fc.record({ kind: fc.constant('config' as const), budget: fc.constantFrom(5, 2000) }),
);

let tick = 0;
function commitAll(repo: TestRepo, message: string, amend = false): void {
  repo.git(['add', '-A']);
  const iso = new Date(Date.parse('2026-01-01T00:00:00Z') + ++tick * 60_000).toISOString();
  repo.git(['commit', '-q', '--allow-empty', '--no-verify', ...(amend ? ['--amend'] : []), '-m', message], {
    env: { GIT_AUTHOR_DATE: iso, GIT_COMMITTER_DATE: iso },
  });
}

function apply(repo: TestRepo, s: Step): void {
  switch (s.kind) {
    case 'edit':
      repo.write({ [s.name]: s.text });
      break;
    case 'delete':
      rmSync(repo.path(s.name), { force: true });
      break;
    case 'commit':
      commitAll(repo, 'step');
      break;
    case 'rename': {
      if (!existsSync(repo.path(s.name))) break;
      commitAll(repo, 'before rename');
      const to = s.name.replace(/\.md$/, '-moved.md');
      repo.git(['mv', s.name, to]);
      commitAll(repo, 'rename');
      break;
    }
    case 'rewrite':
      // PREV stops being an ancestor of HEAD.
      commitAll(repo, 'rewritten', true);
      break;
    case 'config':
      repo.write({ '.dochygiene.yml': `context:\n  budget_tokens: ${s.budget}\n` });
      break;
  }
}

async function reportWith(repo: TestRepo, cache: boolean): Promise<[string, string]> {
  await runCheck({ cwd: repo.dir, clock, cache });
  return [
    readFileSync(repo.path('.dochygiene', 'report.json'), 'utf8'),
    readFileSync(repo.path('.dochygiene', 'report.md'), 'utf8'),
  ];
}

describe('scan cache: the report is byte-identical with and without it', () => {
  it('over random sequences of edits, deletions, commits, renames, rewrites and config changes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 6 }), async (steps) => {
        const repo = makeRepo();
        try {
          repo.commit('start', {
            'README.md': '# Top\n\n[a](docs/a.md) [b](docs/b.md#two)\n',
            'docs/a.md': '## One\n\n[c](sub/c.md)\n',
            'docs/b.md': '## Two\n\n[gone](gone.md)\n',
            'docs/sub/c.md': '# C\n\n[up](../../README.md#top)\n',
            'AGENTS.md': '# Agents\n\nRead @docs/a.md.\n',
          });
          for (const s of steps) {
            apply(repo, s);
            const cached = await reportWith(repo, true);
            const plain = await reportWith(repo, false);
            assert.equal(cached[0], plain[0], `report.json after ${JSON.stringify(s)}`);
            assert.equal(cached[1], plain[1], `report.md after ${JSON.stringify(s)}`);
          }
        } finally {
          repo.cleanup();
        }
      }),
      { numRuns: 8 },
    );
  });
});
