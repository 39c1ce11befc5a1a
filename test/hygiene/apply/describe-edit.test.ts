import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeEdit } from '../../../src/hygiene/apply/describe-edit.js';
import { makeEntry } from '../../helpers/report.js';

describe('describeEdit: delete-range', () => {
  const entry = (anchor: [number, number]) =>
    makeEntry(undefined, { id: 'd', path: 'docs/a.md', kind: 'delete-range', anchor, text: 'a\nb\nc\n' });

  it('says the file goes only when the range is exactly every line', () => {
    assert.equal(describeEdit(entry([1, 3]), 3), 'delete the file (lines 1–3: every line)');
    assert.equal(describeEdit(entry([2, 3]), 3), 'delete lines 2–3 of 3');
    // An anchor past the end is skipped by the applier: it deletes nothing, least of all the file.
    assert.equal(describeEdit(entry([1, 5]), 3), 'delete lines 1–5 of 3');
    assert.equal(describeEdit(entry([1, 3])), 'delete lines 1–3 (the file itself if that is every line)');
  });
});
