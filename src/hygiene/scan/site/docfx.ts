/**
 * DocFX (dotnet.github.io/docfx): `docfx.json` names the content (`build.content[].files`
 * globs under `src`, served under `dest`) and resources (`build.resource`). A page `a/b.md` is
 * served at `/a/b.html`; a relative link to a file is read from the page's file, `~/` from
 * the folder of `docfx.json`; routes match regardless of case (Microsoft Learn). A `/`-rooted
 * link is a route of the published docs site (`/dotnet/…`, `/powershell/module/…`), usually
 * into another doc set: the model cannot settle it.
 */
import { posix } from 'node:path';
import { repositoryGlobsMatcher } from '../lifecycle-glob.js';
import { dirOf, MARKDOWN_EXT } from '../paths.js';
import {
  folderFrom,
  inside,
  isMapping,
  type Mapping,
  parseConfig,
  perListing,
  stringList,
  unreadableSite,
} from './read.js';
import type { Served, Site, SiteFiles, SiteModel } from './types.js';

interface Group {
  src: string;
  dest: string;
  match: (rel: string) => boolean;
}

function groups(dir: string, entries: unknown): Group[] | undefined {
  if (entries === undefined) return [];
  if (!Array.isArray(entries)) return undefined;
  const out: Group[] = [];
  for (const entry of entries.filter(isMapping) as Mapping[]) {
    const files = stringList(entry['files']);
    const src = folderFrom(dir, typeof entry['src'] === 'string' ? entry['src'] : '.');
    // Globs from the repository are matched in linear time; one outside that syntax leaves the
    // config unread (scan/lifecycle-glob.ts).
    const exclude = repositoryGlobsMatcher(stringList(entry['exclude']) ?? []);
    const include = files === undefined ? undefined : repositoryGlobsMatcher(files);
    if (include === undefined || exclude === undefined || src === undefined) return undefined;
    out.push({
      src,
      dest: typeof entry['dest'] === 'string' ? entry['dest'].replace(/^\/+|\/+$/g, '') : '',
      match: (rel) => include(rel) && !exclude(rel),
    });
  }
  return out;
}

const ROOTED = 'a site-rooted link into another doc set';

function read(file: string, text: string): Site | undefined {
  const dir = dirOf(file);
  const config = parseConfig(file, text);
  const build = config !== undefined && isMapping(config['build']) ? config['build'] : undefined;
  const content = build === undefined ? undefined : groups(dir, build['content']);
  const resource = build === undefined ? undefined : groups(dir, build['resource']);
  if (content === undefined || resource === undefined)
    return unreadableSite('docfx', file, [dir], `${file} has no plain build.content`);
  const groupOf = (list: Group[], path: string) =>
    list.find((g) => (g.src === '' || path.startsWith(`${g.src}/`)) && g.match(inside(path, g.src)));
  const pageUrl = (source: string): string | undefined => {
    if (!MARKDOWN_EXT.test(source)) return undefined;
    const g = groupOf(content, source);
    if (g === undefined) return undefined;
    return `/${posix.join(g.dest, inside(source, g.src).replace(MARKDOWN_EXT, '.html'))}`.toLowerCase();
  };
  const index = perListing((files: SiteFiles) => {
    const urls = new Map<string, string>();
    for (const f of files.files) {
      const url = pageUrl(f);
      if (url !== undefined && !urls.has(url)) urls.set(url, f);
      else if (url === undefined) {
        const g = groupOf(resource, f) ?? groupOf(content, f);
        if (g !== undefined) urls.set(`/${posix.join(g.dest, inside(f, g.src))}`.toLowerCase(), f);
      }
    }
    return urls;
  });
  const serves = (url: string, files: SiteFiles): Served => {
    const key = url.toLowerCase().replace(/\.md$/, '.html');
    const found = index(files).get(key) ?? index(files).get(`${key.replace(/\/$/, '')}/index.html`);
    return found !== undefined ? { path: found } : undefined;
  };
  return {
    generator: 'docfx',
    config: file,
    contentRoots: [...new Set(content.map((g) => g.src))],
    explicitIds: false,
    caseInsensitive: true,
    includeLine: /\[!INCLUDE\s*\[/i,
    includes: /\[!INCLUDE/i,
    fileLinks: true,
    pageUrl,
    serves,
    fileTarget: (_from, path, files) => {
      const spelled = files.spelled?.(path) ?? path;
      if (!files.isFile(spelled)) return undefined;
      return pageUrl(spelled) !== undefined ||
        groupOf(resource, spelled) !== undefined ||
        !MARKDOWN_EXT.test(spelled)
        ? { path: spelled }
        : undefined;
    },
    // `[Windows](#tab/windows)` names a tab of a tab group, not a heading.
    tabs: /^tab\//,
    alias: (path) => (path.startsWith('~/') ? posix.join(dir, path.slice(2)) : undefined),
    rooted: () => ({ unverifiable: ROOTED }),
    rootedBeside: ROOTED,
  };
}

export const docfx: SiteModel = {
  id: 'docfx',
  name: 'DocFX',
  isConfig: (file) => posix.basename(file) === 'docfx.json',
  read: (file, text) => read(file, text),
  source:
    'dotnet.github.io/docfx: “docfx.json reference” (build.content, resource, src, dest), “Links and cross references”',
};
