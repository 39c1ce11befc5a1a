import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { fixedClock } from '../../../src/core/clock.js';
import { clean } from '../../../src/hygiene/apply/clean.js';
import { keepReferencesResolving } from '../../../src/hygiene/apply/keep-references.js';
import { runCheck } from '../../../src/hygiene/check.js';
import { type DocWorld, referencesBroken, simulate, worldOf } from '../../../src/hygiene/references.js';
import { makeRepo, type TestRepo, testEnv } from '../../helpers/git-repo.js';
import { fc } from '../../helpers/property.js';
import { makeEntry, makeReport, writeProjectReport } from '../../helpers/report.js';

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});
const clock = fixedClock('2026-03-01T10:00:00Z');
const env = testEnv();

function repoWith(files: Record<string, string>): TestRepo {
  const repo = makeRepo();
  repos.push(repo);
  repo.commit('docs', files);
  return repo;
}

describe('a cleanup never turns a resolving reference into a broken one', () => {
  it('a move rewrites its three inbound links (one in another folder) in the same commit, and lists them', async () => {
    const repo = repoWith({
      'design/old-plan.md': '---\nstatus: withdrawn\n---\n# Old plan\n\nWithdrawn.\n',
      'design/README.md': '# Designs\n\n- [old plan](old-plan.md)\n- [again](./old-plan.md#old-plan)\n',
      'design/next.md': '# Next\n\nReplaces [the old plan][old].\n\n[old]: old-plan.md\n',
      'docs/guide.md': '# Guide\n\nHistory: [old plan](../design/old-plan.md).\n',
    });
    const checked = await runCheck({ cwd: repo.dir, clock });
    const move = checked.report.entries.find((e) => e.exact_edit?.kind === 'move-to-archive');
    // A move breaks links from outside the repository: always a person's call.
    assert.equal(move?.safety_tier, 'confirm');
    const result = await clean({ cwd: repo.dir, clock, env, approve: [move!.id] });
    assert.equal(result.status, 'committed');
    assert.deepEqual(
      (result.link_rewrites ?? []).map((r) => [r.path, r.line, r.from, r.to]),
      [
        ['design/README.md', 3, 'old-plan.md', 'archive/old-plan.md'],
        ['design/README.md', 4, './old-plan.md#old-plan', './archive/old-plan.md#old-plan'],
        ['design/next.md', 5, 'old-plan.md', 'archive/old-plan.md'],
        ['docs/guide.md', 3, '../design/old-plan.md', '../design/archive/old-plan.md'],
      ],
    );
    assert.equal(
      repo.git(['show', '--name-only', '--no-renames', '--format=', 'HEAD']),
      [
        'design/README.md',
        'design/archive/old-plan.md',
        'design/next.md',
        'design/old-plan.md',
        'docs/guide.md',
      ].join('\n'),
    );
    assert.equal(
      readFileSync(repo.path('docs/guide.md'), 'utf8'),
      '# Guide\n\nHistory: [old plan](../design/archive/old-plan.md).\n',
    );
    // The commit message counts the move, not its rewrites.
    assert.match(repo.git(['log', '-1', '--format=%B']), /^docs: hygiene cleanup \(1 edit across 4 files\)/);
  });

  it('skips an edit that would break a fragment elsewhere as would-break-reference, naming it, and applies the rest', async () => {
    const repo = repoWith({
      'docs/a.md': '# A\n\n## Setup\n\nStep one.\n',
      'docs/b.md': '# B\n\nSee [setup](a.md#setup).\n',
      'docs/c.md': '# C\n\nsee x\n',
    });
    writeProjectReport(
      repo.dir,
      makeReport(repo.dir, [
        // Renames the heading another doc's fragment points at.
        makeEntry(repo.dir, {
          id: 'head',
          path: 'docs/a.md',
          kind: 'replace-text',
          anchor: [3, 3],
          match: 'Setup',
          replacement: 'Install',
        }),
        makeEntry(repo.dir, {
          id: 'ok',
          path: 'docs/c.md',
          kind: 'replace-text',
          anchor: [3, 3],
          match: 'x',
          replacement: 'y',
        }),
      ]),
    );
    const result = await clean({ cwd: repo.dir, clock, env });
    assert.equal(result.status, 'partial');
    const head = result.entries.find((e) => e.id === 'head')!;
    assert.equal(head.outcome, 'skipped');
    assert.equal(head.reason, 'would-break-reference');
    assert.equal(head.detail, 'would break the reference to a.md#setup on line 3 of docs/b.md');
    assert.equal(readFileSync(repo.path('docs/a.md'), 'utf8'), '# A\n\n## Setup\n\nStep one.\n');
    assert.equal(readFileSync(repo.path('docs/c.md'), 'utf8'), '# C\n\nsee y\n');
  });

  it("skips a move that breaks a link on the site (mdBook's .html link to the chapter) as would-break-reference", async () => {
    const repo = repoWith({
      'book.toml': '[book]\ntitle = "Book"\n',
      'src/SUMMARY.md': '# Summary\n\n- [Guide](guide.md)\n- [Config](config.md)\n',
      'src/guide.md': '# Guide\n\nSee [the config](config.html#rustc-cfg).\n',
      'src/config.md': '# Config\n\n## `rustc-cfg` {#rustc-cfg}\n',
    });
    writeProjectReport(
      repo.dir,
      makeReport(repo.dir, [
        makeEntry(repo.dir, {
          id: 'mv',
          path: 'src/config.md',
          kind: 'move-to-archive',
          dest_path: 'src/archive/config.md',
        }),
      ]),
    );
    const result = await clean({ cwd: repo.dir, clock, env, approve: ['mv'] });
    const mv = result.entries.find((e) => e.id === 'mv')!;
    assert.equal(mv.outcome, 'skipped');
    assert.equal(mv.reason, 'would-break-reference');
    assert.equal(mv.detail, 'would break the reference to config.html#rustc-cfg on line 3 of src/guide.md');
    assert.equal(
      readFileSync(repo.path('src/config.md'), 'utf8'),
      '# Config\n\n## `rustc-cfg` {#rustc-cfg}\n',
    );
  });

  it('a doc in an archive folder keeps its links out of it working', () => {
    const world: DocWorld = {
      files: new Set(['docs/guide.md', 'docs/archive/old.md']),
      docs: new Map([
        ['docs/guide.md', '# Guide\n'],
        ['docs/archive/old.md', '# Old\n\nSee [the guide](../guide.md).\n'],
      ]),
      onDisk: () => false,
    };
    const report = makeReport('/x', [
      makeEntry('/x', {
        id: 'mv',
        path: 'docs/guide.md',
        kind: 'move-to-archive',
        dest_path: 'docs/archive/guide.md',
      }),
    ]);
    const kept = keepReferencesResolving(world, report, ['mv']);
    // The archived doc's link moves with the file it points at.
    assert.deepEqual(
      kept.rewrites.map((r) => [r.path, r.from, r.to]),
      [['docs/archive/old.md', '../guide.md', 'guide.md']],
    );
  });

  it('property: applying every auto entry of a check leaves every resolving reference resolving', () => {
    const names = ['a.md', 'b.md', 'c.md', 'sub/d.md', 'sub/e.md', 'old/f.md'];
    const heading = fc.constantFrom('Intro', 'Setup', 'Usage');
    const link = fc.record({
      to: fc.constantFrom(...names, 'gone.md', 'sub/gone.md'),
      fragment: fc.option(
        heading.map((h) => h.toLowerCase()),
        { nil: undefined },
      ),
    });
    const doc = fc.record({
      headings: fc.uniqueArray(heading, { maxLength: 2 }),
      links: fc.array(link, { maxLength: 4 }),
      withdrawn: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.tuple(...names.map(() => doc)), fc.array(fc.nat(), { maxLength: 6 }), (specs, picks) => {
        const docs = new Map<string, string>();
        names.forEach((path, i) => {
          const spec = specs[i]!;
          const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
          const rel = (to: string) => {
            const up = dir === '' ? '' : '../';
            return up + to;
          };
          const lines = [
            ...(spec.withdrawn ? ['---', 'status: withdrawn', '---'] : []),
            `# ${path}`,
            ...spec.headings.map((h) => `## ${h}`),
            ...spec.links.map((l) => `See [x](${rel(l.to)}${l.fragment ? `#${l.fragment}` : ''}).`),
          ];
          docs.set(path, `${lines.join('\n')}\n`);
        });
        const world: DocWorld = { files: new Set(names), docs, onDisk: () => false };
        // Candidate edits like the ones check makes: moves of withdrawn docs, heading renames, link edits.
        const entries = picks.slice(0, 4).map((pick, i) => {
          const path = names[pick % names.length]!;
          const text = docs.get(path)!;
          const lines = text.split('\n');
          const at = lines.findIndex((l) => l.startsWith('## ') || l.startsWith('See '));
          if (pick % 3 === 0 || at === -1)
            return makeEntry('/x', {
              id: `m${i}`,
              path,
              kind: 'move-to-archive',
              dest_path: `${path.includes('/') ? `${path.slice(0, path.lastIndexOf('/'))}/` : ''}archive/${path.split('/').pop()}`,
            });
          return makeEntry('/x', {
            id: `r${i}`,
            path,
            kind: 'replace-text',
            anchor: [at + 1, at + 1],
            match: lines[at]!,
            replacement: lines[at]!.replace(/Setup|Intro|Usage/, 'Renamed').replace(/\.md/, '-x.md'),
            text,
          });
        });
        const unique = entries.filter((e, i) => entries.findIndex((x) => x.path === e.path) === i);
        const report = makeReport('/x', unique);
        const kept = keepReferencesResolving(
          world,
          report,
          unique.map((e) => e.id),
        );
        const applied = kept.report.entries.filter((e) => kept.apply.includes(e.id));
        const edits = new Map<string, typeof applied>();
        const moves = new Map<string, string>();
        for (const e of applied) {
          if (e.exact_edit?.kind === 'move-to-archive') moves.set(e.path, e.exact_edit.dest_path!);
          else edits.set(e.path, [...(edits.get(e.path) ?? []), e]);
        }
        for (const path of moves.keys()) if (edits.has(path)) moves.delete(path);
        const before = worldOf(world);
        const change = { edits, moves };
        assert.deepEqual(referencesBroken(before, simulate(before, change), change), []);
      }),
      { numRuns: 60 },
    );
  });
});
