/**
 * Suppression directives a repository writes cannot make `check` quadratic: a finding is
 * looked up among its line's directives and, per key, one region (binary search), never
 * against every directive of the doc. 30,000 disable/enable pairs beside 60,000 broken links
 * in one 3.5 MB README held a check for more than ten minutes, past SIGTERM.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { parseMarkdown } from '../../../src/hygiene/scan/markdown.js';
import { DocSuppressions } from '../../../src/hygiene/scan/suppress/directives.js';
import type { Signal } from '../../../src/hygiene/types.js';
import { makeRepo, type TestRepo, testEnv } from '../../helpers/git-repo.js';
import { CLI_PATH } from '../../helpers/paths.js';

const repos: TestRepo[] = [];
after(() => {
  for (const repo of repos) repo.cleanup();
});

const link = (line: number): Signal => ({
  name: 'broken_reference',
  line,
  detail: 'broken',
  data: { target: 'x.md', kind: 'link' },
});

describe('suppression directives in bulk', () => {
  it('where an enable and the next disable share a line, the first region is credited', () => {
    const text =
      '# T\n\n<!-- stw-disable -->\n[a](a.md)\n<!-- stw-enable --><!-- stw-disable -->\n[b](b.md)\n';
    const doc = new DocSuppressions(parseMarkdown(text));
    assert.deepEqual(
      [4, 5, 6].map((line) => doc.silencing(link(line))?.line),
      [3, 3, 5],
    );
  });

  it('12,000 disable/enable pairs and 24,000 findings in one doc: check answers well within a minute', async () => {
    const repo = makeRepo();
    repos.push(repo);
    const pairs = Array.from(
      { length: 12_000 },
      (_, i) =>
        `<!-- stw-disable broken_reference -->\n[x](m${i}.md)\n<!-- stw-enable -->\n<!-- stw-ignore-next-line -->\n[y](n${i}.md)\n\n`,
    );
    repo.commit('docs', { '.gitignore': '.dochygiene/\n', 'README.md': `# Readme\n\n${pairs.join('')}` });
    // Before the fix this took minutes (quadratic) and ignored SIGTERM; SIGKILL at 60 s fails it.
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [CLI_PATH, 'hygiene', 'check', '--no-cache', '--json'],
        {
          cwd: repo.dir,
          env: testEnv(),
          timeout: 60_000,
          killSignal: 'SIGKILL',
          maxBuffer: 64 * 1024 * 1024,
        },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
      );
    });
    const json = JSON.parse(stdout) as {
      findings: unknown[];
      summary: { signal_counts: { suppressed: number } };
    };
    assert.equal(json.summary.signal_counts.suppressed, 24_000);
    assert.deepEqual(json.findings, []);
  });
});
