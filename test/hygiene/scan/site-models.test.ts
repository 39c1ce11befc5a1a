import assert from 'node:assert/strict';
import { posix } from 'node:path';
import { describe, it } from 'node:test';
import { SITE_MODELS } from '../../../src/hygiene/scan/site/index.js';
import type { GeneratorId, Site, SiteFiles } from '../../../src/hygiene/scan/site/types.js';
import { fc } from '../../helpers/property.js';

/** Each model with a config in its real layout and the folder its pages live in. */
const LAYOUTS: Record<
  GeneratorId,
  { config: string; text: string; pages: string; ext: string[]; extra?: Record<string, string> }
> = {
  hugo: {
    config: 'hugo.toml',
    text: 'baseURL = "https://example.org/"\n',
    pages: 'content',
    ext: ['.md', '.html'],
  },
  mdbook: { config: 'book.toml', text: '[book]\nsrc = "src"\n', pages: 'src', ext: ['.md'] },
  docusaurus: {
    config: 'website/docusaurus.config.js',
    text: "module.exports = { baseUrl: '/' };\n",
    pages: 'website/docs',
    ext: ['.md', '.mdx'],
  },
  mkdocs: { config: 'mkdocs.yml', text: 'site_name: X\n', pages: 'docs', ext: ['.md'] },
  vitepress: {
    config: 'site/.vitepress/config.mts',
    text: 'export default {}\n',
    pages: 'site',
    ext: ['.md'],
  },
  jekyll: {
    config: 'web/_config.yml',
    text: 'url: https://docs.example.com\ntitle: jekyll site\n',
    pages: 'web',
    ext: ['.md'],
  },
  starlight: {
    config: 'astro.config.mjs',
    text: "import starlight from '@astrojs/starlight';\nexport default { integrations: [starlight({})] };\n",
    pages: 'src/content/docs',
    ext: ['.md', '.mdx'],
  },
  docfx: {
    config: 'docfx.json',
    text: '{"build":{"content":[{"files":["**/*.md"]}]}}',
    pages: '',
    ext: ['.md'],
  },
};

const segment = fc.oneof(
  fc.constantFrom('index', '_index', 'README', 'guide', 'Guide', 'a', 'b', '01-intro', 'api', 'v2'),
  fc.stringMatching(/^[a-z][a-z0-9-]{0,6}$/),
);

/** The tree a model is asked about: the listed files, no frontmatter. */
function filesOf(list: readonly string[]): SiteFiles {
  const set = new Set(list);
  return { files: list, isFile: (p) => set.has(p), frontmatter: () => undefined };
}

function siteFor(id: GeneratorId, pages: readonly string[]): { site: Site; files: SiteFiles } {
  const layout = LAYOUTS[id];
  const model = SITE_MODELS.find((m) => m.id === id)!;
  const summary: Record<string, string> =
    id === 'mdbook'
      ? { 'src/SUMMARY.md': pages.map((p) => `- [x](${encodeURI(posix.relative('src', p))})`).join('\n') }
      : {};
  const texts: Record<string, string> = { [layout.config]: layout.text, ...summary, ...layout.extra };
  const list = [...Object.keys(texts), ...pages];
  const context = { files: list, listed: new Set(list), read: (p: string) => texts[p] };
  assert.ok(model.isConfig(layout.config, context.listed));
  const site = model.read(layout.config, layout.text, context);
  assert.ok(site !== undefined && site.unreadable === undefined, `${id}: the config is read`);
  return { site, files: filesOf(list) };
}

describe('site models: every page the model serves maps back from its URL to its source', () => {
  for (const id of Object.keys(LAYOUTS) as GeneratorId[]) {
    it(id, () => {
      const layout = LAYOUTS[id];
      const page = fc
        .tuple(fc.array(segment, { maxLength: 3 }), segment, fc.constantFrom(...layout.ext))
        .map(([dirs, name, ext]) => posix.join(layout.pages, ...dirs, `${name}${ext}`));
      fc.assert(
        fc.property(fc.uniqueArray(page, { minLength: 1, maxLength: 12 }), (pages) => {
          const { site, files } = siteFor(id, pages);
          const byUrl = new Map<string, string[]>();
          for (const source of pages) {
            const url = site.pageUrl(source, files);
            if (url === undefined) continue;
            byUrl.set(url, [...(byUrl.get(url) ?? []), source]);
          }
          for (const [url, sources] of byUrl) {
            const served = site.serves(url, files, sources[0]!);
            assert.ok(served !== undefined && 'path' in served, `${id}: nothing served at ${url}`);
            // Two sources claiming one URL collide on the real site too: the model serves one of them.
            if (sources.length === 1) assert.equal(served.path, sources[0], `${id}: ${url}`);
            else assert.ok(sources.includes(served.path), `${id}: ${url} serves ${served.path}`);
          }
        }),
        { numRuns: 60 },
      );
    });
  }

  it('each model claims at least one page of a plain layout', () => {
    for (const id of Object.keys(LAYOUTS) as GeneratorId[]) {
      const source = posix.join(LAYOUTS[id].pages, 'guide', `setup${LAYOUTS[id].ext[0]}`);
      const { site, files } = siteFor(id, [source]);
      const url = site.pageUrl(source, files);
      assert.ok(url !== undefined, `${id}: ${source} has no URL`);
      assert.ok(url.startsWith('/'), `${id}: ${url}`);
      assert.deepEqual(site.serves(url, files, source), { path: source });
    }
  });
});
