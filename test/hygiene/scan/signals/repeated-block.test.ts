import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyWithRules } from '../../../../src/hygiene/classify/rules.js';
import { DEFAULT_CONFIG } from '../../../../src/hygiene/types.js';
import { brief, fixtureRepo, scanDir, signalsOf } from '../helpers.js';

const RULES = [
  '- Never commit generated files; run the generator and commit its inputs instead.',
  '- Keep every public function documented with an example that runs in the tests.',
];

const AGENTS = [
  '# Agents', // 1
  '', // 2
  '## Style', // 3
  '', // 4
  ...RULES, // 5-6
  '', // 7
  '## Testing', // 8
  '', // 9
  'Run `npm test` before you push.', // 10
  '', // 11
  ...RULES, // 12-13
  '', // 14
  'Run `npm test` before you push.', // 15
  '', // 16
  '## Release', // 17
  '', // 18
  'Tag the release from main.', // 19
  '',
].join('\n');

describe('repeated_block', () => {
  it('reports a rule block written twice in one file, with the span of its first copy, and the rules delete the second', async () => {
    const repo = fixtureRepo({ 'AGENTS.md': AGENTS, 'CLAUDE.md': '@AGENTS.md\n' });
    const artifact = await scanDir(repo.dir);
    const signals = signalsOf(artifact, 'AGENTS.md', 'repeated_block');
    assert.deepEqual(brief(signals), [
      {
        line: 12,
        data: { start_line: 12, end_line: 13, first_start_line: 5, first_end_line: 6, words: 25 },
      },
    ]);
    assert.match(signals[0]!.detail, /^lines 12–13 repeat lines 5–6 word for word \(25 words\)/);
    const proposals = classifyWithRules(artifact, DEFAULT_CONFIG, (p) =>
      p === 'AGENTS.md' ? AGENTS : undefined,
    ).filter((p) => p.signals.some((s) => s.name === 'repeated_block'));
    assert.deepEqual(
      proposals.map((p) => ({ category: p.category, op_type: p.op_type, edit: p.exact_edit })),
      [
        {
          category: { class: 'bloat', subtype: 'redundant' },
          op_type: 'deterministic',
          edit: { kind: 'delete-range', anchor: { start_line: 12, end_line: 14 } },
        },
      ],
    );
  });

  it('leaves short repeated lines, repeated code and distinct blocks alone', async () => {
    const text = [
      '# Agents',
      '',
      'Run `npm test`.',
      '',
      '```sh',
      'npm run build && npm test && npm run lint -- --fix --max-warnings 0 --cache',
      '```',
      '',
      'Run `npm test`.',
      '',
      '```sh',
      'npm run build && npm test && npm run lint -- --fix --max-warnings 0 --cache',
      '```',
      '',
      ...RULES,
      '',
      '- Never commit generated files; run the generator and commit its outputs instead.',
      '',
    ].join('\n');
    const repo = fixtureRepo({ 'AGENTS.md': text });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(signalsOf(artifact, 'AGENTS.md', 'repeated_block'), []);
  });
});
