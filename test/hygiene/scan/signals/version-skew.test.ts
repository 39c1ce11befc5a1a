import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brief, fixtureRepo, scanDir, signalsOf } from '../helpers.js';

describe('version_skew', () => {
  it('reports a runtime, project or dependency version that disagrees with package.json', async () => {
    const repo = fixtureRepo({
      'package.json': JSON.stringify({
        name: 'widget',
        version: '2.1.0',
        engines: { node: '>=20.19.0' },
        dependencies: { 'markdown-it': '^14.1.0' },
      }),
      'README.md': [
        '# Widget', // 1
        '', // 2
        'Requires Node.js 18 or later.', // 3
        '', // 4
        'Install with `npm install widget@1.4.0`.', // 5
        '', // 6
        'Uses markdown-it@13 for parsing and runs on Node 22.', // 7
        '',
      ].join('\n'),
    });
    const artifact = await scanDir(repo.dir);
    assert.deepEqual(brief(signalsOf(artifact, 'README.md', 'version_skew')), [
      {
        line: 3,
        data: {
          subject: 'node',
          stated: '18',
          actual: '>=20.19.0',
          manifest: 'package.json',
          match: 'Node.js 18',
        },
      },
      {
        line: 5,
        data: {
          subject: 'widget',
          stated: '1.4.0',
          actual: '2.1.0',
          manifest: 'package.json',
          match: 'widget@1.4.0',
        },
      },
      {
        line: 7,
        data: {
          subject: 'markdown-it',
          stated: '13',
          actual: '^14.1.0',
          manifest: 'package.json',
          match: 'markdown-it@13',
        },
      },
    ]);
  });
});
