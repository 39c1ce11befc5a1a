import assert from 'node:assert/strict';
import { posix } from 'node:path';
import { describe, it } from 'node:test';
import { SITE_MODELS } from '../../../src/hygiene/scan/site/index.js';
import type { SiteFiles } from '../../../src/hygiene/scan/site/types.js';
import { fc } from '../../helpers/property.js';
import { fixtureRepo, scanDir, siteViews as views } from './helpers.js';

// The false positives found by reading samples of real sites (issue 30), one fixture each.
describe('site models: what real sites serve that the first models missed', () => {
  it('Jekyll at the root: permalink styles, .html pages with permalinks, redirect_from, {{ site.baseurl }}', async () => {
    const repo = fixtureRepo({
      // just-the-docs: the theme's own site is built from the repository's root.
      '_config.yml': [
        'title: Theme',
        'url: "https://theme.example.com"',
        'baseurl: ""',
        'permalink: pretty',
        'exclude: [MIGRATION.md]',
        'plugins:',
        '  - jekyll-redirect-from',
        '',
      ].join('\n'),
      '_layouts/default.html': '<html>{{ content }}</html>',
      'index.md': [
        '# Home', // 1
        '', // 2
        'Works on the site: [custom]({{site.baseurl}}/docs/customization/#custom-styles),', // 3
        '[showcase](/showcase/), <a href="{{ \'/help/\' | relative_url }}">help</a>, [config](docs/customization.md).', // 4
        '', // 5
        'Broken on the site: [gone]({{site.baseurl}}/docs/gone/), [anchor](/docs/customization/#nowhere).', // 6
        '', // 7
        'Cannot be settled: <a href="{{ contributor.html_url }}">them</a>.', // 8
        '',
      ].join('\n'),
      'docs/customization.md':
        '---\nredirect_from: [/help/index.html]\n---\n# Customization\n\n## Custom styles\n',
      'pages/showcase.html': '---\npermalink: /showcase/\n---\n<h1>Showcase</h1>\n',
      'MIGRATION.md': '# Migration\n\n[gone](docs/gone.md)\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(views(artifact, 'index.md'), [
      ['{{site.baseurl}}/docs/gone/', 'site', 'jekyll'],
      ['/docs/customization/#nowhere', 'site', 'jekyll'],
      ['{{ contributor.html_url }}', 'unverifiable: a Liquid expression computes the link', 'jekyll'],
    ]);
    // A file the config excludes is no page: it is read on GitHub.
    assert.deepEqual(views(artifact, 'MIGRATION.md'), [['docs/gone.md', 'github', undefined]]);
  });

  it('Jekyll: `permalink: :title` serves pages without an extension (Homebrew/brew docs)', async () => {
    const repo = fixtureRepo({
      'docs/_config.yml':
        'url: https://docs.example.sh\npermalink: :title\nplugins: [jekyll-relative-links]\n',
      'docs/CNAME': 'docs.example.sh\n',
      'docs/Formula-Cookbook.md': '# Formula Cookbook\n\n## Patches\n',
      'docs/FAQ.md':
        '# FAQ\n\n[patches](/Formula-Cookbook#patches), [also](Formula-Cookbook.md#patches), [gone](/Gone-Page)\n',
    });
    assert.deepEqual(views(await scanDir(repo.dir), 'docs/FAQ.md'), [['/Gone-Page', 'site', 'jekyll']]);
  });

  it("VitePress: its own slugs, the config's attrs delimiters, a custom slugify, theme components and @include partials", async () => {
    const repo = fixtureRepo({
      'docs/.vitepress/config.ts': [
        'export default {',
        "  srcExclude: ['**/cli-generated.md'],",
        "  markdown: { attrs: { leftDelimiter: '%{', rightDelimiter: '}%' } },",
        '}',
        '',
      ].join('\n'),
      'docs/.vitepress/theme/components/CourseLink.vue':
        '<template><a href="https://x.example">x</a></template>\n',
      'docs/.vitepress/theme/components/Outline.vue': '<template><h2 id="generated">x</h2></template>\n',
      'docs/api/describe.md': [
        '# Describe', // 1
        '', // 2
        '<CourseLink />', // 3
        '', // 4
        '## describe.skipIf', // 5
        '', // 6
        '## Nested 共享 Getter %{#shared-getters}%', // 7
        '', // 8
        'Works on the site: [skipIf](#describe-skipif), [shared](#shared-getters).', // 9
        'Broken on the site: [skip](#describe-skip-if).', // 10
        "<img :src=\"`/img/${isDark ? 'dark' : 'light'}.png`\">", // 11
        '',
      ].join('\n'),
      'docs/api/outline.md': '# Outline\n\n<Outline />\n',
      'docs/guide/cli.md': '# CLI\n\n<!--@include: ./cli-generated.md-->\n\n[out](/api/outline#generated)\n',
      'docs/guide/cli-generated.md': [
        '### --root', // 1
        '', // 2
        'Works on the site: [root](/api/describe#describe-skipif).', // 3
        'Broken on the site: [gone](/config/gone).', // 4
        'Cannot be settled: [here](#options), [near](./options.md).', // 5
        '',
      ].join('\n'),
      'slug/.vitepress/config.mts':
        'const slugify = (s) => s\nexport default { markdown: { anchor: { slugify } } }\n',
      'slug/a.md':
        '# A %{#a}%\n\n[b](./b.md#Whatever-It-Is-) [b2](./b.md#elsewhere) [c](./c.md#nowhere) [c2](./c.md#c-id)\n',
      'slug/b.md': '# B\n\n## Whatever it is (v2)\n',
      'slug/c.md': '# C {#c-id}\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(views(artifact, 'docs/api/describe.md'), [['#describe-skip-if', 'site', 'vitepress']]);
    // A component whose source renders a heading may set the anchor (`<CourseLink />` above does not).
    assert.deepEqual(views(artifact, 'docs/guide/cli.md'), [
      [
        '/api/outline#generated',
        'unverifiable: the page includes text (a shortcode, an include) that may set the anchor',
        'vitepress',
      ],
    ]);
    // A partial the pages include is read on the site, from the page that includes it.
    const embedded =
      'the text is put into a page (an include, a component) whose URL and headings it is read from';
    assert.deepEqual(views(artifact, 'docs/guide/cli-generated.md'), [
      ['/config/gone', 'site', 'vitepress'],
      ['#options', `unverifiable: ${embedded}`, 'vitepress'],
      ['./options.md', `unverifiable: ${embedded}`, 'vitepress'],
    ]);
    // A custom slugify may name a heading without an id whose letters are the fragment's; no other.
    assert.deepEqual(views(artifact, 'slug/a.md'), [
      ['./b.md#elsewhere', 'site', 'vitepress'],
      ['./c.md#nowhere', 'site', 'vitepress'],
      [
        './b.md#Whatever-It-Is-',
        'unverifiable: its markdown.anchor.slugify names headings its own way',
        'vitepress',
      ],
    ]);
  });

  it('VitePress: a page a build step writes into a folder git ignores is a build output, not broken (vuejs/router API pages)', async () => {
    const repo = fixtureRepo({
      'packages/docs/.vitepress/config.ts': "export default { title: 'Router' }\n",
      'packages/docs/.gitignore': 'api\n',
      'packages/docs/guide/index.md': '# Guide\n',
      'packages/docs/guide/routing.md':
        '# Routing\n\n[hasRoute](/api/interfaces/Router.md#hasRoute) [api](../api/index.md) [gone](/guide/gone)\n',
    });
    assert.deepEqual(views(await scanDir(repo.dir), 'packages/docs/guide/routing.md'), [
      ['/guide/gone', 'site', 'vitepress'],
    ]);
  });

  it('Starlight: Markdown components under src/, redirects from a generated module, plugins passed by name, local imports', async () => {
    const repo = fixtureRepo({
      'astro.config.mjs': [
        "import starlight from '@astrojs/starlight';",
        "import redirects from './redirects.js';",
        'export default {',
        '  redirects: {',
        '    ...redirects,',
        "    '/old/page': '/guides/start/',",
        '  },',
        '  integrations: [starlight({ title: "Docs" })],',
        '};',
        '',
      ].join('\n'),
      'redirects.js': "// generated\nexport default {\n  '/rules/no-x': '/rules/no-x/js',\n};\n",
      'src/content/docs/guides/start.md': '# Start\n\n## First steps\n',
      'src/content/docs/rules/no-x/js.mdx': '# no-x\n',
      'src/content/docs/guides/tabs.mdx': [
        "import { Tabs } from '@astrojs/starlight/components';", // 1
        '', // 2
        '# Tabs', // 3
        '', // 4
        '[start](/guides/start/#first-steps) [missing](/guides/start/#nowhere) [old](/old/page)', // 5
        '',
      ].join('\n'),
      'src/content/docs/guides/local.mdx':
        "import Part from '../../../components/Part.astro';\n\n# Local\n\n<Part />\n\n[here](/guides/local/#from-part)\n",
      'src/components/Part.astro': '<h2 id="from-part">Part</h2>\n',
      'src/components/generated/Rules.md':
        '- [no-x](/rules/no-x)\n- [gone](/rules/gone)\n- [near](./gone.md)\n',
      'plugged/astro.config.mjs':
        "import starlight from '@astrojs/starlight';\nimport blog from 'starlight-blog';\nconst plugins = [blog()];\nexport default { integrations: [starlight({ plugins, title: 'X' })] };\n",
      'plugged/src/content/docs/index.md': '# Home\n\n[blog](/blog/)\n',
    });
    // MDX pages are scanned where the project asks for them.
    const artifact = await scanDir(repo.dir, {
      config: { scan: { globs: ['**/*.md', '**/*.mdx'], excluded_dirs: [] } },
    });
    assert.deepEqual(views(artifact, 'src/content/docs/guides/tabs.mdx'), [
      ['/guides/start/#nowhere', 'site', 'starlight'],
    ]);
    assert.deepEqual(views(artifact, 'src/content/docs/guides/local.mdx'), [
      [
        '/guides/local/#from-part',
        'unverifiable: the page includes text (a shortcode, an include) that may set the anchor',
        'starlight',
      ],
    ]);
    assert.deepEqual(views(artifact, 'src/components/generated/Rules.md'), [
      ['/rules/gone', 'site', 'starlight'],
      [
        './gone.md',
        'unverifiable: the text is put into a page (an include, a component) whose URL and headings it is read from',
        'starlight',
      ],
    ]);
    assert.deepEqual(views(artifact, 'plugged/src/content/docs/index.md'), [
      ['/blog/', 'unverifiable: a Starlight plugin may serve it', 'starlight'],
    ]);
  });

  it("DocFX: a tool's test data is no doc, and <xref href> names an API, not a path", async () => {
    const repo = fixtureRepo({
      'docs/docfx.json': '{"build":{"content":[{"files":["**/*.md"]}]}}',
      'docs/xref.md':
        '# Xref\n\n<xref href="System.Collections.Immutable.ImmutableArray`1?alt=ImmutableArray"/>\n',
      'test/Docfx.Tests/TestData/contacts.md': '# Contacts\n\n[gone](gone.md)\n',
      'test/Snapshot.Tests/Seed/Cat.verified.md': '# Cat\n\n[gone](gone.md)\n',
      'src/Cat.verified.md': '# Cat\n\n[gone](gone.md)\n',
      'test/README.md': '# Tests\n\n[gone](gone.md)\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(views(artifact, 'docs/xref.md'), []);
    assert.deepEqual(views(artifact, 'test/Docfx.Tests/TestData/contacts.md'), []);
    assert.deepEqual(views(artifact, 'test/Snapshot.Tests/Seed/Cat.verified.md'), []);
    assert.deepEqual(views(artifact, 'src/Cat.verified.md'), []);
    // A README about the tests is a doc.
    assert.deepEqual(views(artifact, 'test/README.md'), [['gone.md', 'github', undefined]]);
  });
});

describe('Jekyll at the root: every page maps back from its URL under each permalink style', () => {
  const segment = fc.oneof(
    fc.constantFrom('index', 'guide', 'Guide', 'a', '01-intro', 'api'),
    fc.stringMatching(/^[a-z][a-z0-9-]{0,6}$/),
  );
  for (const style of ['date', 'pretty', ':title', '/:path/', 'none']) {
    it(`permalink: ${style}`, () => {
      const model = SITE_MODELS.find((m) => m.id === 'jekyll')!;
      const config = `url: https://docs.example.com\npermalink: "${style}"\n`;
      const page = fc
        .tuple(fc.array(segment, { maxLength: 3 }), segment)
        .map(([dirs, name]) => posix.join(...dirs, `${name}.md`));
      fc.assert(
        fc.property(fc.uniqueArray(page, { minLength: 1, maxLength: 12 }), (pages) => {
          const list = ['_config.yml', '_layouts/default.html', ...pages];
          const listed = new Set(list);
          const site = model.read('_config.yml', config, { files: list, listed, read: () => undefined });
          assert.ok(site !== undefined && site.unreadable === undefined);
          const files: SiteFiles = {
            files: list,
            isFile: (p) => listed.has(p),
            frontmatter: () => undefined,
          };
          const byUrl = new Map<string, string[]>();
          for (const source of pages) {
            const url = site.pageUrl(source, files);
            assert.ok(url !== undefined, `${source} has no URL`);
            byUrl.set(url, [...(byUrl.get(url) ?? []), source]);
          }
          for (const [url, sources] of byUrl) {
            const served = site.serves(url, files, sources[0]!);
            assert.ok(served !== undefined && 'path' in served, `nothing served at ${url}`);
            assert.ok(sources.includes(served.path), `${url} serves ${served.path}`);
          }
        }),
        { numRuns: 40 },
      );
    });
  }
});
