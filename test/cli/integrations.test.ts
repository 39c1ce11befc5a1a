import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { runCli } from '../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo, testEnv } from '../helpers/git-repo.js';
import { CLI_PATH, REPO_ROOT } from '../helpers/paths.js';

interface Hook {
  id: string;
  entry: string;
  args?: string[];
  files: string;
  pass_filenames: boolean;
}
interface Step {
  id?: string;
  shell: string;
  run: string;
  env?: Record<string, string>;
  'working-directory'?: string;
}
interface Action {
  inputs: Record<string, { default: string }>;
  runs: { using: string; steps: Step[] };
}

let repo: TestRepo;
let scratch: string;

before(() => {
  repo = makeRepo();
  repo.commit('docs', {
    'README.md': '# Widgets\n\nSee the [guide](docs/guide.md).\n',
    'docs/guide.md': '# Guide\n\nAn [old link](gone.md).\n',
    'src/main.ts': 'export {};\n',
  });
  scratch = makeTempDir();
});
after(() => repo.cleanup());

describe('the pre-commit hook (.pre-commit-hooks.yaml)', () => {
  const hooks = parse(readFileSync(join(REPO_ROOT, '.pre-commit-hooks.yaml'), 'utf8')) as Hook[];
  const hook = hooks.find((h) => h.id === 'stw-check')!;

  /** Runs the hook's entry as pre-commit does: entry, args, then the file names that match `files`. */
  const runHook = (files: string[]) => {
    const [command, ...entry] = hook.entry.split(' ');
    assert.equal(command, 'stw');
    const matching = files.filter((file) => new RegExp(hook.files).test(file));
    return { matching, result: runCli([...entry, ...(hook.args ?? []), ...matching], { cwd: repo.dir }) };
  };

  it('is defined as stw-check, passing file names', () => {
    assert.ok(hook, 'hook id stw-check');
    assert.equal(hook.pass_filenames, true);
    assert.ok(new RegExp(hook.files).test('.cursorrules'));
    assert.ok(new RegExp(hook.files).test('docs/a.mdc'));
    assert.equal(new RegExp(hook.files).test('src/main.ts'), false);
  });

  it('fails a commit that stages a doc with a broken link, with path:line, and writes nothing', async () => {
    const { matching, result } = runHook(['docs/guide.md', 'src/main.ts']);
    assert.deepEqual(matching, ['docs/guide.md']);
    const done = await result;
    assert.equal(done.code, 3, done.stderr);
    assert.match(done.stdout, /^ {2}docs\/guide\.md:3:15 {2}broken_reference/m);
    assert.equal(repo.git(['status', '--porcelain', '--ignored']), '', 'nothing written');
  });

  it('passes a commit whose staged docs are clean, though another doc is not', async () => {
    const done = await runHook(['README.md']).result;
    assert.equal(done.code, 0, done.stdout);
    assert.match(done.stdout, /Gate passed: 0 findings/);
  });
});

describe('the GitHub Action (action.yml)', () => {
  const action = parse(readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8')) as Action;

  /**
   * Runs the composite action's steps as the runner would: each `run` with bash, its `env`
   * and `working-directory` with `${{ inputs.* }}` and `${{ github.action_path }}` filled in,
   * GITHUB_OUTPUT a file. The action path is this checkout (built, so no install is needed).
   */
  function runAction(cwd: string, inputs: Record<string, string>) {
    const outputFile = join(makeTempDir(), 'output');
    writeFileSync(outputFile, '');
    const value = (text: string) =>
      text
        .replace(
          /\$\{\{ inputs\.([a-z-]+) \}\}/g,
          (_m, name: string) => inputs[name] ?? action.inputs[name]!.default,
        )
        .replace(/\$\{\{ github\.action_path \}\}/g, REPO_ROOT);
    const logs: { status: number | null; stdout: string; stderr: string }[] = [];
    for (const step of action.runs.steps) {
      assert.equal(step.shell, 'bash');
      assert.doesNotMatch(step.run, /\$\{\{/, 'no expression is pasted into a script');
      const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, value(v)]));
      const dir = join(cwd, value(step['working-directory'] ?? '.'));
      const ran = spawnSync('bash', ['-e', '-c', step.run], {
        cwd: dir,
        env: testEnv({ ...env, GITHUB_OUTPUT: outputFile, GITHUB_ACTION_PATH: REPO_ROOT }),
        encoding: 'utf8',
      });
      logs.push(ran);
      if (ran.status !== 0) break;
    }
    const outputs = Object.fromEntries(
      readFileSync(outputFile, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => line.split('=', 2) as [string, string]),
    );
    return { logs, outputs };
  }

  it('is a composite action whose inputs all have defaults', () => {
    assert.equal(action.runs.using, 'composite');
    for (const [name, input] of Object.entries(action.inputs))
      assert.equal(typeof input.default, 'string', `${name} has a default`);
  });

  it('fails on a broken link with an annotation and writes the SARIF file', () => {
    const { logs, outputs } = runAction(repo.dir, { 'sarif-file': join(scratch, 'stw.sarif') });
    assert.equal(logs.length, 2);
    assert.equal(logs[0]!.status, 0, logs[0]!.stderr);
    const gate = logs[1]!;
    assert.equal(gate.status, 3, gate.stderr);
    assert.match(gate.stdout, /^::error file=docs\/guide\.md,line=3,col=15,title=stw broken_reference::/m);
    assert.equal(outputs['exit-code'], '3');
    const sarif = JSON.parse(readFileSync(outputs['sarif-file']!, 'utf8')) as {
      runs: { results: unknown[] }[];
    };
    assert.equal(sarif.runs[0]!.results.length, 1);
  });

  it('honours baseline, fail-on, max-findings and working-directory', async () => {
    const baseline = join(scratch, 'baseline.json');
    const saved = await runCli(['hygiene', 'check', '--format', 'json'], { cwd: repo.dir });
    writeFileSync(baseline, saved.stdout);
    const adopted = runAction(repo.dir, { baseline, 'sarif-file': join(scratch, 'b.sarif') });
    assert.equal(adopted.logs[1]!.status, 0, adopted.logs[1]!.stdout);
    assert.equal(adopted.outputs['exit-code'], '0');
    const other = runAction(repo.dir, { 'fail-on': 'version_skew', 'sarif-file': join(scratch, 'c.sarif') });
    assert.equal(other.logs[1]!.status, 0);
    assert.match(other.logs[1]!.stdout, /^::warning file=docs\/guide\.md/m, 'not counted: a warning');
    const allowed = runAction(repo.dir, { 'max-findings': '1', 'sarif-file': join(scratch, 'd.sarif') });
    assert.equal(allowed.logs[1]!.status, 0);
    const inDocs = runAction(repo.dir, { 'working-directory': 'docs', 'sarif-file': 'in-docs.sarif' });
    assert.equal(inDocs.logs[1]!.status, 3);
    assert.ok(readFileSync(join(repo.dir, 'docs', 'in-docs.sarif'), 'utf8').includes('"version": "2.1.0"'));
    assert.ok(CLI_PATH.startsWith(REPO_ROOT));
  });

  it('runs with the scan cache by default and without it for cache: false', () => {
    const cacheDir = join(repo.dir, '.git', 'sourcesteward-cache');
    rmSync(cacheDir, { recursive: true, force: true });
    const without = runAction(repo.dir, { cache: 'false', 'sarif-file': join(scratch, 'e.sarif') });
    assert.equal(without.logs[1]!.status, 3, without.logs[1]!.stderr);
    assert.equal(existsSync(cacheDir), false, 'nothing cached with cache: false');
    const withCache = runAction(repo.dir, { 'sarif-file': join(scratch, 'f.sarif') });
    assert.equal(withCache.logs[1]!.status, 3, withCache.logs[1]!.stderr);
    assert.ok(readdirSync(cacheDir).length > 0);
    assert.equal(withCache.logs[1]!.stdout, without.logs[1]!.stdout, 'the same annotations');
  });
});
