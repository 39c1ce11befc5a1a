import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatInstant } from '../../../src/core/clock.js';
import { decideReminder, localDay } from '../../../src/hygiene/state/reminder.js';
import type { HygieneState } from '../../../src/hygiene/types.js';
import { fc } from '../../helpers/property.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const instant = fc
  .date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true })
  .map((date) => formatInstant(date));

describe('decideReminder', () => {
  it('at most one reminder per local day, and only when the last check is missing or stale', () => {
    fc.assert(
      fc.property(
        fc.option(instant, { nil: null }),
        fc.option(instant, { nil: null }),
        instant,
        fc.integer({ min: 1, max: 60 }),
        (lastCheck, lastReminded, nowText, staleAfterDays) => {
          const now = new Date(nowText);
          const state: HygieneState = {
            last_check: lastCheck,
            last_clean: null,
            last_reminded: lastReminded,
          };
          const decision = decideReminder(state, now, staleAfterDays);
          if (decision.remind) {
            assert.ok(lastCheck === null || now.getTime() - Date.parse(lastCheck) > staleAfterDays * DAY_MS);
            assert.ok(lastReminded === null || localDay(new Date(lastReminded)) !== localDay(now));
            assert.match(decision.message, /\/hygiene check/);
            // Once stamped, the same day never reminds again.
            const again = decideReminder({ ...state, last_reminded: nowText }, now, staleAfterDays);
            assert.equal(again.remind, false);
          }
        },
      ),
    );
  });

  it('says how long ago the last check was, or that there was none', () => {
    const now = new Date('2026-11-29T10:00:00Z');
    const none = decideReminder({ last_check: null, last_clean: null, last_reminded: null }, now, 7);
    assert.equal(none.remind && none.daysSinceCheck, null);
    const old = decideReminder(
      { last_check: '2026-11-01T10:00:00Z', last_clean: null, last_reminded: null },
      now,
      7,
    );
    assert.ok(old.remind);
    assert.equal(
      old.message,
      'The last docs hygiene check was 28 days ago. Run /hygiene check to find stale and bloated docs and agent-context files.',
    );
    const edge = decideReminder(
      { last_check: '2026-11-22T10:00:00Z', last_clean: null, last_reminded: null },
      now,
      7,
    );
    assert.deepEqual(
      edge,
      { remind: false, reason: 'checked-recently' },
      'exactly 7 days is not older than 7',
    );
  });
});
