import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brief, fixtureRepo, scanDir, signalsOf } from '../helpers.js';

describe('edit_recency_vs_churn', () => {
  it('fires when the code a doc references changed many times since the doc', async () => {
    const repo = fixtureRepo({
      'docs/engine.md': '# Engine\n\nThe engine lives in [engine.ts](../src/engine.ts).\n',
      'src/engine.ts': 'export const v = 0;\n',
    });
    for (let i = 1; i <= 10; i++) repo.commit(`engine ${i}`, { 'src/engine.ts': `export const v = ${i};\n` });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'docs/engine.md', 'edit_recency_vs_churn')), [
      {
        line: undefined,
        data: {
          last_commit: '2026-01-01T00:00:00Z',
          commits_since: 10,
          referenced_paths: ['src/engine.ts'],
        },
      },
    ]);
  });

  it("leaves a doc whose references are an example project's files (a book's listings/)", async () => {
    const repo = fixtureRepo({
      'src/ch07-modules.md':
        '# Modules\n\nSee [lib.rs](../listings/ch07/src/lib.rs) and [the example](../examples/app/main.rs).\n',
      'listings/ch07/src/lib.rs': 'pub fn v() -> u32 { 0 }\n',
      'examples/app/main.rs': 'fn main() {}\n',
    });
    for (let i = 1; i <= 10; i++)
      repo.commit(`listing ${i}`, {
        'listings/ch07/src/lib.rs': `pub fn v() -> u32 { ${i} }\n`,
        'examples/app/main.rs': `fn main() { let _ = ${i}; }\n`,
      });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(signalsOf(artifact, 'src/ch07-modules.md', 'edit_recency_vs_churn'), []);
  });
});
