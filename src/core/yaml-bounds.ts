/**
 * How much YAML (or TOML) from a repository is parsed at all. The `yaml` library spends about 5 µs and
 * several hundred bytes of memory per byte of flow collections (`- []` repeated): a 3.9 MB
 * frontmatter held `check` for a minute and took 3 GB, a 2 MB `mkdocs.yml` 63 s and 2.6 GB.
 * Real ones are far below these bounds; a larger one is read as YAML that does not parse.
 */

/** A configuration file: `.dochygiene.yml`, the user's config, a site generator's YAML config. */
export const YAML_CONFIG_LIMIT = 256 * 1024;

/** A doc's frontmatter (and a layout's, as Jekyll reads it). */
export const YAML_FRONTMATTER_LIMIT = 64 * 1024;

/** True when `text` is over `limit` bytes of UTF-8. */
export function overYamlLimit(text: string, limit: number): boolean {
  return text.length > limit || Buffer.byteLength(text, 'utf8') > limit;
}
