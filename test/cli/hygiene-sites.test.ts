import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli, runCliJson } from '../helpers/cli.js';
import { makeRepo } from '../helpers/git-repo.js';

const env = { STW_NOW: '2026-03-01T12:00:00Z' };

describe('stw hygiene check and clean on a repository with a documentation site', () => {
  const repo = makeRepo();
  after(() => repo.cleanup());
  repo.commit('site', {
    'hugo.yaml': [
      'baseURL: https://example.org/',
      'theme: docsy',
      'module:',
      '  mounts:',
      '    - source: content',
      '      target: content',
      '    - source: static',
      '      target: static',
      '    - source: icons/32x32',
      '      target: static/img/logos/32x32',
      '    - source: vendor/brand',
      '      target: static/brand',
      '',
    ].join('\n'),
    'icons/32x32/x.svg': '<svg/>',
    '.gitmodules': '[submodule "brand"]\n\tpath = vendor/brand\n\turl = https://example.org/brand.git\n',
    'assets/old/logo.png': 'png',
    'docs/CONTRIBUTING.md': '# Contributing\n',
    // Works on the site through the mount: never rewritten to the mount's source folder.
    'content/docs/logos.md':
      '# Logos\n\n<img src="/img/logos/32x32/x.svg"> and <img src="/brand/mark.svg">\n',
    // Read on GitHub; a fix for a static asset in a repository whose site routing is not settled.
    'README.md': '# Widgets\n\n![logo](img/old/logo.png)\n',
    // Read on github.com, from a pull request's page.
    '.github/pull_request_template.md':
      '# PR\n\nRead [the guide](/acme/widgets/blob/main/docs/CONTRIBUTING.md) and [this](docs/CONTRIBUTING.md).\n',
  });

  it('reports where each link is broken, counts unverifiable links apart, and proposes no auto edit where routing is not proved', async () => {
    const check = await runCliJson<{ summary: Record<string, number> }>(['hygiene', 'check'], {
      cwd: repo.dir,
      env,
    });
    assert.equal(check.code, 0, check.stderr);
    assert.equal(check.json.summary['auto'], 0);
    assert.equal(check.json.summary['unverifiable_references'], 1);
    const human = await runCli(['hygiene', 'check'], { cwd: repo.dir, env });
    assert.match(human.stdout, /; 1 link no site model could check;/);
    const report = JSON.parse(readFileSync(join(repo.dir, '.dochygiene', 'report.json'), 'utf8')) as {
      entries: { path: string; safety_tier: string; signals: { data: Record<string, unknown> }[] }[];
    };
    // The README's image gets a fix, confirm only: the Hugo site's theme may serve static files.
    assert.deepEqual(
      report.entries.map((e) => [
        e.path,
        e.safety_tier,
        e.signals[0]?.data['broken_on'],
        e.signals[0]?.data['site_doubt'],
      ]),
      [
        [
          'README.md',
          'confirm',
          ['github'],
          'the Hugo site\'s routing is not settled (the theme or module "docsy" may serve it)',
        ],
      ],
    );
    const md = readFileSync(join(repo.dir, '.dochygiene', 'report.md'), 'utf8');
    assert.match(md, /Links no site model could check \(1 link\)/);
    assert.match(
      md,
      /1 link on the `hugo` site: mounted from vendor\/brand, which is not checked out \(a submodule\?\)/,
    );
    assert.match(md, /`content\/docs\/logos\.md` \(line 3\): `\/brand\/mark\.svg`/);
    // The template's plain relative link reaches nothing on github.com; no fix is offered.
    assert.match(md, /link target "docs\/CONTRIBUTING\.md" does not resolve on github\.com/);
    assert.doesNotMatch(md, /acme\/widgets\/blob\/main\/docs\/CONTRIBUTING\.md" does not resolve/);
  });

  it('clean commits nothing unasked: no entry is auto', async () => {
    const head = repo.git(['rev-parse', 'HEAD']).trim();
    const clean = await runCliJson<{ status: string }>(['hygiene', 'clean'], { cwd: repo.dir, env });
    assert.equal(clean.code, 0, clean.stderr);
    assert.equal(repo.git(['rev-parse', 'HEAD']).trim(), head);
    assert.equal(
      readFileSync(join(repo.dir, 'content/docs/logos.md'), 'utf8'),
      '# Logos\n\n<img src="/img/logos/32x32/x.svg"> and <img src="/brand/mark.svg">\n',
    );
  });
});

describe('stw hygiene check and clean: a backticked path in a site page is not rewritten from rename history', () => {
  // google/docsy: the theme moved into theme/, and `clean` rewrote "adding
  // `assets/stubs/new-page-template.md` to your own project" to the theme's copy.
  const repo = makeRepo();
  after(() => repo.cleanup());
  repo.commit('site', {
    'hugo.yaml': 'baseURL: https://example.org/\n',
    'assets/stubs/new-page-template.md': '# New page\n',
    'content/docs/repository-links.md':
      '# Links\n\nYou can change this by adding `assets/stubs/new-page-template.md` to your own project.\n',
    'AGENTS.md': '# Agents\n\nThe stub is `assets/stubs/new-page-template.md`.\n',
  });
  repo.move('move the theme', 'assets/stubs/new-page-template.md', 'theme/assets/stubs/new-page-template.md');

  it('reports it only where GitHub reads it, and clean leaves the site page as written', async () => {
    const check = await runCliJson<{
      findings: { rule: string; path: string; entry?: { safety_tier: string } }[];
    }>(['hygiene', 'check'], { cwd: repo.dir, env });
    assert.equal(check.code, 0, check.stderr);
    assert.deepEqual(
      check.json.findings
        .filter((f) => f.rule === 'broken_reference' || f.rule === 'code_reference')
        .map((f) => f.path),
      ['AGENTS.md'],
    );
    const clean = await runCliJson<{ status: string }>(['hygiene', 'clean'], { cwd: repo.dir, env });
    assert.equal(clean.code, 0, clean.stderr);
    assert.equal(
      readFileSync(join(repo.dir, 'content/docs/repository-links.md'), 'utf8'),
      '# Links\n\nYou can change this by adding `assets/stubs/new-page-template.md` to your own project.\n',
    );
  });
});

describe('stw hygiene scan on a Hugo archetype', () => {
  // gohugoio/hugoDocs: `title: {{ replace .File.ContentBaseName "-" " " }}` is YAML for a map
  // key; the YAML library's process warning about it reached the user's terminal.
  const repo = makeRepo();
  after(() => repo.cleanup());
  repo.commit('site', {
    'hugo.toml': "baseURL = 'https://example.org/'\n",
    'archetypes/default.md': '---\ntitle: {{ replace .File.ContentBaseName "-" " " | title }}\n---\n',
    'content/_index.md': '# Home\n',
  });

  it('prints nothing on stderr for a template in frontmatter', async () => {
    const scan = await runCli(['hygiene', 'scan', '--json'], { cwd: repo.dir, env });
    assert.equal(scan.code, 0, scan.stderr);
    assert.equal(scan.stderr, '');
  });
});
