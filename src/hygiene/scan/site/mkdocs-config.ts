/**
 * How MkDocs finds and reads its config (mkdocs.org, "Configuration": `--config-file`,
 * `INHERIT`). The config is `mkdocs.yml` (or `.yaml`); a project that builds with `mkdocs build
 * --config-file mkdocs-online.yml` and has no `mkdocs.yml` (Textualize/textual) keeps its site
 * in a variant `mkdocs-NAME.yml` (`mkdocs.NAME.yml`, `mkdocs_NAME.yml`). `INHERIT: parent.yml`
 * deep-merges the child over the parent as mkdocs/utils/yaml.py does (mergedeep's replace:
 * mappings merge key by key, any other value the child sets replaces the parent's). Also the
 * two plugins that change which files are built or embedded: mkdocs-exclude (`exclude:` `glob`)
 * and pymdownx.snippets (`--8<-- "path"` puts a file's text into a page).
 */
import { posix } from 'node:path';
import { repositoryGlobsMatcher } from '../lifecycle-glob.js';
import { dirOf } from '../paths.js';
import { folderFrom, isMapping, type Mapping, parseConfig, perListing, stringList } from './read.js';
import type { ConfigContext, SiteFiles } from './types.js';

const MAIN = /(^|\/)mkdocs\.ya?ml$/;
const VARIANT = /(^|\/)mkdocs[-_.][^/]+\.ya?ml$/;
/** How deep an `INHERIT` chain is followed (MkDocs follows any; a cycle never ends there). */
const MAX_INHERIT = 8;

/** Whether a listed file is a MkDocs config: `mkdocs.yml`, or a variant in a folder without one. */
export function isMkdocsConfig(file: string, listed: ReadonlySet<string>): boolean {
  if (MAIN.test(file)) return true;
  if (!VARIANT.test(file)) return false;
  const dir = dirOf(file);
  const prefix = dir === '' ? '' : `${dir}/`;
  return !listed.has(`${prefix}mkdocs.yml`) && !listed.has(`${prefix}mkdocs.yaml`);
}

/** `own` over `base`, as mergedeep's replace strategy merges an `INHERIT`ing config. */
function merged(base: Mapping, own: Mapping): Mapping {
  const out: Mapping = { ...base };
  for (const [key, value] of Object.entries(own)) {
    const under = out[key];
    out[key] = isMapping(under) && isMapping(value) ? merged(under, value) : value;
  }
  return out;
}

/** The file an `INHERIT` names (from the config's folder), undefined when none or outside. */
function parentOf(file: string, config: Mapping): string | undefined {
  const parent = config['INHERIT'];
  return typeof parent === 'string' ? folderFrom(dirOf(file), parent) : undefined;
}

/** The config as MkDocs reads it, its `INHERIT` chain merged in; a string says why it cannot be read. */
export function loadMkdocsConfig(
  file: string,
  text: string,
  context: ConfigContext,
  depth = 0,
): Mapping | string {
  const config = parseConfig(file, text);
  if (config === undefined) return `${file} does not parse`;
  if (!('INHERIT' in config)) return config;
  const parent = parentOf(file, config);
  if (parent === undefined) return `${file} inherits a config that is not a path in the repository`;
  if (depth >= MAX_INHERIT) return `${file} inherits through more than ${MAX_INHERIT} configs`;
  const parentText = context.read(parent);
  if (parentText === undefined) return `${file} inherits ${parent}, which is not in the tree`;
  const base = loadMkdocsConfig(parent, parentText, context, depth + 1);
  if (typeof base === 'string') return base;
  const { INHERIT: _inherit, ...own } = config;
  return merged(base, own);
}

/**
 * Whether `file` is the config the model reads for its folder: `mkdocs.yml` always; of the
 * variants of a folder without one, the site a build makes: not a base another variant
 * `INHERIT`s (`mkdocs-common.yml`), not a fragment without `site_name` (`mkdocs-nav.yml`),
 * the one that sets `site_url` (the published site, not an offline build) first, then by name.
 */
export function isChosenConfig(file: string, context: ConfigContext): boolean {
  if (MAIN.test(file)) return true;
  const dir = dirOf(file);
  const variants = context.files.filter((f) => dirOf(f) === dir && VARIANT.test(f)).sort();
  const bases = new Set<string>();
  const sites: { file: string; published: boolean }[] = [];
  for (const variant of variants) {
    const text = context.read(variant);
    if (text === undefined) continue;
    const own = parseConfig(variant, text);
    const parent = own === undefined ? undefined : parentOf(variant, own);
    if (parent !== undefined) bases.add(parent);
    const config = loadMkdocsConfig(variant, text, context);
    if (typeof config !== 'string' && typeof config['site_name'] === 'string')
      sites.push({ file: variant, published: typeof config['site_url'] === 'string' });
  }
  const built = sites.filter((s) => !bases.has(s.file));
  return (built.find((s) => s.published) ?? built[0])?.file === file;
}

/**
 * mkdocs-exclude's `glob` patterns (fnmatch on the docs-relative path, `*` crossing `/`) as a
 * matcher; a string when a pattern is outside what reads the same in the linear-time matcher
 * (a `*` inside a segment but the last one's leading `*`) or the plugin sets `regex` (a
 * repository's regex is not run here: it may take exponential time).
 */
export function excludePlugin(options: Mapping | undefined): ((rel: string) => boolean) | string {
  if (options === undefined) return () => false;
  if (options['regex'] !== undefined && options['regex'] !== null)
    return 'the exclude plugin sets regex patterns';
  const written =
    options['glob'] === undefined || options['glob'] === null ? [] : stringList(options['glob']);
  if (written === undefined) return "the exclude plugin's glob is not a list of patterns";
  const globs: string[] = [];
  for (const pattern of written) {
    const segments = pattern.replace(/^\/+/, '').split('/');
    const last = segments.length - 1;
    const converted = segments.map((segment, i) =>
      /^\*+$/.test(segment)
        ? '**'
        : !segment.includes('*')
          ? segment
          : i === last && /^\*[^*]+$/.test(segment)
            ? `**/${segment}`
            : undefined,
    );
    if (converted.includes(undefined)) return `the exclude plugin's glob ${pattern} is not read for sure`;
    globs.push(converted.join('/'));
  }
  const matches = repositoryGlobsMatcher(globs);
  return matches ?? "a pattern of the exclude plugin's glob is outside the glob syntax the model reads";
}

/**
 * The files pymdownx.snippets puts into the pages a site builds (`--8<-- "path"`, a path from
 * one of its `base_path` folders, by default the folder `mkdocs` runs in: the config's), read
 * once per tree. A snippet's `:3:10` line range or `;` section is no part of its path.
 */
export function snippetsOf(
  configDir: string,
  options: Mapping,
  built: (source: string) => boolean,
): (files: SiteFiles) => Set<string> {
  const bases = (stringList(options['base_path']) ?? ['.']).flatMap((b) => folderFrom(configDir, b) ?? []);
  return perListing((files) => {
    const included = new Set<string>();
    for (const page of files.files) {
      if (!built(page)) continue;
      for (const line of files.lines?.(page) ?? []) {
        const written = /^\s*-{1,}8<-{1,}\s+(?:"([^"]+)"|'([^']+)'|(\S+))/.exec(line);
        const path = (written?.[1] ?? written?.[2] ?? written?.[3])?.replace(/(?::\d*)+$|;.*$/, '');
        if (path === undefined) continue;
        for (const base of bases) {
          const file = posix.normalize(posix.join(base, path));
          if (files.isFile(file)) included.add(file);
        }
      }
    }
    return included;
  });
}

/** pymdownx.snippets' options when the config lists it among its `markdown_extensions`, else undefined. */
export function snippetsOptions(config: Mapping): Mapping | undefined {
  const extensions = config['markdown_extensions'];
  const entries = Array.isArray(extensions) ? extensions : isMapping(extensions) ? [extensions] : [];
  let found: Mapping | undefined;
  for (const entry of entries) {
    if (entry === 'pymdownx.snippets') found ??= {};
    else if (isMapping(entry) && 'pymdownx.snippets' in entry) {
      const options = entry['pymdownx.snippets'];
      found = isMapping(options) ? options : {};
    }
  }
  return found;
}
