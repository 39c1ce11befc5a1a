import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { describe, it } from 'node:test';
import { brief, fixtureRepo, scanDir, signalsOf } from '../helpers.js';

const guide = `# Contributing\n\n${Array.from({ length: 400 }, (_, i) => `- Step ${i}: describe the change, run the checks, and ask for a review of part ${i}.`).join('\n')}\n`;

describe('context_coverage', () => {
  it('reports an AGENTS.md Claude Code never reads, and not one it imports or links', async () => {
    const repo = fixtureRepo({
      'AGENTS.md': '# Agents\n\nRun the tests.\n',
      'CLAUDE.md': '# Claude\n\nBe brief.\n',
      'pkg/AGENTS.md': '# Package\n',
      'lib/AGENTS.md': '# Lib\n',
      'lib/CLAUDE.md': '@AGENTS.md\n',
      'app/AGENTS.md': '# App\n',
      'app/CLAUDE.md': 'Read [the rules](AGENTS.md).\n',
    });
    const artifact = await scanDir(repo.dir);
    const found = Object.entries(artifact.signals).flatMap(([path, list]) =>
      list.filter((s) => s.name === 'context_coverage').map((s) => ({ path, line: s.line, data: s.data })),
    );
    assert.deepEqual(found, [
      {
        path: 'AGENTS.md',
        line: 1,
        data: { reason: 'agents-md-not-read-by-claude', claude_file: 'CLAUDE.md', claude_file_exists: true },
      },
      {
        path: 'pkg/AGENTS.md',
        line: 1,
        data: {
          reason: 'agents-md-not-read-by-claude',
          claude_file: 'pkg/CLAUDE.md',
          claude_file_exists: false,
        },
      },
    ]);
  });

  it('reports a CLAUDE.md that is a symlink to a long guide written for people', async () => {
    const repo = fixtureRepo({
      'CONTRIBUTING.md': guide,
      'AGENTS.md': '# Agents\n\n@CLAUDE.md is not read here.\n',
    });
    symlinkSync('CONTRIBUTING.md', repo.path('CLAUDE.md'));
    repo.git(['add', '-A']);
    repo.commit('link');
    const artifact = await scanDir(repo.dir);
    const [signal] = signalsOf(artifact, 'CLAUDE.md', 'context_coverage');
    assert.equal(signal?.line, 1);
    assert.deepEqual(
      { ...signal!.data, tokens: 0 },
      {
        reason: 'symlink-to-guide',
        target: 'CONTRIBUTING.md',
        tokens: 0,
        budget: 2000,
      },
    );
    assert.ok((signal!.data!['tokens'] as number) > 2000);
    assert.deepEqual(brief(signalsOf(artifact, 'CONTRIBUTING.md', 'context_coverage')), []);
  });
});
