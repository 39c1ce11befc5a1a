import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyWithRules } from '../../../../src/hygiene/classify/rules.js';
import { DEFAULT_CONFIG, type Proposal } from '../../../../src/hygiene/types.js';
import { brief, fixtureRepo, scanDir, signalsOf } from '../helpers.js';

const NUMBERED = [
  '# Rules', // 1
  '', // 2
  '- Use tabs for indentation. <!-- rule:1 -->', // 3
  '- Prefer small functions. <!-- rule:2 -->', // 4
  '<!-- rule:3 -->', // 5
  '- Name tests after the behaviour. <!-- rule:3 -->', // 6
  '- Keep commits small. <!-- rule:4 -->', // 7
  '- Write the changelog entry. <!-- rule:5 -->', // 8
  '',
  '```html',
  '<p>keep <!-- rule:9 --> in code</p>',
  '```',
  '',
].join('\n');

const edits = (proposals: Proposal[]) =>
  proposals
    .filter((p) => p.signals.some((s) => s.name === 'machine_markers'))
    .map((p) => ({ category: p.category, edit: p.exact_edit }));

describe('machine_markers', () => {
  it('reports a marker shape repeated on most lines, and the rules remove each marker exactly', async () => {
    const repo = fixtureRepo({ 'AGENTS.md': NUMBERED });
    const artifact = await scanDir(repo.dir);
    const signals = signalsOf(artifact, 'AGENTS.md', 'machine_markers');
    assert.deepEqual(
      signals.map((s) => ({ line: s.line, data: { ...s.data, tokens: typeof s.data!['tokens'] } })),
      [
        {
          line: 3,
          data: {
            shape: '<!-- rule:# -->',
            lines: [3, 4, 5, 6, 7, 8],
            start_line: 3,
            end_line: 8,
            tokens: 'number',
          },
        },
      ],
    );
    assert.ok((signals[0]!.data!['tokens'] as number) > 20);
    const proposals = classifyWithRules(artifact, DEFAULT_CONFIG, (p) =>
      p === 'AGENTS.md' ? NUMBERED : undefined,
    );
    const redundant = { class: 'bloat', subtype: 'redundant' };
    const replace = (n: number, match: string, replacement: string) => ({
      category: redundant,
      edit: { kind: 'replace-text', anchor: { start_line: n, end_line: n }, match, replacement },
    });
    assert.deepEqual(edits(proposals), [
      replace(3, '- Use tabs for indentation. <!-- rule:1 -->', '- Use tabs for indentation.'),
      replace(4, '- Prefer small functions. <!-- rule:2 -->', '- Prefer small functions.'),
      { category: redundant, edit: { kind: 'delete-range', anchor: { start_line: 5, end_line: 5 } } },
      replace(6, '- Name tests after the behaviour. <!-- rule:3 -->', '- Name tests after the behaviour.'),
      replace(7, '- Keep commits small. <!-- rule:4 -->', '- Keep commits small.'),
      replace(8, '- Write the changelog entry. <!-- rule:5 -->', '- Write the changelog entry.'),
    ]);
  });

  it('removes one marker text repeated on every line with one edit over its span', async () => {
    const text = `# Rules\n\n${['a', 'b', 'c', 'd', 'e'].map((x) => `- Rule ${x}. <!-- ai-managed -->`).join('\n')}\n`;
    const repo = fixtureRepo({ 'CLAUDE.md': text });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(
      brief(signalsOf(artifact, 'CLAUDE.md', 'machine_markers')).map((s) => s.line),
      [3],
    );
    const proposals = classifyWithRules(artifact, DEFAULT_CONFIG, (p) =>
      p === 'CLAUDE.md' ? text : undefined,
    );
    assert.deepEqual(edits(proposals), [
      {
        category: { class: 'bloat', subtype: 'redundant' },
        edit: {
          kind: 'replace-text',
          anchor: { start_line: 3, end_line: 7 },
          match: ' <!-- ai-managed -->',
          replacement: '',
        },
      },
    ]);
  });

  it('counts different ids on a few lines of a long file, not one text repeated as often', async () => {
    const prose = Array.from({ length: 30 }, (_, i) => `- Rule ${i}: keep it short.`);
    const withIds = [...prose];
    const withText = [...prose];
    for (const [k, at] of [0, 6, 12, 18, 24].entries()) {
      withIds[at] = `${prose[at]} <!-- rule:${100 + k} -->`;
      withText[at] = `${prose[at]} <!-- keep -->`;
    }
    const repo = fixtureRepo({
      'AGENTS.md': `# Rules\n\n${withIds.join('\n')}\n`,
      'CLAUDE.md': `# Rules\n\n${withText.join('\n')}\n`,
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(
      signalsOf(artifact, 'AGENTS.md', 'machine_markers').map((s) => s.data?.['lines']),
      [[3, 9, 15, 21, 27]],
    );
    assert.deepEqual(signalsOf(artifact, 'CLAUDE.md', 'machine_markers'), []);
  });

  it('leaves a few tool directives alone', async () => {
    const text = [
      '# Rules',
      '',
      '<!-- prettier-ignore -->',
      '| a | b |',
      '',
      '<!-- markdownlint-disable MD013 -->',
      '- One long rule.',
      '- Another rule.',
      '- A third rule.',
      '- A fourth rule.',
      '<!-- markdownlint-enable MD013 -->',
      '',
    ].join('\n');
    const repo = fixtureRepo({ 'AGENTS.md': text });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(signalsOf(artifact, 'AGENTS.md', 'machine_markers'), []);
  });
});
