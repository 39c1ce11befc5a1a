import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fixedClock } from '../../../src/core/clock.js';
import { clean, planClean, WIP_MESSAGE } from '../../../src/hygiene/apply/clean.js';
import { validateReport } from '../../../src/hygiene/report/validate.js';
import type { Entry } from '../../../src/hygiene/types.js';
import { makeRepo, makeTempDir, type TestRepo, testEnv } from '../../helpers/git-repo.js';
import { makeEntry, makeReport, snapshotTree, writeProjectReport } from '../../helpers/report.js';

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

const env = testEnv();
const clock = fixedClock('2026-03-01T10:00:00Z');

/** A repository with committed docs and a check report for `entries(root)`. */
function project(files: Record<string, string>, entries: (root: string) => Entry[]): TestRepo {
  const repo = makeRepo();
  repos.push(repo);
  repo.commit('docs', files);
  const report = makeReport(repo.dir, entries(repo.dir));
  assert.deepEqual(validateReport(report, { projectRoot: repo.dir }), [], 'fixture report must be valid');
  writeProjectReport(repo.dir, report);
  return repo;
}

const read = (repo: TestRepo, path: string) => readFileSync(repo.path(path), 'utf8');
/** A failure at the commit step, after every file was written and staged. */
const COMMIT_REFUSED = {
  beforeCommit: () => {
    throw new Error('commit refused (simulated)');
  },
};
/** The raw commit message (its single final newline dropped by TestRepo.git). */
const message = (repo: TestRepo, rev = 'HEAD') => {
  const raw = repo.git(['cat-file', 'commit', rev]);
  return raw.slice(raw.indexOf('\n\n') + 2);
};
const count = (repo: TestRepo) => Number(repo.git(['rev-list', '--count', 'HEAD']));
const state = (repo: TestRepo) =>
  existsSync(repo.path('.dochygiene/state.json'))
    ? JSON.parse(read(repo, '.dochygiene/state.json'))
    : undefined;

/** HEAD, index and every byte of the worktree (untracked and ignored files included). */
function fingerprint(repo: TestRepo) {
  return {
    head: repo.head(),
    refs: repo.refs(),
    index: repo.git(['ls-files', '-s']),
    tree: snapshotTree(repo.dir),
  };
}

const standardDocs = {
  'docs/plan.md': 'Plan\nstep one\nstep two\nobsolete\n',
  'docs/guide.md': '# Guide\nsee [old](old.md)\n',
  'docs/notes.md': 'Notes\nduplicate paragraph\n',
};

function standardEntries(root: string): Entry[] {
  return [
    makeEntry(root, { id: 'del', path: 'docs/plan.md', kind: 'delete-range', anchor: [4, 4] }),
    makeEntry(root, {
      id: 'fix',
      path: 'docs/guide.md',
      kind: 'replace-text',
      anchor: [2, 2],
      match: 'old',
      replacement: 'new',
    }),
    makeEntry(root, {
      id: 'dup',
      path: 'docs/notes.md',
      kind: 'dedupe',
      anchor: [2, 2],
      canonical_ref: 'docs/guide.md#guide',
    }),
    makeEntry(root, {
      id: 'frz',
      path: 'docs/plan.md',
      kind: 'insert-frontmatter',
      key: 'hygiene',
      value: 'frozen',
    }),
  ];
}

describe('clean', () => {
  it('makes exactly one commit with the SPEC message; .dochygiene and untracked files stay out', async () => {
    const repo = project(standardDocs, standardEntries);
    repo.write({ 'scratch.md': 'my untracked notes\n' });
    const before = repo.head();
    const result = await clean({ cwd: repo.dir, approve: ['del', 'dup'], clock, env });
    assert.equal(result.status, 'committed');
    assert.equal(repo.git(['rev-parse', 'HEAD~1']), before);
    assert.equal(
      message(repo),
      [
        'docs: hygiene cleanup (4 edits across 3 files)',
        '',
        'Auto: 2 (replace-text ×1, freeze ×1, delete ×0)',
        'Confirmed: 2 (move-to-archive ×0, replace-text ×0, freeze ×0, delete ×0, delete-range ×1, dedupe ×1, distill ×0, split ×0)',
        'Skipped (re-analysis recommended): 0',
      ].join('\n'),
    );
    assert.equal(repo.git(['log', '-1', '--format=%an <%ae>']), 'Test User <test@example.com>');
    assert.equal(
      repo.git(['show', '--name-only', '--format=', 'HEAD']),
      ['docs/guide.md', 'docs/notes.md', 'docs/plan.md'].join('\n'),
    );
    assert.equal(read(repo, 'docs/plan.md'), '---\nhygiene: frozen\n---\nPlan\nstep one\nstep two\n');
    assert.equal(read(repo, 'docs/notes.md'), 'Notes\nSee [docs/guide.md](guide.md#guide).\n');
    // Untracked work and the tool's state: neither committed nor deleted.
    assert.equal(read(repo, 'scratch.md'), 'my untracked notes\n');
    assert.equal(
      repo.git(['status', '--porcelain', '--untracked-files=all']),
      '?? .dochygiene/report.json\n?? .dochygiene/state.json\n?? scratch.md',
    );
    assert.equal(repo.git(['log', '--all', '--format=', '--name-only', '--', '.dochygiene']), '');
    // last_clean is the commit's own time (the injected clock pins it here).
    assert.equal(result.last_clean, '2026-03-01T10:00:00Z');
    assert.equal(repo.git(['log', '-1', '--format=%cI']), '2026-03-01T10:00:00+00:00');
    assert.equal(state(repo).last_clean, result.last_clean);
    assert.equal(result.commit, repo.head());
  });

  it('leaves confirm entries untouched without --approve (off a terminal)', async () => {
    const repo = project(standardDocs, standardEntries);
    const result = await clean({ cwd: repo.dir, clock, env });
    assert.equal(result.status, 'committed');
    assert.equal(result.entries.find((e) => e.id === 'del')?.outcome, 'needs-approval');
    // A dedupe is confirm tier: the canonical copy is a judgment.
    assert.equal(result.entries.find((e) => e.id === 'dup')?.outcome, 'needs-approval');
    assert.equal(
      read(repo, 'docs/plan.md'),
      '---\nhygiene: frozen\n---\nPlan\nstep one\nstep two\nobsolete\n',
    );
    assert.match(
      message(repo),
      /^docs: hygiene cleanup \(2 edits across 2 files\)\n\nAuto: 2 .*\nConfirmed: 0 /,
    );
  });

  it('--reject leaves an auto entry alone; a run with nothing approved makes no commit and no stamp', async () => {
    const repo = project(standardDocs, standardEntries);
    const head = repo.head();
    const result = await clean({ cwd: repo.dir, reject: ['fix', 'dup', 'frz'], clock, env });
    assert.equal(result.status, 'nothing');
    assert.equal(repo.head(), head);
    assert.equal(state(repo), undefined);
  });

  it('skips a file changed after check whole, commits the rest and counts the skipped', async () => {
    const repo = project(standardDocs, standardEntries);
    writeFileSync(repo.path('docs/plan.md'), 'Plan\nstep one\nstep two\nobsolete\nnew line\n');
    repo.git(['commit', '-qam', 'more plan']);
    const result = await clean({ cwd: repo.dir, approve: ['del', 'dup'], clock, env });
    assert.equal(result.status, 'partial');
    assert.equal(read(repo, 'docs/plan.md'), 'Plan\nstep one\nstep two\nobsolete\nnew line\n');
    const plan = result.files.find((file) => file.path === 'docs/plan.md');
    assert.equal(plan?.reason, 'content-changed-since-check');
    assert.deepEqual(
      result.entries.filter((e) => e.outcome === 'skipped').map((e) => e.id),
      ['del', 'frz'],
    );
    const text = message(repo);
    assert.match(text, /^docs: hygiene cleanup \(2 edits across 2 files\)/);
    assert.match(text, /Skipped \(re-analysis recommended\): 2$/);
  });

  it('on a dirty tree makes one WIP checkpoint, then exactly one cleanup commit', async () => {
    const repo = project({ ...standardDocs, 'src/app.txt': 'v1\n' }, standardEntries);
    const start = repo.head();
    writeFileSync(repo.path('src/app.txt'), 'v2 (my work in progress)\n');
    repo.write({ 'new-untracked.md': 'draft\n' });
    const result = await clean({ cwd: repo.dir, clock, env });
    assert.equal(result.status, 'committed');
    assert.equal(count(repo), 4); // initial, docs, WIP, cleanup
    assert.equal(repo.git(['log', '-1', '--format=%s', 'HEAD~1']), WIP_MESSAGE);
    assert.equal(repo.git(['rev-parse', 'HEAD~2']), start);
    assert.equal(result.wip_commit, repo.git(['rev-parse', 'HEAD~1']));
    assert.equal(repo.git(['show', '--name-only', '--format=', 'HEAD~1']), 'src/app.txt');
    assert.equal(read(repo, 'src/app.txt'), 'v2 (my work in progress)\n');
    assert.equal(read(repo, 'new-untracked.md'), 'draft\n');
    assert.equal(
      repo.git(['status', '--porcelain', '--untracked-files=normal']),
      '?? .dochygiene/\n?? new-untracked.md',
    );
  });

  it('on a dirty tree where nothing applies, leaves no checkpoint behind (HEAD and index as before)', async () => {
    const repo = project({ ...standardDocs, 'src/w.txt': '1\n' }, standardEntries);
    writeFileSync(repo.path('src/w.txt'), '2\n');
    repo.git(['add', 'src/w.txt']);
    writeFileSync(repo.path('docs/guide.md'), 'changed after check\n');
    const before = fingerprint(repo);
    const result = await clean({ cwd: repo.dir, reject: ['dup', 'frz'], clock, env });
    assert.equal(result.status, 'partial');
    assert.equal(result.commit, undefined);
    assert.deepEqual(fingerprint(repo), before);
  });

  it('never commits .dochygiene/, not even when the user tracks it and has changes to it staged', async () => {
    const repo = project({ ...standardDocs, 'src/w.txt': '1\n' }, standardEntries);
    repo.git(['add', '.dochygiene']);
    repo.commit('oops, tracked the tool state');
    const start = repo.head();
    writeFileSync(repo.path('src/w.txt'), '2\n');
    writeFileSync(
      repo.path('.dochygiene/report.json'),
      `${read(repo, '.dochygiene/report.json').trimEnd()}\n\n`,
    );
    repo.git(['add', '.dochygiene/report.json']);
    const result = await clean({ cwd: repo.dir, clock, env });
    assert.equal(result.status, 'committed');
    assert.equal(repo.git(['rev-parse', 'HEAD~2']), start);
    assert.equal(repo.git(['show', '--name-only', '--format=', 'HEAD~1']), 'src/w.txt');
    assert.equal(repo.git(['log', '--format=', '--name-only', `${start}..HEAD`, '--', '.dochygiene']), '');
  });

  it('with only tracked tool state staged, unstages it on the way and puts it back when nothing applies', async () => {
    const repo = project(standardDocs, standardEntries);
    repo.git(['add', '.dochygiene']);
    repo.commit('tracked tool state');
    writeFileSync(
      repo.path('.dochygiene/report.json'),
      `${read(repo, '.dochygiene/report.json').trimEnd()}\n\n`,
    );
    repo.git(['add', '.dochygiene/report.json']);
    writeFileSync(repo.path('docs/guide.md'), 'changed\n');
    repo.git(['commit', '-qm', 'guide', '--', 'docs/guide.md']);
    const before = fingerprint(repo);
    const result = await clean({ cwd: repo.dir, reject: ['dup', 'frz'], clock, env });
    assert.equal(result.status, 'partial');
    assert.deepEqual(fingerprint(repo), before);
  });

  it('a failure half-way on a clean tree leaves worktree, index and HEAD byte for byte as before', async () => {
    const repo = project(standardDocs, standardEntries);
    repo.write({ 'scratch.md': 'untracked\n' });
    const before = fingerprint(repo);
    await assert.rejects(
      clean({
        cwd: repo.dir,
        approve: ['del', 'dup'],
        clock,
        env,
        faults: {
          beforeWrite: (path) => {
            if (path === 'docs/notes.md') throw new Error('disk full (simulated)');
          },
        },
      }),
      (error: Error & { code?: string; details?: Record<string, unknown> }) => {
        assert.equal(error.code, 'clean-failed');
        assert.match(error.message, /rolled back; nothing changed/);
        assert.equal(error.details?.['rolled_back'], true);
        return true;
      },
    );
    assert.deepEqual(fingerprint(repo), before);
    assert.equal(state(repo), undefined);
  });

  it('the same failure on a dirty tree loses no user change (staged and unstaged), and leaves no WIP commit', async () => {
    const repo = project(
      { ...standardDocs, 'src/a.txt': 'a1\n', 'src/b.txt': 'b1\n', 'src/gone.txt': 'x\n' },
      standardEntries,
    );
    writeFileSync(repo.path('src/a.txt'), 'a2 staged\n');
    repo.git(['add', 'src/a.txt']);
    writeFileSync(repo.path('src/a.txt'), 'a3 staged then edited again\n');
    writeFileSync(repo.path('src/b.txt'), 'b2 unstaged\n');
    repo.git(['rm', '-q', 'src/gone.txt']);
    repo.write({ 'src/new.txt': 'brand new, staged\n' });
    repo.git(['add', 'src/new.txt']);
    repo.write({ 'notes.txt': 'untracked\n' });
    const before = fingerprint(repo);
    const status = repo.status();
    await assert.rejects(
      clean({
        cwd: repo.dir,
        clock,
        env,
        faults: {
          beforeWrite: (path) => {
            if (path === 'docs/plan.md') throw new Error('EIO (simulated)');
          },
        },
      }),
      /rolled back/,
    );
    assert.deepEqual(fingerprint(repo), before);
    assert.equal(repo.status(), status);
  });

  it('an interrupt between files rolls the run back', async () => {
    const repo = project(standardDocs, standardEntries);
    const before = fingerprint(repo);
    const controller = new AbortController();
    await assert.rejects(
      clean({
        cwd: repo.dir,
        clock,
        env,
        signal: controller.signal,
        faults: { beforeWrite: () => controller.abort() },
      }),
      /rolled back.*interrupted/,
    );
    assert.deepEqual(fingerprint(repo), before);
  });

  it('a failure at the commit step restores a git mv (destination and new folders removed)', async () => {
    const repo = project({ 'docs/old.md': 'old\n', 'docs/keep.md': 'k\nx\n' }, (root) => [
      makeEntry(root, {
        id: 'mv',
        path: 'docs/old.md',
        kind: 'move-to-archive',
        dest_path: 'docs/archive/old.md',
      }),
      makeEntry(root, {
        id: 'rt',
        path: 'docs/keep.md',
        kind: 'replace-text',
        anchor: [2, 2],
        match: 'x',
        replacement: 'y',
      }),
    ]);
    const before = fingerprint(repo);
    await assert.rejects(
      clean({
        cwd: repo.dir,
        clock,
        env,
        faults: COMMIT_REFUSED,
      }),
      /rolled back/,
    );
    assert.deepEqual(fingerprint(repo), before);
  });

  it('an approved delete-range over every line removes the file in the one commit', async () => {
    const repo = project({ 'docs/plans/old.md': 'one\ntwo\n', 'docs/keep.md': 'k\n' }, (root) => [
      makeEntry(root, { id: 'orphan', path: 'docs/plans/old.md', kind: 'delete-range', anchor: [1, 2] }),
    ]);
    const result = await clean({ cwd: repo.dir, clock, env, approve: ['orphan'] });
    assert.equal(result.status, 'committed');
    assert.equal(existsSync(repo.path('docs/plans/old.md')), false);
    assert.equal(repo.git(['show', '--name-status', '--format=', 'HEAD']), 'D\tdocs/plans/old.md');
    assert.equal(count(repo), 3);
  });

  it('a failure at the commit step brings a whole-file delete back', async () => {
    const repo = project({ 'docs/plans/old.md': 'one\ntwo\n' }, (root) => [
      makeEntry(root, { id: 'orphan', path: 'docs/plans/old.md', kind: 'delete-range', anchor: [1, 2] }),
    ]);
    const before = fingerprint(repo);
    await assert.rejects(
      clean({
        cwd: repo.dir,
        clock,
        env,
        approve: ['orphan'],
        faults: COMMIT_REFUSED,
      }),
      /rolled back/,
    );
    assert.deepEqual(fingerprint(repo), before);
  });

  it('stages a git mv destination once: the commit records a rename', async () => {
    const repo = project({ 'docs/old.md': 'old plan\n' }, (root) => [
      makeEntry(root, {
        id: 'mv',
        path: 'docs/old.md',
        kind: 'move-to-archive',
        dest_path: 'docs/archive/old.md',
      }),
    ]);
    const result = await clean({ cwd: repo.dir, clock, env, approve: ['mv'] });
    assert.equal(result.status, 'committed');
    assert.equal(
      repo.git(['show', '-M', '--name-status', '--format=', 'HEAD']),
      'R100\tdocs/old.md\tdocs/archive/old.md',
    );
    assert.equal(repo.git(['status', '--porcelain']), '?? .dochygiene/');
  });

  it('insert-frontmatter: a conflicting value is never overwritten; the same value is a no-op', async () => {
    const repo = project(
      { 'a.md': '---\nhygiene: live\n---\nA\n', 'b.md': '---\nhygiene: frozen\n---\nB\n' },
      (root) => [
        makeEntry(root, {
          id: 'fa',
          path: 'a.md',
          kind: 'insert-frontmatter',
          key: 'hygiene',
          value: 'frozen',
        }),
        makeEntry(root, {
          id: 'fb',
          path: 'b.md',
          kind: 'insert-frontmatter',
          key: 'hygiene',
          value: 'frozen',
        }),
      ],
    );
    const head = repo.head();
    const result = await clean({ cwd: repo.dir, clock, env });
    assert.equal(result.status, 'partial');
    assert.equal(repo.head(), head, 'nothing changed, so no commit');
    assert.equal(read(repo, 'a.md'), '---\nhygiene: live\n---\nA\n');
    assert.equal(read(repo, 'b.md'), '---\nhygiene: frozen\n---\nB\n');
    assert.deepEqual(
      result.entries.map((e) => [e.id, e.outcome, e.reason]),
      [
        ['fa', 'skipped', 'frontmatter-key-conflict'],
        ['fb', 'unchanged', undefined],
      ],
    );
  });

  it('skips entries on untracked files; a generative entry, approved or not, needs a model and is no failure', async () => {
    const repo = project({ 'big.md': 'long\n' }, (root) => {
      writeFileSync(join(root, 'loose.md'), 'a\nb\n');
      return [
        makeEntry(root, { id: 'gen', path: 'big.md', kind: 'generative' }),
        makeEntry(root, {
          id: 'loose',
          path: 'loose.md',
          kind: 'replace-text',
          anchor: [1, 1],
          match: 'a',
          replacement: 'A',
        }),
      ];
    });
    const head = repo.head();
    const result = await clean({ cwd: repo.dir, approve: ['gen'], clock, env });
    assert.equal(result.status, 'partial');
    assert.deepEqual(
      result.entries.map((e) => [e.id, e.outcome, e.reason]),
      [
        ['gen', 'needs-model', undefined],
        ['loose', 'skipped', 'untracked'],
      ],
    );
    assert.deepEqual(result.counts, {
      applied: 0,
      skipped: 1,
      needs_approval: 0,
      needs_model: 1,
      rejected: 0,
    });
    assert.equal(repo.head(), head);
    assert.equal(read(repo, 'loose.md'), 'a\nb\n');
  });

  it('a generative entry needs a model only when none is configured and no --generated text names it', async () => {
    const repo = project({ 'big.md': 'long\n', 'other.md': 'long too\n' }, (root) => [
      makeEntry(root, { id: 'gen', path: 'big.md', kind: 'generative' }),
      makeEntry(root, { id: 'gen2', path: 'other.md', kind: 'generative' }),
    ]);
    const decisions = async (generative?: { texts: ReadonlySet<string>; model: boolean }) =>
      (await planClean({ cwd: repo.dir, ...(generative ? { generative } : {}) })).entries.map((e) => [
        e.id,
        e.decision,
      ]);
    assert.deepEqual(await decisions(), [
      ['gen', 'needs-model'],
      ['gen2', 'needs-model'],
    ]);
    // A --generated text for one entry: that one is offered (a confirm entry awaiting approval).
    assert.deepEqual(await decisions({ texts: new Set(['gen']), model: false }), [
      ['gen', 'needs-approval'],
      ['gen2', 'needs-model'],
    ]);
    // A configured model can write any of them.
    assert.deepEqual(await decisions({ texts: new Set(), model: true }), [
      ['gen', 'needs-approval'],
      ['gen2', 'needs-approval'],
    ]);
  });

  it('a generative entry alone is not a partial run, and stays out of the commit message', async () => {
    const repo = project({ 'big.md': 'long\n', 'g.md': 'see x\n' }, (root) => [
      makeEntry(root, { id: 'gen', path: 'big.md', kind: 'generative' }),
      makeEntry(root, {
        id: 'fix',
        path: 'g.md',
        kind: 'replace-text',
        anchor: [1, 1],
        match: 'x',
        replacement: 'y',
      }),
    ]);
    const result = await clean({ cwd: repo.dir, clock, env });
    assert.equal(result.status, 'committed');
    assert.equal(result.counts.needs_model, 1);
    assert.match(message(repo), /Skipped \(re-analysis recommended\): 0$/);
  });

  it('--dry-run runs every guard, changes nothing, not even state', async () => {
    const repo = project(standardDocs, standardEntries);
    writeFileSync(repo.path('docs/notes.md'), 'Notes\nduplicate paragraph, edited\n');
    const before = fingerprint(repo);
    const result = await clean({ cwd: repo.dir, approve: ['del', 'dup'], dryRun: true, clock, env });
    assert.equal(result.status, 'dry-run');
    assert.deepEqual(
      result.entries.map((e) => [e.id, e.outcome, e.reason]),
      [
        ['del', 'would-apply', undefined],
        ['fix', 'would-apply', undefined],
        ['dup', 'skipped', 'content-changed-since-check'],
        ['frz', 'would-apply', undefined],
      ],
    );
    assert.deepEqual(fingerprint(repo), before);
  });
});

describe('clean refusals (no change at all)', () => {
  async function refuses(repo: TestRepo, options: Partial<Parameters<typeof clean>[0]>, pattern: RegExp) {
    const before = fingerprint(repo);
    await assert.rejects(clean({ cwd: repo.dir, clock, env, ...options }), pattern);
    assert.deepEqual(fingerprint(repo), before);
  }

  it('refuses an unknown --approve or --reject id', async () => {
    const repo = project(standardDocs, standardEntries);
    await refuses(repo, { approve: ['nope'] }, /--approve "nope": no such entry in the report/);
    await refuses(repo, { reject: ['nah'] }, /--reject "nah": no such entry/);
  });

  it('refuses a detached HEAD', async () => {
    const repo = project(standardDocs, standardEntries);
    repo.checkout(repo.head());
    await refuses(repo, {}, /HEAD is detached/);
  });

  it('refuses a repository in the middle of a merge', async () => {
    const repo = project({ ...standardDocs, 'x.txt': 'base\n' }, standardEntries);
    repo.branch('other');
    repo.commit('main side', { 'x.txt': 'main\n' });
    repo.checkout('other');
    repo.commit('other side', { 'x.txt': 'other\n' });
    repo.checkout('main');
    assert.throws(() => repo.git(['merge', '-q', 'other']));
    await refuses(repo, {}, /middle of a merge/);
  });

  it('refuses when no git identity is configured, before the WIP checkpoint', async () => {
    const repo = project({ ...standardDocs, 'w.txt': '1\n' }, standardEntries);
    writeFileSync(repo.path('w.txt'), '2\n');
    const config = join(makeTempDir('stw-noident-'), 'gitconfig');
    writeFileSync(config, '[user]\n\tuseConfigOnly = true\n');
    await refuses(
      repo,
      { env: { ...env, GIT_CONFIG_GLOBAL: config, HOME: makeTempDir('stw-home-'), EMAIL: undefined } },
      /no git identity/,
    );
  });

  it('refuses a report from another project, a missing report and an invalid one', async () => {
    const repo = project(standardDocs, standardEntries);
    const report = JSON.parse(read(repo, '.dochygiene/report.json'));
    writeProjectReport(repo.dir, { ...report, scan: { ...report.scan, project_root: '/elsewhere/project' } });
    await refuses(repo, {}, /made for "\/elsewhere\/project", not this project/);
    writeProjectReport(repo.dir, { ...report, entries: [{ ...report.entries[0], safety_tier: 'auto' }] });
    await refuses(repo, {}, /not a valid report/);
    repo.git(['clean', '-qfdx', '.dochygiene']);
    await refuses(repo, {}, /no report: run 'stw hygiene check' first/);
  });

  it('planClean has no side effects', async () => {
    const repo = project(standardDocs, standardEntries);
    const before = fingerprint(repo);
    const plan = await planClean({ cwd: repo.dir, approve: ['del', 'dup'] });
    assert.deepEqual(plan.apply, ['del', 'fix', 'dup', 'frz']);
    assert.deepEqual(fingerprint(repo), before);
  });
});

describe('clean data safety', () => {
  /** Rejects with clean-failed, rolled_back false, naming exactly `paths` as left alone. */
  const incomplete =
    (paths: string[]) => (error: Error & { code?: string; details?: Record<string, unknown> }) => {
      assert.equal(error.code, 'clean-failed');
      assert.doesNotMatch(error.message, /nothing changed/);
      assert.match(error.message, /rollback did not finish/);
      for (const path of paths) assert.ok(error.message.includes(path), `${path} named in: ${error.message}`);
      assert.equal(error.details?.['rolled_back'], false);
      assert.deepEqual(error.details?.['left_alone'], paths);
      return true;
    };
  const hide = (root: string, flag: string, path: string, edited: string) => {
    execFileSync('git', ['update-index', flag, '--', path], { cwd: root, env });
    writeFileSync(join(root, path), edited);
  };

  it('never edits a file hidden from git status (assume-unchanged, skip-worktree); the rest commits', async () => {
    const repo = project(
      { 'docs/a.md': 'A\nsee old\nend\n', 'docs/b.md': 'B\nsee old\nend\n', 'docs/c.md': 'C\nsee old\n' },
      (root) => {
        // Hidden from `git status`, each with a local edit the report was made over.
        hide(root, '--assume-unchanged', 'docs/a.md', 'A (my local edit)\nsee old\nend\n');
        hide(root, '--skip-worktree', 'docs/b.md', 'B (my local edit)\nsee old\nend\n');
        return ['a', 'b', 'c'].map((name) =>
          makeEntry(root, {
            id: name,
            path: `docs/${name}.md`,
            kind: 'replace-text',
            anchor: [2, 2],
            match: 'old',
            replacement: 'new',
          }),
        );
      },
    );
    const start = repo.head();
    const result = await clean({ cwd: repo.dir, clock, env });
    assert.equal(result.status, 'partial');
    assert.deepEqual(
      result.entries.map((e) => [e.id, e.outcome, e.reason]),
      [
        ['a', 'skipped', 'hidden-from-status'],
        ['b', 'skipped', 'hidden-from-status'],
        ['c', 'applied', undefined],
      ],
    );
    // One commit (no WIP: git cannot see the hidden edits), holding only the visible file.
    assert.equal(repo.git(['rev-parse', 'HEAD~1']), start);
    assert.equal(repo.git(['show', '--name-only', '--format=', 'HEAD']), 'docs/c.md');
    assert.equal(read(repo, 'docs/a.md'), 'A (my local edit)\nsee old\nend\n');
    assert.equal(read(repo, 'docs/b.md'), 'B (my local edit)\nsee old\nend\n');
    assert.equal(read(repo, 'docs/c.md'), 'C\nsee new\n');
    assert.match(repo.git(['ls-files', '-v', 'docs/a.md', 'docs/b.md']), /^h docs\/a\.md\nS docs\/b\.md$/);
  });

  it('re-checks a plan made earlier: a file hidden since the gate is skipped, nothing edited', async () => {
    const repo = project({ 'docs/a.md': 'A\nsee old\n' }, (root) => [
      makeEntry(root, {
        id: 'a',
        path: 'docs/a.md',
        kind: 'replace-text',
        anchor: [2, 2],
        match: 'old',
        replacement: 'new',
      }),
    ]);
    const plan = await planClean({ cwd: repo.dir });
    assert.deepEqual(plan.apply, ['a']);
    repo.git(['update-index', '--assume-unchanged', 'docs/a.md']);
    const before = fingerprint(repo);
    const result = await clean({ cwd: repo.dir, plan, clock, env });
    assert.deepEqual(
      result.entries.map((e) => [e.id, e.outcome, e.reason]),
      [['a', 'skipped', 'hidden-from-status']],
    );
    assert.deepEqual(fingerprint(repo), before);
  });

  it('unwinding a WIP checkpoint keeps assume-unchanged and skip-worktree marks (a sparse file stays hidden)', async () => {
    const repo = project(
      { ...standardDocs, 'src/w.txt': '1\n', 'a.txt': 'a\n', 'b.txt': 'b\n' },
      standardEntries,
    );
    hide(repo.dir, '--assume-unchanged', 'a.txt', 'a (hidden edit)\n');
    repo.git(['update-index', '--skip-worktree', '--', 'b.txt']);
    rmSync(repo.path('b.txt')); // as a sparse checkout leaves it
    writeFileSync(repo.path('src/w.txt'), '2\n');
    const before = { ...fingerprint(repo), flags: repo.git(['ls-files', '-v']), status: repo.status() };
    await assert.rejects(
      clean({
        cwd: repo.dir,
        clock,
        env,
        faults: {
          beforeWrite: () => {
            throw new Error('EIO (simulated)');
          },
        },
      }),
      /rolled back; nothing changed/,
    );
    assert.deepEqual(
      { ...fingerprint(repo), flags: repo.git(['ls-files', '-v']), status: repo.status() },
      before,
    );
  });

  it('a rollback leaves a file the user changed after the tool wrote it, names it, and restores the rest', async () => {
    const repo = project(standardDocs, standardEntries);
    const head = repo.head();
    await assert.rejects(
      clean({
        cwd: repo.dir,
        clock,
        env,
        reject: ['del', 'frz'],
        faults: {
          beforeCommit: () => {
            writeFileSync(repo.path('docs/guide.md'), `${read(repo, 'docs/guide.md')}my line\n`);
            throw new Error('commit refused (simulated)');
          },
        },
      }),
      incomplete(['docs/guide.md']),
    );
    assert.equal(read(repo, 'docs/guide.md'), '# Guide\nsee [new](new.md)\nmy line\n');
    assert.equal(
      read(repo, 'docs/notes.md'),
      standardDocs['docs/notes.md'],
      'the untouched-since file is restored',
    );
    assert.equal(repo.head(), head);
    assert.equal(repo.git(['diff', '--cached', '--name-only']), '', 'the index is back at the baseline');
    assert.equal(state(repo), undefined);
  });

  it('a real failing commit (commit.gpgsign with a failing gpg) rolls back fully', async () => {
    const repo = project(standardDocs, standardEntries);
    repo.git(['config', 'commit.gpgsign', 'true']);
    repo.git(['config', 'gpg.program', 'false']);
    const before = fingerprint(repo);
    await assert.rejects(
      clean({ cwd: repo.dir, clock, env, approve: ['del', 'dup'] }),
      (error: Error & { details?: Record<string, unknown> }) => {
        assert.match(error.message, /rolled back; nothing changed \(git commit exited/);
        assert.equal(error.details?.['rolled_back'], true);
        return true;
      },
    );
    assert.deepEqual(fingerprint(repo), before);
  });

  it('a real failing commit after the user edited a written file leaves that edit in place', async () => {
    const repo = project(standardDocs, standardEntries);
    repo.git(['config', 'commit.gpgsign', 'true']);
    repo.git(['config', 'gpg.program', 'false']);
    await assert.rejects(
      clean({
        cwd: repo.dir,
        clock,
        env,
        reject: ['del', 'dup', 'frz'],
        faults: {
          beforeCommit: () => writeFileSync(repo.path('docs/guide.md'), 'rewritten by me\n'),
        },
      }),
      incomplete(['docs/guide.md']),
    );
    assert.equal(read(repo, 'docs/guide.md'), 'rewritten by me\n');
    assert.equal(repo.git(['diff', '--cached', '--name-only']), '');
  });

  it('a rollback leaves a moved file whose destination changed, and a re-created removed file', async () => {
    const repo = project(
      { 'docs/old.md': 'old\n', 'docs/plans/gone.md': 'one\ntwo\n', 'docs/keep.md': 'k\nx\n' },
      (root) => [
        makeEntry(root, {
          id: 'mv',
          path: 'docs/old.md',
          kind: 'move-to-archive',
          dest_path: 'docs/archive/old.md',
        }),
        makeEntry(root, { id: 'rm', path: 'docs/plans/gone.md', kind: 'delete-range', anchor: [1, 2] }),
        makeEntry(root, {
          id: 'rt',
          path: 'docs/keep.md',
          kind: 'replace-text',
          anchor: [2, 2],
          match: 'x',
          replacement: 'y',
        }),
      ],
    );
    const head = repo.head();
    await assert.rejects(
      clean({
        cwd: repo.dir,
        clock,
        env,
        approve: ['rm', 'mv'],
        faults: {
          beforeCommit: () => {
            writeFileSync(repo.path('docs/archive/old.md'), 'old, edited in its new place\n');
            writeFileSync(repo.path('docs/plans/gone.md'), 'wanted it back\n');
            throw new Error('commit refused (simulated)');
          },
        },
      }),
      incomplete(['docs/old.md', 'docs/archive/old.md', 'docs/plans/gone.md']),
    );
    assert.equal(read(repo, 'docs/archive/old.md'), 'old, edited in its new place\n');
    assert.equal(existsSync(repo.path('docs/old.md')), false, 'no second copy of the moved file appears');
    assert.equal(read(repo, 'docs/plans/gone.md'), 'wanted it back\n');
    assert.equal(read(repo, 'docs/keep.md'), 'k\nx\n');
    assert.equal(repo.head(), head);
    assert.equal(repo.git(['diff', '--cached', '--name-only']), '');
  });

  it('a submodule with modified or untracked content inside does not make clean fail', async () => {
    const sub = makeRepo();
    repos.push(sub);
    sub.commit('sub', { 'lib.txt': 'lib v1\n' });
    const repo = project(standardDocs, standardEntries);
    repo.git(['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub.dir, 'vendor/sub']);
    repo.git(['commit', '-qm', 'add submodule']);
    const start = repo.head();
    writeFileSync(repo.path('vendor/sub/lib.txt'), 'lib v2 (local edit)\n');
    writeFileSync(repo.path('vendor/sub/scratch.txt'), 'untracked in the submodule\n');
    const subStatus = repo.git(['status', '--porcelain'], { cwd: repo.path('vendor/sub') });
    const result = await clean({ cwd: repo.dir, clock, env, reject: ['del'], approve: ['dup'] });
    assert.equal(result.status, 'committed');
    assert.equal(result.wip_commit, undefined);
    assert.equal(repo.git(['rev-parse', 'HEAD~1']), start, 'exactly one commit');
    assert.equal(
      repo.git(['show', '--name-only', '--format=', 'HEAD']),
      ['docs/guide.md', 'docs/notes.md', 'docs/plan.md'].join('\n'),
    );
    assert.equal(read(repo, 'vendor/sub/lib.txt'), 'lib v2 (local edit)\n');
    assert.equal(read(repo, 'vendor/sub/scratch.txt'), 'untracked in the submodule\n');
    assert.equal(repo.git(['status', '--porcelain'], { cwd: repo.path('vendor/sub') }), subStatus);
  });
});
