import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { schemaPath } from '../../../../src/core/package.js';
import { HISTORY_SIGNALS, SIGNAL_MODULES } from '../../../../src/hygiene/scan/signals/index.js';

describe('signal modules', () => {
  it('are one per signal name of the scan schema, each with a description', () => {
    const schema = JSON.parse(readFileSync(schemaPath('scan.schema.json'), 'utf8'));
    const names: string[] = schema.definitions.signal.properties.name.enum;
    assert.deepEqual(SIGNAL_MODULES.map((m) => m.name).sort(), [...names].sort());
    for (const m of SIGNAL_MODULES) assert.ok(m.description.length > 0, m.name);
  });

  it('name the history signals by what they need', () => {
    assert.deepEqual(HISTORY_SIGNALS, [
      'edit_recency_vs_churn',
      'append_only_growth',
      'context_growth',
      'stale_nested_context',
      'dropped_tool_claim',
    ]);
  });
});
