import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { formatInstant } from '../../../src/core/clock.js';
import { parseConfig } from '../../../src/hygiene/config.js';
import { decideReminder, localDay, readStaleAfterDays } from '../../../src/hygiene/state/reminder.js';
import type { HygieneState } from '../../../src/hygiene/types.js';
import { makeTempDir } from '../../helpers/git-repo.js';
import { fc } from '../../helpers/property.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const instant = fc
  .date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true })
  .map((date) => formatInstant(date));

describe('decideReminder', () => {
  it('at most one reminder per local day, and only when the last check is missing or stale', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.option(instant, { nil: null }),
        fc.option(instant, { nil: null }),
        instant,
        fc.integer({ min: 1, max: 60 }),
        async (lastCheck, lastReminded, nowText, staleAfterDays) => {
          const now = new Date(nowText);
          const state: HygieneState = {
            last_check: lastCheck,
            last_clean: null,
            last_reminded: lastReminded,
          };
          const decision = await decideReminder(state, now, () => staleAfterDays);
          if (decision.remind) {
            assert.ok(lastCheck === null || now.getTime() - Date.parse(lastCheck) > staleAfterDays * DAY_MS);
            assert.ok(lastReminded === null || localDay(new Date(lastReminded)) !== localDay(now));
            assert.match(decision.message, /\/stw:hygiene check/);
            // Once stamped, the same day never reminds again.
            const again = await decideReminder(
              { ...state, last_reminded: nowText },
              now,
              () => staleAfterDays,
            );
            assert.equal(again.remind, false);
          }
        },
      ),
    );
  });

  it('says how long ago the last check was, or that there was none', async () => {
    const now = new Date('2026-11-29T10:00:00Z');
    const none = await decideReminder(
      { last_check: null, last_clean: null, last_reminded: null },
      now,
      () => {
        throw new Error('no check: the threshold is not needed');
      },
    );
    assert.equal(none.remind && none.daysSinceCheck, null);
    const old = await decideReminder(
      { last_check: '2026-11-01T10:00:00Z', last_clean: null, last_reminded: null },
      now,
      () => 7,
    );
    assert.ok(old.remind);
    assert.equal(
      old.message,
      'The last docs hygiene check was 28 days ago. Run /stw:hygiene check (or stw hygiene check) to find stale and bloated docs and agent-context files.',
    );
    const edge = await decideReminder(
      { last_check: '2026-11-22T10:00:00Z', last_clean: null, last_reminded: null },
      now,
      () => 7,
    );
    assert.deepEqual(
      edge,
      { remind: false, reason: 'checked-recently' },
      'exactly 7 days is not older than 7',
    );
  });

  it('reads the threshold only when the answer depends on it', async () => {
    const now = new Date('2026-11-29T10:00:00Z');
    let reads = 0;
    const threshold = () => {
      reads += 1;
      return 3;
    };
    const base = { last_clean: null, last_reminded: null };
    await decideReminder({ ...base, last_check: null }, now, threshold);
    await decideReminder({ ...base, last_check: '2026-11-29T00:00:00Z' }, now, threshold);
    await decideReminder(
      { last_check: '2026-11-01T00:00:00Z', last_clean: null, last_reminded: '2026-11-29T08:00:00Z' },
      now,
      threshold,
    );
    assert.equal(reads, 0, 'never checked, checked within a day, reminded today: no read');
    const twoDays = await decideReminder({ ...base, last_check: '2026-11-27T09:00:00Z' }, now, threshold);
    assert.deepEqual([twoDays, reads], [{ remind: false, reason: 'checked-recently' }, 1]);
    const fourDays = await decideReminder({ ...base, last_check: '2026-11-25T09:00:00Z' }, now, threshold);
    assert.deepEqual([fourDays.remind, reads], [true, 2]);
  });
});

describe('readStaleAfterDays', () => {
  it('reads the key as the config loader does, in every way YAML can write it', async () => {
    // The reminder parses with js-yaml, the config loader with yaml: both YAML 1.2 core.
    const configs = [
      'reminder:\n  stale_after_days: 3\n',
      'reminder: {stale_after_days: 4}\n',
      '"reminder":\n  "stale_after_days": 5 # five\n',
      'scan:\n  globs: ["**/*.md"]\nreminder:\n    stale_after_days: 0x10\n',
      '%YAML 1.2\n---\nreminder:\n  ? stale_after_days\n  : 12\n',
      'reminder:\n  stale_after_days: 2\ncontext:\n  budget_tokens: 900\n',
    ];
    const dir = makeTempDir();
    for (const text of configs) {
      writeFileSync(join(dir, '.dochygiene.yml'), text);
      assert.equal(await readStaleAfterDays(dir), parseConfig(text).reminder.stale_after_days, text);
    }
    writeFileSync(join(dir, '.dochygiene.yml'), 'reminder:\n  stale_after_days: 1.5\n');
    await assert.rejects(readStaleAfterDays(dir), /reminder\.stale_after_days: must be a positive integer/);
    assert.throws(() => parseConfig('reminder:\n  stale_after_days: 1.5\n'));
  });
});
