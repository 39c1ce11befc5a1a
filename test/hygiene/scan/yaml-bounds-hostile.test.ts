/**
 * YAML a repository commits is parsed only up to a bound (src/core/yaml-bounds.ts): the
 * `yaml` library spends seconds and gigabytes on a few megabytes of flow collections, so a
 * 3.9 MB frontmatter held `check` for a minute at 3 GB. Over the bound, a frontmatter or a
 * site config is read as YAML that does not parse. Built CLI, real git.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { runCliJson } from '../../helpers/cli.js';
import { makeRepo, type TestRepo } from '../../helpers/git-repo.js';

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

/** `bytes` of YAML the parser is slowest on: a block list of small flow collections. */
function flowList(bytes: number): string {
  const item = `- ${'['.repeat(8)}${']'.repeat(8)}\n`;
  return `items:\n${item.repeat(Math.ceil(bytes / item.length))}`;
}

function repoWith(files: Record<string, string>): TestRepo {
  const repo = makeRepo();
  repos.push(repo);
  repo.commit('docs', { '.gitignore': '.dochygiene/\n', ...files });
  return repo;
}

type Check = {
  findings: { rule: string; path: string; message: string }[];
};

async function check(repo: TestRepo) {
  const result = await runCliJson<Check>(['hygiene', 'check'], { cwd: repo.dir });
  assert.equal(result.code, 0, result.stderr);
  return result;
}

describe('YAML from the repository is parsed only up to its bound', () => {
  it('a frontmatter over 64 KiB is not read: its status marks nothing', async () => {
    const body = '# Design\n\nHow it works.\n';
    const small = repoWith({ 'docs/design.md': `---\nstatus: superseded\n${flowList(1024)}---\n${body}` });
    const big = repoWith({ 'docs/design.md': `---\nstatus: superseded\n${flowList(65 * 1024)}---\n${body}` });
    const signalsOf = async (repo: TestRepo) => {
      await check(repo);
      const report = JSON.parse(readFileSync(repo.path('.dochygiene/report.json'), 'utf8')) as {
        entries: { path: string; signals: { name: string }[] }[];
      };
      return report.entries.flatMap((e) => e.signals.map((s) => [e.path, s.name]));
    };
    assert.deepEqual(await signalsOf(small), [['docs/design.md', 'frontmatter_marker']]);
    assert.deepEqual(await signalsOf(big), []);
  });

  it('a hugo.toml over 256 KiB is not parsed either', async () => {
    const line = (i: number) => `k${i} = [[[1]]]\n`;
    const params = Array.from({ length: 20_000 }, (_, i) => line(i)).join('');
    const repo = repoWith({
      'hugo.toml': `baseURL = "https://example.org/"\n[params]\n${params}`,
      'content/_index.md': '# Home\n\n[gone](missing.md)\n',
    });
    assert.ok(params.length > 256 * 1024);
    const { json } = await check(repo);
    const finding = json.findings.find((f) => f.path === 'content/_index.md');
    assert.match(
      finding?.message ?? '',
      /cannot be checked on the Hugo site: the Hugo config hugo\.toml does not parse/,
    );
  });

  it('an mkdocs.yml over 256 KiB is not parsed: its links are unverifiable, not judged', async () => {
    const repo = repoWith({
      'mkdocs.yml': `site_name: x\n${flowList(257 * 1024)}`,
      'docs/index.md': '# Index\n\n[gone](missing.md)\n',
    });
    const { json } = await check(repo);
    const finding = json.findings.find((f) => f.path === 'docs/index.md');
    assert.match(finding?.message ?? '', /cannot be checked on the MkDocs site: mkdocs\.yml does not parse/);
  });
});
