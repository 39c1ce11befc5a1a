import assert from 'node:assert/strict';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { AgentContext } from '../../../src/hygiene/scan/context/index.js';
import { countTokens } from '../../../src/hygiene/tokens.js';
import { DEFAULT_CONFIG, type ScanArtifact } from '../../../src/hygiene/types.js';
import { makeRepo } from '../../helpers/git-repo.js';
import { fixtureRepo, removeLater, scanDir, scratchDir, signalsOf } from './helpers.js';

const agentOf = (artifact: ScanArtifact, id: string): AgentContext =>
  artifact.agents!.find((agent) => agent.agent === id)!;

/** A paragraph long enough to count as duplicated content if it were compared with itself. */
const RULES = `${'Run the whole test suite before every commit, and never skip a failing test. '.repeat(6)}\n`;
const AGENTS = `# Agent rules\n\n${RULES}\nThe app lives in \`src/app.ts\`.\n`;

describe('symlinks are one document', () => {
  it('scans CLAUDE.md → AGENTS.md once, under the real file, with its history and tokens', async () => {
    const repo = removeLater(makeRepo({ initialCommit: false }));
    repo.commit('rules', { 'AGENTS.md': AGENTS, 'src/app.ts': 'export const v = 0;\n' });
    for (let i = 1; i <= 12; i++) repo.commit(`app ${i}`, { 'src/app.ts': `export const v = ${i};\n` });
    // The link is the newest commit: were history read from it, nothing would have churned since.
    symlinkSync('AGENTS.md', repo.path('CLAUDE.md'));
    repo.git(['add', 'CLAUDE.md']);
    repo.commit('claude reads the same rules');
    const artifact = await scanDir(repo.dir, {
      config: { ...DEFAULT_CONFIG, context: { budget_tokens: 10 } },
    });

    assert.deepEqual(artifact.shortlist, ['AGENTS.md']);
    assert.equal(artifact.files_scanned, 1);
    assert.deepEqual(artifact.aliases, { 'AGENTS.md': ['CLAUDE.md'] });
    assert.deepEqual(artifact.agent_context, ['AGENTS.md']);
    assert.deepEqual(artifact.excluded, []);
    // Nothing is said about the link, and the file is never compared with itself.
    assert.deepEqual(Object.keys(artifact.signals), ['AGENTS.md']);
    assert.deepEqual(signalsOf(artifact, 'AGENTS.md', 'duplicate_content'), []);
    // Tokens once: one context_weight, on the real file.
    const tokens = countTokens(AGENTS);
    const weight = signalsOf(artifact, 'AGENTS.md', 'context_weight');
    assert.equal(weight.length, 1);
    assert.equal((weight[0]!.data as { tokens: number }).tokens, tokens);
    // History is the real file's: its last commit is the first one, and the app churned since.
    const churn = signalsOf(artifact, 'AGENTS.md', 'edit_recency_vs_churn');
    assert.equal(churn.length, 1);
    assert.deepEqual(churn[0]!.data, {
      last_commit: '2026-01-01T00:00:00Z',
      commits_since: 12,
      referenced_paths: ['src/app.ts'],
    });
    // Each agent loads the one file by the path it reads; Claude Code reaches it through the link.
    assert.deepEqual(agentOf(artifact, 'claude-code').startup.files, [
      {
        path: 'AGENTS.md',
        aliases: ['CLAUDE.md'],
        tokens,
        bytes: Buffer.byteLength(AGENTS),
        rule: 'CLAUDE.md',
      },
    ]);
    assert.deepEqual(
      agentOf(artifact, 'codex').startup.files.map((f) => [f.path, f.aliases, f.tokens]),
      [['AGENTS.md', undefined, tokens]],
    );
  });

  it('resolves paths through a symlinked folder to the real files, fragments included', async () => {
    const repo = fixtureRepo({
      'README.md': [
        '# Project',
        '',
        '[install](guides/guide.md#install)',
        '[missing heading](guides/guide.md#nope)',
        '[folder](guides#intro)',
        '',
      ].join('\n'),
      'docs/README.md': `# Intro\n\n${RULES}`,
      'docs/guide.md': `# Guide\n\n## Install\n\n${RULES}`,
    });
    symlinkSync('docs', repo.path('guides'));
    repo.git(['add', 'guides']);
    repo.commit('guides is docs');
    const artifact = await scanDir(repo.dir);

    assert.deepEqual(artifact.shortlist, ['README.md', 'docs/README.md', 'docs/guide.md']);
    assert.deepEqual(artifact.aliases, {
      'docs/README.md': ['guides/README.md'],
      'docs/guide.md': ['guides/guide.md'],
    });
    // The fragments are checked in the real files: only the missing heading is reported.
    assert.deepEqual(
      signalsOf(artifact, 'README.md', 'broken_reference').map((s) => [s.line, s.detail]),
      [[4, 'fragment "#nope" matches no heading in "docs/guide.md"']],
    );
    // The two real docs share a paragraph: that is a copy; no path is compared with itself.
    const copies = Object.entries(artifact.signals).flatMap(([path, list]) =>
      list.filter((s) => s.name === 'duplicate_content').map(() => path),
    );
    assert.equal(copies.length, 1);
    assert.ok(copies.every((path) => path.startsWith('docs/')));
  });

  it('never follows a symlink out of the root: the file and links through it are unresolved', async () => {
    const outside = scratchDir('stw-outside-');
    writeFileSync(join(outside, 'secret.md'), '# Secret\n\n[gone](gone.md)\n');
    const repo = fixtureRepo({
      'README.md': '# Readme\n\n[escape](escape.md)\n[through](ext/secret.md)\n',
    });
    symlinkSync(join(outside, 'secret.md'), repo.path('escape.md'));
    symlinkSync(outside, repo.path('ext'));
    repo.git(['add', 'escape.md', 'ext']);
    repo.commit('links out');
    const artifact = await scanDir(repo.dir);

    assert.deepEqual(artifact.shortlist, ['README.md']);
    assert.equal(artifact.aliases, undefined);
    assert.deepEqual(artifact.excluded, [
      { path: 'escape.md', reason: 'symlink-outside-root', detail: join(outside, 'secret.md') },
    ]);
    assert.deepEqual(
      signalsOf(artifact, 'README.md', 'broken_reference').map((s) => [
        s.line,
        (s.data as { symlink?: string }).symlink,
        s.detail,
      ]),
      [
        [
          3,
          'outside-root',
          'link target "escape.md" does not resolve: "escape.md" is a symlink out of the project',
        ],
        [
          4,
          'outside-root',
          'link target "ext/secret.md" does not resolve: "ext" is a symlink out of the project',
        ],
      ],
    );
  });

  it('reports a dangling symlink as an unresolved reference and excludes it', async () => {
    const repo = fixtureRepo({
      'README.md': '# Readme\n\n[old](docs/old.md)\n[notes](notes/a.md)\n',
      'docs/live.md': '# Live\n',
    });
    symlinkSync('gone.md', repo.path('docs/old.md'));
    symlinkSync('missing-folder', repo.path('notes'));
    repo.git(['add', 'docs/old.md', 'notes']);
    repo.commit('dangling');
    const artifact = await scanDir(repo.dir);

    assert.deepEqual(artifact.shortlist, ['README.md', 'docs/live.md']);
    assert.deepEqual(artifact.excluded, [
      { path: 'docs/old.md', reason: 'dangling-symlink', detail: 'to "gone.md"' },
    ]);
    assert.deepEqual(
      signalsOf(artifact, 'README.md', 'broken_reference').map((s) => [
        s.line,
        (s.data as { symlink?: string }).symlink,
        s.detail,
      ]),
      [
        [
          3,
          'dangling',
          'link target "docs/old.md" does not resolve: "docs/old.md" is a symlink to nothing ("gone.md")',
        ],
        [
          4,
          'dangling',
          'link target "notes/a.md" does not resolve: "notes" is a symlink to nothing ("missing-folder")',
        ],
      ],
    );
  });
});
