/**
 * What a site model is: one generator's rules for which files it builds, at which URLs, and
 * what it serves at a URL. The engine (`index.ts`) is generic; adding a generator or correcting
 * a rule is an edit in that generator's module, nowhere else (docs/scanner-and-classifiers.md,
 * "Sites").
 */

/** Stable generator ids (in `data.site` and in reports). */
export const GENERATOR_IDS = [
  'hugo',
  'mdbook',
  'docusaurus',
  'mkdocs',
  'vitepress',
  'jekyll',
  'starlight',
  'docfx',
] as const;
export type GeneratorId = (typeof GENERATOR_IDS)[number];

/** What a model may read of the project's files while routing. */
export interface SiteFiles {
  /** A file (not a folder) at this root-relative path. */
  isFile(path: string): boolean;
  /** Every listed file, root-relative (indexes are built from it once per listing). */
  readonly files: readonly string[];
  /** A doc's frontmatter, when it is a doc the scan read. */
  frontmatter(path: string): Record<string, unknown> | undefined;
  /** A doc's lines, when it is a doc the scan read (a model finds what pages include from them). */
  lines?(path: string): readonly string[] | undefined;
  /** The listed spelling of a path looked up regardless of case (DocFX), when the lookup is caseless. */
  spelled?(path: string): string | undefined;
}

/** What a model may read while it reads its config. */
export interface ConfigContext {
  files: readonly string[];
  listed: ReadonlySet<string>;
  /** Another file's text (a config split over files), undefined when it cannot be read. */
  read(path: string): string | undefined;
}

/** What a site serves at a URL: a file of the repository, or a doubt the model cannot settle. */
export type Served = { path: string } | { unverifiable: string } | undefined;

/** One site: a generator's config read, with the rules it sets. */
export interface Site {
  generator: GeneratorId;
  /** The config file it was read from (root-relative). */
  config: string;
  /**
   * The folders whose Markdown the site builds as pages (root-relative, '' for the root):
   * a doc under one is a page source.
   */
  contentRoots: readonly string[];
  /**
   * Folders laid out as the generator's content that the config builds no page from (a
   * Docusaurus `versioned_docs/version-X/` whose version `versions.json` does not list), and
   * why: their docs are dead copies, read neither on the site nor, with site-style links, on GitHub.
   */
  unbuilt?: { dirs: readonly string[]; why: string };
  /** Set when the model cannot settle any link in the site (a config it cannot read), with why. */
  unreadable?: string;
  /**
   * Set when the site's routing is not fully settled (a theme, a plugin or a computed setting
   * may serve routes the model does not know), with why: a target it does not find is
   * unverifiable, not broken, and no `/`-rooted or static-asset fix is auto.
   */
  unsettled?: string;
  /** Headings' explicit `{#id}` name anchors on the site (GitHub ignores them). */
  explicitIds: boolean;
  /** Definition terms get ids from their text (Hugo's Goldmark `autoDefinitionTermID`). */
  termIds?: boolean;
  /**
   * What, on a page, brings in text the model does not read (a shortcode, an include, a
   * component): a fragment the page's own headings lack may be set there, so it is unverifiable.
   */
  includes?: { test(line: string): boolean };
  /**
   * The anchors the generator gives a page's headings where it names them its own way (its
   * slug function, its attribute syntax), beside GitHub's slugs and `{#id}`.
   */
  headingIds?(lines: readonly string[]): Set<string>;
  /**
   * Why `fragment`, which no anchor the model knows names, may still be on the page (a custom
   * slug function may name a heading without an explicit id so); undefined when it cannot be.
   */
  anchorsUnsettled?(lines: readonly string[], fragment: string): string | undefined;
  /**
   * Whether a doc the site builds no page from is text it puts into pages (a partial a page
   * includes, an Astro Markdown component): it is read on the site, from the page that embeds
   * it, so its `/`-rooted links are settled and its relative links and bare fragments are not.
   */
  embedded?(doc: string, files: SiteFiles): boolean;
  /**
   * Why a `/`-rooted link in any doc beside the config (a page or a file a build step converts,
   * as DocFX's reference Markdown) cannot be settled, where the model can say so for all of them.
   */
  rootedBeside?: string;
  /** Fragments that select something other than an anchor (DocFX's `#tab/windows` picks a tab): they resolve. */
  tabs?: RegExp;
  /** A line that includes a file (DocFX's `[!INCLUDE [x](path)]`): its link is a path from the source file. */
  includeLine?: RegExp;
  /** Why such a fragment is unverifiable, where it is not the includes' (a hook may rewrite every page). */
  includesWhy?: string;
  /** How the generator writes a heading's slug, from GitHub's (MkDocs collapses `--`). */
  anchorForm?(anchor: string): string;
  /** Routes are matched regardless of case (DocFX). */
  caseInsensitive?: boolean;
  /**
   * Whether a relative link to a file is read as a path from the page's source file (the
   * generator rewrites `x.md` to the page's URL and copies assets), not as a URL from the page's.
   */
  fileLinks: boolean;
  /** With `fileLinks`: false when a link to a Markdown source is not rewritten (Astro reads it as a URL). */
  markdownLinks?: false;
  /** The URL (site-relative, starting with `/`) the site serves the page `source` at; undefined for no page. */
  pageUrl(source: string, files: SiteFiles): string | undefined;
  /**
   * A link the generator resolves as a source file before reading it as a URL (Docusaurus looks
   * `x.md` and `/x.md` up in the doc's content folder, the site's folder, then beside the doc):
   * the file it reaches, or undefined to read the link as usual.
   */
  sourceLink?(from: string, path: string, files: SiteFiles): Served;
  /** A path written with a module alias (`@site/…`, DocFX's `~/…`) as the root-relative file it names. */
  alias?(path: string): string | undefined;
  /**
   * A `/`-rooted link as a site-relative URL (the site served under a base path strips it), or
   * why it cannot be settled; absent: read from the site's root as written.
   */
  rooted?(path: string): string | { unverifiable: string };
  /**
   * The source file a build would serve a `/`-rooted `url` from, asked when nothing serves it:
   * a file git ignores there is a build output (a generated API page), not a broken link.
   */
  expected?(url: string): string | undefined;
  /**
   * The site is served at its domain's root (MkDocs' `site_url` has no path): a relative URL
   * that climbs above it stays there, as a browser resolves it, instead of leaving the site.
   */
  rootClamps?: boolean;
  /** What the site serves at `url` (site-relative, decoded, starting with `/`, no query or fragment). */
  serves(url: string, files: SiteFiles, from: string): Served;
  /**
   * A relative link to `path` (read from the source file `from`) in a generator that rewrites
   * file links: the file the site serves for it, or undefined to read it as written (a page the
   * site builds, or a file beside its pages). A model with fallbacks (translations, versions) says more.
   */
  fileTarget?(from: string, path: string, files: SiteFiles): Served;
  /**
   * A link written with the generator's template syntax as the site writes it out (Jekyll's
   * `{{ site.baseurl }}` is the base path, empty for a site the model reads); what is left of
   * the syntax is a doubt.
   */
  expand?(written: string): string;
  /**
   * Why a link written in `from` cannot be settled before any routing (a shortcode, a link into
   * another doc set); undefined when it can.
   */
  doubt?(written: string, from: string): string | undefined;
}

/** One generator: how its config is found and read. */
export interface SiteModel {
  id: GeneratorId;
  /** The generator's name, for reports. */
  name: string;
  /** Whether a listed file is this generator's config. */
  isConfig(file: string, files: ReadonlySet<string>): boolean;
  /** The site a config sets up (its `unreadable` set when it cannot be modelled), or undefined for none. */
  read(file: string, text: string, context: ConfigContext): Site | undefined;
  /** Where its rules come from (the generator's documentation). */
  source: string;
}
