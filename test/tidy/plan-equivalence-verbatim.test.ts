import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { fixedClock } from '../../src/core/clock.js';
import { Deadline } from '../../src/core/deadline.js';
import { readEquivalence } from '../../src/tidy/backends/git/equivalence.js';
import { planTidy } from '../../src/tidy/plan.js';
import { DEFAULT_PLAN_BOUNDS, type PlanEquivalence, type TidyPlanV1 } from '../../src/tidy/types.js';
import { runCliJson } from '../helpers/cli.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';
import { checkedPlan, STW_NOW, target } from './helpers.js';

// Patch-id evidence keeps whitespace (docs/tidy.md, "Equivalence evidence"): in Python,
// YAML or a Makefile a change of indentation is a change, and so are line endings and the
// final newline. A branch that differs from the base's squash only there is not reported
// squash-merged, in the batched route and in the per-branch route alike.

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

/** Each variant: the file, the squash's content on main, and a branch's content that differs only in whitespace. */
const VARIANTS = [
  {
    name: 'indent',
    file: 'app.py',
    squash: 'if ready:\n    start()\n    stop()\n',
    other: 'if ready:\n    start()\nstop()\n',
  },
  {
    name: 'yaml',
    file: 'ci.yml',
    squash: 'jobs:\n  build:\n    run: make\n',
    other: 'jobs:\n  build:\n  run: make\n',
  },
  {
    name: 'tabs',
    file: 'Makefile',
    squash: 'all:\n\tcc -o app app.c\n',
    other: 'all:\n        cc -o app app.c\n',
  },
  { name: 'crlf', file: 'notes.txt', squash: 'one\ntwo\n', other: 'one\r\ntwo\r\n' },
  { name: 'eol', file: 'VERSION', squash: '1.0\n', other: '1.0' },
] as const;

/**
 * main: README, then `main work`, then one squash per variant. For each variant, off the
 * first commit: `<v>/exact` (the squash's very change), `<v>/other` (the same change but
 * for whitespace); and `synced/<v>/...` the same after merging `main work` in, which gives
 * them two boundary commits, so they are checked per branch (docs/tidy.md).
 */
function whitespaceScenario() {
  const r = makeRepo();
  repos.push(r);
  const root = r.head();
  const work = r.commit('main work', { 'other.txt': 'other\n' });
  const squashes = new Map<string, string>();
  for (const v of VARIANTS) squashes.set(v.name, r.commit(`Squashed ${v.name} (#1)`, { [v.file]: v.squash }));
  for (const v of VARIANTS)
    for (const [kind, content] of [
      ['exact', v.squash],
      ['other', v.other],
    ] as const) {
      r.git(['checkout', '-q', '-b', `${v.name}/${kind}`, root]);
      r.commit(`${v.name} ${kind}`, { [v.file]: content });
      r.git(['checkout', '-q', '-b', `synced/${v.name}/${kind}`]);
      r.git(['merge', '-q', '--no-edit', work], { env: { GIT_COMMITTER_DATE: '2026-02-01T00:00:00Z' } });
    }
  r.checkout('main');
  return { r, root, work, squashes };
}

async function plan(r: TestRepo): Promise<TidyPlanV1> {
  const result = await runCliJson<TidyPlanV1>(
    ['tidy', 'plan', '--base', 'refs/heads/main', '--equivalence-checks', '100'],
    { cwd: r.dir, env: { STW_NOW } },
  );
  assert.equal(result.code, 0, result.stderr);
  return checkedPlan(result.json);
}

function assertWhitespaceCounts(
  json: TidyPlanV1,
  prefix: string,
  mergeBase: string,
  squashes: ReadonlyMap<string, string>,
): void {
  for (const v of VARIANTS) {
    const exact = target(json, `refs/heads/${prefix}${v.name}/exact`);
    assert.deepEqual(exact.reasons, ['not-integrated']);
    assert.deepEqual(
      exact.evidence.equivalence,
      {
        status: 'equivalent',
        method: 'patch-id',
        base_commit: squashes.get(v.name),
        merge_base: mergeBase,
        detail: `its cumulative change since ${mergeBase} has the patch-id of base commit ${squashes.get(v.name)}`,
      },
      `${prefix}${v.name}/exact is the squash`,
    );
    assert.deepEqual(
      target(json, `refs/heads/${prefix}${v.name}/other`).evidence.equivalence,
      {
        status: 'not-equivalent',
        method: null,
        base_commit: null,
        merge_base: mergeBase,
        detail: `no base commit since ${mergeBase} has its patch-id, and merging it into the base conflicts`,
      },
      `${prefix}${v.name}/other differs from the squash in whitespace only, and that is a difference`,
    );
  }
}

describe('tidy plan: patch-id evidence keeps whitespace', () => {
  it('batched: a branch that differs from the squash only in whitespace is not squash-merged; the exact change is', async () => {
    const { r, root, squashes } = whitespaceScenario();
    assertWhitespaceCounts(await plan(r), '', root, squashes);
  });

  it('per branch: the same answers, from the merge base the merge of the base gives', async () => {
    const { r, work, squashes } = whitespaceScenario();
    // Two boundary commits (the fork point and `main work`): outside what the batch proves.
    const boundary = r
      .git(['rev-list', '--boundary', 'refs/heads/synced/indent/other', '^refs/heads/main'])
      .split('\n')
      .filter((line) => line.startsWith('-'));
    assert.equal(boundary.length, 2);
    assertWhitespaceCounts(await plan(r), 'synced/', work, squashes);
  });

  it('git older than 2.39 has no patch-id --verbatim: patch-id is not evaluated and says why; merge-tree still answers', async () => {
    const { r, root, squashes } = whitespaceScenario();
    const { plan: planned } = await planTidy({
      path: r.dir,
      base: 'refs/heads/main',
      clock: fixedClock(STW_NOW),
      equivalenceChecks: 0,
    });
    const evidence = async (gitVersion: string) =>
      readEquivalence(
        planned.targets.filter((t) => t.ref === 'refs/heads/yaml/exact' || t.ref === 'refs/heads/yaml/other'),
        {
          commonDir: planned.repository?.common_dir ?? '',
          objectFormat: 'sha1',
          baseOid: planned.base?.oid ?? '',
          gitVersion,
          maxChecks: 16,
        },
        { deadline: Deadline.after(10_000), bounds: DEFAULT_PLAN_BOUNDS, cwd: r.dir },
      );
    const old = await evidence('2.38.1');
    const base = r.head('refs/heads/main');
    assert.deepEqual(old.get('refs/heads/yaml/exact'), {
      status: 'equivalent',
      method: 'merge-tree',
      base_commit: base,
      merge_base: root,
      detail: `merging it into base commit ${base} is clean and changes nothing`,
    } satisfies PlanEquivalence);
    assert.deepEqual(old.get('refs/heads/yaml/other'), {
      status: 'skipped',
      method: null,
      base_commit: null,
      merge_base: root,
      detail: 'patch-id not evaluated: git 2.38.1 has no patch-id --verbatim',
    } satisfies PlanEquivalence);
    assert.equal(
      (await evidence('2.37.4')).get('refs/heads/yaml/exact')?.detail,
      'patch-id not evaluated: git 2.37.4 has no patch-id --verbatim; merge-tree not evaluated: git 2.37.4 has no merge-tree --write-tree',
    );
    // The same request with this machine's git (2.39 or later) finds the squash.
    assert.equal(
      (await evidence(planned.backend.version ?? '')).get('refs/heads/yaml/exact')?.base_commit,
      squashes.get('yaml'),
    );
  });
});
