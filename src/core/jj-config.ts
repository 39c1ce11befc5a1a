/**
 * jj 0.45 loads a repository's and a workspace's own config (`jj config set --repo` /
 * `--workspace`) whatever JJ_CONFIG says, and an alias there shadows the built-in of the
 * same name: `revset-aliases."bookmarks(x)"` changes what every revset stw passes means,
 * `template-aliases.empty` what it parses. jj has no switch to skip those layers, no
 * syntax that reaches past an alias to the built-in, and a `--config` layer can add
 * aliases but not remove one. Those configs are not in the repository: `.jj/repo/config-id`
 * (and `.jj/workspace-config-id`) name a directory under `$XDG_CONFIG_HOME/jj/repos/`
 * (`…/workspaces/`). So a query runs with XDG_CONFIG_HOME at a private, fresh directory
 * that holds, under the same ids, an empty config and empty metadata: jj then reads
 * empty configs and, taking the repository for moved, records that only there. Nothing
 * is written in the repository or in the user's config directory.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { RefusalError } from './errors.js';

const CONFIG_ID = /^[0-9a-f]{20}$/;

/** The workspace jj would find from `cwd`: the nearest ancestor with a `.jj` directory. */
function findWorkspace(cwd: string): string | null {
  let dir: string;
  try {
    dir = realpathSync(cwd);
  } catch {
    return null; // jj reports the missing directory itself
  }
  for (;;) {
    if (isDirectory(join(dir, '.jj'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** `.jj/repo`: the directory itself, or the one its pointer file names (as jj resolves it). */
function repoDirOf(jjDir: string): string | null {
  const repo = join(jjDir, 'repo');
  try {
    if (lstatSync(repo).isFile()) return realpathSync(resolve(jjDir, readFileSync(repo, 'utf8')));
    return repo;
  } catch {
    return null;
  }
}

/**
 * The config id a secure-config directory names, or null when it names none. A legacy
 * config file jj has not migrated yet refuses: jj would migrate it now, writing a new id
 * into the repository and a link to wherever the config home points.
 */
function configId(dir: string, idName: string, legacyName: string): string | null {
  const idPath = join(dir, idName);
  if (!existsSync(idPath)) {
    if (existsSync(join(dir, legacyName)))
      throw new RefusalError(
        'jj-config-unmigrated',
        `${join(dir, legacyName)} is a jj config file jj has not migrated yet; run any jj command in the repository once, then try again`,
      );
    return null;
  }
  const id = readFileSync(idPath, 'utf8');
  return CONFIG_ID.test(id) ? id : null;
}

/**
 * A private config home in which the repository and workspace that `cwd` is in have
 * empty configs; `remove()` deletes it. Null outside a jj workspace.
 */
export function emptyRepoConfigHome(cwd: string): { dir: string; remove: () => void } | null {
  const workspace = findWorkspace(cwd);
  if (workspace === null) return null;
  const jjDir = join(workspace, '.jj');
  const repoDir = repoDirOf(jjDir);
  const ids: [string, string | null][] = [
    ['workspaces', configId(jjDir, 'workspace-config-id', 'workspace-config.toml')],
    ['repos', repoDir === null ? null : configId(repoDir, 'config-id', 'config.toml')],
  ];
  const dir = mkdtempSync(join(tmpdir(), 'stw-jj-home-'));
  try {
    for (const [kind, id] of ids) {
      if (id === null) continue;
      const configDir = join(dir, 'jj', kind, id);
      mkdirSync(configDir, { recursive: true, mode: 0o700 });
      writeFileSync(join(configDir, 'config.toml'), '');
      writeFileSync(join(configDir, 'metadata.binpb'), '');
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
