import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STALE_NESTED } from '../../../../src/hygiene/scan/signals/stale-nested-context.js';
import { makeRepo } from '../../../helpers/git-repo.js';
import { brief, removeLater, scanDir, signalsOf } from '../helpers.js';

const LAYOUT = (extra = '') =>
  `# Package\n\n- \`src/agent/\`: sessions.\n- \`src/tools/\`: the tools.\n- \`src/config/\`: settings.\n${extra}`;

describe('stale_nested_context', () => {
  it('reports a nested file describing its folder, unedited while folders it does not name were added; not one kept up alongside', async () => {
    const repo = removeLater(makeRepo({ initialCommit: false }));
    const code = (pkg: string) => ({
      [`packages/${pkg}/src/agent/index.ts`]: 'export {};\n',
      [`packages/${pkg}/src/tools/index.ts`]: 'export {};\n',
      [`packages/${pkg}/src/config/index.ts`]: 'export {};\n',
    });
    repo.commit('packages', {
      'AGENTS.md': '# Agents\n',
      'packages/core/AGENTS.md': LAYOUT(),
      'packages/cli/AGENTS.md': LAYOUT(),
      // Coding rules name no folders: churn alone does not make them stale.
      'packages/web/AGENTS.md': '# Web\n\nPrefer small components.\n',
      ...code('core'),
      ...code('cli'),
    });
    repo.commit('core: sandbox, and assets beside src/ (a level the file does not map)', {
      'packages/core/src/sandbox/index.ts': 'export {};\n',
      'packages/core/assets/logo.svg': '<svg/>\n',
    });
    repo.commit('cli: sandbox, and its layout kept up', {
      'packages/cli/src/sandbox/index.ts': 'export {};\n',
      'packages/cli/AGENTS.md': LAYOUT('- `src/sandbox/`: the sandbox.\n'),
    });
    repo.commit('web: new folder', { 'packages/web/src/pages/index.ts': 'export {};\n' });
    for (let i = 1; i < STALE_NESTED.minCommitsSince; i++) {
      repo.commit(`churn ${i}`, {
        'packages/core/src/tools/index.ts': `export const v = ${i};\n`,
        'packages/cli/src/tools/index.ts': `export const v = ${i};\n`,
        'packages/web/src/pages/index.ts': `export const v = ${i};\n`,
      });
    }
    const artifact = await scanDir(repo.dir);
    const [signal, ...rest] = signalsOf(artifact, 'packages/core/AGENTS.md', 'stale_nested_context');
    assert.deepEqual(rest, []);
    assert.deepEqual(brief([signal!]), [
      {
        line: 1,
        data: {
          folder: 'packages/core/',
          last_commit: '2026-01-01T00:00:00Z',
          commits_since: STALE_NESTED.minCommitsSince,
          added_folders: ['packages/core/src/sandbox/'],
        },
      },
    ]);
    assert.equal(
      signal!.detail,
      `describes packages/core/ but was last edited 2026-01-01T00:00:00Z; since then ${STALE_NESTED.minCommitsSince} commits added packages/core/src/sandbox/, which it does not name`,
    );
    assert.deepEqual(signalsOf(artifact, 'packages/cli/AGENTS.md', 'stale_nested_context'), []);
    assert.deepEqual(signalsOf(artifact, 'packages/web/AGENTS.md', 'stale_nested_context'), []);
  });
});
