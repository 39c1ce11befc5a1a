import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { runCliJson } from '../helpers/cli.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

const RULE = '- Never commit generated files; run the generator and commit its inputs instead.';
const AGENTS = [
  '# Agents', // 1
  '', // 2
  '- Use tabs for indentation. <!-- rule:1 -->', // 3
  '- Prefer small functions. <!-- rule:2 -->', // 4
  '- Name tests after the behaviour. <!-- rule:3 -->', // 5
  '- Keep commits small. <!-- rule:4 -->', // 6
  '- Write the changelog entry. <!-- rule:5 -->', // 7
  '', // 8
  RULE, // 9
  '', // 10
  '## Testing', // 11
  '', // 12
  'Run the tests before you push.', // 13
  '', // 14
  RULE, // 15
  '', // 16
  '## Release', // 17
  '',
].join('\n');

type Entry = { id: string; path: string; safety_tier: string; signals: { name: string }[] };

/** A repository holding AGENTS.md, checked; the report's entries for repeats and markers. */
async function checked(): Promise<{ repo: TestRepo; ours: Entry[] }> {
  const repo = makeRepo();
  repos.push(repo);
  repo.commit('agents', { 'AGENTS.md': AGENTS });
  const check = await runCliJson(['hygiene', 'check', '--json'], { cwd: repo.dir });
  assert.equal(check.code, 0, check.stderr);
  const report = JSON.parse(readFileSync(repo.path('.dochygiene/report.json'), 'utf8')) as {
    entries: Entry[];
  };
  const ours = report.entries.filter((e) =>
    e.signals.some((s) => s.name === 'repeated_block' || s.name === 'machine_markers'),
  );
  return { repo, ours };
}

describe('repeated blocks and machine markers, end to end (built CLI)', () => {
  it('check proposes confirm entries only; applying them by id deletes the second copy and the markers exactly', async () => {
    const { repo, ours } = await checked();
    assert.equal(ours.length, 6);
    assert.deepEqual([...new Set(ours.map((e) => e.safety_tier))], ['confirm']);
    const held = await runCliJson(['hygiene', 'apply', '--report', '.dochygiene/report.json'], {
      cwd: repo.dir,
    });
    assert.equal(held.code, 0, held.stderr);
    assert.equal(readFileSync(repo.path('AGENTS.md'), 'utf8'), AGENTS, 'nothing applied without --only');
    const only = ours.flatMap((e) => ['--only', e.id]);
    const applied = await runCliJson(['hygiene', 'apply', '--report', '.dochygiene/report.json', ...only], {
      cwd: repo.dir,
    });
    assert.equal(applied.code, 0, applied.stderr);
    assert.equal(
      readFileSync(repo.path('AGENTS.md'), 'utf8'),
      [
        '# Agents',
        '',
        '- Use tabs for indentation.',
        '- Prefer small functions.',
        '- Name tests after the behaviour.',
        '- Keep commits small.',
        '- Write the changelog entry.',
        '',
        RULE,
        '',
        '## Testing',
        '',
        'Run the tests before you push.',
        '',
        '## Release',
        '',
      ].join('\n'),
    );
  });

  it('a file changed since the check keeps its text: the entries are refused as stale', async () => {
    const { repo, ours } = await checked();
    const changed = AGENTS.replace('## Release', '## Releases');
    repo.commit('edit', { 'AGENTS.md': changed });
    const only = ours.flatMap((e) => ['--only', e.id]);
    const applied = await runCliJson(['hygiene', 'apply', '--report', '.dochygiene/report.json', ...only], {
      cwd: repo.dir,
    });
    assert.equal(readFileSync(repo.path('AGENTS.md'), 'utf8'), changed);
    const files = applied.json['files'] as { path: string; status: string; reason: string }[];
    assert.deepEqual(
      files.map((f) => [f.path, f.status, f.reason]),
      [['AGENTS.md', 'skipped', 'content-changed-since-check']],
    );
  });
});
