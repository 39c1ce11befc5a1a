/**
 * `stale_nested_context`: an agent-context file in a subfolder (`packages/x/AGENTS.md`,
 * `src/GEMINI.md`) that describes its folder's layout — it names at least
 * `STALE_NESTED.minNamed` of the folder's sub-folders — and was not edited while folders
 * were added beside those it names (two or more named in the same parent): its picture of
 * the package is older than the package.
 * Churn alone is no evidence (a file of coding rules holds however much the code changes),
 * so the signal needs the added folders; it reports the commits since as context.
 * Per file (at most `MAX_LOOKUPS`): the file's last commit, the folders at that commit
 * (`git ls-tree`), and the commits under the folder since (`git rev-list --count`).
 */
import { formatInstant } from '../../../core/clock.js';
import { git } from '../../../core/git.js';
import { baseOf, dirOf, escapeRegExp } from '../paths.js';
import type { ProjectTree } from '../walk.js';
import { contextDocs } from './context-files.js';
import type { SignalModule } from './types.js';

export const STALE_NESTED = {
  /** Sub-folders the file must name to count as describing its folder's layout. */
  minNamed: 3,
  /** Commits under the folder since the file's last commit. */
  minCommitsSince: 25,
} as const;

const MAX_LOOKUPS = 40;
const FOLDER_FILE = /^(?:CLAUDE|AGENTS|GEMINI)(?:\.local|\.override)?\.md$/;
/** Folders a layout description leaves out by design (tests, fixtures, build output). */
const NOT_DESCRIBED =
  /(?:^|\/)(?:__\w+__|\.[^/]*|tests?|test[-_]utils|testdata|fixtures?|mocks?|snapshots?|dist|build|out|target|node_modules|vendor|generated|examples?)(?:\/|$)/;

async function gitText(root: string, args: string[]): Promise<string | undefined> {
  const result = await git(args, { cwd: root });
  return result.kind === 'exited' && result.code === 0 ? result.stdout.toString('utf8') : undefined;
}

/** Commits under `folder` after `since` (seconds), the file itself excluded, or undefined. */
async function commitsUnder(root: string, folder: string, since: number, file: string) {
  const out = await gitText(root, [
    'rev-list',
    '--count',
    `--since=${formatInstant(new Date((since + 1) * 1000))}`,
    'HEAD',
    '--',
    `:(literal)${folder}`,
    `:(exclude,literal)${file}`,
  ]);
  const n = out === undefined ? Number.NaN : Number.parseInt(out.trim(), 10);
  return Number.isFinite(n) ? n : undefined;
}

/** Folders under `folder` (two levels deep, root-relative) that hold listed files now. */
function foldersNow(tree: ProjectTree, folder: string): string[] {
  const prefix = `${folder}/`;
  return [...tree.dirSet].filter(
    (d) => d.startsWith(prefix) && d.slice(prefix.length).split('/').length <= 2,
  );
}

/** Whether `text` names folder `dir` (root-relative) as a path: `src/tools/`, `` `tools/` `` one level down. */
function names(text: string, dir: string, folder: string): boolean {
  const rel = dir.slice(folder.length + 1);
  const name = rel.slice(rel.lastIndexOf('/') + 1);
  const asPath = (p: string) => new RegExp(`(?<![\\w.@/-])${escapeRegExp(p)}(?:/|\`)`).test(text);
  // A bare `name/` names a folder directly under the file's folder only (`runs/` is no
  // name for `docs/management/runs/`).
  return asPath(rel) || asPath(dir) || (rel === name && text.includes(`\`${name}/\``));
}

/**
 * Folders added under `folder` since (not in `existed`) that `text` does not name, beside
 * at least two folders it does name (so the file maps that level), a new folder inside a
 * new folder counted once, folders a description leaves out by design aside.
 */
function addedUnnamed(
  tree: ProjectTree,
  text: string,
  folder: string,
  existed: ReadonlySet<string>,
): string[] {
  const now = foldersNow(tree, folder);
  const namedUnder = new Map<string, number>();
  for (const d of now)
    if (names(text, d, folder)) namedUnder.set(dirOf(d), (namedUnder.get(dirOf(d)) ?? 0) + 1);
  return now
    .filter((d) => !existed.has(d) && !NOT_DESCRIBED.test(d) && !names(text, d, folder))
    .filter((d) => (namedUnder.get(dirOf(d)) ?? 0) >= 2)
    .filter((d, _, all) => !all.some((o) => o !== d && d.startsWith(`${o}/`)))
    .sort();
}

export const staleNestedContext: SignalModule = {
  name: 'stale_nested_context',
  scope: 'agent-context',
  description: `an agent-context file in a subfolder that names ${STALE_NESTED.minNamed}+ of its sub-folders, unedited while folders it does not name were added`,
  shownByDefault: true,
  needs: ['history'],
  async collect({ facts, whoLoads, history }, emit) {
    const { tree } = facts;
    const incomplete = new Set(history.incomplete.map((h) => h.path));
    const nested = contextDocs(facts, whoLoads)
      .filter(
        (doc) => FOLDER_FILE.test(baseOf(doc.path)) && dirOf(doc.path) !== '' && !incomplete.has(doc.path),
      )
      .filter((doc) => {
        const folder = dirOf(doc.path);
        return (
          foldersNow(tree, folder).filter((d) => names(doc.text, d, folder)).length >= STALE_NESTED.minNamed
        );
      })
      .slice(0, MAX_LOOKUPS);
    for (const doc of nested) {
      const folder = dirOf(doc.path);
      const head = (
        await gitText(tree.root, ['log', '-1', '--format=%H%x09%ct', 'HEAD', '--', `:(literal)${doc.path}`])
      )?.trim();
      const [commit, time] = head?.split('\t') ?? [];
      if (commit === undefined || commit === '' || time === undefined) continue;
      const then = await gitText(tree.root, [
        'ls-tree',
        '-r',
        '-d',
        '--name-only',
        commit,
        '--',
        `${folder}/`,
      ]);
      if (then === undefined) continue;
      const existed = new Set(then.split('\n').filter((l) => l !== ''));
      const added = addedUnnamed(tree, doc.text, folder, existed);
      if (added.length === 0) continue;
      const since = await commitsUnder(tree.root, folder, Number(time), doc.path);
      if (since === undefined || since < STALE_NESTED.minCommitsSince) continue;
      const when = formatInstant(new Date(Number(time) * 1000));
      emit(doc.path, {
        line: 1,
        detail: `describes ${folder}/ but was last edited ${when}; since then ${since} commits added ${added.map((d) => `${d}/`).join(', ')}, which it does not name`,
        data: {
          folder: `${folder}/`,
          last_commit: when,
          commits_since: since,
          added_folders: added.map((d) => `${d}/`),
        },
      });
    }
  },
};
