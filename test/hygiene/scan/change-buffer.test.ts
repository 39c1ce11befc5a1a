import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChangeBuffer } from '../../../src/hygiene/scan/change-buffer.js';
import type { HistoryChange } from '../../../src/hygiene/scan/history.js';
import { fc } from '../../helpers/property.js';

const OID = /^[0-9a-f]{40}$/;

describe('ChangeBuffer', () => {
  it('gives back every change in order, blob ids only for the paths that may be docs', () => {
    const change = fc.record(
      {
        path: fc.constantFrom('docs/a.md', 'docs/b.md', 'src/x.ts', 'src/y.ts', 'ünï/cødé.md'),
        from: fc.constantFrom('old/a.md', 'src/old.ts'),
        status: fc.constantFrom('A', 'M', 'D', 'R'),
        oldOid: fc.stringMatching(OID),
        newOid: fc.stringMatching(OID),
      },
      { requiredKeys: ['path', 'status'] },
    );
    fc.assert(
      fc.property(fc.array(fc.array(change, { maxLength: 4 }), { maxLength: 3000 }), (commits) => {
        const pushed: HistoryChange[] = [];
        commits.forEach((changes, commit) => {
          for (const c of changes) pushed.push({ ...c, commit, time: 1_700_000_000 + commit * 60 });
        });
        const buffer = new ChangeBuffer((path) => path.endsWith('.md'));
        for (const c of pushed) buffer.push({ ...c });
        assert.equal(buffer.length, pushed.length);
        const drained: HistoryChange[] = [];
        buffer.drain((c) => drained.push(c));
        assert.equal(buffer.length, 0);
        const expected = pushed.map((c) => {
          if (c.path.endsWith('.md')) return c;
          const { oldOid: _old, newOid: _new, ...rest } = c;
          return rest;
        });
        assert.deepEqual(drained, expected);
      }),
      { numRuns: 30 },
    );
  });
});
