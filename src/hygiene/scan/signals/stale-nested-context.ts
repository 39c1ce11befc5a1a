/**
 * `stale_nested_context`: an agent-context file in a subfolder (`packages/x/AGENTS.md`,
 * `src/GEMINI.md`) that has not been edited while the folder it describes took many
 * commits since: its instructions were written for a package that has since changed.
 * Counts `git rev-list` commits under the file's folder after the file's last commit (one
 * call per file, for at most `MAX_LOOKUPS` files); it fires at
 * `STALE_NESTED.minCommitsSince` commits when the file itself has at most
 * `STALE_NESTED.maxOwnCommits` commits (written once and left), or at
 * `STALE_NESTED.minCommitsSinceMaintained` when it was maintained earlier.
 */
import { formatInstant } from '../../../core/clock.js';
import { git } from '../../../core/git.js';
import { baseOf, dirOf } from '../paths.js';
import { contextDocs } from './context-files.js';
import type { SignalModule } from './types.js';

export const STALE_NESTED = {
  minCommitsSince: 50,
  maxOwnCommits: 2,
  minCommitsSinceMaintained: 150,
} as const;

const MAX_LOOKUPS = 40;
const FOLDER_FILE = /^(?:CLAUDE|AGENTS|GEMINI)(?:\.local|\.override)?\.md$/;

/** Commits under `folder` after `since` (seconds), the file itself excluded, or undefined. */
async function commitsUnder(root: string, folder: string, since: number, file: string) {
  const result = await git(
    [
      'rev-list',
      '--count',
      `--since=${formatInstant(new Date((since + 1) * 1000))}`,
      'HEAD',
      '--',
      `:(literal)${folder}`,
      `:(exclude,literal)${file}`,
    ],
    { cwd: root },
  );
  if (result.kind !== 'exited' || result.code !== 0) return undefined;
  const n = Number.parseInt(result.stdout.toString('utf8').trim(), 10);
  return Number.isFinite(n) ? n : undefined;
}

export const staleNestedContext: SignalModule = {
  name: 'stale_nested_context',
  description: `an agent-context file in a subfolder left unedited while its folder took ${STALE_NESTED.minCommitsSince}+ commits`,
  needs: ['history'],
  async collect({ facts, whoLoads, history }, emit) {
    const incomplete = new Set(history.incomplete.map((h) => h.path));
    const nested = contextDocs(facts, whoLoads)
      .filter((doc) => dirOf(doc.path) !== '' && !doc.path.startsWith('.') && !incomplete.has(doc.path))
      // A file an agent loads for its folder (not a rules file, not an imported page).
      .filter((doc) => FOLDER_FILE.test(baseOf(doc.path)))
      .slice(0, MAX_LOOKUPS);
    for (const doc of nested) {
      const last = history.lastCommit.get(doc.path);
      const own = history.growth.get(doc.path)?.commits;
      if (last === undefined || own === undefined) continue;
      const folder = dirOf(doc.path);
      const since = await commitsUnder(facts.tree.root, folder, last, doc.path);
      if (since === undefined) continue;
      const floor =
        own <= STALE_NESTED.maxOwnCommits
          ? STALE_NESTED.minCommitsSince
          : STALE_NESTED.minCommitsSinceMaintained;
      if (since < floor) continue;
      const when = formatInstant(new Date(last * 1000));
      emit(doc.path, {
        line: 1,
        detail: `${since} commits to ${folder}/ since this file was last edited (${when}; ${own} commit${own === 1 ? '' : 's'} to it in all): check it still describes the folder`,
        data: { folder: `${folder}/`, last_commit: when, commits_since: since, own_commits: own },
      });
    }
  },
};
