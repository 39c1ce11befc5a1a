import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runCli } from '../../helpers/cli.js';
import { fixtureRepo, referencesOf, scanDir, signalsOf, siteViews as views } from './helpers.js';

describe('site models: every link judged where it is read', () => {
  it('Hugo: routes one folder deeper than the file, bundles, aliases, module mounts, a translation falling back, {#id}', async () => {
    const repo = fixtureRepo({
      'hugo.yaml': [
        'baseURL: https://example.org/',
        'defaultContentLanguage: en',
        'languages:',
        '  en:',
        '    contentDir: content/en',
        '  ja:',
        '    contentDir: content/ja',
        'module:',
        '  mounts:',
        '    - source: static',
        '      target: static',
        '    - source: icons/32x32',
        '      target: static/img/logos/32x32',
        '    - source: themes/brand/static',
        '      target: static/brand',
        '',
      ].join('\n'),
      'content/en/_index.md': '# Home\n',
      'content/en/docs/_index.md': '# Docs\n',
      'content/en/docs/concepts/_index.md': '# Concepts\n',
      'content/en/docs/concepts/pods/index.md':
        '---\ntitle: Pods\naliases: [/docs/old-pods/]\n---\n# Pods\n\n## Requests {#resource-requests}\n',
      'content/en/docs/concepts/img/diagram.svg': '<svg/>',
      'content/en/docs/concepts/img/tree.png': 'png',
      'content/en/docs/concepts/resources.md': [
        '# Resources', // 1
        '', // 2
        'Works on the site: [pods](/docs/concepts/pods/#resource-requests), [old](/docs/old-pods/),', // 3
        '<img src="/img/logos/32x32/x.svg"> and ![diagram](../img/diagram.svg).', // 4
        '', // 5
        'Broken on the site: [gone](/docs/concepts/gone/).', // 6
        '', // 7
        'Works only on GitHub: ![tree](img/tree.png).', // 8
        '', // 9
        'Cannot be settled: <img src="/brand/logo.svg">.', // 10
        '',
      ].join('\n'),
      'content/ja/docs/concepts/resources.md': '# リソース\n\n![図](../img/diagram.svg)\n',
      'icons/32x32/x.svg': '<svg/>',
      'static/favicon.ico': 'ico',
      '.gitmodules': '[submodule "brand"]\n\tpath = themes/brand\n\turl = https://example.org/brand.git\n',
      'README.md': '# Site\n\nSee [the docs](content/en/docs/_index.md) and [gone](docs/missing.md).\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(views(artifact, 'content/en/docs/concepts/resources.md'), [
      ['/docs/concepts/gone/', 'site', 'hugo'],
      ['img/tree.png', 'site', 'hugo'],
      [
        '/brand/logo.svg',
        'unverifiable: mounted from themes/brand/static, which is not checked out (a submodule?)',
        'hugo',
      ],
    ]);
    // The translation's image falls back to the default language's content.
    assert.deepEqual(views(artifact, 'content/ja/docs/concepts/resources.md'), []);
    // A README is read on GitHub only: no site builds it.
    assert.deepEqual(views(artifact, 'README.md'), [['docs/missing.md', 'github', undefined]]);
  });

  it('Hugo: a custom link render hook leaves a link it may rewrite unverifiable, and a page of shortcodes its anchors', async () => {
    const repo = fixtureRepo({
      'config.toml': 'baseURL = "https://example.org/"\n',
      'layouts/_markup/render-link.html': '{{ .Destination }}',
      'content/docs/glossary.md': '# Glossary\n\n{{% glossary-terms %}}\n',
      'content/docs/page.md':
        '# Page\n\n[term](g) and [term in glossary](/docs/glossary/#publish) and [page](/docs/page/).\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(views(artifact, 'content/docs/page.md'), [
      ['g', 'unverifiable: the render hook layouts/_markup/render-link.html may rewrite the link', 'hugo'],
      [
        '/docs/glossary/#publish',
        'unverifiable: the page includes text (a shortcode, an include) that may set the anchor',
        'hugo',
      ],
    ]);
  });

  it('Hugo: a project hook that only passes the destination through (etcd-io/website) or looks it up with GetPage (gohugoio/hugoDocs) is read; Netlify redirects; dots in a name', async () => {
    const passing = fixtureRepo({
      'config.yaml': 'baseURL: https://example.org/\n',
      'layouts/_default/_markup/render-link.html':
        '{{ $isExternal := hasPrefix .Destination "http" -}}\n<a href="{{ .Destination | safeURL }}"{{ if $isExternal }} target="_blank"{{ end }}>{{ .Text | safeHTML }}</a>\n',
      'layouts/index.redirects':
        '{{ $latest := site.Params.latest }}\n/docs/latest     /docs/{{ $latest }}/\n/docs/latest/*     /docs/{{ $latest }}/:splat\n',
      'content/blog/2025/upgrade_from_3.5_to_3.6_issue_followup.md': '# Follow-up\n',
      'content/docs/v3.1/install.md': [
        '# Install', // 1
        '', // 2
        'Works on the site: [follow-up](/blog/2025/upgrade_from_3.5_to_3.6_issue_followup).', // 3
        '', // 4
        'Broken on the site: [build](../build).', // 5
        '', // 6
        'Cannot be settled: [latest](/docs/latest/install/).', // 7
        '',
      ].join('\n'),
    });
    assert.deepEqual(views(await scanDir(passing.dir), 'content/docs/v3.1/install.md'), [
      ['../build', 'site', 'hugo'],
      [
        '/docs/latest/install/',
        'unverifiable: a Netlify redirect in layouts/index.redirects sends it on',
        'hugo',
      ],
    ]);
    const getPage = fixtureRepo({
      'hugo.toml': "baseURL = 'https://example.org/'\n",
      'layouts/_markup/render-link.html': [
        '{{- $u := urls.Parse .Destination }}',
        '{{- if eq $u.String "g" }}{{ partial "glossary.html" . }}',
        '{{- else with or ($.PageInner.GetPage $u.Path) ($.PageInner.GetPage (strings.TrimRight "/" $u.Path)) }}<a href="{{ .RelPermalink }}">',
        '{{- else with $.PageInner.Resources.Get $u.Path }}<a href="{{ .RelPermalink }}">',
        '{{- else }}<a href="{{ $u.String }}">{{ end }}',
        '',
      ].join('\n'),
      'content/methods/page/Date.md': '# Date\n',
      'content/templates/introduction.md': [
        '# Introduction', // 1
        '', // 2
        'Works on the site: [date](methods/page/date/), [same](/methods/page/Date.md).', // 3
        '', // 4
        'Broken on the site: [gone](methods/page/gone/).', // 5
        '', // 6
        'Cannot be settled: [term](g).', // 7
        '',
      ].join('\n'),
    });
    assert.deepEqual(views(await scanDir(getPage.dir), 'content/templates/introduction.md'), [
      ['methods/page/gone/', 'site', 'hugo'],
      [
        'g',
        'unverifiable: the render hook layouts/_markup/render-link.html gives the destination "g" a meaning of its own',
        'hugo',
      ],
    ]);
  });

  it('Hugo: with autoDefinitionTermID a definition term has an id (gohugoio/hugoDocs), and only then', async () => {
    const page = [
      '# File', // 1
      '', // 2
      '`ContentBaseName`', // 3
      ': (`string`) The name of the containing folder.', // 4
      '', // 5
      '```text', // 6
      'InFence', // 7
      ': not a definition list', // 8
      '```', // 9
      '',
    ].join('\n');
    const links = [
      '# Permalinks', // 1
      '', // 2
      'Works on the site: [term](/methods/file/#contentbasename).', // 3
      '', // 4
      'Broken on the site: [fenced](/methods/file/#infence), [gone](/methods/file/#gone).', // 5
      '',
    ].join('\n');
    const terms = fixtureRepo({
      'hugo.toml':
        "baseURL = 'https://example.org/'\n[markup.goldmark.parser]\nautoDefinitionTermID = true\n",
      'content/methods/file.md': page,
      'content/configuration/permalinks.md': links,
    });
    assert.deepEqual(views(await scanDir(terms.dir), 'content/configuration/permalinks.md'), [
      ['/methods/file/#infence', 'site', 'hugo'],
      ['/methods/file/#gone', 'site', 'hugo'],
    ]);
    const plain = fixtureRepo({
      'hugo.toml': "baseURL = 'https://example.org/'\n",
      'content/methods/file.md': page,
      'content/configuration/permalinks.md': links,
    });
    assert.deepEqual(views(await scanDir(plain.dir), 'content/configuration/permalinks.md'), [
      ['/methods/file/#contentbasename', 'site', 'hugo'],
      ['/methods/file/#infence', 'site', 'hugo'],
      ['/methods/file/#gone', 'site', 'hugo'],
    ]);
  });

  it("Hugo: a multilingual site's embedded link hook looks a link up as a page (google/docsy); taxonomy pages are generated", async () => {
    const repo = fixtureRepo({
      'hugo.yaml':
        'baseURL: https://example.org/\nlanguages:\n  en: {contentDir: content/en}\n  fr: {contentDir: content/fr}\n',
      'content/en/blog/2023/bootstrap-5-migration.md': '# Migration\n',
      'content/en/blog/2023/priorities.md': [
        '# Priorities', // 1
        '', // 2
        'Works on the site: [bs5](bootstrap-5-migration/), [md](bootstrap-5-migration.md), [docs](docs/language/).', // 3
        '', // 4
        'Broken on the site: [gone](gone/), [dot](./docs/language/).', // 5
        '', // 6
        'Cannot be settled: [tag](/tags/upgrade/).', // 7
        '',
      ].join('\n'),
      'content/en/docs/language.md': '# Language\n\n## Bundles\n',
      'content/en/docs/content/lookandfeel.md': '# Look\n',
      // A leaf bundle's links are read from its container folder.
      'content/en/docs/content/shortcodes/index.md':
        '# Shortcodes\n\n[lang](../language/#bundles) and [look](lookandfeel/)\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(views(artifact, 'content/en/blog/2023/priorities.md'), [
      ['gone/', 'site', 'hugo'],
      ['./docs/language/', 'site', 'hugo'],
      ['/tags/upgrade/', 'unverifiable: a taxonomy page Hugo generates from front matter', 'hugo'],
    ]);
    assert.deepEqual(views(artifact, 'content/en/docs/content/shortcodes/index.md'), []);
  });

  it("a backticked path in a page only its site reads is not checked (a path in the reader's project); in a README it is", async () => {
    const repo = fixtureRepo({
      'hugo.toml': "baseURL = 'https://example.org/'\n",
      'layouts/_partials/footer.html': '<footer/>',
      // gohugoio/hugoDocs: `layouts/…` names the reader's project, not this repository's layouts/.
      'content/templates/types.md':
        '# Types\n\nCreate `layouts/_partials/footer.section.html` in your project.\n',
      'content/README.md': '# Content\n\nSee `layouts/_partials/header.html`.\n',
      // google/docsy: a shortcode template written as Markdown; its links are template expressions.
      'layouts/_shortcodes/release-summary.md':
        '# Release\n\n[notes]({{ $productionURL }}{{ $changelogURL }}) and [gone](gone.md)\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(referencesOf(artifact, 'content/templates/types.md'), []);
    assert.deepEqual(
      signalsOf(artifact, 'content/README.md', 'code_reference').map((s) => s.data?.['target']),
      ['layouts/_partials/header.html'],
    );
    assert.deepEqual(views(artifact, 'layouts/_shortcodes/release-summary.md'), [
      ['gone.md', 'github', undefined],
    ]);
  });

  it('mdBook: chapters from SUMMARY.md, .html links to .md sources, {#id}, links out of the book', async () => {
    const repo = fixtureRepo({
      'book.toml': '[book]\ntitle = "Book"\nsrc = "src"\n',
      'src/SUMMARY.md':
        '# Summary\n\n[Intro](README.md)\n\n- [Guide](guide/index.md)\n- [Config](reference/config.md)\n',
      'src/README.md': '# Intro\n\nStart with [the guide](guide/index.md).\n',
      'src/reference/config.md': '# Config\n\n## `rustc-cfg` {#rustc-cfg}\n',
      'src/guide/unlisted.md': '# Not in SUMMARY.md\n',
      'src/guide/index.md': [
        '# Guide', // 1
        '', // 2
        'Works on the site: [cfg](../reference/config.html#rustc-cfg), [intro](../index.html), [md](../reference/config.md#rustc-cfg).', // 3
        '', // 4
        'Broken on the site: [gone](../reference/gone.html).', // 5
        '', // 6
        'Works only on GitHub: [unlisted](unlisted.md).', // 7
        '', // 8
        'Cannot be settled: [the reference](../../reference/index.html).', // 9
        '',
      ].join('\n'),
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(views(artifact, 'src/guide/index.md'), [
      ['../reference/gone.html', 'site', 'mdbook'],
      ['unlisted.md', 'site', 'mdbook'],
      [
        '../../reference/index.html',
        'unverifiable: the link leaves the site (another published site may serve it)',
        'mdbook',
      ],
    ]);
    // A chapter's README is also shown on GitHub: its link works in both.
    assert.deepEqual(views(artifact, 'src/README.md'), []);
  });

  it('Docusaurus: doc ids, slugs, versioned docs, static/, blog routes', async () => {
    const repo = fixtureRepo({
      'docusaurus.config.js': "module.exports = {\n  title: 'Site',\n  baseUrl: '/',\n};\n",
      'versions.json': '["1.0"]\n',
      'static/img/logo.png': 'png',
      'docs/Configuration.md':
        '---\nid: configuration\n---\n# Configuration\n\n## Some option {#some-option}\n',
      'docs/guides/01-intro.md': '---\nslug: /start\n---\n# Intro\n',
      'docs/new-feature.md': '# New\n',
      'docs/Plugins.md': [
        '# Plugins', // 1
        '', // 2
        'Works on the site: [option](configuration#some-option), [start](/docs/next/start), ![logo](/img/logo.png).', // 3
        '', // 4
        'Broken on the site: [gone](gone.md).', // 5
        '', // 6
        'Works only on GitHub: [readme](../README.md).', // 7
        '', // 8
        'Cannot be settled: [tag](/blog/tags/release).', // 9
        '',
      ].join('\n'),
      'versioned_docs/version-1.0/Configuration.md': '# Configuration\n',
      'versioned_docs/version-1.0/Plugins.md':
        '# Plugins\n\n[conf](Configuration.md) and [latest conf](/docs/Configuration) and [new](new-feature.md).\n',
      'blog/2024-01-02-hello.md': '# Hello\n\n[plugins](/docs/next/Plugins) and [gone](/docs/gone).\n',
      'README.md': '# Project\n\nRead [the post](/blog/2024/01/02/hello).\n',
    });
    const artifact = await scanDir(repo.dir);
    // A blog post is a page of the site, at its date and name.
    assert.deepEqual(views(artifact, 'blog/2024-01-02-hello.md'), [['/docs/gone', 'site', 'docusaurus']]);
    assert.deepEqual(views(artifact, 'docs/Plugins.md'), [
      ['gone.md', 'site', 'docusaurus'],
      ['../README.md', 'site', 'docusaurus'],
      [
        '/blog/tags/release',
        'unverifiable: blog routes other than posts (tags, authors, pages) are not modelled',
        'docusaurus',
      ],
    ]);
    // A version's page links within its version.
    assert.deepEqual(views(artifact, 'versioned_docs/version-1.0/Plugins.md'), [
      ['new-feature.md', 'site', 'docusaurus'],
    ]);
  });

  it('Docusaurus: a Markdown file link is looked up in its content folder, the site folder, then beside the doc (facebookresearch/hydra)', async () => {
    const repo = fixtureRepo({
      'website/docusaurus.config.js': "module.exports = {\n  title: 'Site',\n  baseUrl: '/',\n};\n",
      'website/versions.json': '["1.3"]\n',
      'website/docs/advanced/defaults_list.md': '# Defaults List\n\n## Composition order\n',
      'website/docs/configure_hydra/workdir.md': '# Workdir\n',
      'website/docs/tutorials/basic/app.md': [
        '# App', // 1
        '', // 2
        'Works on the site: [workdir](/configure_hydra/workdir.md), [order](advanced/defaults_list.md#composition-order), [intro](/docs/tutorials/intro.md).', // 3
        '', // 4
        'Broken on the site: [gone](/configure_hydra/gone.md), [not here](./advanced/defaults_list.md).', // 5
        '',
      ].join('\n'),
      'website/docs/tutorials/intro.md':
        '# Intro\n\n[resolution](/docs/next/upgrades/1.3_to_1.4/instantiate_resolution) and [numbered](/docs/next/guides/intro).\n',
      // A version-like folder name is no number prefix; `01-` is.
      'website/docs/upgrades/1.3_to_1.4/instantiate_resolution.md':
        '---\nid: instantiate_resolution\n---\n# Resolution\n',
      'website/docs/guides/01-intro.md': '# Guide\n',
      'website/versioned_docs/version-1.3/configure_hydra/workdir.md': '# Workdir 1.3\n',
      // In a version, `/x.md` is the version's own page; one the version lacks is broken there.
      'website/versioned_docs/version-1.3/tutorials/app.md':
        '# App\n\n[workdir](/configure_hydra/workdir.md) and [order](/advanced/defaults_list.md).\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(views(artifact, 'website/docs/tutorials/basic/app.md'), [
      ['/configure_hydra/gone.md', 'site', 'docusaurus'],
      ['./advanced/defaults_list.md', 'site', 'docusaurus'],
    ]);
    assert.deepEqual(views(artifact, 'website/docs/tutorials/intro.md'), []);
    assert.deepEqual(views(artifact, 'website/versioned_docs/version-1.3/tutorials/app.md'), [
      ['/advanced/defaults_list.md', 'site', 'docusaurus'],
    ]);
  });

  it('Docusaurus: a versioned_docs/version-X/ folder versions.json does not list is unbuilt: named once, its links not checked (reduxjs/react-redux)', async () => {
    const repo = fixtureRepo({
      'website/docusaurus.config.js': "module.exports = {\n  title: 'Site',\n  baseUrl: '/',\n};\n",
      'website/versions.json': '["2.0"]\n',
      'website/docs/api/connect.md': '# connect\n\n[state](../using/map-state) and [gone](gone.md).\n',
      'website/docs/using/map-state.md': '---\nid: map-state\n---\n# Map state\n',
      'website/versioned_docs/version-2.0/api/connect.md': '# connect\n\n[gone](gone.md).\n',
      // Built once, listed no more: doc-id links of a build that no longer runs.
      'website/versioned_docs/version-1.x/api/connect.md':
        '# connect\n\n[state](../using/map-state#returns) and [top](#provider-store).\n',
      'website/versioned_docs/version-1.x/using/map-state.md': '# Map state\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(views(artifact, 'website/versioned_docs/version-1.x/api/connect.md'), []);
    assert.deepEqual(artifact.unbuilt, [
      {
        path: 'website/versioned_docs/version-1.x',
        site: 'docusaurus',
        reason: 'website/versions.json does not list the version: Docusaurus builds no page from it',
      },
    ]);
    // A listed version and the current docs are checked as before.
    assert.deepEqual(views(artifact, 'website/versioned_docs/version-2.0/api/connect.md'), [
      ['gone.md', 'site', 'docusaurus'],
    ]);
    assert.deepEqual(views(artifact, 'website/docs/api/connect.md'), [['gone.md', 'site', 'docusaurus']]);
    const human = await runCli(['hygiene', 'scan'], { cwd: repo.dir });
    assert.equal(human.code, 0, human.stderr);
    assert.match(
      human.stdout,
      /^Unbuilt, links not checked \(docusaurus: website\/versions\.json does not list the version: Docusaurus builds no page from it\): website\/versioned_docs\/version-1\.x$/m,
    );
    assert.doesNotMatch(human.stdout, /version-1\.x\/api\/connect\.md/);
  });

  it('Docusaurus: with no versions.json, every versioned_docs/version-X/ is unbuilt', async () => {
    const repo = fixtureRepo({
      'docusaurus.config.js': "module.exports = {\n  title: 'Site',\n  baseUrl: '/',\n};\n",
      'docs/intro.md': '# Intro\n',
      'versioned_docs/version-7.1/api/hooks.md': '# Hooks\n\n[state](../using/map-state).\n',
      'versioned_docs/version-7.2/api/hooks.md': '# Hooks\n\n[state](../using/map-state).\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(views(artifact, 'versioned_docs/version-7.1/api/hooks.md'), []);
    assert.deepEqual(
      artifact.unbuilt?.map((u) => [u.path, u.reason]),
      [
        ['versioned_docs/version-7.1', 'no versions.json lists a version: Docusaurus builds no page from it'],
        ['versioned_docs/version-7.2', 'no versions.json lists a version: Docusaurus builds no page from it'],
      ],
    );
  });

  it('MkDocs: exclude_docs and names starting with "." are not built; nav leaves pages out of the menu only', async () => {
    const repo = fixtureRepo({
      'mkdocs.yml': [
        'site_name: Site',
        'nav:',
        '  - index.md',
        'exclude_docs: |',
        '  drafts/',
        '  *.py',
        '',
      ].join('\n'),
      'docs/index.md': [
        '# Home', // 1
        '', // 2
        'Works on the site: [guide](guide.md) (not in nav, still built).', // 3
        '', // 4
        'Broken on the site: [draft](drafts/wip.md), [hook](hooks.py), [hidden](.notes/a.md).', // 5
        '',
      ].join('\n'),
      'docs/guide.md': '# Guide\n',
      'docs/hooks.py': 'x = 1\n',
      'docs/.notes/a.md': '# Notes\n',
      // Not built: read on GitHub, where its link works.
      'docs/drafts/wip.md': '# WIP\n\n[home](../index.md) and [gone](../gone.md)\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(views(artifact, 'docs/index.md'), [
      ['drafts/wip.md', 'site', 'mkdocs'],
      ['.notes/a.md', 'site', 'mkdocs'],
    ]);
    assert.deepEqual(views(artifact, 'docs/drafts/wip.md'), [['../gone.md', 'github', undefined]]);
  });

  it('MkDocs: attr_list ids, links leaving docs_dir, site_url path', async () => {
    const repo = fixtureRepo({
      'mkdocs.yml':
        'site_name: Demo\nsite_url: https://example.org/proj/\nmarkdown_extensions:\n  - attr_list\n',
      'docs/index.md':
        '# Home\n\n## Install {#setup}\n\n## Caret, Mark & Tilde\n\n## Config { #config.theme }\n',
      'docs/img/a.png': 'png',
      'docs/guide.md': [
        '# Guide', // 1
        '', // 2
        'Works on the site: [setup](index.md#setup), [tilde](index.md#caret-mark-tilde), [theme](index.md#config.theme), ![a](/proj/img/a.png).', // 3
        '', // 4
        'Broken on the site: [gone](gone.md).', // 5
        '', // 6
        'Works only on GitHub: [readme](../README.md).', // 7
        '', // 8
        'Cannot be settled: [other](/other/page/).', // 9
        '',
      ].join('\n'),
      'README.md': '# Project\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(views(artifact, 'docs/guide.md'), [
      ['gone.md', 'site', 'mkdocs'],
      ['../README.md', 'site', 'mkdocs'],
      ['/other/page/', 'unverifiable: a /-rooted link outside the site_url path /proj/', 'mkdocs'],
    ]);
  });

  it('MkDocs: a variant config with no mkdocs.yml, INHERIT merged, mkdocs-exclude, snippets read where included, .. clamped at the domain root', async () => {
    // Textualize/textual builds with `mkdocs build --config-file mkdocs-online.yml`.
    const repo = fixtureRepo({
      'mkdocs-common.yml': [
        'site_name: Demo',
        'markdown_extensions:',
        '  - pymdownx.snippets',
        'plugins:',
        '  search:',
        '  exclude:',
        '    glob:',
        '      - "snippets/*"',
        '      - "**/_template.md"',
        '',
      ].join('\n'),
      // The published site: the one the model reads.
      'mkdocs-online.yml': 'INHERIT: mkdocs-common.yml\nsite_url: https://example.org/\n',
      // An offline build (no directory URLs): a build, but not the published one.
      'mkdocs-offline.yml': 'INHERIT: mkdocs-common.yml\nuse_directory_urls: false\n',
      // A fragment a Makefile appends: no site_name, no site.
      'mkdocs-nav.yml': 'nav:\n  - index.md\n',
      'docs/index.md': '# Home\n',
      'docs/css_types/color.md': '# Color\n',
      'docs/styles/background.md': [
        '# Background', // 1
        '', // 2
        'Works on the site: <a href="../../css_types/color">color</a>, [color](/css_types/color/).', // 3
        '', // 4
        'Broken on the site: [gone](/css_types/gone/).', // 5
        '',
      ].join('\n'),
      'docs/styles/grid/index.md':
        '# Grid\n\nWorks on the site: <a href="../../../css_types/color">color</a>.\n',
      'docs/styles/border.md': '# Border\n\n--8<-- "docs/snippets/see_also.md"\n',
      // Left out of the build, put into docs/styles/border.md: its relative link is that page's.
      'docs/snippets/see_also.md': '[background](./background.md)\n',
      'docs/styles/_template.md': '# Template\n\n[gone](gone.md)\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(views(artifact, 'docs/styles/background.md'), [['/css_types/gone/', 'site', 'mkdocs']]);
    assert.deepEqual(views(artifact, 'docs/styles/grid/index.md'), []);
    assert.deepEqual(views(artifact, 'docs/snippets/see_also.md'), [
      [
        './background.md',
        'unverifiable: the text is put into a page (an include, a component) whose URL and headings it is read from',
        'mkdocs',
      ],
    ]);
    // Excluded from the build: read on GitHub.
    assert.deepEqual(views(artifact, 'docs/styles/_template.md'), [['gone.md', 'github', undefined]]);
  });

  it('MkDocs: an INHERIT that reaches nothing is unreadable; mkdocstrings leaves API anchors unsettled', async () => {
    const repo = fixtureRepo({
      'mkdocs.yml': 'INHERIT: base.yml\nsite_name: Demo\n',
      'docs/index.md': '# Home\n\n[gone](gone.md)\n',
      'api/mkdocs.yml': 'site_name: API\nplugins:\n  - mkdocstrings\n',
      'api/docs/app.md': '# App\n\n::: pkg.App\n',
      'api/docs/guide.md': '# Guide\n\n[run](app.md#pkg.App.run) and [nothing](guide.md#nothing)\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(views(artifact, 'docs/index.md'), [
      ['gone.md', 'unverifiable: mkdocs.yml inherits base.yml, which is not in the tree', 'mkdocs'],
    ]);
    assert.deepEqual(views(artifact, 'api/docs/guide.md'), [
      ['guide.md#nothing', 'site', 'mkdocs'],
      [
        'app.md#pkg.App.run',
        'unverifiable: the page includes text (a shortcode, an include) that may set the anchor',
        'mkdocs',
      ],
    ]);
  });

  it('VitePress and Jekyll: the models of before, in the same shape; a config with rewrites is not modelled', async () => {
    const repo = fixtureRepo({
      'docs/.vitepress/config.ts': "export default { title: 'Site' }\n",
      'docs/guide/index.md': '# Guide\n\n## Setup\n',
      'docs/public/logo.png': 'png',
      'docs/guide/build.md':
        '# Build\n\n[setup](/guide/#setup) ![logo](/logo.png) [gone](/guide/gone) [out](../../README.md)\n',
      'split/.vitepress/config/index.ts': "import { shared } from './shared'\nexport default { ...shared }\n",
      'split/.vitepress/config/shared.ts': "export const shared = { srcDir: 'src' }\n",
      'split/src/guide.md': '# Guide\n\n[home](/) and [gone](/gone)\n',
      'split/src/index.md': '# Home\n',
      'other/.vitepress/config.mts': "export default { rewrites: { 'a/:p.md': ':p.md' } }\n",
      'other/page.md': '# Page\n\n[somewhere](/elsewhere)\n',
      'site/_config.yml':
        'theme: just-the-docs\ncollections:\n  docs:\n    permalink: /:collection/:path/\n    output: true\n',
      'site/_docs/start/install.md':
        '# Install\n\n[upgrade](../../upgrade/) and [gone](../gone/) and [home](/)\n',
      'site/_docs/upgrade.md': '# Upgrade\n',
      'site/index.md': '# Home\n',
      'site/CNAME': 'docs.example.com\n',
      'site/_layouts/default.html': '<html></html>',
      'site/assets/a.svg': '<svg/>',
      'site/_posts/2024-01-02-hello.md':
        '# Hello\n\n![a](/assets/a.svg) ![b](/assets/b.svg) [install](/docs/install/) [liquid]({{site.baseurl}}/x/)\n',
      'site/guides/install.md': '---\npermalink: /docs/install/\n---\n# Install\n',
      'README.md': '# Project\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(views(artifact, 'docs/guide/build.md'), [
      ['/guide/gone', 'site', 'vitepress'],
      ['../../README.md', 'site', 'vitepress'],
    ]);
    // A config split over .vitepress/config/*.ts is read as one: its srcDir is `src`.
    assert.deepEqual(views(artifact, 'split/src/guide.md'), [['/gone', 'site', 'vitepress']]);
    assert.deepEqual(views(artifact, 'other/page.md'), [
      ['/elsewhere', 'unverifiable: its rewrites serve pages at other paths', 'vitepress'],
    ]);
    // A collection's document is served at its permalink: its links are read from there.
    assert.deepEqual(views(artifact, 'site/_docs/start/install.md'), [
      ['../gone/', 'unverifiable: collections (docs) have permalinks of their own', 'jekyll'],
    ]);
    assert.deepEqual(views(artifact, 'site/_posts/2024-01-02-hello.md'), [
      ['/assets/b.svg', 'site', 'jekyll'],
      // `{{site.baseurl}}` is the site's base path, empty here.
      ['{{site.baseurl}}/x/', 'site', 'jekyll'],
    ]);
  });

  it('Starlight: routes without extension from src/content/docs, public/, plugins', async () => {
    const repo = fixtureRepo({
      'astro.config.mjs':
        "import starlight from '@astrojs/starlight';\nexport default {\n  integrations: [\n    starlight({\n      sidebar: [{ autogenerate: { base: 'guides' } }],\n    }),\n  ],\n};\n",
      'src/content/docs/index.mdx': '# Home\n',
      // A second site whose config computes its redirects: a miss there is not settled.
      'old/astro.config.mjs':
        "import starlight from '@astrojs/starlight';\nexport default {\n  redirects: legacyRedirects(),\n  integrations: [starlight({})],\n};\n",
      'old/src/content/docs/index.md': '# Old\n\n[legacy](/legacy/)\n',
      'src/content/docs/guides/Getting Started.md': '# Getting started\n\n## First steps\n',
      'src/assets/shot.png': 'png',
      'public/favicon.svg': '<svg/>',
      'src/content/docs/reference/api.md': [
        '# API', // 1
        '', // 2
        'Works on the site: [start](/guides/getting-started/#first-steps), [up](../../guides/getting-started/), ![icon](/favicon.svg), ![shot](../../../assets/shot.png).', // 3
        '', // 4
        'Broken on the site: [gone](/guides/gone/).', // 5
        '', // 6
        'Works only on GitHub: [start](../guides/Getting%20Started.md).', // 7
        '',
      ].join('\n'),
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(views(artifact, 'src/content/docs/reference/api.md'), [
      ['/guides/gone/', 'site', 'starlight'],
      ['../guides/Getting%20Started.md', 'site', 'starlight'],
    ]);
    assert.deepEqual(views(artifact, 'old/src/content/docs/index.md'), [
      ['/legacy/', "unverifiable: the config's redirects may serve it", 'starlight'],
    ]);
  });

  it('DocFX: docfx.json content, case-insensitive routes, ~/ links, site-rooted links into other doc sets', async () => {
    const repo = fixtureRepo({
      // dotnet/docfx's own docfx.json starts with a byte-order mark.
      'docs/docfx.json': `\uFEFF${JSON.stringify({
        build: {
          content: [{ files: ['**/*.md', '**/*.yml'], exclude: ['includes/**', 'cmdlets/**'] }],
          resource: [{ files: ['media/**'] }],
        },
      })}`,
      'docs/media/shot.png': 'png',
      'docs/api/Overview.md': '# Overview\n\n## Usage\n',
      'docs/includes/snippet.md': 'Snippet\n',
      'docs/guide/start.md': [
        '# Start', // 1
        '', // 2
        'Works on the site: [overview](../API/overview.md#usage), [rooted](~/api/Overview.md), ![shot](../media/shot.png).', // 3
        '', // 4
        'Broken on the site: [gone](gone.md).', // 5
        '', // 6
        'Works only on GitHub: [snippet](../includes/snippet.md).', // 7
        '', // 8
        'Cannot be settled: [dotnet](/dotnet/core/introduction).', // 9
        '', // 10
        '[!INCLUDE [note](../includes/snippet.md)]', // 11
        '', // 12
        '# [Windows](#tab/windows)', // 13
        '',
      ].join('\n'),
      // Reference pages a build step converts: not content, but beside the config.
      'docs/cmdlets/Get-Thing.md': '# Get-Thing\n\n[about](/powershell/module/about_thing)\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(views(artifact, 'docs/guide/start.md'), [
      ['gone.md', 'site', 'docfx'],
      ['../includes/snippet.md', 'site', 'docfx'],
      ['/dotnet/core/introduction', 'unverifiable: a site-rooted link into another doc set', 'docfx'],
    ]);
    assert.deepEqual(views(artifact, 'docs/cmdlets/Get-Thing.md'), [
      ['/powershell/module/about_thing', 'unverifiable: a site-rooted link into another doc set', 'docfx'],
    ]);
  });

  it('issue and pull-request templates are read from github.com, not the file tree', async () => {
    const repo = fixtureRepo({
      'CONTRIBUTING.md': '# Contributing\n',
      'docs/guide.md': '# Guide\n',
      '.github/pull_request_template.md': [
        '# PR', // 1
        '', // 2
        'Read [contributing](/acme/widgets/blob/main/CONTRIBUTING.md) and [guide](../blob/main/docs/guide.md).', // 3
        '', // 4
        'Not on github.com: [guide](docs/guide.md) and [gone](/acme/widgets/blob/main/GONE.md).', // 5
        '',
      ].join('\n'),
    });
    const artifact = await scanDir(repo.dir);
    const signals = signalsOf(artifact, '.github/pull_request_template.md', 'broken_reference');
    // GONE.md may be another repository's (acme/widgets is not known to be this one): not checked.
    assert.deepEqual(views(artifact, '.github/pull_request_template.md'), [
      ['docs/guide.md', 'github', undefined],
    ]);
    // A template's link gets no suggestion: a path in the tree is not a github.com URL.
    assert.equal(
      signals.every((s) => s.data?.['suggested_target'] === undefined),
      true,
    );
  });
});
