import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SELF_IGNORE } from '../../src/hygiene/state/store.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo } from '../helpers/git-repo.js';
import { fc } from '../helpers/property.js';

const NAMES = ['README.md', 'docs/a.md', 'docs/b.md', 'notes/c.md'] as const;
const TARGETS = ['a.md', 'b.md#two', '../README.md#top', 'missing.md', '../build/out.html', '../notes/c.md'];

const docText = fc
  .record({
    heading: fc.constantFrom('Top', 'One', 'Two'),
    links: fc.array(fc.constantFrom(...TARGETS), { maxLength: 3 }),
    status: fc.constantFrom(undefined, 'done'),
  })
  .map(({ heading, links, status }) =>
    [
      ...(status ? ['---', `status: ${status}`, '---'] : []),
      `## ${heading}`,
      '',
      ...links.map((target, i) => `See [link ${i}](${target}).`),
      '',
    ].join('\n'),
  );

type Step =
  | { kind: 'edit'; name: (typeof NAMES)[number]; text: string }
  | { kind: 'delete'; name: (typeof NAMES)[number] }
  | { kind: 'commit' }
  | { kind: 'ignored'; present: boolean }
  | { kind: 'config'; budget: number }
  | { kind: 'nothing' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('edit' as const), name: fc.constantFrom(...NAMES), text: docText }),
  fc.record({ kind: fc.constant('delete' as const), name: fc.constantFrom(...NAMES) }),
  fc.constant({ kind: 'commit' as const }),
  fc.record({ kind: fc.constant('ignored' as const), present: fc.boolean() }),
  fc.record({ kind: fc.constant('config' as const), budget: fc.constantFrom(5, 2000) }),
  fc.constant({ kind: 'nothing' as const }),
);

function apply(repo: TestRepo, s: Step): void {
  if (s.kind === 'edit') repo.write({ [s.name]: s.text });
  else if (s.kind === 'delete') rmSync(repo.path(s.name), { force: true });
  else if (s.kind === 'commit') {
    repo.git(['add', '-A']);
    repo.commit('step', {}, { allowEmpty: true });
  } else if (s.kind === 'ignored') {
    if (s.present) repo.write({ 'build/out.html': '<p>out</p>\n' });
    else rmSync(repo.path('build'), { recursive: true, force: true });
  } else if (s.kind === 'config')
    repo.write({ '.dochygiene.yml': `context:\n  budget_tokens: ${s.budget}\n` });
}

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
  json: string;
  md: string;
  replayed: boolean;
}

async function check(repo: TestRepo, log: string, env: NodeJS.ProcessEnv, flags: string[]): Promise<Outcome> {
  const before = readFileSync(log, 'utf8').length;
  const result = await runCli(['hygiene', 'check', ...flags], { cwd: repo.dir, env });
  return {
    ...result,
    json: readFileSync(repo.path('.dochygiene', 'report.json'), 'utf8'),
    md: readFileSync(repo.path('.dochygiene', 'report.md'), 'utf8'),
    replayed: readFileSync(log, 'utf8').length > before,
  };
}

describe("check's result cache: the same bytes as a full run", () => {
  it('over random sequences of edits, deletions, commits, ignored files, config changes and no change', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 2, maxLength: 4 }),
        fc.constantFrom<string[]>([], ['--json']),
        async (steps, flags) => {
          const repo = makeRepo();
          const dir = makeTempDir('stw-replay-prop-');
          try {
            repo.commit('start', {
              '.gitignore': 'build/\n',
              'README.md': '# Top\n\n[a](docs/a.md) [b](docs/b.md#two) [out](build/out.html)\n',
              'docs/a.md': '## One\n\n[c](../notes/c.md)\n',
              'docs/b.md': '## Two\n\n[gone](gone.md)\n',
              'notes/c.md': '# C\n\n[up](../README.md#top)\n',
            });
            repo.write({ '.dochygiene/.gitignore': SELF_IGNORE });
            const log = join(dir, 'replay.log');
            writeFileSync(log, '');
            for (const [i, s] of steps.entries()) {
              apply(repo, s);
              const env = {
                STW_NOW: new Date(Date.parse('2026-06-01T00:00:00Z') + i * 86_400_000).toISOString(),
                STW_TEST_HOOKS: '1',
                STW_TEST_RACY_MS: '0',
                STW_TEST_REPLAY_LOG: log,
              };
              const first = await check(repo, log, env, flags);
              const second = await check(repo, log, env, flags);
              assert.ok(second.replayed, `replayed after ${JSON.stringify(s)}: ${second.stderr}`);
              const full = await check(repo, log, env, [...flags, '--no-cache']);
              for (const run of [first, second])
                for (const field of ['code', 'stdout', 'stderr', 'json', 'md'] as const)
                  assert.equal(run[field], full[field], `${field} after ${JSON.stringify(s)}`);
            }
          } finally {
            repo.cleanup();
            rmSync(dir, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 4 },
    );
  });
});
