import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/**
 * This tool's folder under an XDG base directory: `$<variable>/sourcesteward` when the
 * variable holds an absolute path (the XDG spec ignores a relative one), else
 * `$HOME/<fallback>/sourcesteward`.
 */
export function xdgToolDir(
  env: NodeJS.ProcessEnv,
  variable: 'XDG_CONFIG_HOME' | 'XDG_STATE_HOME' | 'XDG_CACHE_HOME',
  fallback: string,
): string {
  const value = env[variable];
  const base =
    value !== undefined && value !== '' && isAbsolute(value)
      ? value
      : join(env['HOME'] !== undefined && env['HOME'] !== '' ? env['HOME'] : homedir(), fallback);
  return join(base, 'sourcesteward');
}
