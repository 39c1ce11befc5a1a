import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../../helpers/cli.js';
import { makeRepo, type TestRepo } from '../../helpers/git-repo.js';

/**
 * Findings of the adversarial review of issue 36, each reproduced end to end against the
 * built CLI in a real git repository: what a hostile repository, a hostile model answer or
 * an unlucky user could make `stw` do.
 */

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

function repoWith(files: Record<string, string>): TestRepo {
  const repo = makeRepo();
  repos.push(repo);
  repo.commit('docs', { '.gitignore': '.dochygiene/\n', ...files });
  return repo;
}

async function stw(repo: TestRepo, ...args: string[]) {
  const result = await runCli(args, { cwd: repo.dir });
  return { ...result, out: `${result.stdout}${result.stderr}` };
}

describe('a link rewrite never outlives the move it follows', () => {
  it('a move skipped at clean (its destination appeared after check) leaves the inbound link as it was', async () => {
    const repo = repoWith({
      'docs/old.md': '---\nstatus: superseded\n---\n# Old\n\nOld stuff.\n',
      'README.md': '# Readme\n\nSee [old](docs/old.md).\n',
      'notes.md': '# Notes\n\nSee [the old one](docs/old.md) and [nothing](docs/gone.md).\n',
    });
    const checked = await stw(repo, 'hygiene', 'check');
    assert.equal(checked.code, 0, checked.out);
    // The user puts a file of their own where the move would go.
    mkdirSync(join(repo.dir, 'docs/archive'));
    writeFileSync(join(repo.dir, 'docs/archive/old.md'), 'mine\n');
    const head = repo.head();
    const cleaned = await stw(repo, 'hygiene', 'clean', '--yes');
    assert.match(cleaned.out, /destination-exists/);
    assert.doesNotMatch(cleaned.out, /link moved/);
    assert.equal(readFileSync(join(repo.dir, 'README.md'), 'utf8'), '# Readme\n\nSee [old](docs/old.md).\n');
    assert.equal(repo.git(['diff', '--name-only', head, '--', 'README.md', 'notes.md']), '');
    assert.equal(readFileSync(join(repo.dir, 'docs/archive/old.md'), 'utf8'), 'mine\n');
  });
});

describe('nothing is ever aimed into .git', () => {
  const files = {
    'docs/old.md': '---\nstatus: superseded\n---\n# Old\n\nOld stuff.\n',
    'README.md': '# Readme\n\nSee [old](docs/old.md).\n',
  };

  for (const dir of ['.git', '.git/hooks', '.GIT/hooks', '../elsewhere', '/tmp/elsewhere']) {
    it(`archive.dir: ${dir} is refused in one line naming the key`, async () => {
      const repo = repoWith({ ...files, '.dochygiene.yml': `archive:\n  dir: "${dir}"\n` });
      const checked = await stw(repo, 'hygiene', 'check');
      assert.equal(checked.code, 1, checked.out);
      assert.equal(
        checked.stderr,
        "stw: .dochygiene.yml: archive.dir: must be a folder inside the project (not absolute, no '..', not in .git)\n",
      );
    });
  }

  it('a proposals file moving a doc into .git/hooks is refused, naming the field', async () => {
    const repo = repoWith(files);
    const proposals = join(repo.dir, 'proposals.json');
    writeFileSync(
      proposals,
      JSON.stringify([
        {
          path: 'docs/old.md',
          category: { class: 'stale', subtype: 'superseded' },
          signals: [{ name: 'frontmatter_marker', detail: 'status: superseded' }],
          op: 'Archive it.',
          op_type: 'deterministic',
          confidence: 0.9,
          exact_edit: { kind: 'move-to-archive', dest_path: '.git/hooks/archive/old.md' },
        },
      ]),
    );
    const checked = await stw(repo, 'hygiene', 'check', '--proposals', proposals);
    assert.equal(checked.code, 1, checked.out);
    assert.match(
      checked.stderr,
      /proposals\[0\]\.exact_edit\.dest_path: must be a project-relative path inside the project/,
    );
  });
});

describe('no exact edit writes a reference out of the project', () => {
  const proposal = (path: string, exact_edit: Record<string, unknown>, signal = 'broken_reference') => ({
    path,
    category: { class: 'stale', subtype: 'dangling-reference' },
    signals: [{ name: signal, detail: 'x' }],
    op: 'Fix the link.',
    op_type: 'deterministic',
    confidence: 0.99,
    exact_edit,
  });
  const line3 = { start_line: 3, end_line: 3 };
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [
      'an @import of a home-folder file replacing a broken link',
      {
        kind: 'replace-text',
        anchor: line3,
        match: '[docs](docs/missing.md)',
        replacement: '@~/.ssh/id_rsa',
      },
      /@~\/\.ssh\/id_rsa leads out of the project \(a path in a home folder\)/,
    ],
    [
      'an @import climbing above the root',
      {
        kind: 'replace-text',
        anchor: line3,
        match: '[docs](docs/missing.md)',
        replacement: '@../../../../etc/passwd',
      },
      /@\.\.\/\.\.\/\.\.\/\.\.\/etc\/passwd leads out of the project \(a path above the project root\)/,
    ],
    [
      'a link target climbing above the root',
      { kind: 'replace-text', anchor: line3, match: 'docs/missing.md', replacement: '../../../etc/passwd' },
      /link target "\.\.\/\.\.\/\.\.\/etc\/passwd" leads out of the project/,
    ],
    [
      'an @import in a frontmatter value',
      { kind: 'insert-frontmatter', key: 'note', value: '@~/.aws/credentials' },
      /@~\/\.aws\/credentials leads out of the project/,
    ],
  ];
  for (const [name, edit, message] of cases) {
    it(`${name} in CLAUDE.md is refused (a proposals file, as a model answer is checked)`, async () => {
      const repo = repoWith({ 'CLAUDE.md': '# Project\n\nSee [docs](docs/missing.md).\n' });
      const file = join(repo.dir, 'proposals.json');
      writeFileSync(file, JSON.stringify([proposal('CLAUDE.md', edit)]));
      const checked = await stw(repo, 'hygiene', 'check', '--proposals', file);
      assert.equal(checked.code, 1, checked.out);
      assert.match(checked.stderr, /^stw: invalid proposals: proposals\[0\]\.exact_edit: /);
      assert.match(checked.stderr, message);
      assert.match(checked.stderr, /no edit may write a reference out of the project\n$/);
    });
  }

  it('a reference the anchored line already held may stay (only new ones are judged)', async () => {
    const repo = repoWith({
      'CLAUDE.md': '# Project\n\nSee @~/.claude/shared.md and [docs](docs/missing.md).\n',
    });
    const file = join(repo.dir, 'proposals.json');
    const edit = {
      kind: 'replace-text',
      anchor: line3,
      match: ' and [docs](docs/missing.md)',
      replacement: '',
    };
    writeFileSync(file, JSON.stringify([proposal('CLAUDE.md', edit)]));
    const checked = await stw(repo, 'hygiene', 'check', '--proposals', file);
    assert.equal(checked.code, 0, checked.out);
    const cleaned = await stw(repo, 'hygiene', 'clean', '--yes');
    assert.equal(cleaned.code, 0, cleaned.out);
    assert.equal(
      readFileSync(join(repo.dir, 'CLAUDE.md'), 'utf8'),
      '# Project\n\nSee @~/.claude/shared.md.\n',
    );
  });
});

describe('a repository config that is not a small regular file is refused before it is read', () => {
  // A committed symlink can aim .dochygiene.yml at a device: /dev/tty would block the
  // SessionStart reminder on the user's terminal, /dev/zero would fill memory.
  const stale = '{"last_check":"2020-01-01T00:00:00Z","last_clean":null,"last_reminded":null}\n';

  it('a .dochygiene.yml symlinked to /dev/zero: check and remind say so in one line', async () => {
    const repo = repoWith({ 'README.md': '# Readme\n' });
    symlinkSync('/dev/zero', join(repo.dir, '.dochygiene.yml'));
    const checked = await stw(repo, 'hygiene', 'check');
    assert.equal(checked.code, 1, checked.out);
    assert.equal(checked.stderr, 'stw: .dochygiene.yml: cannot read: not a regular file\n');
    mkdirSync(join(repo.dir, '.dochygiene'), { recursive: true });
    writeFileSync(join(repo.dir, '.dochygiene/state.json'), stale);
    const reminded = await stw(repo, 'hygiene', 'remind');
    assert.equal(reminded.code, 0, reminded.out);
    assert.equal(reminded.stdout, '');
    assert.equal(
      reminded.stderr,
      'stw hygiene remind: .dochygiene.yml: cannot read: not a regular file (no reminder shown)\n',
    );
  });

  it('a .dochygiene.yml over 256 KiB is refused, naming the limit', async () => {
    const repo = repoWith({ 'README.md': '# Readme\n', '.dochygiene.yml': `# ${'x'.repeat(256 * 1024)}\n` });
    const checked = await stw(repo, 'hygiene', 'check');
    assert.equal(checked.code, 1, checked.out);
    assert.equal(checked.stderr, 'stw: .dochygiene.yml: cannot read: larger than 262144 bytes\n');
  });
});

describe('a lifecycle walk leaves out every name a proposal cannot carry', () => {
  for (const [what, name] of [
    ['a tab', 'a\tb'],
    ['a backslash', 'a\\b'],
    ['an escape character', 'a\u001b[2Jb'],
  ] as const) {
    it(`one file whose name holds ${what} does not make check fail; it stays, its sibling goes`, async () => {
      const repo = makeRepo();
      repos.push(repo);
      repo.commit(
        'runs',
        {
          '.gitignore': '.dochygiene/\n',
          '.dochygiene.yml':
            'lifecycle:\n  rules:\n    - name: runs\n      match: "runs/*"\n      type: file\n      lifetime: temporary\n      retain_recent: 0\n      max_age_days: 1\n',
          [`runs/${name}`]: 'x\n',
          'runs/ok': 'y\n',
        },
        { date: '2026-01-01T00:00:00Z' },
      );
      const env = { STW_NOW: '2026-12-06T00:00:00Z' };
      const checked = await runCli(['hygiene', 'check', '--json'], { cwd: repo.dir, env });
      assert.equal(checked.code, 0, checked.stdout + checked.stderr);
      const cleaned = await runCli(['hygiene', 'clean', '--yes'], { cwd: repo.dir, env });
      assert.equal(cleaned.code, 0, cleaned.stdout + cleaned.stderr);
      assert.deepEqual(repo.git(['ls-files', '-z', 'runs']).split('\0').filter(Boolean), [`runs/${name}`]);
    });
  }
});

describe('a lifecycle rule name cannot write into the commit message or the terminal', () => {
  for (const [what, name] of [
    ['a trailer after a line break', 'runs\n\nSigned-off-by: Mallory <m@evil.example>'],
    ['an escape sequence', 'runs\u001b[2J'],
    ['more than 128 characters', 'r'.repeat(129)],
  ] as const) {
    it(`a name with ${what} is refused at config validation, naming the key`, async () => {
      const repo = repoWith({
        '.dochygiene.yml': `lifecycle:\n  rules:\n    - name: ${JSON.stringify(name)}\n      match: "runs/*"\n      type: file\n      lifetime: temporary\n`,
        'runs/a': 'x\n',
      });
      const checked = await stw(repo, 'hygiene', 'check');
      assert.equal(checked.code, 1, checked.out);
      assert.equal(
        checked.stderr,
        `stw: .dochygiene.yml: lifecycle.rules[0] (rule ${JSON.stringify(name)}).name: must be one line of at most 128 characters, with no control characters\n`,
      );
    });
  }
});

describe('a file read by mistake as JSON is never quoted back', () => {
  it('check --proposals on a secrets file names only where it is malformed', async () => {
    const repo = repoWith({ 'README.md': '# Readme\n' });
    const file = join(repo.dir, 'proposals.env');
    writeFileSync(file, 'API_KEY=sk-live-SECRET\n');
    const checked = await stw(repo, 'hygiene', 'check', '--proposals', file);
    assert.equal(checked.code, 1, checked.out);
    assert.equal(checked.stderr, 'stw: proposals file is not JSON: malformed\n');
    writeFileSync(file, '{"token": "sk-live-SECRET", "b": [1, 2');
    const truncated = await stw(repo, 'hygiene', 'check', '--proposals', file);
    assert.doesNotMatch(truncated.stderr, /SECRET/);
    assert.match(truncated.stderr, /^stw: proposals file is not JSON: /);
  });
});
