import assert from 'node:assert/strict';
import { existsSync, lstatSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readCommitState, readCurrentOperation } from '../../src/tidy/backends/jj/observe.js';
import type { TidyPlanV1 } from '../../src/tidy/types.js';
import { runCliJson } from '../helpers/cli.js';
import { checkedPlan, STW_NOW } from '../tidy/helpers.js';
import { type JjRepo, jjCallContext, jjTestEnv, makeJjRepo } from './helpers.js';

const repos: JjRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

/** main, then wip on top of it: wip is not in ::main (not integrated). */
function mainAndWip(): JjRepo {
  const repo = makeJjRepo();
  repos.push(repo);
  repo.commit('main', { 'main.txt': 'main\n' });
  repo.jj(['bookmark', 'create', 'main', '-r', '@-']);
  repo.commit('wip', { 'wip.txt': 'wip\n' });
  repo.jj(['bookmark', 'create', 'wip', '-r', '@-']);
  return repo;
}

/** One commit's state as stw's observation reads it (the library, at the current operation). */
async function stateAsStwReadsIt(repo: JjRepo, commit: string) {
  const { ctx } = jjCallContext(repo);
  return readCommitState(await readCurrentOperation(ctx), commit, ctx);
}

async function planReasons(repo: JjRepo): Promise<Record<string, string[]>> {
  const result = await runCliJson(['tidy', 'plan', repo.dir, '--base', 'main'], {
    cwd: repo.dir,
    env: jjTestEnv({ STW_NOW }),
  });
  assert.equal(result.code, 0, result.stderr);
  const plan: TidyPlanV1 = checkedPlan(result.json);
  assert.equal(plan.status, 'complete');
  return Object.fromEntries(plan.targets.map((t) => [t.ref, t.reasons]));
}

describe("jj's repository and workspace config cannot change what stw reads", () => {
  it('a revset alias shadowing bookmarks(x) in the repository config: wip is still not integrated', async () => {
    const repo = mainAndWip();
    repo.jj(['config', 'set', '--repo', 'revset-aliases."bookmarks(x)"', 'root()']);
    // The alias is live for jj itself: bookmarks(exact:"wip") is now the root commit.
    assert.equal(
      repo.jj(['log', '--no-graph', '-r', 'bookmarks(exact:"wip")', '-T', 'commit_id']).trim(),
      '0'.repeat(40),
    );
    const reasons = await planReasons(repo);
    assert.ok(reasons['wip']?.includes('not-integrated'), JSON.stringify(reasons));
    assert.ok(!reasons['wip']?.includes('integrated'), JSON.stringify(reasons));
  });

  it('revset aliases shadowing commit_id(x), present(x) and visible_heads() in the workspace config', async () => {
    const repo = mainAndWip();
    const wip = repo.ids('wip').commit;
    const aliases: [string, string][] = [
      ['commit_id(x)', 'root()'],
      ['present(x)', 'none()'],
      ['visible_heads()', 'root()'],
    ];
    for (const [decl, defn] of aliases)
      repo.jj(['config', 'set', '--workspace', `revset-aliases."${decl}"`, defn]);
    assert.equal((await stateAsStwReadsIt(repo, wip))?.commit_id, wip);
  });

  it('template aliases shadowing empty and conflict in the repository config: a commit with changes is not empty', async () => {
    const repo = mainAndWip();
    const wip = repo.ids('wip').commit;
    // Quoted: a bare `true` would be a TOML boolean, which jj skips as an alias.
    repo.jj(['config', 'set', '--repo', 'template-aliases.empty', '"true"']);
    repo.jj(['config', 'set', '--repo', 'template-aliases.conflict', '"false"']);
    assert.equal(repo.jj(['log', '--no-graph', '-r', 'wip', '-T', 'empty']).trim(), 'true');
    assert.equal((await stateAsStwReadsIt(repo, wip))?.empty, false);
  });

  it('a legacy config file jj has not migrated refuses: jj would migrate it, writing into the repository', async () => {
    const repo = mainAndWip();
    const repoDir = join(repo.dir, '.jj', 'repo');
    rmSync(join(repoDir, 'config-id'), { force: true });
    rmSync(join(repoDir, 'config.toml'), { force: true });
    writeFileSync(join(repoDir, 'config.toml'), '[revset-aliases]\n"bookmarks(x)" = "root()"\n');
    const result = await runCliJson<TidyPlanV1>(['tidy', 'plan', repo.dir, '--base', 'main'], {
      cwd: repo.dir,
      env: jjTestEnv({ STW_NOW }),
    });
    assert.equal(result.code, 1);
    assert.equal(result.json.status, 'refused');
    assert.equal(result.json.refusal?.code, 'jj-config-unmigrated');
    assert.equal(existsSync(join(repoDir, 'config-id')), false, 'no config id was written');
    assert.equal(lstatSync(join(repoDir, 'config.toml')).isFile(), true, 'the legacy file is untouched');
  });
});
