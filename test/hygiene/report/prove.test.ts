import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { fixedClock } from '../../../src/core/clock.js';
import { runCheck } from '../../../src/hygiene/check.js';
import type { DocWorld } from '../../../src/hygiene/references.js';
import { proveLinkFixes } from '../../../src/hygiene/report/prove.js';
import type { Proposal } from '../../../src/hygiene/types.js';
import { makeRepo, type TestRepo } from '../../helpers/git-repo.js';

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});
const clock = fixedClock('2026-03-01T10:00:00Z');

const fixes = (entries: { exact_edit?: { kind: string; match?: string; replacement?: string } }[]) =>
  entries
    .filter((e) => e.exact_edit?.kind === 'replace-text')
    .map((e) => [e.exact_edit!.match, e.exact_edit!.replacement]);

describe('every auto link fix is proved before it is proposed', () => {
  it('a case-only rename beside the link wins over a same-named file elsewhere', async () => {
    const repo = makeRepo();
    repos.push(repo);
    repo.commit('sigs', {
      'sig-a/CHARTER.md': '# Charter A\n',
      'sig-b/CHARTER.md': '# Charter B\n',
      'sig-a/README.md': '# SIG A\n\nRead the [charter](CHARTER.md).\n',
    });
    repo.move('lower-case the charter', 'sig-a/CHARTER.md', 'sig-a/charter.md');
    const { report } = await runCheck({ cwd: repo.dir, clock });
    assert.deepEqual(fixes(report.entries), [['](CHARTER.md', '](charter.md']]);
  });

  it('with two equally near same-named files there is no fix', async () => {
    const repo = makeRepo();
    repos.push(repo);
    repo.commit('docs', {
      'a/x/guide.md': '# A\n',
      'b/x/guide.md': '# B\n',
      'c/x/README.md': '# C\n\nSee [the guide](guide.md).\n',
    });
    const { report, reportMdPath } = await runCheck({ cwd: repo.dir, clock });
    assert.deepEqual(fixes(report.entries), []);
    assert.match(readFileSync(reportMdPath, 'utf8'), /`broken_reference` \(line 3\)/);
  });

  it('a fragment fix keeps only the fragment: a stray ] around the target is not part of it', async () => {
    const repo = makeRepo();
    repos.push(repo);
    repo.commit('docs', {
      'community-membership.md': '# Membership\n\n## Member\n\nA member is…\n',
      'events/comms/README.md':
        '# Comms\n\nBecome a [member].\n\n[member]: [../membership/community-membership.md#member]\n',
    });
    const { report } = await runCheck({ cwd: repo.dir, clock });
    assert.deepEqual(fixes(report.entries), [
      [']: [../membership/community-membership.md#member]', ']: ../../community-membership.md#member'],
    ]);
    // Proved to resolve, but only the name matches (no history, another folder): confirm.
    assert.equal(report.entries[0]!.safety_tier, 'confirm');
  });

  it('drops a fix whose new target does not resolve (fragment included) and says why', () => {
    const world: DocWorld = {
      files: new Set(['a.md', 'b.md']),
      docs: new Map([
        ['a.md', '# A\n\nSee [b](old.md#usage).\n'],
        ['b.md', '# B\n\n## Setup\n'],
      ]),
      onDisk: () => false,
    };
    const proposal: Proposal = {
      path: 'a.md',
      category: { class: 'stale', subtype: 'dangling-reference' },
      signals: [{ name: 'broken_reference', line: 3, detail: 'broken' }],
      op: 'Fix it.',
      op_type: 'deterministic',
      exact_edit: {
        kind: 'replace-text',
        anchor: { start_line: 3, end_line: 3 },
        match: '](old.md',
        replacement: '](b.md',
      },
      confidence: 0.7,
    };
    const dropped: string[] = [];
    assert.deepEqual(
      proveLinkFixes(world, [proposal], (_p, why) => dropped.push(why)),
      [],
    );
    assert.deepEqual(dropped, ['the new target b.md#usage does not resolve']);
    const good = {
      ...proposal,
      exact_edit: { ...proposal.exact_edit!, match: '](old.md#usage', replacement: '](b.md#setup' },
    };
    assert.equal(proveLinkFixes(world, [good]).length, 1);
  });
});
