/**
 * Classifier goldens (SPEC §2.6, seed D7): each `test/fixtures/classifier/<n>-<name>/`
 * holds an `input/` tree, the expected report (`expected.json`) and `notes.md`. Hermetic:
 * no network and no model. For each case this asserts (1) the scanner emits the
 * expected signals on `input/`, (2) `stw hygiene validate expected.json` exits 0, (2b)
 * where a case has `declined.json`, the rules classifier declines exactly those signals
 * for exactly those reasons, and (3) a fresh `check` matches the stable fields of `expected.json` — class, subtype,
 * op_type, kind and the derived tier. Op prose and anchors are advisory: a difference is
 * reported as a diagnostic for a person to review, not a failure.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fixedClock } from '../../../src/core/clock.js';
import { runCheck } from '../../../src/hygiene/check.js';
import { gatherClassifierFacts } from '../../../src/hygiene/classify/facts.js';
import { classifyWithRules } from '../../../src/hygiene/classify/rules.js';
import { loadConfig } from '../../../src/hygiene/config.js';
import { scan } from '../../../src/hygiene/scan/index.js';
import type { Entry, Report } from '../../../src/hygiene/types.js';
import { runCli } from '../../helpers/cli.js';
import { makeRepo } from '../../helpers/git-repo.js';
import { FIXTURES } from '../../helpers/paths.js';

const GOLDEN = join(FIXTURES, 'classifier');
const NOW = '2026-02-01T00:00:00Z';

const stable = (e: Entry) => ({
  path: e.path,
  class: e.category.class,
  subtype: e.category.subtype,
  op_type: e.op_type,
  kind: e.exact_edit?.kind ?? null,
  safety_tier: e.safety_tier,
});

const cases = readdirSync(GOLDEN, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe('classifier goldens', () => {
  it('cover the five required subtype → kind mappings, each a distinct kind', () => {
    const seen = cases.map((name) => {
      const expected = JSON.parse(readFileSync(join(GOLDEN, name, 'expected.json'), 'utf8')) as Report;
      return expected.entries.map((e) => `${e.category.subtype}→${e.exact_edit?.kind ?? 'generative'}`);
    });
    const all = new Set(seen.flat());
    for (const mapping of [
      'orphaned→delete-range',
      'superseded→move-to-archive',
      'completed-in-place→insert-frontmatter',
      'duplicated→dedupe',
      'distill→generative',
    ]) {
      assert.ok(all.has(mapping), `no golden covers ${mapping}`);
    }
  });

  for (const name of cases) {
    it(name, async (t) => {
      const dir = join(GOLDEN, name);
      const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Report;
      const repo = makeRepo({ initialCommit: false });
      try {
        cpSync(join(dir, 'input'), repo.dir, { recursive: true });
        repo.git(['add', '-A']);
        repo.commit('fixture', {}, { date: '2026-01-15T00:00:00Z' });

        // (1) the scanner's signals on input/
        const artifact = await scan({ root: repo.dir, config: await loadConfig(repo.dir) });
        for (const entry of expected.entries) {
          // A dedupe may edit the copy the scanner called canonical: its signal is on the other.
          const actual =
            entry.exact_edit?.kind === 'dedupe'
              ? Object.values(artifact.signals).flat()
              : (artifact.signals[entry.path] ?? []);
          for (const signal of entry.signals) {
            assert.ok(
              actual.some((s) => JSON.stringify(s) === JSON.stringify(signal)),
              `${entry.path}: the scanner no longer emits ${JSON.stringify(signal)}`,
            );
          }
        }
        assert.deepEqual(artifact.shortlist, expected.shortlist);

        // (2) the expected report is valid; its scan.project_root is "input", so from the case
        // folder its anchors are also checked against the files in input/
        const validated = await runCli(['hygiene', 'validate', 'expected.json', '--json'], { cwd: dir });
        assert.equal(validated.code, 0, validated.stdout + validated.stderr);
        assert.match(String(JSON.parse(validated.stdout).lines_checked_against), /input$/);

        // (2b) the signals the rules decline on purpose, each with its reason (declined.json)
        const declinedFile = join(dir, 'declined.json');
        if (existsSync(declinedFile)) {
          const config = await loadConfig(repo.dir);
          const read = (path: string) => readFileSync(join(repo.dir, path), 'utf8');
          const declined: { path: string; line: number | undefined; reason: string }[] = [];
          classifyWithRules(artifact, config, read, () => false, {
            ...(await gatherClassifierFacts(artifact, read)),
            onDeclined: (path, signal, reason) => declined.push({ path, line: signal.line, reason }),
          });
          assert.deepEqual(declined, JSON.parse(readFileSync(declinedFile, 'utf8')));
        }

        // (3) a fresh check agrees on the stable fields
        const result = await runCheck({ cwd: repo.dir, clock: fixedClock(NOW) });
        assert.deepEqual(result.report.entries.map(stable), expected.entries.map(stable));
        result.report.entries.forEach((entry, i) => {
          const want = expected.entries[i]!;
          const { expected_sha256: _a, ...gotEdit } = entry.exact_edit ?? {};
          const { expected_sha256: _b, ...wantEdit } = want.exact_edit ?? {};
          if (entry.op !== want.op || JSON.stringify(gotEdit) !== JSON.stringify(wantEdit)) {
            t.diagnostic(`advisory: ${entry.path} op or edit differs from expected.json; review the golden`);
          }
        });
      } finally {
        repo.cleanup();
      }
    });
  }
});
