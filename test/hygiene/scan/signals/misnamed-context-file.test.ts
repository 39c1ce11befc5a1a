import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { misnamedAs } from '../../../../src/hygiene/scan/signals/misnamed-context-file.js';
import { everySignal, fixtureRepo, scanDir } from '../helpers.js';

describe('misnamed_context_file', () => {
  it('reports names an agent would not load: a doubled dot, a wrong case, a singular, a typo, a wrong folder', async () => {
    const repo = fixtureRepo({
      'AGENTS..md': '# Agents\n',
      'sub/Claude.md': '# Claude\n',
      'AGENT.md': '# Agent\n',
      '.github/copilot_instructions.md': '# Copilot\n',
      'copilot-instructions.md': '# Copilot\n',
      'docs/agents.md': '# About our agents\n',
      'docs/gemini.md': '# The Gemini provider\n',
      'CLAUDE.md': '# Claude\n',
    });
    const artifact = await scanDir(repo.dir);
    const found = Object.entries(artifact.signals).flatMap(([path, list]) =>
      list
        .filter((s) => s.name === 'misnamed_context_file')
        .map((s) => [path, s.line, s.data!['expected_name']]),
    );
    assert.deepEqual(found, [
      ['.github/copilot_instructions.md', 1, '.github/copilot-instructions.md'],
      ['AGENT.md', 1, 'AGENTS.md'],
      ['AGENTS..md', 1, 'AGENTS.md'],
      ['copilot-instructions.md', 1, '.github/copilot-instructions.md'],
      ['sub/Claude.md', 1, 'sub/CLAUDE.md'],
    ]);
  });

  it('sees every tracked path in scope, not only the scanned docs: an upper-case extension no doc glob matches', async () => {
    const repo = fixtureRepo({
      'CLAUDE.MD': '# Claude\n',
      'pkg/AGENTS.MD': '# Package\n',
      'vendor/lib/Agents.md': '# Vendored\n',
      'src/AGENTS.md': '# Source\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(artifact.shortlist.includes('CLAUDE.MD'), false);
    assert.deepEqual(everySignal(artifact, 'misnamed_context_file'), [
      { path: 'CLAUDE.MD', line: 1, data: { expected_name: 'CLAUDE.md', exists: false } },
      { path: 'pkg/AGENTS.MD', line: 1, data: { expected_name: 'pkg/AGENTS.md', exists: false } },
      {
        path: 'vendor/lib/Agents.md',
        line: 1,
        data: { expected_name: 'vendor/lib/AGENTS.md', exists: false },
      },
    ]);
    // A scope keeps the check inside it.
    const scoped = await scanDir(repo.dir, { scopes: ['pkg'] });
    assert.deepEqual(
      everySignal(scoped, 'misnamed_context_file').map((s) => s.path),
      ['pkg/AGENTS.MD'],
    );
  });

  it('leaves the right names and unrelated names alone', () => {
    for (const path of [
      'CLAUDE.md',
      'src/AGENTS.md',
      '.github/copilot-instructions.md',
      'docs/agent.md',
      'README.md',
      'CHANGELOG.md',
    ])
      assert.equal(misnamedAs(path), undefined, path);
  });

  it('leaves a page named after a class or type it documents (docs/api/Agent.md)', async () => {
    const repo = fixtureRepo({
      'docs/api/Agent.md': '# Agent\n\nThe `Agent` class runs tools.\n',
      'docs/api/Agents.md': '# Agents\n\nThe `Agents` registry.\n',
      'docs/guide/Agent.md': '# Agent\n',
      'AGENT.md': '# Rules\n',
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(
      everySignal(artifact, 'misnamed_context_file').map((s) => s.path),
      ['AGENT.md'],
    );
  });
});
