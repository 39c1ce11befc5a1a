import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { UsageError } from '../core/errors.js';
import { quote } from '../core/quote.js';
import { resolveProjectRoot } from '../hygiene/project.js';

/** A `--scope` given relative to cwd, as the root-relative glob or path the scanner takes. */
export function toRootScope(root: string, cwd: string, scope: string): string {
  const hasGlob = /[*?[\]{}]/.test(scope);
  if (hasGlob && !isAbsolute(scope)) {
    const rel = relative(root, cwd).split(sep).join('/');
    return rel === '' ? scope : `${rel}/${scope}`;
  }
  const inside = relative(root, isAbsolute(scope) ? scope : resolve(cwd, scope));
  if (inside.startsWith('..') || isAbsolute(inside)) {
    throw new UsageError(`scope ${quote(scope)} is outside the project root ${quote(root)}`);
  }
  return inside === '' ? '.' : inside.split(sep).join('/');
}

/**
 * The `--scope` values of a hygiene command, made root-relative. The cwd is resolved
 * through symlinks first, as the project root is, so the two compare.
 */
export async function rootScopes(cwd: string, scopes: readonly string[]): Promise<string[]> {
  if (scopes.length === 0) return [];
  const root = await resolveProjectRoot(cwd);
  const realCwd = await realpath(cwd);
  return scopes.map((scope) => toRootScope(root, realCwd, scope));
}
