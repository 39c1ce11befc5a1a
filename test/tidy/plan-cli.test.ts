import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, runCliJson } from '../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo } from '../helpers/git-repo.js';
import { checkedPlan, cleanupScenario, reasonScenario, STW_NOW, snapshotTree, target } from './helpers.js';

const env = { STW_NOW };

describe('stw tidy plan: reason codes (end to end)', () => {
  let s: ReturnType<typeof reasonScenario>;
  before(() => {
    s = reasonScenario();
  });
  after(() => cleanupScenario(s));

  it('decides every git reason code with evidence, blockers and effects', async () => {
    const result = await runCliJson(['tidy', 'plan', s.repo.dir, '--base', 'refs/heads/main'], {
      cwd: s.repo.dir,
      env,
    });
    assert.equal(result.code, 0, result.stderr);
    const plan = checkedPlan(result.json);
    assert.equal(plan.status, 'complete');
    assert.equal(plan.plan_id, '');
    assert.equal(plan.created_at, STW_NOW);
    assert.equal(plan.backend.name, 'git');
    assert.match(plan.backend.version ?? '', /^\d+\.\d+/);
    assert.deepEqual(plan.base, { selector: 'refs/heads/main', ref: 'refs/heads/main', oid: s.c2 });
    assert.equal(plan.repository?.object_format, 'sha1');
    assert.equal(plan.repository?.is_shallow, false);
    assert.equal(plan.selection.mode, 'all-local-branches');
    // all-local-branches order is refname order
    assert.deepEqual(plan.selection.refs, [...plan.selection.refs].sort());

    const reasons = Object.fromEntries(
      plan.targets.map((t) => [t.ref.slice('refs/heads/'.length), t.reasons]),
    );
    assert.deepEqual(reasons, {
      alias: ['not-integrated', 'unsupported'],
      'at-base': ['integrated', 'is-base'],
      'detached-target': ['integrated', 'worktree-head'],
      ghost: ['uncertain'],
      'gone-branch': ['integrated', 'checked-out'],
      main: ['integrated', 'is-base', 'checked-out'],
      merged: ['integrated'],
      topic: ['not-integrated'],
      'wt-branch': ['integrated', 'checked-out'],
    });
    for (const t of plan.targets)
      assert.equal(t.decision, t.ref === 'refs/heads/merged' ? 'delete' : 'retain', t.ref);

    const merged = target(plan, 'refs/heads/merged');
    assert.equal(merged.oid, s.c0);
    assert.equal(merged.evidence.ancestor_of_base, true);
    assert.equal(merged.evidence.method, 'git for-each-ref --merged');
    assert.deepEqual(plan.effects, [
      { action_id: 1, type: 'delete-ref', ref: 'refs/heads/merged', old_oid: s.c0, recovery_ref: null },
    ]);

    const ghost = target(plan, 'refs/heads/ghost');
    assert.equal(ghost.oid, s.missing);
    assert.equal(ghost.evidence.ancestor_of_base, null);
    assert.equal(ghost.evidence.object_type, null);
    const alias = target(plan, 'refs/heads/alias');
    assert.equal(alias.evidence.symref_target, 'refs/heads/topic');
    assert.equal(target(plan, 'refs/heads/topic').evidence.ancestor_of_base, false);
    assert.deepEqual(target(plan, 'refs/heads/detached-target').blockers, [
      { reason: 'worktree-head', worktree: s.wtDetached, operation: null },
    ]);
    assert.deepEqual(target(plan, 'refs/heads/wt-branch').blockers, [
      { reason: 'checked-out', worktree: s.wtLocked, operation: null },
    ]);
    assert.deepEqual(target(plan, 'refs/heads/at-base').blockers, [
      { reason: 'is-base', worktree: null, operation: null },
    ]);

    // locked and prunable worktrees are reported as such
    const locked = plan.worktrees.find((w) => w.path === s.wtLocked);
    assert.equal(locked?.locked, 'on a removable disk');
    assert.equal(locked?.prunable, null);
    const gone = plan.worktrees.find((w) => w.path === s.wtGone);
    assert.match(gone?.prunable ?? '', /\S/);
    assert.equal(gone?.branch, 'refs/heads/gone-branch');
    const detached = plan.worktrees.find((w) => w.path === s.wtDetached);
    assert.equal(detached?.detached, true);
    assert.equal(detached?.head, s.c1);
    assert.equal(plan.worktrees.filter((w) => w.is_main).length, 1);
    assert.ok(plan.limits.some((limit) => /squash/.test(limit)));
  });

  it('human output carries the same facts', async () => {
    const result = await runCli(['tidy', 'plan', '--base', 'refs/heads/main'], { cwd: s.repo.dir, env });
    assert.equal(result.code, 0, result.stderr);
    const out = result.stdout;
    assert.match(out, /complete — 1 delete, 8 retain/);
    assert.match(out, /delete {2}refs\/heads\/merged {2}[0-9a-f]{40} {2}\[integrated\]/);
    assert.match(out, /retain {2}refs\/heads\/ghost .*\[uncertain\]/);
    assert.match(out, /locked: "on a removable disk"/);
    assert.match(out, /prunable/);
    assert.match(out, new RegExp(`blocker: worktree-head in worktree ${s.wtDetached}`));
    assert.match(out, /1\. delete refs\/heads\/merged at [0-9a-f]{40}/);
    assert.match(out, /squash\/patch equivalence not evaluated/);
    assert.match(out, /stateless: nothing was written/);
  });

  it('explicit --ref selects only those refs, in the order given', async () => {
    const result = await runCliJson(
      [
        'tidy',
        'plan',
        '--base',
        'refs/heads/main',
        '--ref',
        'refs/heads/topic',
        '--ref',
        'refs/heads/merged',
      ],
      { cwd: s.repo.dir, env },
    );
    assert.equal(result.code, 0, result.stderr);
    const plan = checkedPlan(result.json);
    assert.equal(plan.selection.mode, 'explicit');
    assert.deepEqual(
      plan.targets.map((t) => [t.ref, t.decision]),
      [
        ['refs/heads/topic', 'retain'],
        ['refs/heads/merged', 'delete'],
      ],
    );
  });

  it('a linked worktree and a subdirectory work as PATH', async () => {
    mkdirSync(join(s.wtDetached, 'sub', 'dir'), { recursive: true });
    const fromMain = checkedPlan(
      (await runCliJson(['tidy', 'plan', '--base', 'refs/heads/main'], { cwd: s.repo.dir, env })).json,
    );
    for (const path of [s.wtDetached, join(s.wtDetached, 'sub', 'dir'), s.wtLocked]) {
      const result = await runCliJson(['tidy', 'plan', path, '--base', 'refs/heads/main'], {
        cwd: s.repo.dir,
        env,
      });
      assert.equal(result.code, 0, result.stderr);
      const plan = checkedPlan(result.json);
      assert.equal(plan.repository?.path, path);
      assert.equal(plan.repository?.common_dir, join(s.repo.dir, '.git'));
      assert.notEqual(plan.repository?.git_dir, join(s.repo.dir, '.git'));
      assert.deepEqual(plan.targets, fromMain.targets, path);
    }
    const sub = join(s.repo.dir, 'deep', 'er');
    mkdirSync(sub, { recursive: true });
    const result = await runCliJson(['tidy', 'plan', '--base', 'refs/heads/main'], { cwd: sub, env });
    const plan = checkedPlan(result.json);
    assert.equal(plan.repository?.toplevel, s.repo.dir);
    assert.deepEqual(plan.targets, fromMain.targets);
  });
});

describe('stw tidy plan --help', () => {
  it('documents the command and is listed in the group', async () => {
    const cwd = makeTempDir();
    const help = await runCli(['tidy', 'plan', '--help'], { cwd });
    assert.equal(help.code, 0);
    for (const text of ['--base SELECTOR', '--ref NAME', '--state-dir DIR', '--json', 'Exit codes'])
      assert.ok(help.stdout.includes(text), text);
    const group = await runCli(['tidy', '--help'], { cwd });
    assert.match(group.stdout, /^ {2}plan /m);
  });
});

describe('stw tidy plan: selection refusals', () => {
  let repo: TestRepo;
  let tip: string;
  before(() => {
    repo = makeRepo();
    tip = repo.head();
    repo.branch('feature');
  });
  after(() => repo.cleanup());

  const cases: [string, string[], string][] = [
    ['an unknown --ref', ['--base', 'refs/heads/main', '--ref', 'refs/heads/nope'], 'unknown-ref'],
    [
      'a duplicate --ref',
      ['--base', 'refs/heads/main', '--ref', 'refs/heads/feature', '--ref', 'refs/heads/feature'],
      'duplicate-ref',
    ],
    ['a glob --ref', ['--base', 'refs/heads/main', '--ref', 'refs/heads/feat*'], 'invalid-ref'],
    ['a revset --ref', ['--base', 'refs/heads/main', '--ref', 'refs/heads/feature~1'], 'invalid-ref'],
    ['a non-branch --ref', ['--base', 'refs/heads/main', '--ref', 'refs/tags/v1'], 'not-a-branch'],
    ['a missing --base ref', ['--base', 'refs/heads/nope'], 'base-unresolved'],
    ['a full object id not in the repository', ['--base', '0123456789'.repeat(4)], 'base-unresolved'],
  ];
  for (const [name, args, code] of cases) {
    it(`refuses ${name} (${code})`, async () => {
      const result = await runCliJson(['tidy', 'plan', ...args], { cwd: repo.dir, env });
      assert.equal(result.code, 1, result.stderr);
      const plan = checkedPlan(result.json);
      assert.equal(plan.status, 'refused');
      assert.equal(plan.refusal?.code, code);
      assert.deepEqual(plan.targets, []);
      assert.deepEqual(plan.effects, []);
      assert.match(result.stderr, /^stw: tidy plan refused: /);
    });
  }

  const usageCases: [string, string[], RegExp][] = [
    [
      'a short --ref name',
      ['--base', 'refs/heads/main', '--ref', 'feature'],
      /^hint: give it as "refs\/heads\/feature"$/m,
    ],
    ['a short --base name', ['--base', 'main'], /^hint: full refs named "main": refs\/heads\/main$/m],
    [
      'HEAD as --base',
      ['--base', 'HEAD'],
      /^hint: full refs named "HEAD": refs\/HEAD$|^hint: no ref is named "HEAD"/m,
    ],
    ['an abbreviated object id', ['--base', '0123456789ab'], /^hint: /m],
  ];
  for (const [name, args, hint] of usageCases) {
    it(`${name} is a usage error (exit 2) printed once, with a hint`, async () => {
      const human = await runCli(['tidy', 'plan', ...args], { cwd: repo.dir, env });
      assert.equal(human.code, 2, human.stderr);
      assert.equal(human.stdout, '');
      const lines = human.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 2, human.stderr);
      assert.match(lines[0]!, /^stw: .* is not a full/);
      assert.match(human.stderr, hint);
      const json = await runCliJson<{ status: string; error: { code: string } }>(['tidy', 'plan', ...args], {
        cwd: repo.dir,
        env,
      });
      assert.equal(json.code, 2);
      assert.deepEqual([json.json.status, json.json.error.code], ['usage-error', 'short-selector']);
    });
  }

  it('the hint for a short --base names the full refs that exist, not a default', async () => {
    const other = makeRepo();
    try {
      other.git(['branch', '-m', 'main', 'master']);
      other.git(['tag', 'master']);
      const result = await runCli(['tidy', 'plan', '--base', 'master'], { cwd: other.dir, env });
      assert.equal(result.code, 2);
      assert.match(
        result.stderr,
        /^hint: full refs named "master": refs\/heads\/master, refs\/tags\/master$/m,
      );
      assert.doesNotMatch(result.stderr, /refs\/heads\/main/);
    } finally {
      other.cleanup();
    }
  });

  it('a refusal prints its error once, and no plan', async () => {
    const result = await runCli(['tidy', 'plan', '--base', 'refs/heads/nope'], { cwd: repo.dir, env });
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.equal(
      result.stderr,
      'stw: tidy plan refused: base-unresolved: --base "refs/heads/nope" does not exist\n',
    );
  });

  it('refuses an abbreviated object id and accepts the full one', async () => {
    const short = await runCli(['tidy', 'plan', '--base', tip.slice(0, 12)], { cwd: repo.dir, env });
    assert.equal(short.code, 2);
    const full = await runCliJson(['tidy', 'plan', '--base', tip], { cwd: repo.dir, env });
    assert.equal(full.code, 0, full.stderr);
    const plan = checkedPlan(full.json);
    assert.deepEqual(plan.base, { selector: tip, ref: null, oid: tip });
  });

  it('a missing --base is a usage error (exit 2)', async () => {
    const result = await runCli(['tidy', 'plan'], { cwd: repo.dir, env });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--base is required/);
  });

  it('a PATH outside any repository is refused', async () => {
    const dir = makeTempDir();
    const result = await runCliJson(['tidy', 'plan', dir, '--base', 'refs/heads/main'], { cwd: dir, env });
    assert.equal(result.code, 1);
    assert.equal(checkedPlan(result.json).refusal?.code, 'not-a-repository');
  });
});

describe('stw tidy plan: stored and stateless plans', () => {
  let repo: TestRepo;
  let merged: string;
  before(() => {
    repo = makeRepo();
    merged = repo.branch('merged');
    repo.commit('ahead', { 'x.txt': 'x\n' });
  });
  after(() => repo.cleanup());

  it('a stateless plan changes nothing: status, refs and the filesystem are identical', async () => {
    const wt = repo.worktree(`${repo.dir}-wt`, { newBranch: 'side' });
    try {
      // Trees first, and status without optional locks: a plain `git status` may refresh the index itself.
      const observe = () => ({
        tree: snapshotTree(repo.dir),
        wt: snapshotTree(wt),
        refs: repo.refs(),
        status: repo.git(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignored'], {
          env: { GIT_OPTIONAL_LOCKS: '0' },
        }),
      });
      const before = observe();
      const json = await runCliJson(['tidy', 'plan', '--base', 'refs/heads/main'], { cwd: repo.dir, env });
      const human = await runCli(['tidy', 'plan', wt, '--base', 'refs/heads/main'], { cwd: wt, env });
      assert.equal(json.code, 0, json.stderr);
      assert.equal(human.code, 0, human.stderr);
      assert.equal(checkedPlan(json.json).plan_id, '');
      assert.equal(target(checkedPlan(json.json), 'refs/heads/merged').decision, 'delete');
      assert.deepEqual(observe(), before);
    } finally {
      repo.git(['worktree', 'remove', '--force', wt]);
    }
  });

  it('stores an immutable plan with recovery effects under a private state dir', async () => {
    const state = makeTempDir('stw-state-');
    chmodSync(state, 0o700);
    const result = await runCliJson(['tidy', 'plan', '--base', 'refs/heads/main', '--state-dir', state], {
      cwd: repo.dir,
      env,
    });
    assert.equal(result.code, 0, result.stderr);
    const plan = checkedPlan(result.json);
    assert.match(plan.plan_id, /^[0-9a-f]{32}$/);
    assert.deepEqual(plan.effects, [
      {
        action_id: 1,
        type: 'delete-ref',
        ref: 'refs/heads/merged',
        old_oid: merged,
        recovery_ref: `refs/stw-recovery/${plan.plan_id}/1`,
      },
    ]);
    assert.deepEqual(readdirSync(join(state, 'plans')), [`${plan.plan_id}.json`]);
    assert.equal(statSync(join(state, 'plans', `${plan.plan_id}.json`)).mode & 0o777, 0o600);
    assert.equal(statSync(join(state, 'plans')).mode & 0o777, 0o700);
    const human = await runCli(['tidy', 'plan', '--base', 'refs/heads/main', '--state-dir', state], {
      cwd: repo.dir,
      env,
    });
    assert.equal(human.code, 0);
    const id = /plan id: ([0-9a-f]{32}) \(stored/.exec(human.stdout)?.[1];
    assert.ok(id !== undefined && id !== plan.plan_id, 'every stored plan gets a fresh id');
    assert.match(human.stdout, /recovery ref refs\/stw-recovery\/[0-9a-f]{32}\/1 first/);
  });

  const storeRefusals: [string, () => string, string][] = [
    [
      'mode 0755',
      () => {
        const dir = makeTempDir('stw-state-');
        chmodSync(dir, 0o755);
        return dir;
      },
      'state-dir-mode',
    ],
    [
      'a symlink',
      () => {
        const real = makeTempDir('stw-state-');
        chmodSync(real, 0o700);
        const link = `${real}-link`;
        symlinkSync(real, link);
        return link;
      },
      'state-dir-symlink',
    ],
    [
      'a store inside the repository',
      () => {
        const dir = join(repo.dir, 'state');
        mkdirSync(dir, { mode: 0o700 });
        chmodSync(dir, 0o700);
        return dir;
      },
      'state-dir-overlap',
    ],
    [
      'a store inside the git dir',
      () => {
        const dir = join(repo.dir, '.git', 'stw-state');
        mkdirSync(dir, { mode: 0o700 });
        chmodSync(dir, 0o700);
        return dir;
      },
      'state-dir-overlap',
    ],
    ['a missing directory', () => join(makeTempDir('stw-state-'), 'absent'), 'state-dir-missing'],
  ];
  for (const [name, make, code] of storeRefusals) {
    it(`refuses ${name} as --state-dir (${code}) and writes nothing`, async () => {
      const dir = make();
      const beforeRefs = repo.refs();
      const result = await runCliJson(['tidy', 'plan', '--base', 'refs/heads/main', '--state-dir', dir], {
        cwd: repo.dir,
        env,
      });
      assert.equal(result.code, 1, result.stderr);
      const plan = checkedPlan(result.json);
      assert.equal(plan.status, 'refused');
      assert.equal(plan.refusal?.code, code);
      assert.equal(plan.plan_id, '');
      assert.equal(repo.refs(), beforeRefs);
      let entries: string[] = [];
      try {
        entries = readdirSync(dir);
      } catch {
        entries = [];
      }
      assert.deepEqual(entries, []);
    });
  }
});

describe('stw tidy plan: bounds forced low (test-only injection)', () => {
  let repo: TestRepo;
  before(() => {
    repo = makeRepo();
    repo.branch('a');
    repo.branch('b');
    repo.branch('c');
  });
  after(() => repo.cleanup());

  const hooks = (bounds: object) => ({
    ...env,
    STW_TEST_HOOKS: '1',
    STW_TEST_TIDY_BOUNDS: JSON.stringify(bounds),
  });

  const cases: [string, object, string, string][] = [
    ['entries', { maxEntries: 3 }, 'refused', 'bound-exceeded'],
    ['native output', { maxOutputBytes: 60 }, 'incomplete', 'output-bound-exceeded'],
    ['the deadline', { deadlineMs: 0 }, 'incomplete', 'deadline'],
    ['text', { maxTextBytes: 8 }, 'refused', 'bound-exceeded'],
    ['the record', { maxRecordBytes: 600 }, 'refused', 'bound-exceeded'],
  ];
  for (const [name, bounds, status, code] of cases) {
    it(`exceeding ${name} reports ${status} with no decision`, async () => {
      const result = await runCliJson(['tidy', 'plan', '--base', 'refs/heads/main'], {
        cwd: repo.dir,
        env: hooks(bounds),
      });
      assert.equal(result.code, 1, result.stderr);
      const plan = checkedPlan(result.json);
      assert.equal(plan.status, status);
      assert.equal(plan.refusal?.code, code);
      assert.deepEqual(plan.targets, []);
      assert.deepEqual(plan.effects, []);
    });
  }

  it('the override is ignored without STW_TEST_HOOKS=1', async () => {
    const result = await runCliJson(['tidy', 'plan', '--base', 'refs/heads/main'], {
      cwd: repo.dir,
      env: { ...env, STW_TEST_TIDY_BOUNDS: JSON.stringify({ maxEntries: 1 }) },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(checkedPlan(result.json).targets.length, 4);
  });

  it('within the bounds the plan is complete', async () => {
    const result = await runCliJson(['tidy', 'plan', '--base', 'refs/heads/main'], {
      cwd: repo.dir,
      env: hooks({ maxEntries: 5 }),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(checkedPlan(result.json).status, 'complete');
  });
});
