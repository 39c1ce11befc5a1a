/**
 * The classifier's real output through the applier: for every classifier golden, a fresh
 * `check` on its input, then `clean` with every confirm entry approved. Every
 * deterministic entry must apply (none skipped for a guard, a missing match or a
 * conflict), the commit must have the SPEC shape, and a second check must not propose
 * the same fixes again.
 */
import assert from 'node:assert/strict';
import { cpSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fixedClock } from '../../../src/core/clock.js';
import { clean } from '../../../src/hygiene/apply/clean.js';
import { runCheck } from '../../../src/hygiene/check.js';
import { makeRepo, testEnv } from '../../helpers/git-repo.js';
import { FIXTURES } from '../../helpers/paths.js';

const GOLDEN = join(FIXTURES, 'classifier');
const clock = fixedClock('2026-02-01T00:00:00Z');
const env = testEnv();

const cases = readdirSync(GOLDEN, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe('clean applies what the rules classifier proposes', () => {
  for (const name of cases) {
    it(name, async () => {
      const repo = makeRepo({ initialCommit: false });
      try {
        cpSync(join(GOLDEN, name, 'input'), repo.dir, { recursive: true });
        repo.git(['add', '-A']);
        repo.commit('fixture', {}, { date: '2026-01-15T00:00:00Z' });
        const start = repo.head();
        const checked = await runCheck({ cwd: repo.dir, clock });
        const entries = checked.report.entries;
        assert.ok(entries.length > 0, 'the golden should produce entries');
        const approve = entries.filter((e) => e.safety_tier === 'confirm').map((e) => e.id);
        const result = await clean({ cwd: repo.dir, approve, clock, env });

        const deterministic = entries.filter((e) => e.op_type === 'deterministic');
        for (const entry of result.entries) {
          if (entry.kind === 'generative') assert.equal(entry.outcome, 'needs-model');
          else
            assert.ok(
              entry.outcome === 'applied' || entry.outcome === 'unchanged',
              `${entry.id}: ${entry.outcome} ${entry.reason}`,
            );
        }
        if (deterministic.length === 0) {
          assert.equal(repo.head(), start);
          return;
        }
        assert.equal(repo.git(['rev-parse', 'HEAD~1']), start);
        assert.match(
          repo.git(['log', '-1', '--format=%B']),
          /^docs: hygiene cleanup \(\d+ edits? across \d+ files?\)\n\nAuto: \d+ \(replace-text ×\d+, freeze ×\d+, delete ×\d+\)\nConfirmed: \d+ \(move-to-archive ×\d+, replace-text ×\d+, freeze ×\d+, delete ×\d+, delete-range ×\d+, dedupe ×\d+, distill ×\d+, split ×\d+\)\nSkipped \(re-analysis recommended\): \d+\n$/,
        );
        assert.equal(repo.git(['status', '--porcelain', '--untracked-files=no']), '');
        // The fixes hold: a fresh check proposes none of the applied deterministic edits again.
        const again = await runCheck({ cwd: repo.dir, clock });
        const key = (e: { path: string; exact_edit?: { kind: string } }) => `${e.path} ${e.exact_edit?.kind}`;
        const before = new Set(deterministic.map(key));
        const repeated = again.report.entries.filter(
          (e) => e.op_type === 'deterministic' && before.has(key(e)),
        );
        assert.deepEqual(repeated.map(key), []);
      } finally {
        repo.cleanup();
      }
    });
  }
});
