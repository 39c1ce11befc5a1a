import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli, runCliJson } from '../helpers/cli.js';
import { makeRepo, makeTempDir, type TestRepo } from '../helpers/git-repo.js';
import { FIXTURES } from '../helpers/paths.js';
import { EXPECTED_VIOLATIONS } from '../helpers/report-fixtures.js';

const NOW = '2026-11-29T10:00:00Z';
const REPORTS = join(FIXTURES, 'reports');
const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (at: string) => {
    for (const entry of readdirSync(join(dir, at), { withFileTypes: true })) {
      const rel = at === '' ? entry.name : `${at}/${entry.name}`;
      if (rel === '.git') continue;
      if (entry.isDirectory()) walk(rel);
      else files[rel] = readFileSync(join(dir, rel), 'utf8');
    }
  };
  walk('');
  return files;
}

describe('stw hygiene status', () => {
  it('a fresh project: all never, no report, and the .gitignore line to add', async () => {
    const repo = makeRepo();
    repos.push(repo);
    const before = readdirSync(repo.dir).sort();
    const human = await runCli(['hygiene', 'status'], { cwd: repo.dir, env: { STW_NOW: NOW } });
    assert.equal(human.code, 0);
    assert.equal(
      human.stdout,
      [
        `Docs hygiene status for ${repo.dir}`,
        '  last check     never',
        '  last clean     never',
        '  last reminded  never',
        "  report         none (run 'stw hygiene check')",
        'note: .dochygiene/ is not ignored by git; add this line to .gitignore: .dochygiene/',
        '',
      ].join('\n'),
    );
    const json = await runCliJson(['hygiene', 'status'], { cwd: repo.dir, env: { STW_NOW: NOW } });
    assert.deepEqual(json.json, {
      status: 'ok',
      now: NOW,
      project_root: repo.dir,
      state: { last_check: null, last_clean: null, last_reminded: null },
      report: { exists: false, json_path: null, md_path: null },
      state_dir_ignored: false,
      gitignore_line: '.dochygiene/',
    });
    assert.deepEqual(readdirSync(repo.dir).sort(), before, 'status created nothing');
  });

  it('timestamps and the report pair, the same facts in both modes, and read-only', async () => {
    const repo = makeRepo();
    repos.push(repo);
    mkdirSync(join(repo.dir, '.dochygiene'));
    writeFileSync(join(repo.dir, '.gitignore'), '.dochygiene/\n');
    writeFileSync(
      join(repo.dir, '.dochygiene', 'state.json'),
      JSON.stringify({
        last_check: '2026-11-20T09:30:00Z',
        last_clean: '2026-11-28T12:00:00Z',
        last_reminded: null,
      }),
    );
    writeFileSync(join(repo.dir, '.dochygiene', 'report.json'), '{}');
    writeFileSync(join(repo.dir, '.dochygiene', 'report.md'), '# report\n');
    mkdirSync(join(repo.dir, 'docs'));
    const before = snapshot(repo.dir);
    const human = await runCli(['hygiene', 'status'], { cwd: join(repo.dir, 'docs'), env: { STW_NOW: NOW } });
    assert.equal(human.code, 0);
    const dir = join(repo.dir, '.dochygiene');
    assert.equal(
      human.stdout,
      [
        `Docs hygiene status for ${repo.dir}`,
        '  last check     2026-11-20T09:30:00Z (9 days ago)',
        '  last clean     2026-11-28T12:00:00Z (less than a day ago)',
        '  last reminded  never',
        `  report         ${dir}/report.json, ${dir}/report.md`,
        '',
      ].join('\n'),
    );
    const json = await runCliJson(['hygiene', 'status'], { cwd: repo.dir, env: { STW_NOW: NOW } });
    assert.deepEqual(json.json['state'], {
      last_check: '2026-11-20T09:30:00Z',
      last_clean: '2026-11-28T12:00:00Z',
      last_reminded: null,
    });
    assert.deepEqual(json.json['report'], {
      exists: true,
      json_path: `${dir}/report.json`,
      md_path: `${dir}/report.md`,
    });
    assert.equal(json.json['state_dir_ignored'], true);
    assert.deepEqual(snapshot(repo.dir), before, 'read-only');
  });

  it('outside a repository the cwd is the project; corrupt state is exit 1 with one line', async () => {
    const dir = makeTempDir();
    const json = await runCliJson(['hygiene', 'status'], { cwd: dir, env: { STW_NOW: NOW } });
    assert.equal(json.code, 0);
    assert.equal(json.json['project_root'], dir);
    assert.equal(json.json['state_dir_ignored'], null);
    mkdirSync(join(dir, '.dochygiene'));
    writeFileSync(join(dir, '.dochygiene', 'state.json'), 'nope');
    const bad = await runCli(['hygiene', 'status'], { cwd: dir, env: { STW_NOW: NOW } });
    assert.deepEqual(
      [bad.code, bad.stdout, bad.stderr],
      [1, '', 'stw: .dochygiene/state.json: not valid JSON\n'],
    );
    const badJson = await runCliJson(['hygiene', 'status'], { cwd: dir, env: { STW_NOW: NOW } });
    assert.equal(badJson.code, 1);
    assert.equal((badJson.json['error'] as { code: string }).code, 'state-corrupt');
  });
});

describe('stw hygiene validate', () => {
  it('the valid golden report: exit 0', async () => {
    const human = await runCli(['hygiene', 'validate', 'valid-all-kinds.json'], { cwd: REPORTS });
    assert.deepEqual(
      [human.code, human.stdout],
      [0, 'valid: valid-all-kinds.json (report schema 1.0, 8 entries)\n'],
    );
    const json = await runCliJson(['hygiene', 'validate', join(REPORTS, 'valid-all-kinds.json')], {
      cwd: REPORTS,
    });
    assert.equal(json.code, 0);
    assert.deepEqual([json.json['status'], json.json['valid'], json.json['violations']], ['ok', true, []]);
  });

  for (const [name, violation] of Object.entries(EXPECTED_VIOLATIONS)) {
    it(`${name}: exit 1 naming the violation by JSON path`, async () => {
      const human = await runCli(['hygiene', 'validate', name], { cwd: REPORTS });
      assert.deepEqual([human.code, human.stdout], [1, `invalid: ${name} — 1 violation\n  ${violation}\n`]);
      const json = await runCliJson(['hygiene', 'validate', name], { cwd: REPORTS });
      assert.equal(json.code, 1);
      assert.deepEqual([json.json['status'], json.json['violations']], ['invalid', [violation]]);
    });
  }

  it('truncated JSON, not JSON, a missing file, a directory: exit 2 with one line', async () => {
    const dir = makeTempDir();
    const full = readFileSync(join(REPORTS, 'valid-all-kinds.json'), 'utf8');
    writeFileSync(join(dir, 'truncated.json'), full.slice(0, Math.floor(full.length / 2)));
    writeFileSync(join(dir, 'notes.txt'), 'not json at all\n');
    mkdirSync(join(dir, 'folder'));
    for (const [file, message] of [
      ['truncated.json', /^stw: not JSON: truncated\.json: /],
      ['notes.txt', /^stw: not JSON: notes\.txt: /],
      ['absent.json', /^stw: no such file: absent\.json\n/],
      ['folder', /^stw: cannot read folder: EISDIR\n/],
    ] as const) {
      const result = await runCli(['hygiene', 'validate', file], { cwd: dir });
      assert.equal(result.code, 2, file);
      assert.equal(result.stdout, '');
      assert.match(result.stderr, message);
      const json = await runCliJson(['hygiene', 'validate', file], { cwd: dir });
      assert.equal(json.json['status'], 'usage-error');
    }
    const none = await runCli(['hygiene', 'validate'], { cwd: dir });
    assert.equal(none.code, 2);
  });

  it('checks anchor lines against the files under scan.project_root when it exists', async () => {
    const root = makeTempDir();
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'docs', 'api.md'), 'short\nfile\n');
    const report = JSON.parse(readFileSync(join(REPORTS, 'valid-all-kinds.json'), 'utf8'));
    report.scan.project_root = root;
    writeFileSync(join(root, 'report.json'), JSON.stringify(report));
    const json = await runCliJson(['hygiene', 'validate', 'report.json'], { cwd: root });
    assert.equal(json.code, 1);
    assert.deepEqual(json.json['violations'], [
      'entries[2].exact_edit.anchor.end_line: 52 is past the end of "docs/api.md" (2 lines)',
    ]);
    assert.equal(json.json['lines_checked_against'], root);
  });
});
