// The group commit below the HTTP layer: every request of a group in one transaction on the event log; a request
// whose rows fail rolls back alone (the group is stored again with a savepoint per request) while the others commit.
import { describe, expect, it } from 'vitest';
import { openEventLog } from '../../src/db/open.ts';
import { EventDedup } from '../../src/ingest/event-dedup.ts';
import { storeGroup } from '../../src/ingest/store-group.ts';
import { enrichedPageview, openBlogDatabase } from '../storage-fixtures.ts';

describe('storeGroup', () => {
  it('stores every request of a group and reports the highest seq, and each request\'s seq range (0 and 0: none stored)', () => {
    const db = openBlogDatabase();
    const log = openEventLog(db.name);
    const first = enrichedPageview();
    const outcome = storeGroup(log, EventDedup.open(log, db.name), [{ events: [first, enrichedPageview()], quarantined: [] }, { events: [first], quarantined: [] }], 1);
    expect(outcome).toEqual({
      outcomes: [
        { ok: true, result: { accepted: 2, bots: 0, duplicates: 0, quarantined: 0, firstSeq: 1, lastSeq: 2 } },
        { ok: true, result: { accepted: 0, bots: 0, duplicates: 1, quarantined: 0, firstSeq: 0, lastSeq: 0 } },
      ],
      lastSeq: 2,
    });
    log.close();
    db.close();
  });

  it('rolls a failing request back alone: the requests before and after it are stored', () => {
    const db = openBlogDatabase();
    const log = openEventLog(db.name);
    const good = [enrichedPageview({ anonId: 'before' }), enrichedPageview({ anonId: 'after' })];
    // A row the table refuses (type is NOT NULL), after a good row of the same request: that row goes too.
    const failing = { events: [enrichedPageview({ anonId: 'failing' }), { ...enrichedPageview(), type: null as unknown as string }], quarantined: [] };
    const outcome = storeGroup(log, EventDedup.open(log, db.name), [{ events: [good[0]!], quarantined: [] }, failing, { events: [good[1]!], quarantined: [] }], 1);
    expect(outcome.outcomes.map((item) => item.ok)).toEqual([true, false, true]);
    expect(outcome.outcomes[1]).toEqual({ ok: false, message: expect.stringContaining('NOT NULL') });
    expect(log.prepare('SELECT anon_id FROM events ORDER BY seq').all()).toEqual([{ anon_id: 'before' }, { anon_id: 'after' }]);
    log.close();
    db.close();
  });
});
